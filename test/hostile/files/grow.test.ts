// A file that holds more than its fstat size when it is read (one that grew
// after the fstat): the one bounded reader (src/util/readfile.ts) reads on to
// the end, and still never past its cap. A file of /proc is such a file every
// time (size 0 to fstat, text to read), so the case is met without a race.
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, statSync } from "node:fs";
import { HcpxError } from "../../../src/util/errors";
import { readBytes } from "../../../src/util/readfile";

const PROC = "/proc/self/limits";
const haveProc = existsSync(PROC) && statSync(PROC).isFile() && statSync(PROC).size === 0;

describe.skipIf(!haveProc)("a file longer than its fstat size when read", () => {
  it("is read to its end (not cut at the size the fstat gave), with or without the identity", () => {
    const whole = readFileSync(PROC, "utf8");
    expect(whole.length).toBeGreaterThan(100);
    expect(readBytes(PROC, "limits", 1024 * 1024).toString("utf8")).toBe(whole);
    const identity: { id?: string } = {};
    expect(readBytes(PROC, "limits", 1024 * 1024, { identity }).toString("utf8")).toBe(whole);
    expect(identity.id).toMatch(/^\d+:\d+:0:\d+:\d+$/);
  });

  it("is still bounded by the cap: more than it is file_too_large, whatever the fstat said", () => {
    let err: unknown;
    try {
      readBytes(PROC, "limits", 64);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HcpxError);
    expect((err as HcpxError).problems[0]).toMatchObject({ code: "file_too_large", file: "limits" });
  });
});

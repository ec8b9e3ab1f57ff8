// A file that holds more than its fstat size when it is read (one that grew
// after the fstat): the one bounded reader (src/util/readfile.ts) reads on to
// the end, and still never past its cap. A file of /proc is such a file every
// time (size 0 to fstat, text to read), so the case is met without a race.
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HcpxError } from "../../../src/util/errors";
import { readBytes } from "../../../src/util/readfile";
import { tmp } from "../../support/hcpx";

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

// the usual case, a file whose fstat size is its length: read whole into one buffer of that size (+1
// byte, to see the end), at any size around the 1 MiB chunks a file that grew is read on in
describe("a regular file, at sizes around the reader's chunk", () => {
  const MiB = 1024 * 1024;
  it("is read whole and exactly, up to its cap; one byte over the cap is file_too_large", () => {
    const dir = tmp("hcpx-readsize-");
    try {
      for (const size of [0, 1, 4095, MiB - 1, MiB, MiB + 1, 3 * MiB + 7]) {
        const f = join(dir, `f${size}`);
        const bytes = Buffer.alloc(size);
        for (let i = 0; i < size; i += 997) bytes[i] = (i / 997) & 0xff;
        writeFileSync(f, bytes);
        expect(readBytes(f, "f", 4 * MiB).equals(bytes), `${size} bytes`).toBe(true);
        expect(readBytes(f, "f", size).equals(bytes), `${size} bytes, cap ${size}`).toBe(true);
        if (size > 0)
          expect(() => readBytes(f, "f", size - 1), `${size} bytes, cap ${size - 1}`).toThrow(/more than the/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

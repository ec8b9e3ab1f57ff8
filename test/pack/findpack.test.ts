// findPack, the exec hot path's pack lookup: it parses only the surfaces that
// can declare the id, wherever the pack's directory is and whatever it is
// named, and still refuses two activated packs with one id.
import { execFileSync } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findPack, loadProject } from "../../src/pack/load";
import { HcpxError } from "../../src/util/errors";
import { scratchProject } from "../support/hcpx";

function project(dirs: string[], dir: string) {
  writeFileSync(
    join(dir, "hcp.config.json5"),
    JSON.stringify({ packs: dirs, grants: { allow: ["*"] }, sandbox: { roots: ["."], cwd: "." } }),
  );
  return loadProject({ config: join(dir, "hcp.config.json5"), user: false });
}

describe("findPack", () => {
  it("finds a pack whose directory is not named like its id, without reading unrelated packs (a FIFO there would block)", () => {
    const { dir } = scratchProject();
    cpSync(join(dir, "packs", "transit"), join(dir, "packs", "zz-trains"), { recursive: true });
    // an unrelated pack whose surface.json is a FIFO: reading it would hang this test
    cpSync(join(dir, "packs", "ledger"), join(dir, "packs", "fifo"), { recursive: true });
    execFileSync("rm", [join(dir, "packs", "fifo", "surface.json")]);
    execFileSync("mkfifo", [join(dir, "packs", "fifo", "surface.json")]);
    const p = project(["./packs/fifo", "./packs/ledger", "./packs/zz-trains"], dir);
    expect(findPack(p, "transit").dir).toBe(join(dir, "packs", "zz-trains"));
    expect(findPack(p, "ledger").dir).toBe(join(dir, "packs", "ledger"));
  }, 10_000);

  it("refuses two activated packs with the same id, as loadPacks does", () => {
    const { dir } = scratchProject();
    cpSync(join(dir, "packs", "ledger"), join(dir, "packs", "ledger-copy"), { recursive: true });
    const p = project(["./packs/ledger", "./packs/ledger-copy"], dir);
    let err: unknown;
    try {
      findPack(p, "ledger");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HcpxError);
    expect((err as HcpxError).problems[0]).toMatchObject({ code: "duplicate_pack" });
  });

  it("a surface that spells its id with a JSON5 escape is still found", () => {
    const { dir } = scratchProject();
    cpSync(join(dir, "packs", "transit"), join(dir, "packs", "other"), { recursive: true });
    const f = join(dir, "packs", "other", "surface.json");
    writeFileSync(f, readFileSync(f, "utf8").replace(/"id":\s*"transit"|id:\s*"transit"/, 'id: "tr\\u0061nsit"'));
    const p = project(["./packs/other"], dir);
    expect(findPack(p, "transit").dir).toBe(join(dir, "packs", "other"));
  });

  it("an unknown id is unknown_pack", () => {
    const { dir } = scratchProject();
    const p = project(["./packs/ledger"], dir);
    expect(() => findPack(p, "nope")).toThrow(/no activated pack 'nope'/);
  });
});

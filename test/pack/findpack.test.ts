// findPack, the exec hot path's pack lookup: it parses only the surfaces that
// can declare the id, wherever the pack's directory is and whatever it is
// named, and still refuses two activated packs with one id.
import { execFileSync } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
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

  it("31 packs: the id's duplicate among them, in a directory named otherwise, is refused however it declares the id (plain, escaped, in a broken pack)", () => {
    const { dir } = scratchProject();
    const fillers: string[] = [];
    for (let i = 0; i < 30; i++) {
      const id = `filler-${i}`;
      cpSync(join(dir, "packs", "ledger"), join(dir, "packs", id), { recursive: true });
      const f = join(dir, "packs", id, "surface.json");
      // every filler names transit in its text (unquoted, and in a longer string): none of them declares it
      writeFileSync(
        f,
        `// see packs/transit\n${readFileSync(f, "utf8")
          .replace(/"id":\s*"ledger"|id:\s*"ledger"/, `id: "${id}"`)
          .replace(/description:\s*"/, "description: \"not 'transit' but ")}`,
      );
      fillers.push(`./packs/${id}`);
    }
    const spellings: [string, (f: string) => void][] = [
      ["plain", () => {}],
      [
        "escaped",
        (f) =>
          writeFileSync(f, readFileSync(f, "utf8").replace(/id:\s*"transit"|"id":\s*"transit"/, 'id: "tr\\u0061nsit"')),
      ],
      ["broken", (f) => writeFileSync(join(dirname(f), "policy.json"), "{ rows: ")],
    ];
    for (const [how, spoil] of spellings) {
      const twin = join(dir, "packs", `zz-${how}`);
      cpSync(join(dir, "packs", "transit"), twin, { recursive: true });
      spoil(join(twin, "surface.json"));
      const p = project([...fillers.slice(0, 15), `./packs/zz-${how}`, ...fillers.slice(15), "./packs/transit"], dir);
      let err: unknown;
      try {
        findPack(p, "transit");
      } catch (e) {
        err = e;
      }
      expect(err, how).toBeInstanceOf(HcpxError);
      expect((err as HcpxError).problems[0], how).toMatchObject({ code: "duplicate_pack" });
      // without the twin: found, and every filler (which names transit but declares its own id) is not it
      expect(findPack(project([...fillers, "./packs/transit"], dir), "transit").dir).toBe(
        join(dir, "packs", "transit"),
      );
    }
  });

  it("a surface that names the id but declares another is not loaded: its broken policy stops nothing", () => {
    const { dir } = scratchProject();
    const f = join(dir, "packs", "ledger", "surface.json");
    writeFileSync(f, readFileSync(f, "utf8").replace(/description:\s*"/, "description: \"unlike 'transit', \""));
    writeFileSync(join(dir, "packs", "ledger", "policy.json"), "{ rows: ");
    cpSync(join(dir, "packs", "transit"), join(dir, "packs", "zz-trains"), { recursive: true });
    const p = project(["./packs/ledger", "./packs/zz-trains"], dir);
    expect(findPack(p, "transit").dir).toBe(join(dir, "packs", "zz-trains"));
  });

  it("an unknown id is unknown_pack", () => {
    const { dir } = scratchProject();
    const p = project(["./packs/ledger"], dir);
    expect(() => findPack(p, "nope")).toThrow(/no activated pack 'nope'/);
  });
});

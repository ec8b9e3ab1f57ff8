// The packs hcpx mcp keeps for its calls (src/mcp/pack-memo.ts): a confined write's kept programs
// (packBins) come from the project's active packs as their files are now, read again only when one
// of their files changed, never on every call.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PackMemo } from "../../src/mcp/pack-memo";
import { loadProject } from "../../src/pack/load";
import { RACY_MS } from "../../src/mcp/stamp";
import { fxPack, project } from "../runtime/support";

const cmd = { verb_key: "go", summary: "go", cli: ["go"], args: {} };

describe("the packs hcpx mcp keeps", () => {
  it("all active packs that load, the same ones while no pack file changed, read again when one did", () => {
    const p = project({ packs: [fxPack("one", "reach.mjs", [cmd]), fxPack("two", "tree.mjs", [cmd])] });
    writeFileSync(join(p.dir, "packs", "two", "policy.json"), "{ not json");
    let now = Date.now() + RACY_MS + 1000; // the files have aged: their stamps vouch for them
    const memo = new PackMemo(() => now);
    const proj = loadProject({ cwd: p.dir });
    const first = memo.packs(proj);
    // "two" does not load: it runs nothing, so it has no program to keep
    expect(first.map((x) => x.id)).toEqual(["one"]);
    expect(memo.packs(proj)).toBe(first);
    // one's called pack comes from the same memo
    expect(memo.pack(proj, "one")?.id).toBe("one");
    writeFileSync(join(p.dir, "packs", "two", "policy.json"), JSON.stringify({ rows: { go: { operation: "read" } } }));
    now = Date.now() + RACY_MS + 1000;
    const again = memo.packs(proj);
    expect(again).not.toBe(first);
    expect(again.map((x) => x.id)).toEqual(["one", "two"]);
  });

  it("a file changed within the last seconds is never vouched for: read on every call until it has aged", () => {
    const p = project({ packs: [fxPack("one", "reach.mjs", [cmd])] });
    const memo = new PackMemo(() => Date.now());
    const proj = loadProject({ cwd: p.dir });
    expect(memo.packs(proj)).not.toBe(memo.packs(proj));
  });
});

describe("the called pack a call keeps", () => {
  const three = () => {
    const p = project({
      packs: [fxPack("one", "reach.mjs", [cmd]), fxPack("two", "tree.mjs", [cmd]), fxPack("three", "tree.mjs", [cmd])],
    });
    return { dir: p.dir, proj: loadProject({ cwd: p.dir }) };
  };
  const aged = () => Date.now() + RACY_MS + 1000; // the files have aged: their stamps vouch for them
  const file = (dir: string, pack: string, f: string) => join(dir, "packs", pack, f);

  it("is kept while every pack's surface.json and its own policy.json are unchanged: N + 1 stats a call", () => {
    const { dir, proj } = three();
    const seen: string[] = [];
    const memo = new PackMemo(aged, (f) => {
      seen.push(f);
      return statSync(f, { throwIfNoEntry: false });
    });
    const first = memo.pack(proj, "one");
    expect(first?.id).toBe("one");
    seen.length = 0;
    expect(memo.pack(proj, "one")).toBe(first);
    expect(seen.sort()).toEqual(
      [
        file(dir, "one", "surface.json"),
        file(dir, "two", "surface.json"),
        file(dir, "three", "surface.json"),
        file(dir, "one", "policy.json"),
      ].sort(),
    );
    // another pack's policy decides nothing of which pack "one" is: not read again for it
    writeFileSync(file(dir, "two", "policy.json"), JSON.stringify({ rows: {} }));
    expect(memo.pack(proj, "one")).toBe(first);
  });

  it("is read again when its own policy.json changed", () => {
    const { dir, proj } = three();
    let now = aged();
    const memo = new PackMemo(() => now);
    const first = memo.pack(proj, "one")!;
    expect(first.policyRows.go?.operation).toBe("read");
    writeFileSync(
      file(dir, "one", "policy.json"),
      JSON.stringify({ rows: { go: { operation: "write", land: "local", confirm: true } } }),
    );
    now = aged();
    expect(memo.pack(proj, "one")?.policyRows.go?.operation).toBe("write");
  });

  it("is refused once another pack's surface.json declares its id too", () => {
    const { dir, proj } = three();
    let now = aged();
    const memo = new PackMemo(() => now);
    expect(memo.pack(proj, "one")?.id).toBe("one");
    const sf = file(dir, "three", "surface.json");
    writeFileSync(sf, readFileSync(sf, "utf8").replace(/"id":\s*"three"/, '"id": "one"'));
    expect(readFileSync(sf, "utf8")).toContain('"one"');
    now = aged();
    expect(memo.pack(proj, "one")).toBeUndefined();
  });
});

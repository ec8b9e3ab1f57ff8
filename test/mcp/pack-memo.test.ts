// The packs hcpx mcp keeps for its calls (src/mcp/pack-memo.ts): a confined write's kept programs
// (packBins) come from the project's active packs as their files are now, read again only when one
// of their files changed, never on every call.
import { writeFileSync } from "node:fs";
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

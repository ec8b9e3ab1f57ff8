// Golden files: the generate output for the example packs under a fixed config.
// After an intended change: UPDATE_GOLDEN=1 npx vitest run test/golden, then read
// the diff of test/golden/generate/ before committing it.
import { describe, expect, it } from "vitest";
import { cpSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { REPO, runHcpx, scratchProject } from "../support/hcpx";
import { GEN, readTree } from "../projection/tree";

const GOLDEN = join(REPO, "test/golden/generate");
export const GOLDEN_CONFIG = {
  packs: ["calc", "git", "inbox-watch", "ledger", "notes", "todo", "transit"],
  allow: ["calc.*", "git.*", "ledger.*", "notes.list", "notes.show", "notes.search", "notes.tags", "todo.list", "todo.get", "todo.delete", "transit.*"],
  deny: ["ledger.account.open", "ledger.entry.delete"],
};

describe("golden: hcpx generate on the example packs", () => {
  it("matches test/golden/generate/", async () => {
    const p = scratchProject(GOLDEN_CONFIG);
    const r = await runHcpx(["generate"], { cwd: p.dir });
    expect(r.code, r.stderr).toBe(0);
    const got = readTree(join(p.dir, GEN));
    if (process.env.UPDATE_GOLDEN) {
      rmSync(GOLDEN, { recursive: true, force: true });
      cpSync(join(p.dir, GEN), GOLDEN, { recursive: true });
    }
    expect(existsSync(GOLDEN), "no golden files: run UPDATE_GOLDEN=1 npx vitest run test/golden").toBe(true);
    const want = readTree(GOLDEN);
    const hint = "output differs from test/golden/generate/: if intended, run UPDATE_GOLDEN=1 npx vitest run test/golden and review the diff";
    expect([...got.keys()], hint).toEqual([...want.keys()]);
    for (const [path, content] of want) expect(got.get(path), `${path}: ${hint}`).toBe(content);
  });
});

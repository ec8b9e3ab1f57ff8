// Regressions for what the real hosts showed in the host e2e suite
// (test/hosts/e2e, `npm run test:hosts`): each case here failed there first.
import { describe, expect, it } from "vitest";
import { scratch, snapshot } from "./helpers";

describe("adopt: findings of the host e2e suite", () => {
  it("Codex and opencode share AGENTS.md and .agents/skills: adopted in separate calls and removed one by one, the tree is as before (no empty AGENTS.md, no empty dirs)", async () => {
    for (const order of [["codex", "opencode"], ["opencode", "codex"]]) {
      const s = scratch({ packs: ["ledger"] });
      const before = snapshot(s.dir);
      for (const h of order) expect((await s.adopt(h, "--write")).code).toBe(0);
      for (const h of order) {
        const r = await s.adopt(h, "--remove", "--write");
        expect(r.code, r.stderr).toBe(0);
      }
      expect(snapshot(s.dir)).toEqual(before);
    }
  });

  it("a shared AGENTS.md that held the user's text before: the last removal restores it byte for byte", async () => {
    const s = scratch({ packs: ["ledger"] });
    s.write("AGENTS.md", "# Agents\n\nThe user's notes.\n");
    const before = snapshot(s.dir);
    for (const h of ["codex", "opencode"]) expect((await s.adopt(h, "--write")).code).toBe(0);
    for (const h of ["codex", "opencode"]) expect((await s.adopt(h, "--remove", "--write")).code).toBe(0);
    expect(snapshot(s.dir)).toEqual(before);
  });
});

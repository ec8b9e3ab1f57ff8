// Regressions for what the real hosts showed in the host e2e suite
// (test/hosts/e2e, `npm run test:hosts`): each case here failed there first.
import { describe, expect, it } from "vitest";
import { scratch as scratchChild, snapshot, userConfigFromProject } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

describe("adopt: findings of the host e2e suite", () => {
  it("Codex and opencode share AGENTS.md and .agents/skills: adopted in separate calls and removed one by one, the tree is as before (no empty AGENTS.md, no empty dirs)", async () => {
    for (const order of [
      ["codex", "opencode"],
      ["opencode", "codex"],
    ]) {
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

describe("adopt opencode: the $schema opencode writes into its config", () => {
  const SCHEMA = '"$schema": "https://opencode.ai/config.json"';
  it("a new opencode.json starts with opencode's $schema (opencode 1.18 adds it to any config that lacks it, changing the project file); --remove deletes the file again", async () => {
    const s = scratch({ packs: ["ledger"] });
    const before = snapshot(s.dir);
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    expect(s.read("opencode.json").startsWith(`{\n  ${SCHEMA},\n  "mcp": {`)).toBe(true);
    expect((await s.adopt("opencode", "--remove", "--write")).code).toBe(0);
    expect(snapshot(s.dir)).toEqual(before);
  });

  it("an opencode.json hcpx created without $schema, to which opencode then added it: --remove still deletes it (user scope too)", async () => {
    const s = scratch({ packs: ["ledger"] });
    userConfigFromProject(s);
    const before = snapshot(s.home);
    expect((await s.adopt("opencode", "--scope", "user", "--write")).code).toBe(0);
    const f = "~/.config/opencode/opencode.json";
    // what opencode does to a config without $schema: insert it first
    s.write(f, s.read(f).replace(`{\n  ${SCHEMA},\n`, "{\n").replace("{\n", `{\n  ${SCHEMA},\n`));
    expect((await s.adopt("opencode", "--scope", "user", "--remove", "--write")).code).toBe(0);
    expect(snapshot(s.home)).toEqual(before);
  });

  it("a user's key beside $schema keeps the file: only the hcp entry goes", async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    s.write(
      "opencode.json",
      s.read("opencode.json").replace(`${SCHEMA},\n`, `${SCHEMA},\n  "model": "anthropic/claude",\n`),
    );
    expect((await s.adopt("opencode", "--remove", "--write")).code).toBe(0);
    expect(JSON.parse(s.read("opencode.json"))).toEqual({
      $schema: "https://opencode.ai/config.json",
      model: "anthropic/claude",
    });
  });
});

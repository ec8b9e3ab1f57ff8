// Two paths, one file: a symbolic link makes a host's file another host's (CLAUDE.md -> AGENTS.md,
// .cursor/skills -> ../.claude/skills). adopt refuses to write or remove through the second path
// what it keeps there for the first host (host_conflict, nothing written). Before, the last host's
// block replaced the other's (whose --check then saw a hand edit), and `adopt cursor --remove`
// deleted claude's Skill copies.
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envelope, noStack } from "../support/cli";
import { scratch as scratchChild } from "./helpers";
import { inProcess } from "../support/inproc";

const scratch = () => inProcess(scratchChild());

describe("one file reached by two hosts' paths", () => {
  it("remove through a linked skills folder keeps the other host's Skill copies", { timeout: 60_000 }, async () => {
    const s = scratch();
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    const skill = join(s.dir, ".claude", "skills", "ledger", "SKILL.md");
    const text = readFileSync(skill, "utf8");
    mkdirSync(join(s.dir, ".cursor"), { recursive: true });
    symlinkSync(join("..", ".claude", "skills"), join(s.dir, ".cursor", "skills"));
    expect((await s.adopt("cursor", "--write")).code).toBe(0); // the same copies: nothing to write there
    const r = await s.adopt("cursor", "--remove", "--write", "--json");
    noStack(r);
    expect(r.code).toBe(1);
    expect(envelope(r).error).toMatchObject({
      code: "host_conflict",
      message: expect.stringContaining("is .claude/skills/"),
    });
    expect(readFileSync(skill, "utf8")).toBe(text);
    expect((await s.adopt("claude", "--check")).code).toBe(0);
  });

  it(
    "an instructions file that is a link to another host's: refused, the other host's block kept",
    { timeout: 60_000 },
    async () => {
      const s = scratch();
      expect((await s.adopt("claude", "--write")).code).toBe(0);
      const claudeMd = join(s.dir, "CLAUDE.md");
      expect(existsSync(claudeMd)).toBe(true);
      const before = readFileSync(claudeMd, "utf8");
      // the user points AGENTS.md at CLAUDE.md, then adopts codex, which writes AGENTS.md
      symlinkSync("CLAUDE.md", join(s.dir, "AGENTS.md"));
      const r = await s.adopt("codex", "--write", "--json");
      noStack(r);
      expect(envelope(r).error).toMatchObject({ code: "host_conflict", file: "AGENTS.md" });
      expect(readFileSync(claudeMd, "utf8")).toBe(before);
      expect((await s.adopt("claude", "--check")).code).toBe(0);
    },
  );

  it("two hosts of one run whose files are one: refused before anything is written", { timeout: 60_000 }, async () => {
    const s = scratch();
    s.write("CLAUDE.md", "# notes\n");
    symlinkSync("CLAUDE.md", join(s.dir, "AGENTS.md"));
    const r = await s.adopt("claude", "codex", "--write", "--json");
    noStack(r);
    expect(envelope(r).error).toMatchObject({
      code: "host_conflict",
      message: expect.stringContaining("are one file"),
    });
    expect(readFileSync(join(s.dir, "CLAUDE.md"), "utf8")).toBe("# notes\n");
    expect(existsSync(join(s.dir, ".mcp.json"))).toBe(false);
  });
});

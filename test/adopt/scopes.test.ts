// Issue 26 §2: scopes that do not collide. With a user config of its own
// (activating `notes`), a project's adopt, generate and MCP entry hold only the
// project's packs (ledger, transit): no Skill, rule or block line for the
// user's pack in files the project commits. Both Claude Code scopes adopted:
// two server names (.mcp.json `hcp`, ~/.claude.json `hcp-user`), so Claude
// Code sees no "Conflicting scopes" and the project's entry does not hide the
// user's. status and doctor say which scope serves which packs.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HCPX } from "../support/cli";
import { connectMcp } from "../support/mcp";
import { writeUserConfig } from "../support/userconfig";
import { scratch as scratchChild } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

function withUserPack() {
  const s = scratch();
  const userFile = writeUserConfig(s.home, {
    packs: [join(s.dir, "packs/notes")],
    grants: { allow: ["notes.*"], deny: [] },
    sandbox: { roots: [s.dir], cwd: s.dir, bins: {} },
  });
  return { s, userFile };
}

describe("a project's files hold only the project's packs", () => {
  it(
    "adopt claude (project), generate and the project's MCP entry: nothing of the user's notes pack",
    { timeout: 60_000 },
    async () => {
      const { s } = withUserPack();
      const a = await s.adopt("claude", "--write");
      expect(a.code, a.stderr + a.stdout).toBe(0);
      expect(existsSync(join(s.dir, ".claude/skills/ledger/SKILL.md"))).toBe(true);
      expect(existsSync(join(s.dir, ".claude/skills/notes"))).toBe(false);
      expect(s.read(".claude/settings.json")).not.toContain("notes");
      expect(s.read("CLAUDE.md")).not.toContain("### notes");
      const g = await s.run(["generate"]);
      expect(g.code, g.stderr).toBe(0);
      expect(existsSync(join(s.dir, ".hcp/generated/skills/notes"))).toBe(false);
      expect(s.read(".hcp/generated/system-prompt.md")).not.toContain("### notes");
      const env = Object.fromEntries(
        Object.entries(s.env).filter((e): e is [string, string] => typeof e[1] === "string"),
      );
      const c = await connectMcp([HCPX, "mcp", "--shape", "per-command"], s.dir, env);
      try {
        const names = (await c.client.listTools()).tools.map((t) => t.name);
        expect(names).toContain("ledger__balance");
        expect(names.filter((n) => n.startsWith("notes__"))).toEqual([]);
      } finally {
        await c.client.close();
      }
    },
  );

  it(
    "both Claude Code scopes adopted: two server names, each entry serving its own config",
    { timeout: 60_000 },
    async () => {
      const { s, userFile } = withUserPack();
      expect((await s.adopt("claude", "--write")).code).toBe(0);
      const u = await s.adopt("claude", "--scope", "user", "--write");
      expect(u.code, u.stderr + u.stdout).toBe(0);
      const project = JSON.parse(s.read(".mcp.json")).mcpServers;
      const user = JSON.parse(readFileSync(join(s.home, ".claude.json"), "utf8")).mcpServers;
      expect(Object.keys(project)).toEqual(["hcp"]);
      expect(Object.keys(user)).toEqual(["hcp-user"]);
      expect(user["hcp-user"].args).toContain(userFile);
      const rules = JSON.parse(readFileSync(join(s.home, ".claude/settings.json"), "utf8")).permissions;
      expect(rules.allow).toContain("mcp__hcp-user__notes__list");
      expect(rules.allow).toContain("mcp__hcp-user__hcp__read_skill");
      expect(JSON.stringify(rules)).not.toContain("mcp__hcp__");
      // in sync, and removed byte for byte
      expect((await s.adopt("claude", "--scope", "user", "--check")).code).toBe(0);
      // a hand edit at user scope: doctor's hint names the scope, so the command it gives shows the edit
      const skill = join(s.home, ".claude/skills/notes/SKILL.md");
      const before = readFileSync(skill, "utf8");
      writeFileSync(skill, before + "\nmy note\n");
      const doc = JSON.parse((await s.run(["doctor", "--json"])).stdout);
      const checks = (doc.data?.checks ?? doc.error?.details?.checks ?? []) as { id: string; hint?: string }[];
      expect(checks.filter((c) => c.id === "host:claude").map((c) => c.hint)).toContain(
        "review with `hcpx adopt claude --scope user --check`",
      );
      writeFileSync(skill, before);
      expect((await s.adopt("claude", "--scope", "user", "--remove", "--write")).code).toBe(0);
      expect(
        existsSync(join(s.home, ".claude.json")) ? readFileSync(join(s.home, ".claude.json"), "utf8") : "gone",
      ).toBe("gone");
    },
  );

  it("status and doctor say which scope serves which packs", { timeout: 60_000 }, async () => {
    const { s } = withUserPack();
    const st = await s.run(["status", "--json"]);
    expect(JSON.parse(st.stdout).data.serves).toEqual({ project: ["ledger", "transit"], user: ["notes"] });
    const text = (await s.run(["status"])).stdout;
    expect(text).toMatch(/project scope \(.*hcp\.config\.json5\) serves: ledger, transit/);
    expect(text).toMatch(/user scope \(.*config\.json5\) serves: notes — not in this project's files/);
    const doc = JSON.parse((await s.run(["doctor", "--json"])).stdout);
    const checks = (doc.data?.checks ?? doc.error?.details?.checks ?? []) as { id: string; message: string }[];
    expect(checks.find((c) => c.id === "scopes")?.message).toMatch(
      /project scope .* serves: ledger, transit; user scope .* serves: notes/,
    );
  });

  it(
    "doctor plans a project-scope host as adopt does, with the project's packs alone: in sync right after adopt",
    { timeout: 60_000 },
    async () => {
      const { s } = withUserPack();
      expect((await s.adopt("claude", "--write")).code).toBe(0);
      expect((await s.adopt("claude", "--check")).code).toBe(0);
      const doc = JSON.parse((await s.run(["doctor", "--json"])).stdout);
      const checks = (doc.data?.checks ?? doc.error?.details?.checks ?? []) as {
        id: string;
        status: string;
        message: string;
      }[];
      const claude = checks.find((c) => c.id.includes("claude"));
      expect(claude, JSON.stringify(checks)).toBeDefined();
      expect(claude!.message).not.toMatch(/out of date/);
      expect(claude!.message).not.toContain("notes");
    },
  );
});

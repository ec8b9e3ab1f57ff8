// The host's permission rules as adopt writes them (descriptor `items` /
// `members`): hcpx adds its rules to the person's list and takes out only its
// own — across a re-run after a revoke, a person's edit in between, and
// --remove; a list that is not a list, or a person's rule that says otherwise,
// stops the run before anything is written.
import { describe, expect, it } from "vitest";
import { scratch as scratchChild } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

interface ClaudeSettings {
  permissions: { allow?: string[]; ask?: string[]; deny?: string[] };
  [k: string]: unknown;
}
const settings = (text: string) => JSON.parse(text) as ClaudeSettings;

describe("permission rules: items in the person's lists", () => {
  it("Claude Code: reads allowed, gated writes ask; a revoke takes the stale rule out; the person's rules (before and after adopt) stay", async () => {
    const s = scratch({ hcpxOnPath: true }); // the shell route's command is `hcpx` then, and so is the rule's
    s.write(
      ".claude/settings.json",
      `{\n  "permissions": { "allow": ["Bash(ls:*)", "mcp__hcp__ledger__balance"] }\n}\n`,
    );
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    let p = settings(s.read(".claude/settings.json")).permissions;
    expect(p.allow).toEqual(
      expect.arrayContaining([
        "Bash(ls:*)",
        "mcp__hcp__ledger__balance",
        "mcp__hcp__ledger__accounts",
        "Bash(hcpx exec ledger accounts:*)",
        "mcp__hcp__transit__plan",
        "mcp__hcp__hcp__read_skill",
      ]),
    );
    expect(p.ask).toEqual([
      "mcp__hcp__ledger__entry_delete",
      "Bash(hcpx exec ledger entry.delete:*)",
      "mcp__hcp__ledger__transfer",
      "Bash(hcpx exec ledger transfer:*)",
    ]);
    // the person adds a rule of their own, then revokes a read: the re-run takes only hcpx's stale rules out
    const mine = settings(s.read(".claude/settings.json"));
    mine.permissions.allow!.push("Bash(git status:*)");
    s.write(".claude/settings.json", JSON.stringify(mine, null, 2) + "\n");
    expect((await s.run(["revoke", "transit.*"])).code).toBe(0);
    expect((await s.run(["grant", "transit.plan"])).code).toBe(0);
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    p = settings(s.read(".claude/settings.json")).permissions;
    expect(p.allow).toContain("Bash(git status:*)");
    expect(p.allow).toContain("mcp__hcp__transit__plan");
    expect(p.allow).not.toContain("mcp__hcp__transit__departures");
    expect((await s.adopt("claude", "--check")).code).toBe(0);
    // --remove: hcpx's rules go, every rule of the person stays (also the one equal to an hcpx rule)
    expect((await s.adopt("claude", "--remove", "--write")).code).toBe(0);
    p = settings(s.read(".claude/settings.json")).permissions;
    expect(p.allow).toEqual(["Bash(ls:*)", "mcp__hcp__ledger__balance", "Bash(git status:*)"]);
    expect(p.ask).toBeUndefined();
  });

  it("Claude Code's shell rules name the command the block tells the model to run (hcpx not on PATH: the absolute one)", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    const block = s.read("CLAUDE.md");
    const cmd = /`([^`\n]+) exec <pack> <verb>/.exec(block)?.[1];
    expect(cmd, block).toBeDefined();
    expect(cmd).not.toBe("hcpx");
    const p = settings(s.read(".claude/settings.json")).permissions;
    expect(p.ask).toContain(`Bash(${cmd} exec ledger transfer:*)`);
    expect(p.allow).toContain(`Bash(${cmd} exec ledger accounts:*)`);
    expect([...(p.allow ?? []), ...(p.ask ?? [])].filter((r) => r.startsWith("Bash(hcpx "))).toEqual([]);
  });

  it("a settings file hcpx created is deleted again by --remove", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    expect(settings(s.read(".claude/settings.json")).permissions.ask!.length).toBeGreaterThan(0);
    expect((await s.adopt("claude", "--remove", "--write")).code).toBe(0);
    expect(() => s.read(".claude/settings.json")).toThrow();
  });

  it("permissions.allow that is not a list: a clear error with file and line, nothing written", async () => {
    const s = scratch();
    const text = `{\n  "permissions": {\n    "allow": "everything"\n  }\n}\n`;
    s.write(".claude/settings.json", text);
    const r = await s.adopt("claude", "--write", "--json");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: "not_a_list", file: ".claude/settings.json", line: 3 });
    expect(s.read(".claude/settings.json")).toBe(text);
    expect(() => s.read(".mcp.json")).toThrow();
  });
});

describe("permission rules: members of the person's object", () => {
  it("opencode: a person's own rule for a gated write that says allow stops the run (never silently weaker)", async () => {
    const s = scratch();
    const text = `{\n  "$schema": "https://opencode.ai/config.json",\n  "permission": { "hcp_ledger__transfer": "allow", "bash": "ask" }\n}\n`;
    s.write("opencode.json", text);
    const r = await s.adopt("opencode", "--write", "--json");
    expect(r.code).toBe(1);
    const { error } = JSON.parse(r.stdout) as { error: { code: string; file: string; line: number; message: string } };
    expect(error).toMatchObject({ code: "not_ours", file: "opencode.json", line: 3 });
    expect(error.message).toContain("`permission.hcp_ledger__transfer`");
    expect(s.read("opencode.json")).toBe(text);
  });

  it("opencode: --remove gives the person's permission object back byte for byte", async () => {
    const s = scratch();
    const text = `{\n  "$schema": "https://opencode.ai/config.json",\n  "permission": { "bash": "ask" }\n}\n`;
    s.write("opencode.json", text);
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    const perm = (JSON.parse(s.read("opencode.json")) as { permission: Record<string, string> }).permission;
    expect(perm).toMatchObject({ bash: "ask", hcp_ledger__balance: "allow", hcp_ledger__transfer: "ask" });
    expect((await s.adopt("opencode", "--remove", "--write")).code).toBe(0);
    expect(s.read("opencode.json")).toBe(text);
  });
});

// Every approval gate a host has (issue 27 §2), written from the same Policy as
// Claude Code's and Codex's: granted reads run without the host asking, confirm-gated
// writes reach the host's approval, ungranted commands are absent. Each host's rule
// shape is data in its descriptor (a list of strings, a list of objects, an `{ items }`
// field of the MCP entry); --remove takes out only hcpx's rules; a rule the person
// wrote that lets a gated write run without asking is named by `adopt --check` and
// `doctor` (and left alone).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseJsonc } from "jsonc-parser";
import { scratch as scratchChild, userConfigFromProject } from "./helpers";
import { inProcess } from "../support/inproc";
import { warningsOf } from "../support/approval";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

type Json = Record<string, unknown>;
const jsonc = (text: string) => parseJsonc(text) as Json;
// the scratch project grants ledger reads (balance, accounts, entries), the gated writes
// ledger.transfer and ledger.entry.delete (confirm: true), and transit's reads
describe("approval gates written from the Policy, per host", () => {
  it("Cursor: the reads on permissions.json's mcpAllowlist (server:tool), no gated write; the person's entries stay; --remove gives the file back", async () => {
    const s = scratch();
    const mine = `// my allowlist\n{\n  "mcpAllowlist": ["github:list_issues"],\n  "terminalAllowlist": ["git"]\n}\n`;
    s.write(".cursor/permissions.json", mine);
    expect((await s.adopt("cursor", "--write")).code).toBe(0);
    const p = jsonc(s.read(".cursor/permissions.json")) as { mcpAllowlist: string[]; terminalAllowlist: string[] };
    expect(p.mcpAllowlist[0]).toBe("github:list_issues");
    expect(p.mcpAllowlist).toEqual(
      expect.arrayContaining(["hcp:hcp__read_skill", "hcp:ledger__balance", "hcp:transit__plan"]),
    );
    expect(p.mcpAllowlist.some((x) => x.includes("transfer") || x.includes("delete"))).toBe(false);
    // the allow-list tells tools apart only when there is one tool per command
    expect(JSON.stringify(jsonc(s.read(".cursor/mcp.json")))).toContain("per-command");
    expect((await s.adopt("cursor", "--remove", "--write")).code).toBe(0);
    expect(s.read(".cursor/permissions.json")).toBe(mine);
  });

  it("Kiro: the MCP entry's autoApprove lists the reads, never a gated write", async () => {
    const s = scratch();
    expect((await s.adopt("kiro", "--write")).code).toBe(0);
    const hcp = (
      jsonc(s.read(".kiro/settings/mcp.json")) as { mcpServers: { hcp: { autoApprove: string[]; args: string[] } } }
    ).mcpServers.hcp;
    expect(hcp.args.slice(-2)).toEqual(["--shape", "per-command"]);
    expect(hcp.autoApprove).toEqual(expect.arrayContaining(["hcp__read_skill", "ledger__balance", "transit__plan"]));
    expect(hcp.autoApprove.some((x) => x.includes("transfer") || x.includes("delete"))).toBe(false);
  });

  it("Cline (user scope): the MCP entry's autoApprove holds the read-only hcp__read_skill (its CLI gets the single hcp tool)", async () => {
    const s = scratch();
    userConfigFromProject(s);
    const r = await s.run(["adopt", "cline", "--scope", "user", "--write"]);
    expect(r.code, r.stderr).toBe(0);
    const hcp = (
      jsonc(readFileSync(join(s.home, ".cline/data/settings/cline_mcp_settings.json"), "utf8")) as {
        mcpServers: { hcp: { autoApprove: string[] } };
      }
    ).mcpServers.hcp;
    expect(hcp.autoApprove).toEqual(["hcp__read_skill"]);
  });

  it("Augment: toolPermissions, a list of objects — reads allow, gated writes ask-user; the person's rules stay; --remove takes out only hcpx's", async () => {
    const s = scratch();
    const mine = `{\n  "toolPermissions": [\n    { "toolName": "launch-process", "permission": { "type": "ask-user" } }\n  ]\n}\n`;
    s.write(".augment/settings.json", mine);
    expect((await s.adopt("auggie", "--write")).code).toBe(0);
    const rules = (
      jsonc(s.read(".augment/settings.json")) as {
        toolPermissions: { toolName: string; permission: { type: string } }[];
      }
    ).toolPermissions;
    expect(rules[0]).toEqual({ toolName: "launch-process", permission: { type: "ask-user" } });
    expect(rules).toContainEqual({ toolName: "ledger__balance_hcp", permission: { type: "allow" } });
    expect(rules).toContainEqual({ toolName: "hcp__read_skill_hcp", permission: { type: "allow" } });
    expect(rules).toContainEqual({ toolName: "ledger__transfer_hcp", permission: { type: "ask-user" } });
    expect(rules.some((r) => r.toolName.includes("transfer") && r.permission.type === "allow")).toBe(false);
    expect((await s.adopt("auggie", "--check")).code).toBe(0);
    expect((await s.adopt("auggie", "--remove", "--write")).code).toBe(0);
    expect(s.read(".augment/settings.json")).toBe(mine);
  });

  it("Amp: amp.permissions objects — reads allow, gated writes ask (Amp's built-in rules allow every MCP tool)", async () => {
    const s = scratch();
    expect((await s.adopt("amp", "--write")).code).toBe(0);
    const rules = (jsonc(s.read(".amp/settings.json")) as { "amp.permissions": { tool: string; action: string }[] })[
      "amp.permissions"
    ];
    expect(rules).toContainEqual({ tool: "mcp__hcp__ledger__balance", action: "allow" });
    expect(rules).toContainEqual({ tool: "mcp__hcp__ledger__transfer", action: "ask" });
    expect(rules).toContainEqual({ tool: "mcp__hcp__ledger__entry_delete", action: "ask" });
  });

  it("Amp: the MCP entry and the rules in one JSONC file after the person's `// comment`: --remove gives it back byte for byte", async () => {
    const s = scratch();
    const mine = `{\n  "amp.notifications.enabled": false, // mine\n}\n`;
    s.write(".amp/settings.json", mine);
    expect((await s.adopt("amp", "--write")).code).toBe(0);
    const r = await s.adopt("amp", "--remove", "--write");
    expect(r.code, r.stderr).toBe(0);
    expect(s.read(".amp/settings.json")).toBe(mine);
  });

  it("Qwen Code and Devin: permissions.allow the reads, permissions.ask the gated writes (ask wins over allow there)", async () => {
    const s = scratch();
    expect((await s.adopt("qwen", "devin", "--write")).code).toBe(0);
    for (const f of [".qwen/settings.json", ".devin/config.json"]) {
      const p = (jsonc(s.read(f)) as { permissions: { allow: string[]; ask: string[] } }).permissions;
      expect(p.allow, f).toEqual(expect.arrayContaining(["mcp__hcp__ledger__balance", "mcp__hcp__hcp__read_skill"]));
      expect(p.ask, f).toEqual(
        expect.arrayContaining(["mcp__hcp__ledger__transfer", "mcp__hcp__ledger__entry_delete"]),
      );
      expect(
        p.allow.some((x) => x.includes("transfer")),
        f,
      ).toBe(false);
    }
  });
});

describe("a rule of the person's that widens the Policy is named (never changed)", () => {
  it("Amp: an earlier `mcp__hcp__*` allow decides before hcpx's ask: adopt --check and doctor warn, naming the rule and the tool", async () => {
    const s = scratch();
    const mine = `{\n  "amp.permissions": [{ "tool": "mcp__hcp__*", "action": "allow" }]\n}\n`;
    s.write(".amp/settings.json", mine);
    const w = await s.adopt("amp", "--write", "--json");
    expect(w.code, w.stdout + w.stderr).toBe(0);
    const c = await s.adopt("amp", "--check", "--json");
    // a widened Policy fails the check, with the rule's own hint (a --write would not change the person's rule)
    expect(c.code).toBe(1);
    const widened = warningsOf(c.stdout).filter((x) => x.code === "policy_widened");
    expect(widened.map((x) => x.message).join("\n")).toMatch(/mcp__hcp__\*.*mcp__hcp__ledger__transfer/);
    expect((JSON.parse(c.stdout) as { error: { hint: string } }).error.hint).toMatch(/narrow or remove that rule/);
    const d = await s.run(["doctor", "--json"]);
    expect(d.stdout).toMatch(/lets mcp__hcp__ledger__transfer run without asking/);
    // the rule is the person's: still first, unchanged
    const rules = (jsonc(s.read(".amp/settings.json")) as { "amp.permissions": unknown[] })["amp.permissions"];
    expect(rules[0]).toEqual({ tool: "mcp__hcp__*", action: "allow" });
  });

  it("Cursor: `hcp:*` on the allow-list covers the gated writes; a rule naming only a read does not", async () => {
    const s = scratch();
    s.write(".cursor/permissions.json", `{ "mcpAllowlist": ["hcp:*", "hcp:ledger__balance"] }\n`);
    const r = await s.adopt("cursor", "--check", "--json");
    const msgs = warningsOf(r.stdout)
      .filter((x) => x.code === "policy_widened")
      .map((x) => x.message);
    expect(msgs.some((m) => m.includes('"hcp:*"') && m.includes("hcp:ledger__transfer"))).toBe(true);
    expect(msgs.some((m) => m.includes('"hcp:ledger__balance"'))).toBe(false);
  });

  it("Augment: a later allow does not widen (the first matching rule decides); an earlier one does", async () => {
    const s = scratch();
    expect((await s.adopt("auggie", "--write")).code).toBe(0);
    const doc = jsonc(s.read(".augment/settings.json")) as { toolPermissions: unknown[] };
    doc.toolPermissions.push({ toolName: "ledger__transfer_hcp", permission: { type: "allow" } });
    s.write(".augment/settings.json", JSON.stringify(doc, null, 2) + "\n");
    expect(
      warningsOf((await s.adopt("auggie", "--check", "--json")).stdout).some((x) => x.code === "policy_widened"),
    ).toBe(false);
    doc.toolPermissions.unshift({ toolName: "ledger__transfer_hcp", permission: { type: "allow" } });
    s.write(".augment/settings.json", JSON.stringify(doc, null, 2) + "\n");
    expect(
      warningsOf((await s.adopt("auggie", "--check", "--json")).stdout).some((x) => x.code === "policy_widened"),
    ).toBe(true);
  });
});

// issue 27 §2: what switches a host's own asking off is a setting of the person's too (descriptor
// gate.inForce, the facts `hcpx mcp --host` checks before it counts the host's prompt): adopt --check
// and doctor name it, next to the rules — never changed
describe("a setting of the person's that switches the host's asking off is named (never changed)", () => {
  it('Kimi Code (user scope): default_permission_mode "auto" or "yolo" in ~/.kimi-code/config.toml approves every MCP call — warned; "manual" is not', async () => {
    const s = scratch();
    userConfigFromProject(s);
    const w = await s.run(["adopt", "kimi", "--scope", "user", "--write"]);
    expect(w.code, w.stderr).toBe(0);
    const cfg = join(s.home, ".kimi-code", "config.toml");
    const { mkdirSync, writeFileSync } = await import("node:fs");
    mkdirSync(join(s.home, ".kimi-code"), { recursive: true });
    for (const [mode, widened] of [
      ["auto", true],
      ["yolo", true],
      ["manual", false],
    ] as const) {
      const mine = `default_model = "kimi-code/kimi-for-coding"\ndefault_permission_mode = "${mode}"\n`;
      writeFileSync(cfg, mine);
      const c = await s.run(["adopt", "kimi", "--scope", "user", "--check", "--json"]);
      const msgs = warningsOf(c.stdout)
        .filter((x) => x.code === "policy_widened")
        .map((x) => x.message);
      expect(msgs.length > 0, `${mode}: ${c.stdout}`).toBe(widened);
      if (widened) {
        expect(c.code).toBe(1);
        expect(msgs.join("\n")).toMatch(new RegExp(`Kimi Code.*default_permission_mode is "${mode}"`));
        const d = await s.run(["doctor", "--json"]);
        expect(d.stdout).toMatch(new RegExp(`default_permission_mode is \\\\"${mode}\\\\"`));
      } else expect(c.code, c.stdout).toBe(0);
      // the setting is the person's: left as it was
      expect(readFileSync(cfg, "utf8")).toBe(mine);
    }
  });

  it('Qwen Code: tools.approvalMode "yolo" in .qwen/settings.json approves every tool, hcpx\'s ask rules included — warned', async () => {
    const s = scratch();
    expect((await s.adopt("qwen", "--write")).code).toBe(0);
    const doc = jsonc(s.read(".qwen/settings.json"));
    s.write(".qwen/settings.json", JSON.stringify({ ...doc, tools: { approvalMode: "yolo" } }, null, 2) + "\n");
    const c = await s.adopt("qwen", "--check", "--json");
    const msgs = warningsOf(c.stdout)
      .filter((x) => x.code === "policy_widened")
      .map((x) => x.message);
    expect(msgs.join("\n"), c.stdout).toMatch(/Qwen Code approves every tool in YOLO mode/);
  });
});

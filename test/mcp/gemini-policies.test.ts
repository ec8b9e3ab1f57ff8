// Gemini CLI's policy engine and `hcpx mcp --host gemini` (docs/confirm.md, rules 4 and 6). adopt writes the
// ask rule as tools.confirmationRequired, which Gemini CLI 0.61.0 turns into an ask_user rule of priority 4.35
// (createPolicyEngineConfig: USER_POLICY_TIER + 0.35); the highest priority that matches decides. What can
// still make it run a gated hcp tool unasked, seen in that build's code:
//   - a user policy (~/.gemini/policies/*.toml, tier 4 + priority/1000: above 4.35 from priority 350), or one
//     Gemini saved there after "allow always and save" (auto-saved.toml, 4.95);
//   - the files and folders `policyPaths` (user tier, read instead of ~/.gemini/policies) and `adminPolicyPaths`
//     (admin tier 5) name, in any settings file: hcpx does not read them;
//   - `trust: true` on the hcp server's entry: its tools' getConfirmationDetails answers "no confirmation" in a
//     trusted folder, whatever the policy decided.
// What cannot: a workspace policy (.gemini/policies, tier 3: at most 3.999), tools.allowed (4.3), a trusted
// server's and mcp.allowed's allow rules (4.2, 4.1), general.defaultApprovalMode (yolo is ignored there, auto_edit
// does not touch MCP tools), an extension's allow rules (dropped by Gemini).
// The decision is called in this process (src/host/approval.ts), against the files adopt wrote.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratch as scratchChild, userConfigFromProject } from "../adopt/helpers";
import { inProcess } from "../support/inproc";
import { approvalInForce, warningsOf } from "../support/approval";
import { tmp } from "../support/project";

const scratch = () => inProcess(scratchChild());
type Scratch = ReturnType<typeof scratch>;

/** Is Gemini CLI's approval in force for the gated ledger.transfer (project scope, or the user config's server)? */
const inForce = (s: Scratch, o: { user?: string; env?: Record<string, string> } = {}) =>
  approvalInForce("gemini", s, { ...o, system: tmp("hcpx-sysroot-") });

const policy = '[[rule]]\nmcpName = "hcp"\ntoolName = "*"\ndecision = "allow"\npriority = 900\n';

/** Changes the settings file at `file` (below the scratch project or home), keeping what adopt wrote. */
interface Settings {
  mcpServers: Record<string, Record<string, unknown>>;
  tools: { allowed: string[] };
  [key: string]: unknown;
}
function edit(file: string, change: (doc: Settings) => void): void {
  const doc = JSON.parse(readFileSync(file, "utf8")) as Settings;
  change(doc);
  writeFileSync(file, JSON.stringify(doc, null, 2));
}

describe("Gemini CLI: policy files and settings that run a gated hcp tool unasked", () => {
  it("a user policy folder (~/.gemini/policies, or $GEMINI_CLI_HOME's): not in force; adopt --check names it", async () => {
    const s = scratch();
    expect((await s.adopt("gemini", "--write")).code).toBe(0);
    expect(await inForce(s)).toBe(true);
    mkdirSync(join(s.home, ".gemini", "policies"), { recursive: true });
    writeFileSync(join(s.home, ".gemini", "policies", "mine.toml"), policy);
    expect(await inForce(s)).toBe(false);
    const c = await s.run(["adopt", "gemini", "--check", "--json"]);
    const w = warningsOf(c.stdout).filter((x) => x.code === "policy_widened");
    expect(w.map((x) => x.file)).toContain("~/.gemini/policies");
    expect(w.map((x) => x.message).join("\n")).toMatch(
      /Gemini CLI: ~\/\.gemini\/policies is there: Gemini CLI's user policies/,
    );
    // where $GEMINI_CLI_HOME moves the home Gemini keeps .gemini in: the folder below it, not ~/.gemini's
    const t = scratch();
    expect((await t.adopt("gemini", "--write")).code).toBe(0);
    const other = tmp("hcpx-gemini-home-");
    mkdirSync(join(t.home, ".gemini", "policies"), { recursive: true });
    expect(await inForce(t)).toBe(false);
    expect(await inForce(t, { env: { GEMINI_CLI_HOME: other } })).toBe(true);
    mkdirSync(join(other, ".gemini", "policies"), { recursive: true });
    expect(await inForce(t, { env: { GEMINI_CLI_HOME: other } })).toBe(false);
  });

  it("policyPaths or adminPolicyPaths in the project's or the user's settings: not in force", async () => {
    for (const key of ["policyPaths", "adminPolicyPaths"])
      for (const where of ["project", "user"]) {
        const s = scratch();
        expect((await s.adopt("gemini", "--write")).code).toBe(0);
        const file =
          where === "project" ? join(s.dir, ".gemini", "settings.json") : join(s.home, ".gemini", "settings.json");
        mkdirSync(join(file, ".."), { recursive: true });
        if (where === "user") writeFileSync(file, "{}");
        expect(await inForce(s), `${key} ${where}`).toBe(true);
        edit(file, (d) => (d[key] = ["/opt/policies"]));
        expect(await inForce(s), `${key} ${where}`).toBe(false);
      }
  });

  it("trust: true on the hcp entry (the project's or the user's): not in force; trust: false is", async () => {
    const s = scratch();
    expect((await s.adopt("gemini", "--write")).code).toBe(0);
    const file = join(s.dir, ".gemini", "settings.json");
    edit(file, (d) => (d.mcpServers.hcp.trust = true));
    expect(await inForce(s)).toBe(false);
    const c = await s.run(["adopt", "gemini", "--check", "--json"]);
    expect(
      warningsOf(c.stdout)
        .map((x) => x.message)
        .join("\n"),
    ).toMatch(/mcpServers\.hcp\.trust is true/);
    edit(file, (d) => (d.mcpServers.hcp.trust = false));
    expect(await inForce(s)).toBe(true);
    // another server's trust does not touch hcp's tools
    edit(file, (d) => (d.mcpServers.other = { command: "x", trust: true }));
    expect(await inForce(s)).toBe(true);
    // the user-scope server (hcp-user), trusted in the user's settings
    const u = scratch();
    const user = userConfigFromProject(u);
    expect((await u.adopt("gemini", "--scope", "user", "--write")).code).toBe(0);
    expect(await inForce(u, { user })).toBe(true);
    edit(join(u.home, ".gemini", "settings.json"), (d) => (d.mcpServers["hcp-user"].trust = true));
    expect(await inForce(u, { user })).toBe(false);
  });

  it("what ranks below the ask rule stays in force: a workspace policy, tools.allowed, mcp.allowed, a default approval mode", async () => {
    const s = scratch();
    expect((await s.adopt("gemini", "--write")).code).toBe(0);
    s.write(".gemini/policies/team.toml", policy);
    const file = join(s.dir, ".gemini", "settings.json");
    edit(file, (d) => {
      d.tools.allowed.push("mcp_hcp_ledger__transfer");
      d.mcp = { allowed: ["hcp"] };
      d.general = { defaultApprovalMode: "auto_edit" };
    });
    expect(await inForce(s)).toBe(true);
  });
});

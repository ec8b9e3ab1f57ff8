// hcpx doctor and hcpx status, each exit code from a real situation.
import { describe, expect, it } from "vitest";
import { writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { envelope, project } from "./helpers";
import { runInProcessChecked } from "../support/inproc";

/** doctor, status, adopt and activate as function calls in this process (test/support/inproc.ts): what they check and report is under test; the servers doctor starts stay processes */
const hcpx = (args: string[], cwd: string, env?: NodeJS.ProcessEnv) => runInProcessChecked(args, { cwd, env });

interface Check {
  id: string;
  status: "ok" | "warn" | "fail";
  message: string;
  hint?: string;
}

const CONFIG = `{
  packs: ["./packs/git", "./packs/transit"],
  principal: { id: "dev", kind: "agent" },
  grants: { allow: ["git.*", "transit.*"] },
  sandbox: { bins: { git: "/usr/bin/git" } },
}
`;

describe("hcpx doctor", () => {
  it("exit 0 when healthy: packs lint, bins resolve, an adopted host is in sync, hcpx mcp lists its tools", async () => {
    const p = project(CONFIG);
    const a = await hcpx(["adopt", "claude", "--write"], p.dir);
    expect(a.code, a.stderr).toBe(0);
    const r = await hcpx(["doctor"], p.dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/✓ Node \d+/);
    expect(r.stdout).toContain("✓ pack git: bin git → /usr/bin/git");
    expect(r.stdout).toContain("✓ host claude (project): 5 file(s) in sync");
    expect(r.stdout).toMatch(/✓ hcpx mcp starts and lists \d+ tool\(s\) in both MCP eras \(2026-07-28 after server\/discover, 2025-11-25 after initialize\): hcp/);
    expect(r.stdout.trim().endsWith("healthy")).toBe(true);
    const j = await hcpx(["doctor", "--json"], p.dir);
    expect(j.code).toBe(0);
    const env = envelope<{ status: string; checks: Check[] }>(j);
    expect(env.ok).toBe(true);
    expect(env.data.status).toBe("healthy");
    expect(env.data.checks.map((c) => c.id)).toEqual(["node", "config", "scopes", "pack:git", "pack:transit", "bin:git", "bin:transit", "host:claude", "mcp"]);
    expect(env.data.checks.every((c) => c.status === "ok")).toBe(true);
  });

  it("exit 2 on warnings: a pack activated after adopt leaves the host out of date; a lint warning", async () => {
    const p = project(CONFIG);
    await hcpx(["adopt", "claude", "--write"], p.dir);
    await hcpx(["activate", "packs/ledger"], p.dir);
    const r = await hcpx(["doctor", "--json"], p.dir);
    expect(r.code, r.stdout).toBe(2);
    // exit 2: the envelope says ok: false (ok is true exactly when the exit code is 0), the checks in error.details
    const env = envelope<never>(r);
    expect(env.ok).toBe(false);
    expect(env.error.code).toBe("warnings");
    const details = env.error.details as { status: string; checks: Check[] };
    expect(details.status).toBe("warnings");
    const host = details.checks.find((c) => c.id === "host:claude")!;
    expect(host.status).toBe("warn");
    expect(host.message).toContain("out of date");
    expect(host.hint).toBe("hcpx adopt claude --write");
    // a lint warning alone (no adopt): land on a read
    const q = project(CONFIG);
    const pol = join(q.dir, "packs/transit/policy.json");
    writeFileSync(pol, readFileSync(pol, "utf8").replace('"lines":      { operation: "read" }', '"lines":      { operation: "read", land: "local" }'));
    const t = await hcpx(["doctor"], q.dir);
    expect(t.code, t.stdout).toBe(2);
    expect(t.stdout).toMatch(/! pack transit: 1 lint warning\(s\)/);
    expect(t.stdout).toMatch(/healthy, with 1 warning\(s\)$/m);
  });

  it("exit 1 on failure: a wrap bin that does not exist; a pack that does not lint; a config that does not parse", async () => {
    const p = project(CONFIG.replace("/usr/bin/git", "/nonexistent/bin/git"));
    const r = await hcpx(["doctor"], p.dir);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stdout).toContain("✗ pack git: sandbox.bins.git points to /nonexistent/bin/git, which does not exist");
    expect(r.stdout).toMatch(/1 check\(s\) failed/);
    const j = envelope<never>(await hcpx(["doctor", "--json"], p.dir));
    expect(j.ok).toBe(false);
    expect(j.error.code).toBe("unhealthy");
    expect((j.error.details as { checks: Check[] }).checks.find((c) => c.id === "bin:git")!.status).toBe("fail");

    const q = project(CONFIG);
    writeFileSync(join(q.dir, "packs/git/SKILL.md"), "no frontmatter\n");
    const l = await hcpx(["doctor"], q.dir);
    expect(l.code).toBe(1);
    expect(l.stdout).toMatch(/✗ pack git: \d+ lint error\(s\)/);

    const s = project(`{\n  packs: [\n    "./packs/git",\n  ]]\n}\n`);
    const e = await hcpx(["doctor"], s.dir);
    expect(e.code).toBe(1);
    expect(e.stdout).toMatch(/✗ hcp\.config\.json5:4:\d+: cannot parse/);
  });
});

describe("hcpx status", () => {
  it("lists active packs with granted and withheld commands (read/write/confirm) and adopted hosts", async () => {
    const p = project(`{ packs: ["./packs/ledger", "./packs/inbox-watch"], grants: { allow: ["ledger.*"], deny: ["ledger.transfer"] } }\n`);
    const t = await hcpx(["status"], p.dir);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^command\s+op\s+granted$/m);
    expect(t.stdout).toMatch(/^ledger\.transfer\s+write\/remote, confirm\s+withheld$/m);
    expect(t.stdout).toMatch(/^ledger\.balance\s+read\s+yes$/m);
    expect(t.stdout).toMatch(/^inbox-watch \(sense\)\s+-\s+stimuli: mail\.received, mail\.bounced$/m);
    expect(t.stdout).toContain("no hosts adopted");
    await hcpx(["adopt", "claude", "--write"], p.dir);
    const j = await hcpx(["status", "--json"], p.dir);
    const env = envelope<{ principal: { id: string }; packs: { id: string; commands: { verb: string; operation: string; confirm: boolean; granted: boolean }[] }[]; hosts: { host: string; scope: string; files: string[] }[] }>(j);
    expect(env.ok).toBe(true);
    expect(env.data.packs.map((x) => x.id)).toEqual(["inbox-watch", "ledger"]);
    const ledger = env.data.packs[1]!;
    expect(ledger.commands.find((c) => c.verb === "transfer")).toMatchObject({ operation: "write", confirm: true, granted: false });
    expect(ledger.commands.find((c) => c.verb === "entry.add")).toMatchObject({ operation: "write", confirm: false, granted: true });
    expect(env.data.hosts).toEqual([{ host: "claude", scope: "project", server: "hcp", files: [".claude/settings.json", ".claude/skills/inbox-watch/SKILL.md", ".claude/skills/ledger/SKILL.md", ".mcp.json", "CLAUDE.md"] }]);
    const t2 = await hcpx(["status"], p.dir);
    expect(t2.stdout).toMatch(/^claude\s+project\s+hcp\s+\.claude\/settings\.json, \.claude\/skills\/inbox-watch\/SKILL\.md, \.claude\/skills\/ledger\/SKILL\.md, \.mcp\.json, CLAUDE\.md$/m);
  });

  it("exit 1 and the reason when an active pack does not load", async () => {
    const p = project(`{ packs: ["./packs/ledger", "./packs/gone"], grants: { allow: ["ledger.*"] } }\n`);
    const r = await hcpx(["status", "--json"], p.dir);
    expect(r.code).toBe(1);
    const env = envelope<never>(r);
    expect(env.ok).toBe(false);
    expect(env.error.code).toBe("broken_packs");
    expect((env.error.details as { broken: { dir: string; problems: { code: string }[] }[] }).broken[0]!.problems[0]!.code).toBe("not_a_pack");
  });
});

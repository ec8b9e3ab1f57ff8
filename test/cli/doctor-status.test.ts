// hcpx doctor and hcpx status, each exit code from a real situation.
import { describe, expect, it } from "vitest";
import { writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { envelope, project } from "./helpers";
import { runInProcessChecked } from "../support/inproc";
import type { RunResult } from "../support/cli";

/** doctor, status, adopt and activate as function calls in this process (test/support/inproc.ts): what they check and report is under test; the servers doctor starts stay processes */
const hcpx = (args: string[], cwd: string, env?: NodeJS.ProcessEnv) => runInProcessChecked(args, { cwd, env });

interface Check {
  id: string;
  status: "ok" | "warn" | "fail";
  message: string;
  hint?: string;
  problems?: { code: string; file?: string; line?: number; severity?: string }[];
}

/** A `doctor --json` that did not pass: the exit code, the error code, and the checks (with the status) in error.details. */
function notHealthy(r: RunResult, exit: 1 | 2): { status: string; checks: Check[]; message: string } {
  expect(r.code, r.stdout).toBe(exit);
  const env = envelope<never>(r);
  expect(env.ok).toBe(false);
  expect(env.error.code).toBe(exit === 1 ? "unhealthy" : "warnings");
  return { ...(env.error.details as { status: string; checks: Check[] }), message: env.error.message };
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
    // prose on purpose: the report a person reads (✓ per check, the verdict last); the same checks as data below
    expect(r.stdout).toMatch(/✓ Node \d+/);
    expect(r.stdout).toContain("✓ pack git: bin git → /usr/bin/git");
    expect(r.stdout).toContain("✓ host claude (project): 5 file(s) in sync");
    expect(r.stdout).toMatch(
      /✓ hcpx mcp starts and lists \d+ tool\(s\) in both MCP eras \(2026-07-28 after server\/discover, 2025-11-25 after initialize\): hcp/,
    );
    expect(r.stdout.trim().endsWith("healthy")).toBe(true);
    const j = await hcpx(["doctor", "--json"], p.dir);
    expect(j.code).toBe(0);
    const env = envelope<{ status: string; checks: Check[] }>(j);
    expect(env.ok).toBe(true);
    expect(env.data.status).toBe("healthy");
    expect(env.data.checks.map((c) => c.id)).toEqual([
      "node",
      "config",
      "scopes",
      "pack:git",
      "pack:transit",
      "bin:git",
      "bin:transit",
      "host:claude",
      "mcp",
    ]);
    expect(env.data.checks.every((c) => c.status === "ok")).toBe(true);
    const said = (id: string) => env.data.checks.find((c) => c.id === id)?.message;
    expect(said("bin:git")).toBe("pack git: bin git → /usr/bin/git");
    expect(said("host:claude")).toBe("host claude (project): 5 file(s) in sync");
    expect(said("mcp")).toMatch(
      /^hcpx mcp starts and lists \d+ tool\(s\) in both MCP eras \(2026-07-28 after server\/discover, 2025-11-25 after initialize\): hcp/,
    );
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
    writeFileSync(
      pol,
      readFileSync(pol, "utf8").replace(
        '"lines":      { operation: "read" }',
        '"lines":      { operation: "read", land: "local" }',
      ),
    );
    const t = notHealthy(await hcpx(["doctor", "--json"], q.dir), 2);
    expect(t.status).toBe("warnings");
    expect(t.checks.filter((c) => c.status !== "ok")).toEqual([
      expect.objectContaining({
        id: "pack:transit",
        status: "warn",
        message: expect.stringMatching(/^pack transit: 1 lint warning\(s\)/),
      }),
    ]);
    expect(t.checks.find((c) => c.id === "pack:transit")!.problems).toEqual([
      expect.objectContaining({ severity: "warning", file: "packs/transit/policy.json" }),
    ]);
  });

  it("exit 1 on failure: a wrap bin that does not exist; a pack that does not lint; a config that does not parse", async () => {
    const p = project(CONFIG.replace("/usr/bin/git", "/nonexistent/bin/git"));
    const j = notHealthy(await hcpx(["doctor", "--json"], p.dir), 1);
    expect(j.status).toBe("unhealthy");
    expect(j.checks.filter((c) => c.status === "fail")).toEqual([
      {
        id: "bin:git",
        status: "fail",
        message: "pack git: sandbox.bins.git points to /nonexistent/bin/git, which does not exist",
        hint: "fix the path in sandbox.bins",
      },
    ]);
    expect(j.message).toBe("1 check(s) failed");

    const q = project(CONFIG);
    writeFileSync(join(q.dir, "packs/git/SKILL.md"), "no frontmatter\n");
    const l = notHealthy(await hcpx(["doctor", "--json"], q.dir), 1);
    const git = l.checks.find((c) => c.id === "pack:git")!;
    expect(git).toMatchObject({ status: "fail", message: expect.stringMatching(/^pack git: \d+ lint error\(s\)/) });
    expect(git.problems).toContainEqual(
      expect.objectContaining({ code: "skill_frontmatter", file: "packs/git/SKILL.md", severity: "error" }),
    );

    const s = project(`{\n  packs: [\n    "./packs/git",\n  ]]\n}\n`);
    const e = notHealthy(await hcpx(["doctor", "--json"], s.dir), 1);
    expect(e.checks.find((c) => c.id === "config")).toMatchObject({
      status: "fail",
      problems: [expect.objectContaining({ code: "bad_json5", file: "hcp.config.json5", line: 4 })],
    });
  });
});

describe("hcpx status", () => {
  it("lists active packs with granted and withheld commands (read/write/confirm) and adopted hosts", async () => {
    const p = project(
      `{ packs: ["./packs/ledger", "./packs/inbox-watch"], grants: { allow: ["ledger.*"], deny: ["ledger.transfer"] } }\n`,
    );
    const t = await hcpx(["status"], p.dir);
    expect(t.code, t.stderr).toBe(0);
    // prose on purpose: the table a person reads (its data: the --json half below)
    expect(t.stdout).toMatch(/^command\s+op\s+granted$/m);
    expect(t.stdout).toMatch(/^ledger\.transfer\s+write\/remote, confirm\s+withheld$/m);
    expect(t.stdout).toMatch(/^ledger\.balance\s+read\s+yes$/m);
    expect(t.stdout).toMatch(/^inbox-watch \(sense\)\s+-\s+stimuli: mail\.received, mail\.bounced$/m);
    expect(t.stdout).toContain("no hosts adopted");
    await hcpx(["adopt", "claude", "--write"], p.dir);
    const j = await hcpx(["status", "--json"], p.dir);
    const env = envelope<{
      principal: { id: string };
      packs: { id: string; commands: { verb: string; operation: string; confirm: boolean; granted: boolean }[] }[];
      hosts: { host: string; scope: string; files: string[] }[];
    }>(j);
    expect(env.ok).toBe(true);
    expect(env.data.packs.map((x) => x.id)).toEqual(["inbox-watch", "ledger"]);
    const ledger = env.data.packs[1]!;
    expect(ledger.commands.find((c) => c.verb === "transfer")).toMatchObject({
      operation: "write",
      confirm: true,
      granted: false,
    });
    expect(ledger.commands.find((c) => c.verb === "entry.add")).toMatchObject({
      operation: "write",
      confirm: false,
      granted: true,
    });
    expect(env.data.hosts).toEqual([
      {
        host: "claude",
        scope: "project",
        server: "hcp",
        files: [
          ".claude/settings.json",
          ".claude/skills/inbox-watch/SKILL.md",
          ".claude/skills/ledger/SKILL.md",
          ".mcp.json",
          "CLAUDE.md",
        ],
      },
    ]);
    const t2 = await hcpx(["status"], p.dir);
    expect(t2.stdout).toMatch(
      /^claude\s+project\s+hcp\s+\.claude\/settings\.json, \.claude\/skills\/inbox-watch\/SKILL\.md, \.claude\/skills\/ledger\/SKILL\.md, \.mcp\.json, CLAUDE\.md$/m,
    );
  });

  it("exit 1 and the reason when an active pack does not load", async () => {
    const p = project(`{ packs: ["./packs/ledger", "./packs/gone"], grants: { allow: ["ledger.*"] } }\n`);
    const r = await hcpx(["status", "--json"], p.dir);
    expect(r.code).toBe(1);
    const env = envelope<never>(r);
    expect(env.ok).toBe(false);
    expect(env.error.code).toBe("broken_packs");
    expect(
      (env.error.details as { broken: { dir: string; problems: { code: string }[] }[] }).broken[0]!.problems[0]!.code,
    ).toBe("not_a_pack");
  });
});

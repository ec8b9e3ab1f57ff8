// Issue 24 §4: `doctor --url <url> [--token-env NAME]` and `adopt --check --url`
// reach a team's `hcpx mcp --http` (real HTTP on 127.0.0.1, static-token auth)
// and say what the host will see there: reachable, authenticated (401 vs ok),
// the tools listed (count, names), in each protocol era (the MCP SDK's v2
// client: the 2025 handshake and 2026-07-28). Only the URL named on the
// command line is contacted, with the variable named there.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addToken, serve, teamProject, type Served, type TeamProject } from "../mcp/http-support";
import { scratch as scratchChild, type Scratch } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt and doctor (what they decide, write and probe) as function calls in this process (test/support/inproc.ts); the servers they talk to stay processes */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

interface Check {
  id: string;
  status: string;
  message: string;
  hint?: string;
  probe?: {
    reachable: boolean;
    authenticated: boolean;
    status?: number;
    tools?: string[];
    eras?: { era: string; version?: string; tools?: string[] }[];
  };
}
const checksOf = (stdout: string): Check[] => {
  const e = JSON.parse(stdout) as { data?: { checks: Check[] }; error?: { details: { checks: Check[] } } };
  return (e.data ?? e.error!.details).checks;
};

describe("doctor --url and adopt --check --url: what the host will see", () => {
  let p: TeamProject;
  let srv: Served;
  let token: string;
  let s: Scratch;
  beforeAll(async () => {
    p = teamProject({ principals: { alice: { grants: { allow: ["ledger.*"] } } } }, { confirm: "host" });
    token = addToken(p, "alice");
    srv = await serve(p, ["--server-config", p.serverConfig, "--shape", "per-command"]);
    s = scratch();
    const w = await s.run(["adopt", "claude", "--url", srv.url, "--token-env", "HCP_TOKEN", "--write"], {
      HCP_TOKEN: token,
    });
    expect(w.code, w.stdout + w.stderr).toBe(0);
  }, 90_000);
  afterAll(async () => srv?.stop());

  it("with the right token: reachable, authenticated, the tools listed in both eras; the host's check points at it", async () => {
    const d = await s.run(["doctor", "--url", srv.url, "--token-env", "HCP_TOKEN", "--json"], { HCP_TOKEN: token });
    const checks = checksOf(d.stdout);
    const remote = checks.find((c) => c.id === "remote")!;
    expect(remote.status, remote.message).toBe("ok");
    const tools = remote.probe!.tools!;
    expect(tools).toContain("ledger__transfer");
    expect(remote.message).toContain(
      `reachable, authenticated with the token from $HCP_TOKEN, ${tools.length} tool(s): ledger__`,
    );
    expect(remote.message).toContain("the remote entry of claude (project)");
    const eras = remote.probe!.eras!;
    expect(eras.map((e) => e.era)).toEqual(["legacy", "modern"]);
    expect(eras.find((e) => e.era === "modern")!.version).toBe("2026-07-28");
    for (const e of eras) expect(e.tools?.slice().sort(), JSON.stringify(e)).toEqual(tools.slice().sort());
    expect(checks.find((c) => c.id === "host:claude")!.message).toMatch(/probed: see the remote check/);
    expect(d.stdout).not.toContain(token);
  }, 60_000);

  it("a wrong token, or none: 401, not authenticated, saying which variable; the token never printed", async () => {
    const bad = await s.run(["doctor", "--url", srv.url, "--token-env", "HCP_TOKEN", "--json"], {
      HCP_TOKEN: "hcpx_wrong",
    });
    expect(bad.code).toBe(1);
    const r = checksOf(bad.stdout).find((c) => c.id === "remote")!;
    expect(r.status).toBe("fail");
    expect(r.probe).toMatchObject({ reachable: true, authenticated: false, status: 401 });
    expect(r.message).toMatch(/not authenticated \(HTTP 401 with the token in HCP_TOKEN\)/);
    expect(bad.stdout).not.toContain("hcpx_wrong");
    // no --token-env: nothing is sent, and the host's check says which variable its entry reads
    const none = await s.run(["doctor", "--url", srv.url, "--json"], { HCP_TOKEN: token });
    const checks = checksOf(none.stdout);
    expect(checks.find((c) => c.id === "remote")!.message).toMatch(/HTTP 401 \(no --token-env given\)/);
    expect(checks.find((c) => c.id === "host:claude")!.message).toMatch(
      /the host reads the token from \$HCP_TOKEN; --token-env named none/,
    );
    // --token-env alone is a usage error
    expect((await s.run(["doctor", "--token-env", "HCP_TOKEN", "--json"])).code).toBe(64);
  }, 60_000);

  it("adopt --check --url reports the probe: in sync, and what the host sees", async () => {
    const c = await s.run(["adopt", "claude", "--check", "--url", srv.url, "--token-env", "HCP_TOKEN", "--json"], {
      HCP_TOKEN: token,
    });
    expect(c.code, c.stdout).toBe(0);
    const data = (JSON.parse(c.stdout) as { data: { inSync: boolean; remote: Check["probe"] } }).data;
    expect(data.inSync).toBe(true);
    expect(data.remote).toMatchObject({ reachable: true, authenticated: true });
    expect(data.remote!.tools).toContain("ledger__transfer");
    const text = await s.run(["adopt", "claude", "--check", "--url", srv.url, "--token-env", "HCP_TOKEN"], {
      HCP_TOKEN: token,
    });
    expect(text.stdout).toMatch(
      /remote: http:\/\/127\.0\.0\.1:\d+\/mcp: reachable, authenticated with the token from \$HCP_TOKEN, \d+ tool\(s\): ledger__/,
    );
  }, 60_000);

  // Issue 24 §4 / 26 §1: the block of a remote entry names only what the remote server serves
  it("the prompt block of a remote entry names the remote server's tools only: no local shell route, no shape it may not serve", async () => {
    const block = /<!-- hcp:begin -->\n([\s\S]*?)<!-- hcp:end -->/.exec(s.read("CLAUDE.md"))![1]!;
    const d = await s.run(["doctor", "--url", srv.url, "--token-env", "HCP_TOKEN", "--json"], { HCP_TOKEN: token });
    const tools = new Set(checksOf(d.stdout).find((c) => c.id === "remote")!.probe!.tools!);
    expect(block).not.toMatch(/exec <pack> <verb>|hcpx exec|--confirm/);
    // every tool (or tool-name form) named is one the server lists; its shape is the server's choice, so no form is named
    for (const m of [...block.matchAll(/`([^`\n]+)`/g)].map((x) => x[1]!).filter((x) => x === "hcp" || /__/.test(x)))
      expect(tools.has(m), `the block names \`${m}\`; served: ${[...tools].join(", ")}`).toBe(true);
    expect(block).toContain("hcp__read_skill");
    expect(block).toMatch(/remote/);
    expect(block).toMatch(/`confirm: true` in the tool call/);
  }, 60_000);
});

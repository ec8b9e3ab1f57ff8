// doctor's MCP check (the MCP SDK v2 client over stdio to a real `hcpx mcp`,
// once per era: `server/discover` at 2026-07-28, `initialize` for legacy
// clients): what it says when the server answers, answers one era only, talks
// garbage, says nothing, or dies, and that a silent server costs
// --mcp-timeout, not more. The server is made to
// misbehave by a --require preload that acts only in the `hcpx mcp` process
// (test/fixtures/preload/mcp-misbehaves.cjs, its mode in MCP_MISBEHAVES).
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { REPO, runHcpx, scratchProject } from "../support/hcpx";

interface Check {
  id: string;
  status: "ok" | "warn" | "fail";
  message: string;
  hint?: string;
}

/** The environment that makes the `hcpx mcp` doctor starts misbehave as `mode` says (test/fixtures/preload/mcp-misbehaves.cjs). */
function misbehaves(mode: string): NodeJS.ProcessEnv {
  return {
    NODE_OPTIONS: `--require ${join(REPO, "test", "fixtures", "preload", "mcp-misbehaves.cjs")}`,
    MCP_MISBEHAVES: mode,
  };
}

async function mcpCheck(
  env: NodeJS.ProcessEnv,
  timeoutMs = 3000,
): Promise<{ check: Check; ms: number; code: number | null }> {
  const p = scratchProject({ packs: ["ledger"] });
  const t0 = Date.now();
  const r = await runHcpx(["doctor", "--json", "--mcp-timeout", String(timeoutMs)], {
    cwd: p.dir,
    env,
    timeoutMs: 30_000,
  });
  const ms = Date.now() - t0;
  const out = JSON.parse(r.stdout) as {
    ok: boolean;
    data?: { checks: Check[] };
    error?: { details: { checks: Check[] } };
  };
  const checks = out.data?.checks ?? out.error!.details.checks;
  return { check: checks.find((c) => c.id === "mcp")!, ms, code: r.code };
}

// The four misbehaving servers run at once (it.concurrent): three of them are a
// wait on doctor's --mcp-timeout (6 s, 6 s, 1.5 s), not work; each has its own
// project.
describe("hcpx doctor: the MCP check", () => {
  it("a healthy server: ok, with its tools", async () => {
    const { check, code } = await mcpCheck({});
    expect(code).toBe(0);
    expect(check).toMatchObject({ status: "ok" });
    expect(check.message).toBe(
      "hcpx mcp starts and lists 2 tool(s) in both MCP eras (2026-07-28 after server/discover, 2025-11-25 after initialize): hcp, hcp__read_skill",
    );
  });

  it.concurrent("a server that leaves server/discover unanswered: the modern era fails, named", async () => {
    const { check, code } = await mcpCheck(misbehaves("no-discover"), 6000);
    expect(code).toBe(1);
    expect(check.status).toBe("fail");
    expect(check.message).toMatch(/^hcpx mcp does not speak MCP 2026-07-28 \(server\/discover\): /);
  });

  it.concurrent("a server that leaves initialize unanswered: the legacy era fails, named", async () => {
    const { check, code } = await mcpCheck(misbehaves("no-initialize"), 6000);
    expect(code).toBe(1);
    expect(check.status).toBe("fail");
    expect(check.message).toMatch(/^hcpx mcp does not speak legacy MCP \(initialize\): /);
  });

  it.concurrent("a server that writes something else on stdout: not JSON-RPC", async () => {
    const { check, code } = await mcpCheck(misbehaves("hello"));
    expect(code).toBe(1);
    expect(check).toMatchObject({ status: "fail", message: "hcpx mcp wrote something that is not JSON-RPC on stdout" });
  });

  it.concurrent("a server that never answers: fails after --mcp-timeout, and is not waited for", async () => {
    const { check, ms, code } = await mcpCheck(misbehaves("silent"), 1500);
    expect(code).toBe(1);
    expect(check).toMatchObject({ status: "fail", message: "hcpx mcp did not answer within 1500 ms" });
    // doctor's own start and checks plus 1.5 s; a close() that waited for the server would add seconds
    expect(ms).toBeLessThan(1500 + 6000);
  });

  it("a server that dies before it answers: exited, with its stderr's first line", async () => {
    const { check, code } = await mcpCheck(misbehaves("dies"));
    expect(code).toBe(1);
    expect(check).toMatchObject({
      status: "fail",
      message: "hcpx mcp exited before listing its tools: boom: cannot serve",
    });
  });
});

// hcpx mcp keeps an mcp pack's stdio server between calls (src/runtime/mcp-adapter.ts, the pool), and a kept
// server answers one call at a time: calls made at once each take an idle server or start one. A cancel stops
// its call's server (the server may ignore notifications/cancelled), and a call that fails (here: its timeout)
// closes its server; neither may end a call that only ran beside it. Before, the calls shared the kept server,
// and the other call was answered `mcp_error` "Connection closed".
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envelope, ledgerProject, startMcp, type McpSession } from "./support";
import { RACY_MS } from "../../src/util/stamp";
import { REPO, tmp } from "../support/hcpx";
import { alive } from "../runtime/support";

describe("hcpx mcp's kept server: one call at a time", () => {
  let s: McpSession;
  const marks = tmp("hcpx-pool-calls-");
  const wait = (ms: number, opts: { mark?: string; signal?: AbortSignal } = {}) =>
    s.client.callTool(
      {
        name: "hcp",
        arguments: { pack: "waiter", verb: "wait", args: { ms, ...(opts.mark ? { mark: opts.mark } : {}) } },
      },
      undefined,
      { signal: opts.signal, timeout: 20_000 },
    );
  const pidOf = (r: unknown): number => {
    const e = envelope(r);
    expect(e.ok, JSON.stringify(e)).toBe(true);
    return (e.data as { pid: number }).pid;
  };
  const until = async (file: string) => {
    for (let i = 0; i < 200 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 25));
    return Number(readFileSync(file, "utf8"));
  };

  beforeAll(async () => {
    const p = ledgerProject({ packs: ["ledger"] });
    const pack = join(p.dir, "packs", "waiter");
    mkdirSync(pack);
    // its tool `wait` {ms, mark} writes the server's pid to `mark`, answers its pid after ms, and ignores cancels
    cpSync(join(REPO, "test", "fixtures", "bins", "waiter-mcp.mjs"), join(p.dir, "bins", "waiter.mjs"));
    const made = Date.now();
    writeFileSync(
      join(pack, "surface.json"),
      JSON.stringify({
        hcp: "1.1",
        id: "waiter",
        version: "0.1.0",
        description: "A server that answers after a while",
        kind: "mcp",
        mcp: { bin: "../../bins/waiter.mjs", timeout_ms: 2500 },
        commands: [
          {
            verb_key: "wait",
            summary: "Answer after ms",
            tool: "wait",
            args: { ms: { type: "integer", required: true }, mark: { type: "string" } },
          },
        ],
      }),
    );
    writeFileSync(join(pack, "policy.json"), JSON.stringify({ rows: { wait: { operation: "read" } } }));
    writeFileSync(
      join(pack, "SKILL.md"),
      '---\nname: waiter\ndescription: "Answer after a while."\nleads:\n  - "wait: answer after ms"\n---\n\n# waiter\n\n| verb | what it does | read/write |\n|---|---|---|\n| `wait` | answer later | read |\n',
    );
    writeFileSync(
      p.config,
      JSON.stringify({
        packs: ["./packs/waiter"],
        principal: { id: "test", kind: "agent" },
        grants: { allow: ["waiter.*"], deny: [] },
        sandbox: { roots: ["."], cwd: "." },
      }),
    );
    s = await startMcp(p, { args: ["--no-watch"] });
    // a program younger than RACY_MS is never kept (src/util/stamp.ts): the pool would not be in play
    await new Promise((r) => setTimeout(r, Math.max(0, made + RACY_MS + 100 - Date.now())));
  }, 30_000);
  afterAll(() => s?.close());

  it("a cancelled call stops its own server; the call beside it answers, and its server is kept", async () => {
    const kept = pidOf(await wait(0)); // the pool holds a server now
    const ac = new AbortController();
    const mark = join(marks, "cancelled");
    const cancelled = wait(20_000, { mark, signal: ac.signal }).then(
      () => "answered",
      () => "aborted",
    );
    const beside = wait(1_500, { mark: join(marks, "beside") });
    const cancelledPid = await until(mark);
    ac.abort(); // the SDK's client sends notifications/cancelled for it
    expect(await cancelled).toBe("aborted");
    const besidePid = pidOf(await beside);
    expect([cancelledPid, besidePid]).toContain(kept);
    expect(besidePid).not.toBe(cancelledPid);
    expect(alive(cancelledPid)).toBe(false);
    expect(pidOf(await wait(0))).toBe(besidePid);
  }, 30_000);

  it("a call that timed out closes its own server only", async () => {
    pidOf(await wait(0));
    const late = wait(10_000, { mark: join(marks, "late") }); // past the pack's timeout_ms, 2.5 s
    const latePid = await until(join(marks, "late"));
    await new Promise((r) => setTimeout(r, 1_500));
    const beside = wait(1_500, { mark: join(marks, "beside2") }); // ends ~0.5 s after the timeout
    const timedOut = envelope(await late);
    expect(timedOut.ok).toBe(false);
    expect(timedOut.error?.code).toBe("timeout");
    const besidePid = pidOf(await beside);
    expect(besidePid).not.toBe(latePid);
    expect(alive(besidePid)).toBe(true);
  }, 30_000);
  it("calls made at once get a server each, and of those no more than four are kept idle after", async () => {
    const pids = (await Promise.all(Array.from({ length: 6 }, () => wait(600)))).map(pidOf);
    expect(new Set(pids).size).toBe(6);
    let up = pids.filter(alive);
    for (let i = 0; i < 100 && up.length > 4; i++) {
      await new Promise((r) => setTimeout(r, 50));
      up = pids.filter(alive);
    }
    expect(up.length).toBe(4);
    expect(up).toContain(pidOf(await wait(0)));
  }, 30_000);
});

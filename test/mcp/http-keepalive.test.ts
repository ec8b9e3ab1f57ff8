// `hcpx mcp --http` behind a proxy that keeps idle upstream connections
// (nginx's `keepalive` in an upstream block, docs/http.md "Behind nginx"): the
// proxy, not hcpx, must close an idle connection. When hcpx closes first,
// nginx can send a request on the connection at the instant it closes: a
// reset, and a POST nginx does not retry (a 502). So an idle connection stays
// open past Node's 5 s default (limits.keep_alive_timeout_ms, 65 s), and the
// nginx blocks users copy (docs/http.md) and the bench's keep theirs shorter.
// The race itself, through a real nginx: test/hostile/http-load.slow.ts.
import { connect, type Socket } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../support/hcpx";
import { DEFAULT_KEEP_ALIVE_TIMEOUT_MS } from "../../src/mcp/team-config";
import { addToken, serve, teamProject, type Served } from "./http-support";

/** One keep-alive connection: a request, then how long after its answer the server closes it (undefined: still open `idleMs` after the answer). */
async function idleClose(
  url: string,
  token: string,
  idleMs: number,
): Promise<{ status: string; closedAfterMs?: number }> {
  const u = new URL(url);
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "hcp", arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } } },
  });
  return new Promise((resolve, reject) => {
    let got = "";
    let answeredAt = 0;
    const sock: Socket = connect(Number(u.port), "127.0.0.1", () => {
      sock.write(
        `POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const overall = setTimeout(() => sock.destroy(new Error(`no answer: ${got}`)), 20_000);
    sock.setEncoding("utf8").on("data", (d: string) => {
      got += d;
      // the SSE answer ends with its terminating chunk
      if (!answeredAt && got.includes("\r\n0\r\n\r\n")) {
        answeredAt = Date.now();
        clearTimeout(overall);
        timer = setTimeout(() => {
          sock.destroy();
          resolve({ status: got.split("\r\n")[0] ?? "" });
        }, idleMs);
      }
    });
    sock.on("end", () => {
      clearTimeout(timer);
      clearTimeout(overall);
      resolve({ status: got.split("\r\n")[0] ?? "", closedAfterMs: answeredAt ? Date.now() - answeredAt : -1 });
    });
    sock.on("error", reject);
  });
}

describe("hcpx mcp --http: idle connections outlive the proxy's", () => {
  const p = teamProject({ principals: { alice: { grants: { allow: ["ledger.*"] } } } });
  const q = teamProject({
    limits: { keep_alive_timeout_ms: 1000 },
    principals: { alice: { grants: { allow: ["ledger.*"] } } },
  });
  let s: Served;
  let t: Served;
  let token: string;
  let tokenQ: string;
  beforeAll(async () => {
    token = addToken(p, "alice");
    tokenQ = addToken(q, "alice");
    s = await serve(p, ["--server-config", p.serverConfig]);
    t = await serve(q, ["--server-config", q.serverConfig]);
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    await t?.stop();
  });

  // the two idle waits (7 s and 1 s), one on each server, run at once
  it.concurrent(
    "an idle keep-alive connection is still open 7 s after its answer (Node's own default closes it at 5 s)",
    async () => {
      const r = await idleClose(s.url, token, 7000);
      expect(r.status).toBe("HTTP/1.1 200 OK");
      expect(r.closedAfterMs).toBeUndefined();
    },
    30_000,
  );

  it.concurrent(
    "limits.keep_alive_timeout_ms sets it: 1 s closes the idle connection",
    async () => {
      const r = await idleClose(t.url, tokenQ, 7000);
      expect(r.status).toBe("HTTP/1.1 200 OK");
      expect(r.closedAfterMs).toBeGreaterThanOrEqual(900);
      expect(r.closedAfterMs).toBeLessThan(5000);
    },
    30_000,
  );

  it("the nginx blocks (docs/http.md, the bench's) keep idle upstream connections shorter than hcpx does", () => {
    const blocks = [
      readFileSync(join(REPO, "docs", "http.md"), "utf8"),
      readFileSync(join(REPO, "bench", "http.bench.mjs"), "utf8"),
    ];
    for (const text of blocks) {
      // an upstream with `keepalive N` keeps idle connections for its keepalive_timeout (nginx's default 60 s)
      const upstreams = [...text.matchAll(/upstream \w+ \{([^}]*)\}/g)].map((m) => m[1]!);
      expect(upstreams.length).toBeGreaterThan(0);
      for (const u of upstreams) {
        if (!/^\s*keepalive \d+;/m.test(u)) continue;
        const t = /^\s*keepalive_timeout (\d+)s;/m.exec(u);
        const ms = t ? Number(t[1]) * 1000 : 60_000;
        expect(ms).toBeLessThan(DEFAULT_KEEP_ALIVE_TIMEOUT_MS);
      }
    }
  });
});

// What `hcpx mcp --http` refuses after authentication is in the audit log too
// (docs/audit.md): a 403 (a principal the server config does not name now,
// whether or not it was served before) is a line of that principal, and a stream the server closes (its token removed,
// its JWT expired, its principal taken out of the config) is a line of its
// principal saying why and how long it was open; `hcpx log --principal` shows
// both, as text and in its --json envelope. The servers are processes; `hcpx log` runs in this
// process (test/support/inproc.ts) but once.
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runHcpx, type RunOptions, type RunResult } from "../support/hcpx";
import { runInProcess } from "../support/inproc";
import { until } from "../support/until";
import {
  addToken,
  listenRequest,
  modern,
  readStream,
  removeToken,
  serve,
  teamProject,
  type Stream,
  type TeamProject,
} from "./http-support";

interface Rec {
  time: string;
  principal: string;
  tool: string;
  decision: string;
  result: string;
  duration_ms: number;
  client?: string;
  refused?: { reason: string; address: string; count: number };
}

const grants = { grants: { allow: ["ledger.*"] } };

/** Poll an async check (each runs `hcpx log`) until it holds or `ms` pass; its last answer. */
async function eventually(ok: () => Promise<boolean>, ms: number): Promise<boolean> {
  for (const t0 = Date.now(); Date.now() - t0 < ms; await new Promise((r) => setTimeout(r, 200)))
    if (await ok()) return true;
  return ok();
}

/** `hcpx log --principal <who>` (in this process unless `run` says otherwise): its records (--json) and its text. */
async function logOf(
  p: TeamProject,
  who: string,
  run: (args: string[], opts: RunOptions) => Promise<RunResult> = runInProcess,
): Promise<{ records: Rec[]; text: string }> {
  const json = await run(["log", "--principal", who, "--json"], { cwd: p.dir, env: p.env });
  expect(json.code, json.stderr).toBe(0);
  const text = await run(["log", "--principal", who], { cwd: p.dir, env: p.env });
  expect(text.code, text.stderr).toBe(0);
  return { records: (JSON.parse(json.stdout) as { data: { records: Rec[] } }).data.records, text: text.stdout };
}

describe("hcpx mcp --http: refusals after authentication in the audit log", () => {
  it("a principal the server config no longer names: 403, and a line of that principal hcpx log --principal shows", async () => {
    const p = teamProject({ principals: { alice: grants } });
    addToken(p, "alice");
    const s = await serve(p, ["--server-config", p.serverConfig]);
    try {
      // carol added, given a token, taken out before her first request: her token authenticates, the config does not name her
      writeFileSync(p.serverConfig, JSON.stringify({ principals: { alice: grants, carol: grants } }));
      const carol = addToken(p, "carol");
      writeFileSync(p.serverConfig, JSON.stringify({ principals: { alice: grants } }));
      for (let i = 0; i < 3; i++) expect((await modern(s.url, carol, "tools/list")).status).toBe(403);
      const counted = async () => (await logOf(p, "carol")).records.reduce((a, r) => a + (r.refused?.count ?? 0), 0);
      expect(await eventually(async () => (await counted()) === 3, 5_000)).toBe(true);
      const { records, text } = await logOf(p, "carol");
      expect(records[0]).toMatchObject({
        principal: "carol",
        tool: "(none)",
        decision: "forbidden",
        result: "unknown_principal",
        refused: { reason: "not in the server config", address: "127.0.0.1", count: 1 },
        duration_ms: 0,
      });
      expect(text).toContain("http carol/node forbidden unknown_principal (not in the server config) from 127.0.0.1\n");
      expect(text).toContain(
        "http carol/node forbidden unknown_principal (not in the server config) from 127.0.0.1, 2 times",
      );
      // none of them is under "(unknown)" (no one unauthenticated) nor alice's
      for (const who of ["(unknown)", "alice"]) expect((await logOf(p, who)).records).toEqual([]);
    } finally {
      await s.stop();
    }
  }, 60_000);

  it("a principal removed after its first request: its tools/list is 403 and a line of that principal, as one never served", async () => {
    const p = teamProject({ principals: { alice: grants, carol: grants } });
    addToken(p, "alice");
    const carol = addToken(p, "carol");
    const s = await serve(p, ["--server-config", p.serverConfig]);
    try {
      const first = await modern(s.url, carol, "tools/list");
      expect(first.status).toBe(200);
      expect((first.body.result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
      writeFileSync(p.serverConfig, JSON.stringify({ principals: { alice: grants } }));
      const list = await modern(s.url, carol, "tools/list");
      expect(list.status).toBe(403);
      expect(list.body).toMatchObject({ error: "unknown_principal" });
      const forbidden = async () => (await logOf(p, "carol")).records.filter((r) => r.decision === "forbidden");
      expect(await eventually(async () => (await forbidden()).length === 1, 5_000)).toBe(true);
      expect((await forbidden())[0]).toMatchObject({
        principal: "carol",
        tool: "(none)",
        result: "unknown_principal",
        refused: { reason: "not in the server config", address: "127.0.0.1", count: 1 },
        duration_ms: 0,
      });
      expect((await logOf(p, "carol")).text).toContain(
        "http carol/node forbidden unknown_principal (not in the server config) from 127.0.0.1\n",
      );
    } finally {
      await s.stop();
    }
  }, 60_000);

  it("a stream closed by the server (its token removed) is a line of its principal: why, from where, how long it was open", async () => {
    const principals = { alice: { grants: { allow: ["ledger.*"] } }, bob: grants };
    const p = teamProject({ principals });
    const alice = addToken(p, "alice");
    addToken(p, "bob");
    const s = await serve(p, ["--server-config", p.serverConfig]);
    let stream: Stream | undefined;
    try {
      const res = await listenRequest(s.url, alice);
      expect(res.status).toBe(200);
      stream = readStream(res);
      expect(await until(() => stream!.got().includes("acknowledged"), 5_000)).toBe(true);
      await new Promise((r) => setTimeout(r, 300));
      removeToken(p, "alice");
      // an announcement: the streams' tokens are checked again
      principals.alice.grants.allow = ["ledger.balance"];
      writeFileSync(p.serverConfig, JSON.stringify({ principals }));
      expect(await until(() => stream!.ended(), 10_000)).toBe(true);
      const closed = async () => (await logOf(p, "alice")).records.filter((r) => r.decision === "stream_closed");
      expect(await eventually(async () => (await closed()).length === 1, 5_000)).toBe(true);
      const [rec] = await closed();
      expect(rec).toMatchObject({
        principal: "alice",
        tool: "(none)",
        result: "invalid_token",
        refused: { reason: "unknown token", address: "127.0.0.1", count: 1 },
      });
      expect(rec!.duration_ms).toBeGreaterThanOrEqual(300);
      const { text } = await logOf(p, "alice", (a, o) => runHcpx(a, o)); // a process, once
      expect(text).toMatch(/http alice\S* stream_closed invalid_token \(unknown token\) from 127\.0\.0\.1 after \d+ms/);
      expect((await logOf(p, "bob")).records).toEqual([]);
    } finally {
      await stream?.cancel();
      await s.stop();
    }
  }, 60_000);
});

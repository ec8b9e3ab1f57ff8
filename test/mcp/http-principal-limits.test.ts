// Per-principal limits of `hcpx mcp --http` (docs/http.md, "Per-principal
// limits"): one principal at its limit of open streams (both eras) gets 429
// while another still opens one; one principal at its limit of concurrent tool
// calls is refused (too_many_calls, recorded as refused, nothing run) while
// another's call runs; the count comes back however a call ends (an answer, a
// failure, the client gone); `hcpx mcp` on stdio is not limited; a limit out of
// bounds or an unknown key under `limits` stops the start. A real `hcpx mcp
// --http` on 127.0.0.1, real fetch and the SDK's real clients.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parseServerConfig } from "../../src/mcp/team-config";
import { HcpxError } from "../../src/util/errors";
import { until } from "../support/until";
import { envelope, startMcp, writeConfig } from "./support";
import {
  addToken,
  listenRequest,
  readStream,
  MODERN,
  modern,
  refusal,
  serve,
  teamProject,
  type Served,
  type Stream,
  type TeamProject,
} from "./http-support";

type Env = { ok: boolean; data?: unknown; error?: { code: string; message: string; hint?: string } };
type AuditLine = { principal: string; tool: string; decision: string; result: string };

/**
 * A pack `gate` over a bin that, once started, marks itself running (running/<pid>) and answers only
 * once the file `gate-open` exists in the project (`wait`), or fails at once (`fail`).
 */
function addGatePack(dir: string): void {
  const pack = join(dir, "packs", "gate");
  mkdirSync(pack, { recursive: true });
  mkdirSync(join(dir, "running"), { recursive: true });
  const bin = join(dir, "bins", "gate.sh");
  // a shell script, not a Node one: ~50 of them start in this file (17 at once on stdio), each Node start ~50 ms of CPU
  writeFileSync(
    bin,
    [
      "#!/bin/sh",
      "if [ \"$1\" = fail ]; then echo 'failed on purpose' >&2; exit 3; fi",
      ': > "running/$$"',
      'done_() { /bin/rm -f "running/$$"; }',
      "trap 'done_; exit 143' TERM",
      "while [ ! -e gate-open ]; do /bin/sleep 0.1; done",
      "done_",
      "printf '%s' '{\"opened\":true}'",
    ].join("\n") + "\n",
  );
  chmodSync(bin, 0o755);
  writeFileSync(
    join(pack, "surface.json"),
    JSON.stringify({
      hcp: "1.1",
      id: "gate",
      version: "0.1.0",
      description: "A bin that waits for a gate to open",
      kind: "wrap",
      wrap: { bin: "../../bins/gate.sh", json_flag: null, output: "json", timeout_ms: 60000 },
      commands: [
        { verb_key: "fail", summary: "Fail at once", cli: ["gate", "fail"], args: {} },
        { verb_key: "wait", summary: "Wait until the gate is open", cli: ["gate", "wait"], args: {} },
      ],
    }),
  );
  writeFileSync(
    join(pack, "policy.json"),
    JSON.stringify({ rows: { fail: { operation: "read" }, wait: { operation: "read" } } }),
  );
  writeFileSync(
    join(pack, "SKILL.md"),
    '---\nname: gate\ndescription: A bin that waits for a gate to open.\nleads:\n  - "gate: test pack"\n---\n\n# gate\n\n| verb | what it does | read/write |\n|---|---|---|\n| `fail` | Fail at once | read |\n| `wait` | Wait until the gate is open | read |\n',
  );
}

/** A team project serving ledger and gate, with `server` as its server config. */
function gateProject(server: Record<string, unknown>): TeamProject {
  const p = teamProject(server, { allow: ["ledger.*", "gate.*"] });
  addGatePack(p.dir);
  writeConfig(p.config, {
    packs: ["./packs/ledger", "./packs/gate"],
    principal: { id: "dev", kind: "agent" },
    grants: { allow: ["ledger.*", "gate.*"], deny: [] },
    sandbox: { bins: {}, roots: ["."], cwd: "." },
  });
  return p;
}

/** The gate bins running now (their marks, of live processes). */
function running(p: TeamProject): number {
  return readdirSync(join(p.dir, "running")).filter((pid) => {
    try {
      process.kill(Number(pid), 0);
      return true;
    } catch {
      return false;
    }
  }).length;
}

const open = (p: TeamProject) => writeFileSync(join(p.dir, "gate-open"), "");
const shut = (p: TeamProject) => rmSync(join(p.dir, "gate-open"), { force: true });

const records = (p: TeamProject): AuditLine[] => {
  const audit = join(p.state, "hcpx", "audit.jsonl");
  return existsSync(audit)
    ? readFileSync(audit, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as AuditLine)
    : [];
};

const envOf = (r: { body: Record<string, unknown> }): Env =>
  (r.body.result as { structuredContent: Env } | undefined)?.structuredContent ?? { ok: false };

const WAIT = { name: "hcp", arguments: { pack: "gate", verb: "wait" } };

/** A 2026-07-28 tools/call over fetch that can be abandoned (the client goes away). */
function modernCall(url: string, token: string, params = WAIT): { done: Promise<unknown>; abort: () => void } {
  const ac = new AbortController();
  const done = fetch(url, {
    method: "POST",
    signal: ac.signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": params.name,
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
        },
      },
    }),
  })
    .then((r) => r.text())
    .catch((e: unknown) => e);
  return { done, abort: () => ac.abort() };
}

/** A 2025-era tools/call over fetch (stateless: no initialize) that can be abandoned. */
function legacyCall(url: string, token: string): { done: Promise<unknown>; abort: () => void } {
  const ac = new AbortController();
  const done = fetch(url, {
    method: "POST",
    signal: ac.signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: WAIT }),
  })
    .then((r) => r.text())
    .catch((e: unknown) => e);
  return { done, abort: () => ac.abort() };
}

/** A 2026-07-28 client (the SDK v2's real Client over Streamable HTTP). */
async function modernClient(url: string, token: string): Promise<ClientV2> {
  const c = new ClientV2({ name: "modern", version: "1" }, { versionNegotiation: { mode: "auto" } });
  await c.connect(new HttpV2(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  expect(c.getProtocolEra()).toBe("modern");
  return c;
}

/** A 2025-era client (the SDK v1's real Client over Streamable HTTP, stateless server). */
async function legacyClient(url: string, token: string): Promise<ClientV1> {
  const c = new ClientV1({ name: "legacy", version: "1" });
  await c.connect(new HttpV1(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return c;
}

/** An open event stream: what it received so far, whether it ended, and how to close it. */
const streamOf = readStream;

/** A 2025-era client's GET stream, or the refusal. */
const getStream = (url: string, token: string) =>
  fetch(url, {
    method: "GET",
    headers: { accept: "text/event-stream", "mcp-protocol-version": "2025-11-25", authorization: `Bearer ${token}` },
  });

/** A 2026-07-28 subscriptions/listen stream, or the refusal. */
const listenStream = listenRequest;

/** An open stream (200, its headers sent; a listen stream acknowledged). */
async function opened(res: Response, listen = false): Promise<Stream> {
  expect(res.status).toBe(200);
  const s = streamOf(res);
  if (listen) expect(await until(() => s.got().includes("acknowledged"), 5_000)).toBe(true);
  return s;
}

/** The 429 of a principal over its stream limit: Retry-After, a JSON-RPC error naming the limit. */
async function expectTooManyStreams(res: Response, max: number): Promise<void> {
  expect(res.status).toBe(429);
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  const body = (await res.json()) as { jsonrpc: string; error: { code: number; message: string; data?: unknown } };
  expect(body.jsonrpc).toBe("2.0");
  expect(body.error.message).toContain("limits.max_streams_per_principal");
  expect(body.error.message).toContain(`${max}`);
  expect(body.error.data).toMatchObject({ limit: "limits.max_streams_per_principal", max });
}

describe("hcpx mcp --http: open streams per principal", () => {
  let p: TeamProject;
  let s: Served;
  let alice: string;
  let bob: string;
  const streams: Stream[] = [];
  beforeAll(async () => {
    p = gateProject({
      limits: { max_streams_per_principal: 2 },
      principals: { alice: { grants: { allow: ["ledger.*"] } }, bob: { grants: { allow: ["ledger.*"] } } },
    });
    alice = addToken(p, "alice");
    bob = addToken(p, "bob");
    s = await serve(p, ["--server-config", p.serverConfig]);
  }, 60_000);
  afterEach(async () => {
    await Promise.all(streams.splice(0).map((x) => x.cancel()));
  });
  afterAll(async () => s?.stop());

  it("alice at her limit (a GET stream and a listen stream) gets 429 for either kind; bob still opens both; one of hers closed, she opens one again", async () => {
    const aGet = await opened(await getStream(s.url, alice));
    const aListen = await opened(await listenStream(s.url, alice), true);
    streams.push(aGet, aListen);
    await expectTooManyStreams(await getStream(s.url, alice), 2);
    await expectTooManyStreams(await listenStream(s.url, alice), 2);
    // bob's own count: he opens both kinds, up to his own limit
    streams.push(await opened(await getStream(s.url, bob)), await opened(await listenStream(s.url, bob), true));
    await expectTooManyStreams(await getStream(s.url, bob), 2);
    // her calls are not streams: still served
    expect((await modern(s.url, alice, "tools/list")).status).toBe(200);
    // a stream of hers closed by the client: its place comes back
    await aGet.cancel();
    // (the server sees the connection close a moment later)
    let again = await getStream(s.url, alice);
    for (const t0 = Date.now(); again.status === 429 && Date.now() - t0 < 5_000;) {
      await again.body?.cancel();
      await new Promise((r) => setTimeout(r, 50));
      again = await getStream(s.url, alice);
    }
    expect(again.status).toBe(200);
    streams.push(streamOf(again));
    await expectTooManyStreams(await listenStream(s.url, alice), 2);
  }, 30_000);

  it("a stream request refused by the SDK (not a stream after all) gives its place back", async () => {
    // a GET without Accept: text/event-stream: the transport answers 406, no stream stays open
    const refusedGet = () =>
      fetch(s.url, {
        method: "GET",
        headers: { "mcp-protocol-version": "2025-11-25", authorization: `Bearer ${alice}` },
      });
    // the test before closed alice's streams (afterEach); the server sees the connections close a moment later
    for (
      let r = await refusedGet(), t0 = Date.now();
      r.status === 429 && Date.now() - t0 < 5_000;
      r = await refusedGet()
    )
      await r.body?.cancel();
    for (let i = 0; i < 4; i++) {
      const r = await refusedGet();
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).not.toBe(429);
      await r.body?.cancel();
    }
    streams.push(await opened(await getStream(s.url, alice)), await opened(await listenStream(s.url, alice), true));
    await expectTooManyStreams(await getStream(s.url, alice), 2);
  }, 30_000);
});

describe("hcpx mcp --http: concurrent tool calls per principal", () => {
  let p: TeamProject;
  let s: Served;
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    p = gateProject({
      limits: { max_calls_per_principal: 2 },
      principals: {
        alice: { grants: { allow: ["ledger.*", "gate.*"] } },
        bob: { grants: { allow: ["ledger.*", "gate.*"] } },
      },
    });
    alice = addToken(p, "alice");
    bob = addToken(p, "bob");
    s = await serve(p, ["--server-config", p.serverConfig]);
  }, 60_000);
  afterEach(() => open(p));
  afterAll(async () => s?.stop());

  it("alice's third call at once is refused without running (too_many_calls, recorded as refused) while bob's runs; once hers end she calls again", async () => {
    shut(p);
    const a1 = modern(s.url, alice, "tools/call", WAIT);
    const a2 = modern(s.url, alice, "tools/call", WAIT);
    expect(await until(() => running(p) === 2, 10_000)).toBe(true);
    const before = records(p).length;
    const a3 = await modern(s.url, alice, "tools/call", WAIT);
    expect(a3.status).toBe(200);
    const refused = envOf(a3);
    expect(refused.ok).toBe(false);
    expect(refused.error?.code).toBe("too_many_calls");
    expect(refused.error?.message).toContain("limits.max_calls_per_principal");
    expect(refused.error?.message).toContain("2");
    expect(refused.error?.hint).toMatch(/wait for/);
    expect((a3.body.result as { isError?: boolean }).isError).toBe(true);
    // the refused call ran nothing, and is recorded as refused
    expect(running(p)).toBe(2);
    expect(await until(() => records(p).length === before + 1, 5_000)).toBe(true);
    expect(records(p).at(-1)).toMatchObject({
      principal: "alice",
      tool: "hcp",
      decision: "refused",
      result: "too_many_calls",
    });
    // bob's own count: his call runs beside alice's two
    const b1 = modern(s.url, bob, "tools/call", WAIT);
    expect(await until(() => running(p) === 3, 10_000)).toBe(true);
    open(p);
    for (const r of await Promise.all([a1, a2, b1])) expect(envOf(r).ok).toBe(true);
    // her calls ended: the count came back, two at once run again
    const again = await Promise.all([
      modern(s.url, alice, "tools/call", WAIT),
      modern(s.url, alice, "tools/call", WAIT),
    ]);
    for (const r of again) expect(envOf(r).ok).toBe(true);
  }, 60_000);

  it("a call that fails gives its place back", async () => {
    for (let i = 0; i < 4; i++) {
      const r = await modern(s.url, alice, "tools/call", { name: "hcp", arguments: { pack: "gate", verb: "fail" } });
      expect(envOf(r).error?.code, JSON.stringify(r.body)).toBe("exit_nonzero");
    }
    // refused before its pack is read (no such pack): its place comes back too
    for (let i = 0; i < 4; i++) {
      const r = await modern(s.url, alice, "tools/call", { name: "hcp", arguments: { pack: "nope", verb: "x" } });
      expect(envOf(r).error?.code).toBe("unknown_pack");
    }
    shut(p);
    const two = [modern(s.url, alice, "tools/call", WAIT), modern(s.url, alice, "tools/call", WAIT)];
    expect(await until(() => running(p) === 2, 10_000)).toBe(true);
    open(p);
    for (const r of await Promise.all(two)) expect(envOf(r).ok).toBe(true);
  }, 60_000);

  it("a 2026-07-28 client that cancels a call (the SDK's) or goes away mid-call: the call is stopped and its place comes back", async () => {
    shut(p);
    const c = await modernClient(s.url, alice);
    const ac = new AbortController();
    const cancelled = c
      .callTool({ name: "hcp", arguments: { pack: "gate", verb: "wait" } }, { signal: ac.signal })
      .catch((e: unknown) => e);
    const gone = modernCall(s.url, alice);
    expect(await until(() => running(p) === 2, 10_000)).toBe(true);
    expect(envOf(await modern(s.url, alice, "tools/call", WAIT)).error?.code).toBe("too_many_calls");
    // the SDK's cancel of a 2026-07-28 call: it aborts the call's request
    ac.abort("changed my mind");
    await cancelled;
    expect(await until(() => running(p) === 1, 10_000)).toBe(true);
    gone.abort();
    await gone.done;
    // the bins are stopped (the gate is still shut): nothing of those calls runs on
    expect(await until(() => running(p) === 0, 10_000)).toBe(true);
    expect(
      await until(
        () => records(p).filter((r) => r.result === "cancelled" && r.principal === "alice").length === 2,
        5_000,
      ),
    ).toBe(true);
    open(p);
    const again = await Promise.all([
      modern(s.url, alice, "tools/call", WAIT),
      modern(s.url, alice, "tools/call", WAIT),
    ]);
    for (const r of again) expect(envOf(r).ok).toBe(true);
    await c.close();
  }, 60_000);

  it("a 2025-era client that goes away mid-call (its connection closed, the SDK's client closed): the calls are stopped and their places come back", async () => {
    const cancelled = () => records(p).filter((r) => r.result === "cancelled" && r.principal === "alice").length;
    const before = cancelled();
    shut(p);
    const gone = legacyCall(s.url, alice);
    const c = await legacyClient(s.url, alice);
    const closed = c.callTool({ name: "hcp", arguments: { pack: "gate", verb: "wait" } }).catch((e: unknown) => e);
    expect(await until(() => running(p) === 2, 10_000)).toBe(true);
    const over = await legacyClient(s.url, alice);
    expect(envelope(await over.callTool({ name: "hcp", arguments: { pack: "gate", verb: "wait" } })).error?.code).toBe(
      "too_many_calls",
    );
    gone.abort();
    await gone.done;
    expect(await until(() => running(p) === 1, 10_000)).toBe(true);
    await c.close();
    await closed;
    expect(await until(() => running(p) === 0, 10_000)).toBe(true);
    // a place comes back when its call ends, just before its record is written: the bins gone is not yet that
    expect(await until(() => cancelled() === before + 2, 5_000)).toBe(true);
    open(p);
    const again = await Promise.all([
      over.callTool({ name: "hcp", arguments: { pack: "gate", verb: "wait" } }),
      over.callTool({ name: "hcp", arguments: { pack: "gate", verb: "wait" } }),
    ]);
    for (const r of again) expect(envelope(r).ok).toBe(true);
    await over.close();
  }, 60_000);
});

describe("hcpx mcp on stdio: no per-principal limit", () => {
  it("more calls at once than the team server's default are all run", async () => {
    const p = gateProject({ principals: {} });
    const m = await startMcp(p, { env: { XDG_STATE_HOME: p.state } });
    try {
      const n = 17;
      const calls = Array.from({ length: n }, () =>
        m.client.callTool({ name: "hcp", arguments: { pack: "gate", verb: "wait" } }, undefined, { timeout: 60_000 }),
      );
      expect(await until(() => running(p) === n, 30_000)).toBe(true);
      open(p);
      for (const r of await Promise.all(calls)) expect(envelope(r).ok).toBe(true);
    } finally {
      await m.close();
    }
  }, 90_000);
});

describe("the server config's per-principal limits", () => {
  const cfg = (limits: unknown) =>
    JSON.stringify({ limits, principals: { alice: { grants: { allow: ["ledger.*"] } } } });

  it("default to 32 streams and 16 calls; take integers within their bounds", () => {
    const d = parseServerConfig(cfg({}), "/tmp/server.json5");
    expect([d.maxStreamsPerPrincipal, d.maxCallsPerPrincipal]).toEqual([32, 16]);
    const set = parseServerConfig(
      cfg({ max_streams_per_principal: 1, max_calls_per_principal: 1024 }),
      "/tmp/server.json5",
    );
    expect([set.maxStreamsPerPrincipal, set.maxCallsPerPrincipal]).toEqual([1, 1024]);
  });

  it("refuse a value out of bounds, not an integer, not a number, or an unknown key under limits", () => {
    for (const bad of [
      { max_streams_per_principal: 0 },
      { max_streams_per_principal: 1025 },
      { max_calls_per_principal: 2.5 },
      { max_calls_per_principal: "8" },
      { max_calls_per_principal: -1 },
      { max_calls_per_principal: 1e9 },
      { max_call_per_principal: 8 },
    ]) {
      let thrown: unknown;
      try {
        parseServerConfig(cfg(bad), "/tmp/server.json5");
      } catch (e) {
        thrown = e;
      }
      expect(thrown, JSON.stringify(bad)).toBeInstanceOf(HcpxError);
      expect((thrown as HcpxError).problems[0]!.path, JSON.stringify(bad)).toContain("limits");
    }
  });

  it("a bad value or an unknown key under limits stops the start, with the file and the key", () => {
    const p = teamProject({ principals: { alice: { grants: { allow: ["ledger.*"] } } } });
    const cases: [string, RegExp][] = [
      [
        '{ limits: { max_calls_per_principal: 0 }, principals: { alice: { grants: { allow: ["ledger.*"] } } } }',
        /max_calls_per_principal/,
      ],
      [
        '{ limits: { max_streams_per_principal: 4.5 }, principals: { alice: { grants: { allow: ["ledger.*"] } } } }',
        /max_streams_per_principal/,
      ],
      [
        '{ limits: { max_stream_per_principal: 4 }, principals: { alice: { grants: { allow: ["ledger.*"] } } } }',
        /unknown key 'max_stream_per_principal'[^]*did you mean 'max_streams_per_principal'/,
      ],
    ];
    for (const [text, want] of cases) {
      writeFileSync(p.serverConfig, text);
      const r = refusal(p, ["--http", "0", "--server-config", p.serverConfig]);
      expect(r.status, text).toBe(1);
      expect(r.stderr, text).toMatch(want);
      expect(r.stderr, text).toContain("server.json5");
    }
  });
});

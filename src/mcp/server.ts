// `hcpx mcp`: the reference MCP export (§12.5) — a stdio server on the official MCP TypeScript SDK v2,
// answering both protocol eras on the same stream as the spec says: an `initialize` opening is served as a
// legacy (2025-06-18 / 2025-11-25) connection; a request carrying the 2026-07-28 `_meta` envelope
// (server/discover first, as dual-era clients probe) is served statelessly; an unsupported version gets
// -32022 with the versions hcpx supports. The SDK's serveStdio makes that choice; every tool call goes
// through the one front (front.ts) and the runtime's execute() (§12.5.3).
//
// Config: the tool list is built at start and rebuilt when the config or a pack file changes (fs.watch →
// tools/list_changed: an unsolicited notification on a legacy connection, on the client's
// subscriptions/listen stream on a modern one); each tools/call checks hcp.config.json5 and the called
// pack's files by their stamps (src/util/stamp.ts) and loads again what changed, so a revoked grant stops
// working at once, without restarting the host.
//
// This module is only reached through import() from `hcpx mcp`, so only that command pays for loading the
// SDK. stdout carries nothing but protocol.
import { EventEmitter } from "node:events";
import type { Server } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { McpFront, type HostApproval } from "./front";
import { buildServer, type InstanceHooks } from "./sdk-server";
import type { Shape } from "./tools";
import { statOncePerTurn } from "./stamp";
import { VersionGate } from "./version-gate";
import { watchFront, watchFronts } from "./watch";
import { neutralise } from "../util/neutral";
import { redactOut } from "../util/redact";
import { terminateDescendants } from "../runtime/wrap";

export { SKILL_URI } from "./sdk-server";

export interface ServeOptions {
  shape: Shape;
  config?: string;
  cwd?: string;
  /** Watch the config and pack files and announce tool-list changes (default true). */
  watch?: boolean;
  /** The host's approval check (`--host`, src/host/approval.ts): under confirm "host" an approval in force is the one question. */
  hostApproval?: HostApproval;
  /** the host id (`--host`), recorded in the audit log */
  host?: string;
}

// hcpx mcp's exits: its log on stderr (stdout is the protocol), its answers and
// its questions to the person — each through the one redaction (and the log,
// which a person reads in a terminal, through the one neutraliser).
const log = (msg: string) => process.stderr.write(`hcpx mcp: ${neutralise(redactOut(msg))}\n`);
const debug = (msg: string) => {
  if (process.env.HCPX_DEBUG) log(msg);
};

/** The live server instances of a process and the calls they run: what announce() and shutdown() reach. */
export class Instances {
  readonly servers = new Set<Server>();
  readonly inflight = new Map<Promise<unknown>, AbortController>();
  closing = false;

  hooks(): InstanceHooks {
    return {
      announce: () => this.announce(),
      log,
      track: async (clientSignal, run) => {
        // Each call runs under its own AbortController: aborted by the client's
        // cancel and by shutdown, which then waits for the calls, so no bin
        // outlives the server.
        const ac = new AbortController();
        const onCancel = () => ac.abort("the client cancelled the request");
        if (clientSignal.aborted) onCancel();
        else clientSignal.addEventListener("abort", onCancel, { once: true });
        if (this.closing) ac.abort("hcpx mcp is shutting down");
        const task = run(ac.signal);
        this.inflight.set(task, ac);
        try {
          return await task;
        } finally {
          this.inflight.delete(task);
          clientSignal.removeEventListener("abort", onCancel);
        }
      },
    };
  }

  add(server: Server): Server {
    this.servers.add(server);
    const prev = server.onclose;
    server.onclose = () => {
      this.servers.delete(server);
      prev?.();
    };
    return server;
  }

  /** also told of each announcement (HTTP: the open streams of both eras, src/mcp/http.ts changed()) */
  readonly also: (() => void)[] = [];

  announce(): void {
    if (this.closing) return;
    for (const f of this.also) f();
    for (const s of this.servers) {
      s.sendToolListChanged().catch(() => {});
      s.sendResourceListChanged().catch(() => {});
      s.sendPromptListChanged().catch(() => {});
    }
  }

  /**
   * Cancel every running call and wait (bounded) until each bin's tree is
   * stopped. The process exits next: when a call was cancelled, what it left
   * running under this process (an in-process composite module's children,
   * whose module may ignore ctx.signal) is stopped too, as `hcpx exec` does: at
   * once, beside the calls' own stops (after the slowest one's grace, such a
   * child's write may have landed), then once more for what started since.
   */
  async drain(why: string): Promise<void> {
    this.closing = true;
    const cancelled = this.inflight.size;
    for (const ac of this.inflight.values()) ac.abort(`hcpx mcp is shutting down (${why})`);
    if (!cancelled) return;
    const sweep = terminateDescendants(process.pid);
    const settled = Promise.allSettled([...this.inflight.keys()]);
    await Promise.all([sweep, Promise.race([settled, new Promise((r) => setTimeout(r, 5000).unref())])]);
    await terminateDescendants(process.pid);
  }
}

export interface HttpServeOptions {
  host: string;
  port: number;
  /** --bind-public: an address other than loopback */
  public?: boolean;
  /** --server-config: the principals, tokens, JWT issuer, limits, shared key */
  serverConfig?: string;
  /** --no-auth: no authentication, loopback only (tests, the conformance suite) */
  noAuth?: boolean;
}

/**
 * `hcpx mcp --http [addr:]port`: the same front over Streamable HTTP
 * (src/mcp/http.ts), one front per principal of the server config
 * (src/mcp/team-config.ts); prints the URL on stderr; stops on a signal.
 */
export async function serveHttp(opts: ServeOptions, h: HttpServeOptions): Promise<void> {
  (globalThis as Record<symbol, unknown>)[Symbol.for("hcpx.mcp.keepAlive")] = true;
  statOncePerTurn(); // the calls of one event-loop turn share a stat of each stamped file (src/util/stamp.ts)
  const tc = await import("./team-config");
  const { ConfirmStates } = await import("./confirm-state");
  const cfg = h.serverConfig !== undefined ? tc.loadServerConfig(h.serverConfig) : undefined;
  const tokens = cfg ? tc.liveTokenTable(cfg, log) : undefined;
  const { key, source } = tc.requestStateKey(cfg);
  const states = new ConfirmStates({ key, keySource: source, spend: tc.spentStore(cfg?.spentDir) });
  // validationCache: each call reads its pack again; the cache (keyed on each file's identity, ctime included) spares the zod pass
  const base = {
    shape: opts.shape,
    config: opts.config,
    cwd: opts.cwd ?? process.cwd(),
    log,
    states,
    via: "http" as const,
    validationCache: true,
    maxCalls: cfg?.maxCallsPerPrincipal,
  };
  const byId = new Map<string, McpFront>();
  /** every front made (the watcher refreshes each); one is added when a principal added to the server config first calls */
  const all: McpFront[] = [];
  const add = (id: string, f: McpFront) => (all.push(f), byId.set(id, f).get(id));
  // each principal's grants and confirm as the server config says now: a grant removed applies at the next call
  const liveCfg = cfg ? tc.liveServerConfig(cfg, log) : undefined;
  const frontFor = (id: string, p: import("./team-config").PrincipalSpec) =>
    new McpFront({ ...base, principal: p, livePrincipal: { file: liveCfg!.file, get: liveCfg!.principal(id) } });
  if (cfg && liveCfg) for (const [id, p] of cfg.principals) add(id, frontFor(id, p));
  else add("local", new McpFront(base));
  const fronts = {
    get(id: string): McpFront | undefined {
      const f = byId.get(id);
      if (f || !liveCfg) return f;
      // a principal the server config names now (added since the start): its front from its first request
      const p = liveCfg.named(id);
      return p ? add(id, frontFor(id, p)) : undefined;
    },
    removed: (id: string) => liveCfg?.removed(id) ?? false,
  };
  const live = new Instances();
  const { listenHttp } = await import("./http");
  let auth: import("./auth").Authenticator | undefined;
  const resource = cfg?.resource;
  if (cfg) {
    const { authenticator } = await import("./auth");
    // the audience needs the URL: known from the config, or the listener's own (set below, before any request)
    let own = resource ?? "";
    // a JWT subject as the server config names it now (team-config.ts liveServerConfig): one taken off a principal is refused
    const subjectOf = (sub: string) => liveCfg!.subject(sub);
    let inner: import("./auth").Authenticator | undefined;
    auth = {
      authenticate: (hdr: string | null) => (inner ??= authenticator(cfg, tokens!, own, subjectOf)).authenticate(hdr),
    };
    const l = await listenHttp({
      fronts,
      hooks: live.hooks(),
      port: h.port,
      host: h.host,
      public: h.public,
      auth,
      refused: (await import("./refusals")).auditedRefusals(log), // each 401 in the audit log, folded
      resource,
      issuer: cfg.jwt?.issuer,
      allowedHosts: cfg.allowedHosts,
      maxBodyBytes: cfg.maxBodyBytes,
      requestTimeoutMs: cfg.requestTimeoutMs,
      keepAliveTimeoutMs: cfg.keepAliveTimeoutMs,
      maxStreamsPerPrincipal: cfg.maxStreamsPerPrincipal,
    });
    own = l.resource;
    const who = `${cfg.principals.size} principal(s), ${tokens!().size} token(s)${cfg.jwt ? `, JWTs from ${cfg.jwt.issuer}` : ""}`;
    return started(l, all, live, opts, who);
  }
  const l = await listenHttp({ fronts, hooks: live.hooks(), port: h.port, host: h.host, public: h.public });
  return started(l, all, live, opts, "NO AUTHENTICATION (--no-auth, loopback only)");
}

async function started(
  l: import("./http").HttpListener,
  fronts: McpFront[],
  live: Instances,
  opts: ServeOptions,
  who: string,
): Promise<void> {
  const any = fronts[0];
  log(
    `serving ${any?.view.packs.length ?? 0} pack(s) to ${who} at ${l.url}${l.resource !== l.url ? ` (public URL ${l.resource})` : ""}`,
  );
  // a pack, grant or config change: tools/list_changed to the legacy GET streams and the subscriptions/listen streams
  live.also.push(() => l.changed());
  const watcher =
    opts.watch === false
      ? undefined
      : watchFronts(fronts, () => {
          debug("config changed: tool list changed");
          live.announce();
        });
  let closing = false;
  const stop = async (why: string) => {
    if (closing) return;
    closing = true;
    watcher?.close();
    await live.drain(why);
    await l.close();
    process.exit(0);
  };
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(sig, () => void stop(sig));
}

/** Serve on stdio; returns once the first tools/list is answered, or as the server stops before one: the CLI then
 * saves the code cache (src/cli/main.ts), which so holds the code that answers a host's start (callgrind, a first
 * start after install to its first tools/list: ~444 M -> ~424 M instructions). */
export async function serve(opts: ServeOptions): Promise<void> {
  // a long-lived process: the mcp adapter keeps each mcp pack's server running between calls (src/runtime/mcp-adapter.ts)
  (globalThis as Record<symbol, unknown>)[Symbol.for("hcpx.mcp.keepAlive")] = true;
  // No config at all serves no packs and says why; a config that does not parse is fatal.
  const front = new McpFront({
    shape: opts.shape,
    config: opts.config,
    cwd: opts.cwd ?? process.cwd(),
    log,
    hostApproval: opts.hostApproval,
    host: opts.host,
    validationCache: true,
    startCache: true,
  });
  const live = new Instances();
  const hooks = live.hooks();

  // ---- change notifications (watch.ts) ----
  const watcher =
    opts.watch === false
      ? undefined
      : watchFront(front, () => {
          debug("config changed: tool list changed");
          live.announce();
        });

  const gate = new VersionGate(new StdioServerTransport(heldStdin()));
  const handle = serveStdio(({ era }) => live.add(buildServer(front, era, hooks)), {
    transport: gate,
    onerror: (e) => debug(`transport: ${e.message}`),
  });

  // ---- lifetime: exit when stdin closes (clients leave timed-out servers running) ----
  // A host may write its requests and close stdin at once: each request read
  // before the end is answered first, and every answer is written out whole
  // before the exit. A call still running is its caller gone: it is cancelled
  // (its bin's tree stopped, the write never lands) and answered `cancelled`.
  let closing = false;
  let ended = false;
  let settle!: () => void;
  const returned = new Promise<void>((r) => (settle = r));
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    settle(); // serve() returns, if no tools/list did: the cache is saved before the setImmediate below
    debug(`stopping (${why})`);
    watcher?.close();
    await live.drain(why);
    // The SDK writes a handler's response a few microtasks after it settles: let it.
    await new Promise((r) => setImmediate(r));
    await handle.close().catch(() => {});
    await flushStdout();
    process.exit(0);
  };
  const stdinEnded = async () => {
    if (ended || closing) return;
    ended = true;
    debug(`stdin closed: answering ${gate.unanswered()} request(s) read before its end, then stopping`);
    // a command ends when its caller ends (docs/design.md): running calls are cancelled, and answered so
    await live.drain("stdin closed");
    const bound = new Promise<void>((r) => setTimeout(r, EOF_ANSWER_BOUND_MS).unref());
    await Promise.race([gate.answered(), bound]);
    await shutdown("stdin closed");
  };
  process.stdin.on("end", () => void stdinEnded());
  process.stdin.on("close", () => void stdinEnded());
  process.stdout.on("error", () => void shutdown("stdout closed"));
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(sig, () => void shutdown(sig));

  const firstList = () => setImmediate(settle);
  prebuildView(gate, front, () => closing || ended, firstList);
  log(
    `serving ${front.packCount} pack(s), ${front.listed.length} tool(s), shape ${opts.shape}${front.configFile ? `, config ${front.configFile}` : ""}`,
  );
  return returned; // the process stays up on stdin: the CLI must not exit
}

/**
 * A start answered from the start cache has no view yet: build the one calls
 * need 300 ms after the first tools/list is answered, while the host is busy
 * with it (a call that comes first builds it itself; none is built once stdin
 * has ended: no call can come). `firstList` is told of that first answer.
 */
function prebuildView(gate: VersionGate, front: McpFront, stopped: () => boolean, firstList: () => void): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  gate.onAnswered = (method) => {
    if (method !== "tools/list" || timer) return;
    firstList();
    // decided after the loop's next poll, which runs after the timers: an end of stdin that came meanwhile is seen first
    const build = () => {
      try {
        if (!stopped()) void front.view;
      } catch {
        // a config that no longer loads: the next call says why
      }
    };
    timer = setTimeout(() => setImmediate(build), 300);
    timer.unref();
  };
}

/**
 * After stdin's end, how long the requests read before it may take to be
 * answered. A tools/call ends within its own timeout; this is a backstop
 * for a request nothing will ever answer, so that no server outlives its
 * host by more than this.
 */
const EOF_ANSWER_BOUND_MS = 10 * 60_000;
/** How long the last answers may wait for a host that no longer reads stdout. */
const FLUSH_BOUND_MS = 30_000;

/**
 * What the SDK's stdio transport reads: process.stdin's data and errors, not
 * its end. At stdin's end the transport closes itself, which drops every
 * request still queued or running; hcpx mcp closes it once they are answered.
 */
function heldStdin(): NodeJS.ReadStream {
  const held = Object.assign(new EventEmitter(), {
    readableEnded: false,
    destroyed: false,
    pause() {
      process.stdin.pause();
      return held;
    },
  });
  process.stdin.on("data", (d) => held.emit("data", d));
  process.stdin.on("error", (e) => {
    if (held.listenerCount("error")) held.emit("error", e);
  });
  return held as unknown as NodeJS.ReadStream;
}

/** Wait (bounded) until what was written on stdout has left the process: an exit would cut off an answer larger than the pipe holds. */
async function flushStdout(): Promise<void> {
  const out = process.stdout;
  if (out.writableLength === 0 || out.destroyed) return;
  debug(`waiting for the host to read ${out.writableLength} byte(s) of answers`);
  await new Promise<void>((resolve) => {
    const t = setTimeout(resolve, FLUSH_BOUND_MS);
    const done = () => {
      clearTimeout(t);
      resolve();
    };
    out.once("error", done);
    out.write("", done);
  });
}

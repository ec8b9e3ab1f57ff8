// The mcp adapter: a command of an `mcp` pack is one `tools/call` on the pack's stdio MCP server. The server is started
// per call (resolved like wrap.bin: a bare name only through sandbox.bins, a path inside sandbox.roots), with the same
// minimal env as a wrapped bin (a few locale/home basics, mcp.agent_env, the Binding names), initialized with the SDK's
// Client, asked for the one tool, and stopped (its whole process group). The runtime has already checked the grant, the
// confirm gate and the arguments; what the server answers is untrusted data: an error result is an error envelope, the
// output is capped and redacted by execute().
//
// Loaded only for `mcp` packs: execute.ts imports it with import(), and the build makes it its own
// file (dist/lib/mcp-adapter.mjs), so the MCP SDK is never parsed on the `hcpx exec` path of other kinds.
import type { AdapterCall } from "./adapters/types";
import type { Pack } from "../pack/model";
import { failure, type Envelope } from "./envelope";
import { shortBinding } from "./short-binding";
import { createHash } from "node:crypto";
import { binEnv, cancelled, DEFAULT_TIMEOUT_MS, removePlanted, resolveBin } from "./wrap";
import { answer, callFailure, notCalled } from "./mcp-answer";
import { abortSignalOf } from "./cancel";
import {
  connect,
  connectHttp,
  listToolsPage,
  type Connection,
  type RemoteServer,
  type ServerSpawn,
} from "./mcp-client";
import { headerEnvNames, headerValues } from "../pack/mcp-remote";
import { confine, widestGranted } from "./sandbox/index";
import { checkPin, listAllTools, PinError, toolsByName } from "./mcp-pins";
import { Marks } from "../util/stamp";

// The v2 SDK client at one era for `hcpx doctor`'s MCP check: from this file, so
// that dist/ holds one copy of the SDK client (dist/lib/mcp-adapter.mjs), not two.
export { connectEra } from "./mcp-client";
// and the SDK's HTTP client for adopt's probe of a remote server (host/remote.ts), from here too
export { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

/**
 * A long-lived process (`hcpx mcp`) sets this global to keep each server running between calls (the same
 * program, argv, env and cwd reuse one while the program's files are those it was started from; one that
 * failed, timed out or sat idle for IDLE_MS is closed). `hcpx exec` runs once per call and never sets it.
 * A global, not an export: the adapter is a file of its own (dist/lib/mcp-adapter.mjs), and the server
 * command's bundle must not load it to flip a switch.
 *
 * A kept server answers one call at a time: calls made at once each take an idle server or start one. A
 * cancel stops its call's server (the SDK's notifications/cancelled only asks), and a failed call closes
 * its own, so neither ends a call that only happened to run beside it (before, they shared one server,
 * and a cancel or a timeout of one call ended the others with "Connection closed").
 */
export const KEEP_ALIVE = Symbol.for("hcpx.mcp.keepAlive");
const IDLE_MS = 120_000;
/** idle servers kept per server key (after a burst of calls at once, the rest are closed as they end) */
const MAX_IDLE = 4;

interface Pooled {
  conn: Connection;
  idle?: NodeJS.Timeout;
  /**
   * The program's files (ServerRef's `program`) as stamped before the server started: a call is
   * answered by the program as it is now, so a server whose program was replaced (an editor's save,
   * an upgrade: the same path, another file) is not reused.
   */
  program: Marks;
}
/** per server key, the servers waiting for a call, the last one released last in its list */
const idle = new Map<string, Pooled[]>();
/** every kept server, idle or answering a call: this process's children, closed when it exits */
const live = new Set<Connection>();
let exitHook = false;

/** A server to reach: a stdio program to start (`program`: its files, stamped by the pool), or a remote URL. */
export type ServerRef =
  | {
      stdio: ServerSpawn;
      program: readonly string[];
      /** false when confined for a write: stopped after its call, then `after` looks at what it made (planted.ts) */
      keep: boolean;
      /** the call's answer as the sandbox tells it (a denial, a git dir redirected), once the server is gone */
      after: (e: Envelope) => Envelope;
    }
  | { http: RemoteServer };

function keyOf(ref: ServerRef): string {
  if ("http" in ref) {
    const h = Object.entries(ref.http.headers).sort(([a], [b]) => (a < b ? -1 : 1));
    return createHash("sha256")
      .update(JSON.stringify(["http", ref.http.url, h]))
      .digest("hex");
  }
  const spec = ref.stdio;
  const env = Object.entries(spec.env).sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash("sha256")
    .update(JSON.stringify([spec.command, spec.argv, env, spec.cwd]))
    .digest("hex");
}

export const connectTo = (ref: ServerRef, timeoutMs: number, signal: AbortSignal): Promise<Connection> =>
  "http" in ref ? connectHttp(ref.http, timeoutMs, signal) : connect(ref.stdio, timeoutMs, signal);

async function open(
  spec: ServerRef,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<{ conn: Connection; release: (healthy: boolean) => Promise<void> }> {
  if ((globalThis as Record<symbol, unknown>)[KEEP_ALIVE] !== true || ("stdio" in spec && !spec.keep)) {
    const conn = await connectTo(spec, timeoutMs, signal);
    // stopped and waited for: what the call does after, sandbox/planted.ts, looks at what it left
    return { conn, release: () => conn.transport.terminate().then(() => conn.close()) };
  }
  if (!exitHook) {
    exitHook = true;
    process.once("exit", () => {
      for (const conn of live) void conn.close();
    });
  }
  const key = keyOf(spec);
  const close = (p: Pooled) => {
    live.delete(p.conn);
    return p.conn.close();
  };
  const waiting = idle.get(key) ?? [];
  let p: Pooled | undefined;
  // one stat a program file per call (src/util/stamp.ts): a replaced program gets a new server, as exec would run it
  while (!p && waiting.length) {
    const q = waiting.pop()!;
    clearTimeout(q.idle);
    if (!q.conn.transport.failure && q.program.holds()) p = q;
    else await close(q);
  }
  if (!waiting.length && idle.get(key) === waiting) idle.delete(key);
  if (!p) {
    // stamped before the start; a program changed within RACY_MS of it cannot be vouched for by its
    // stamp (the racy rule): that server answers this call only
    const program = Marks.take("http" in spec ? [] : spec.program, Date.now());
    const conn = await connectTo(spec, timeoutMs, signal);
    if (!program) return { conn, release: () => conn.close() };
    p = { conn, program };
    live.add(conn);
  }
  const mine = p;
  return {
    conn: mine.conn,
    release: async (healthy) => {
      const list = idle.get(key) ?? [];
      if (!healthy || mine.conn.transport.failure || list.length >= MAX_IDLE) return close(mine);
      list.push(mine);
      idle.set(key, list);
      mine.idle = setTimeout(() => {
        const at = list.indexOf(mine);
        if (at >= 0) list.splice(at, 1);
        if (!list.length && idle.get(key) === list) idle.delete(key);
        void close(mine);
      }, IDLE_MS);
      mine.idle.unref?.();
    },
  };
}

/** The server's tools as listed once per connection (a pooled server is listed when it starts). */
const listed = new WeakMap<Connection, Map<string, Record<string, unknown>>>();

/**
 * The pin check (src/runtime/mcp-pins.ts): undefined when `tool` matches what
 * the person reviewed; else the failure to answer with, the tool not called.
 */
async function pinFailure(
  pack: Pack,
  conn: Connection,
  tool: string,
  label: string,
  timeoutMs: number,
): Promise<Envelope | undefined> {
  const pins = pack.surface.mcp?.pins;
  if (!pins) return undefined; // a pack written before pins (or by hand): nothing reviewed to hold the server to
  const hint = `review what changed: hcpx pack from-mcp --update ${pack.dir}`;
  try {
    let tools = listed.get(conn);
    if (!tools) {
      tools = toolsByName(await listAllTools((cursor) => listToolsPage(conn.client, cursor, timeoutMs)));
      listed.set(conn, tools);
      // a kept-alive server that says its tools changed is listed (and checked) again at the next call
      conn.client.fallbackNotificationHandler ??= async (n) => {
        if (n.method === "notifications/tools/list_changed") listed.delete(conn);
      };
    }
    const why = checkPin(pins, tools, tool);
    return why ? failure("tool_changed", `${label}: ${why}; it was not called`, { tool, hint }) : undefined;
  } catch (e) {
    if (e instanceof PinError)
      return failure(e.code, `${label}: ${e.message}; nothing was called`, {
        tool,
        hint: e.code === "tool_changed" ? hint : "wrap a server with fewer tools",
      });
    await conn.transport.stderrWhole?.(); // as in callFailure
    return failure("mcp_error", `${label}: the server's tools/list failed: ${(e as Error)?.message ?? String(e)}`, {
      tool,
      stderr_tail: conn.transport.stderrTail() || undefined,
      started: false, // the tool is not called
    });
  }
}

/** The mcp adapter (the table: ./adapters/index.ts). A cancel stops the server's whole process tree (the SDK's notifications/cancelled only asks it to stop) and answers `cancelled` once it is gone. */
export async function runMcp({
  pack,
  project,
  cmd,
  values,
  env: runtimeEnv,
  signal,
  packBins,
}: AdapterCall<"mcp">): Promise<Envelope> {
  const spec = pack.surface.mcp;
  if (!spec)
    return failure("bad_pack", `pack ${pack.id} is kind mcp but has no mcp section`, {
      hint: 'add mcp: { bin: "…", args: [ … ] } to surface.json',
    });
  if (!cmd.tool)
    return failure("bad_pack", `command '${cmd.verb_key}' of the mcp pack ${pack.id} names no server tool`, {
      hint: 'add tool: "<the server\'s tool name>" to the command in surface.json',
    });
  const timeoutMs = spec.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const label = `${pack.id} ${cmd.verb_key}`;
  const ref = serverRef({ pack, project, env: runtimeEnv, packBins }, label);
  if ("ok" in ref) return ref;
  const e = await callServer(ref, { pack, tool: cmd.tool, values, signal, timeoutMs, label });
  return "after" in ref ? ref.after(e) : e;
}

/** One tools/call on the pack's server, released (a server not kept: stopped) before it answers; a kept server answers no other call meanwhile (open). */
async function callServer(
  ref: ServerRef,
  c: Pick<AdapterCall<"mcp">, "pack" | "values" | "signal"> & { tool: string; timeoutMs: number; label: string },
): Promise<Envelope> {
  const { pack, tool, values, signal, timeoutMs, label } = c;
  // the SDK's client takes an AbortSignal (an MCP server's call has one; exec's StopSignal gets one that follows it)
  const sdkSignal = abortSignalOf(signal);
  const remote = "http" in ref;
  const started = Date.now();
  let conn: Connection | undefined;
  let release: ((healthy: boolean) => Promise<void>) | undefined;
  let healthy = false;
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= conn ? conn.transport.terminate() : Promise.resolve());
  const onAbort = () => {
    if (conn) void stop();
  };
  signal.addEventListener("abort", onAbort, { once: true });
  // stopped before it answers; `ran`: the tool was called (else a server started only to connect or list: notCalled)
  const wasCancelled = async (ran: boolean) => {
    await stop();
    if (!ran) return notCalled(label, signal, !remote);
    // a remote server's call cannot be stopped from here, only asked to stop (notifications/cancelled)
    return remote
      ? cancelled(
          label,
          signal,
          true,
          {},
          "the server was asked to stop its tool call, and the connection closed; it may already have acted",
        )
      : cancelled(label, signal, true);
  };
  try {
    try {
      // a cancel stops the connection being opened (mcp-client.ts), the server/discover probe included
      ({ conn, release } = await open(ref, timeoutMs, sdkSignal));
    } catch (e) {
      if (signal.aborted) return notCalled(label, signal, !remote && (e as { spawned?: boolean }).spawned === true);
      return connectFailure(e, remote, label, pack);
    }
    if (signal.aborted) return await wasCancelled(false);
    const refused = await pinFailure(pack, conn, tool, label, Math.max(1, timeoutMs - (Date.now() - started)));
    // a cancel while the tools were listed stops the server: its tools/list fails, but the call was cancelled
    if (signal.aborted) return await wasCancelled(false);
    if (refused) return refused;
    const left = Math.max(1, timeoutMs - (Date.now() - started));
    let result: { content?: unknown; structuredContent?: unknown; isError?: unknown };
    try {
      result = (await conn.client.callTool(
        { name: tool, arguments: values },
        { timeout: left, signal: sdkSignal },
      )) as typeof result;
    } catch (e) {
      if (signal.aborted) return await wasCancelled(true);
      return await callFailure(e, conn, label, tool, timeoutMs);
    }
    if (signal.aborted) return await wasCancelled(true);
    healthy = true;
    return answer(result, label, tool);
  } finally {
    signal.removeEventListener("abort", onAbort);
    await release?.(healthy);
  }
}

/** Why the server could not be reached: a remote server's refusal or outage, a local one's start (the tool not called). */
export function connectFailure(e: unknown, remote: boolean, label: string, pack: Pack): Envelope {
  const msg = (e as Error)?.message ?? String(e);
  if (remote)
    return failure("mcp_error", `could not connect to the remote MCP server of ${label}: ${msg}`, {
      hint: /\b401\b|unauthori[sz]ed/i.test(msg)
        ? `the server refused the credentials: check the Binding (${headerEnvNames(pack.surface.mcp?.headers).join(", ") || "mcp.headers"}) in hcpx's environment`
        : `check mcp.url and that the server is up (\`hcpx pack from-mcp --update ${pack.dir}\` reaches it the same way)`,
      started: false,
    });
  return failure("spawn_failed", `could not start and initialize the MCP server of ${label}: ${msg}`, {
    hint: "run the server's command by hand to see why; `hcpx lint` checks mcp.bin",
    started: false,
    ...(e as { exited?: object } | undefined)?.exited, // its exit code and stderr (bubblewrap's? sandbox/status.ts)
  });
}

/**
 * The server of an mcp pack, ready to reach (a stdio program resolved like wrap.bin, confined for sandbox.enforce
 * "os"; a remote URL, its headers from the Binding), or a failure envelope: not reachable as the pack says, or a
 * Binding value too short to hide (nothing is started or sent; also outside a call: doctor, pack from-mcp --update).
 */
export function serverRef(
  { pack, project, env, packBins }: Pick<AdapterCall, "pack" | "project" | "env" | "packBins">,
  label: string,
): ServerRef | Envelope {
  const spec = pack.surface.mcp!;
  const short = shortBinding(pack.id, [...(pack.surface.binding?.env ?? []), ...headerEnvNames(spec.headers)], env);
  if (short) return short;
  if (spec.url !== undefined) {
    const h = headerValues(spec.headers, env);
    if (h.missing.length)
      return failure(
        "binding_missing",
        `${label}: ${h.missing.join(", ")} ${h.missing.length > 1 ? "are" : "is"} not set: the remote server's headers come from the Binding; nothing was sent`,
        {
          hint: `set ${h.missing.join(", ")} in the environment hcpx runs in (the host's MCP entry env, or your shell)`,
        },
      );
    return { http: { url: spec.url, headers: h.headers } };
  }
  const bin = resolveBin(pack, project, spec.bin!, "mcp.bin");
  if ("ok" in bin) return bin;
  // sandbox.enforce "os": one server serves every granted verb, so it is confined for the widest of them
  const cls = widestGranted(pack, project);
  const line = confine(
    {
      command: bin.command,
      argv: [...bin.prefix, ...(spec.args ?? [])],
      env: binEnv(spec, pack.surface.binding?.env ?? [], env, bin.path, spec.bin!),
      cwd: project.sandbox.cwd,
    },
    {
      pack,
      project,
      cls,
      binPath: bin.path,
      label: `the MCP server of ${pack.id}`,
      packBins,
      remove: removePlanted,
    },
  );
  if ("ok" in line) return line;
  // the files the server runs: the pack's bin, and the interpreter when it is one that runs it (a .mjs under Node)
  const program = bin.command === bin.path ? [bin.path] : [bin.path, bin.command];
  return { stdio: line, program, keep: project.sandbox.enforce !== "os" || cls === "read", after: line.explain };
}

// A stdio MCP client connection for the `mcp` adapter and `hcpx pack from-mcp`:
// the SDK's real Client over a transport of our own, because the SDK's
// StdioClientTransport always adds PATH, SHELL, TERM… to the server's env and
// cannot kill a process group. Ours spawns with exactly the env it is given,
// no shell, in its own process group; stdout (the protocol) is capped, stderr
// is kept as a short tail for error messages. Never on the start path of other
// kinds: execute.ts imports the adapter lazily, and the build keeps it in a
// file of its own (dist/lib/mcp-adapter.mjs).
//
// Both protocol eras (the MCP TypeScript SDK v2 client): connect() probes with
// `server/discover` (the 2026-07-28 stdio rule) and falls back to `initialize`
// on any non-modern answer or silence; a server that exits on the probe (some
// legacy servers do) is started again and spoken to with `initialize` (not one
// bubblewrap refused to start: sandbox/status.ts). A
// modern-only server works as a pack. The stdio transport: mcp-stdio.ts.
//
// A remote server (`mcp.url`): connectHttp() speaks to it with the SDK's
// StreamableHTTPClientTransport, both eras the same way (the probe, then
// `initialize` for a 2025 server). Its requests go to the URL's origin only (a
// redirect or a request elsewhere is refused: the Binding's headers never
// leave that origin), and its answers are capped like a server's stdout.
import { Client, StreamableHTTPClientTransport, type FetchLike } from "@modelcontextprotocol/client";
import { MCP_STDOUT_CAP, ProcessTransport, type ServerSpawn } from "./mcp-stdio";
import { VERSION } from "../util/build-info";

export type { ServerSpawn } from "./mcp-stdio";

/** What the adapter asks of a connection's transport, stdio or HTTP. */
export interface ConnTransport {
  /** why the connection ended early, when it did */
  failure?: { code: "output_too_large" | "exit" | "spawn_failed"; message: string };
  /** the server's last stderr lines (a remote server has none) */
  stderrTail(): string;
  /** resolves once its stderr has ended, or a bound passed (ProcessTransport's; a remote server has none) */
  stderrWhole?(): Promise<void>;
  /** stop it now (a cancel) */
  terminate(): Promise<void>;
}

export interface Connection {
  client: Client;
  transport: ConnTransport;
  close(): Promise<void>;
}

/** How long the `server/discover` probe waits before taking a silent server for a legacy one. */
export const PROBE_MS = 5000;

/**
 * Start the server and connect an SDK Client to it, within `timeoutMs`:
 * modern (2026-07-28) when it answers `server/discover`, else legacy
 * (`initialize`).
 */
export async function connect(spec: ServerSpawn, timeoutMs: number, signal?: AbortSignal): Promise<Connection> {
  const t0 = Date.now();
  if (signal?.aborted) throw new Error("cancelled before the server was started");
  try {
    return await attempt(spec, timeoutMs, "auto", signal);
  } catch (e) {
    // a legacy server that exits on a request before `initialize` ends the probe's process: start it again, legacy
    if (!(e instanceof ProbeExit) || signal?.aborted) throw e;
    return attempt(spec, Math.max(1, timeoutMs - (Date.now() - t0)), "legacy", signal);
  }
}

class ProbeExit extends Error {
  readonly spawned = true; // as ConnectError's
}

/** The modern revision `connectEra("modern")` pins. */
export const MODERN_REVISION = "2026-07-28";

/**
 * One era only, no fallback (`hcpx doctor`): `modern` pins 2026-07-28
 * (`server/discover` must offer it), `legacy` is the `initialize` handshake.
 * `onError` hears what the transport could not read (a line that is not
 * JSON-RPC). On failure (or abort) the server is killed and the error carries
 * the transport (its `failure` and stderr tail), as connect()'s does.
 */
export async function connectEra(
  spec: ServerSpawn,
  timeoutMs: number,
  era: "modern" | "legacy",
  onError: (e: Error) => void,
  signal?: AbortSignal,
): Promise<Connection> {
  return attempt(spec, timeoutMs, era, signal, onError);
}

/** A connect that failed, with the transport that says why (it exited, with this code and this stderr). */
export class ConnectError extends Error {
  constructor(
    message: string,
    readonly transport: ProcessTransport,
  ) {
    super(message);
  }

  /** whether its process was created (not: a spawn that failed, ENOENT or the like, or none at all) */
  get spawned(): boolean {
    return this.transport.spawned;
  }

  /** a process that exited of itself: its code and stderr (bubblewrap's, when it refused: sandbox/status.ts tells) */
  get exited(): { exit_code: number; stderr_tail?: string } | undefined {
    const code = this.transport.exitCode;
    const tail = this.transport.stderrTail();
    return code === undefined ? undefined : { exit_code: code, ...(tail ? { stderr_tail: tail } : {}) };
  }
}

async function attempt(
  spec: ServerSpawn,
  timeoutMs: number,
  mode: "auto" | "legacy" | "modern",
  signal?: AbortSignal,
  onError?: (e: Error) => void,
): Promise<Connection> {
  const transport = new ProcessTransport(spec);
  const negotiation =
    mode === "auto"
      ? { versionNegotiation: { mode: "auto" as const, probe: { timeoutMs: Math.min(PROBE_MS, timeoutMs) } } }
      : mode === "modern"
        ? { versionNegotiation: { mode: { pin: MODERN_REVISION } } }
        : {};
  const client = new Client(clientInfo(), { capabilities: {}, ...negotiation });
  if (onError) client.onerror = onError;
  const close = async () => {
    await client.close().catch(() => undefined);
    await transport.close();
  };
  // the SDK's server/discover probe does not heed the signal: a cancel stops the server, which ends the probe
  const stop = () => void transport.terminate();
  signal?.addEventListener("abort", stop, { once: true });
  try {
    await client.connect(transport, {
      timeout: timeoutMs,
      signal,
      ...(mode === "legacy" ? { prior: { kind: "legacy" as const } } : {}),
    });
  } catch (e) {
    const exited = transport.failure?.code === "exit" && !signal?.aborted;
    await close();
    // a sandbox that refused (bubblewrap's report, sandbox/status.ts) refuses the legacy start too: not tried again
    if (mode === "auto" && exited && !spec.refused?.(transport.exitCode)) throw new ProbeExit((e as Error).message);
    throw new ConnectError((e as Error).message, transport);
  } finally {
    signal?.removeEventListener("abort", stop); // a kept connection does not hold the first call's signal
  }
  return { client, transport, close };
}

const clientInfo = () => ({ name: "hcpx", version: VERSION });

export interface RemoteServer {
  url: string;
  /** the headers to send (Binding values already in them) */
  headers: Record<string, string>;
}

/** The failure state of an HTTP connection (see ProcessTransport.failure). */
class HttpState implements ConnTransport {
  failure?: ConnTransport["failure"];
  constructor(private readonly stop: () => Promise<void>) {}
  stderrTail(): string {
    return "";
  }
  terminate(): Promise<void> {
    return this.stop();
  }
}

/**
 * A fetch that reaches `origin` only (the SDK follows a same-origin redirect
 * itself, through this fetch again; anything else is refused before a byte is
 * sent) and caps each answer's body at MCP_STDOUT_CAP.
 */
function guardedFetch(origin: string, state: HttpState): FetchLike {
  return async (input, init) => {
    const u = new URL(String(input));
    if (u.origin !== origin)
      throw new Error(
        `refused a request to another origin than the server's (${u.origin}): the pack's headers go to ${origin} only`,
      );
    const res = await fetch(u, { ...init, redirect: "manual" });
    if (res.status >= 300 && res.status < 400)
      throw new Error(
        `the server answered a redirect (${res.status}); hcpx does not follow it: give the URL it redirects to`,
      );
    if (!res.body) return res;
    let seen = 0;
    const cap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        seen += chunk.byteLength;
        if (seen > MCP_STDOUT_CAP) {
          state.failure = { code: "output_too_large", message: `the server sent more than ${MCP_STDOUT_CAP} bytes` };
          ctl.error(new Error(state.failure.message));
          return;
        }
        ctl.enqueue(chunk);
      },
    });
    return new Response(res.body.pipeThrough(cap), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}

/**
 * Connect an SDK Client to a remote server within `timeoutMs`: modern
 * (2026-07-28) when it answers `server/discover`, else legacy (`initialize`).
 */
export async function connectHttp(spec: RemoteServer, timeoutMs: number, signal?: AbortSignal): Promise<Connection> {
  const url = new URL(spec.url);
  if (signal?.aborted) throw new Error("cancelled before the connection was opened");
  const client = new Client(clientInfo(), {
    capabilities: {},
    versionNegotiation: { mode: "auto" as const, probe: { timeoutMs: Math.min(PROBE_MS, timeoutMs) } },
  });
  const state = new HttpState(() => close());
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: spec.headers },
    fetch: guardedFetch(url.origin, state),
    reconnectionOptions: {
      maxReconnectionDelay: 1000,
      initialReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1,
      maxRetries: 0,
    },
  });
  const close = async () => {
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
  };
  // the SDK's server/discover probe does not heed the signal: a cancel closes the transport, which aborts its
  // requests in flight (the probe's too) and ends the connect; only while it opens, a kept connection does not
  // hold the first call's signal
  const stop = () => void transport.close().catch(() => undefined);
  signal?.addEventListener("abort", stop, { once: true });
  try {
    await client.connect(transport, { timeout: timeoutMs, signal });
  } catch (e) {
    await close();
    throw e;
  } finally {
    signal?.removeEventListener("abort", stop);
  }
  return { client, transport: state, close };
}

/**
 * One page of the server's tools/list. The v2 client's `listTools()` without a
 * cursor gathers every page (up to 64) before it answers, so a server listing
 * 200,000 tools in pages would be read whole; hcpx reads page by page and
 * stops at its cap (mcp-pins.ts listAllTools).
 */
export async function listToolsPage(
  client: Client,
  cursor: string | undefined,
  timeoutMs: number,
): Promise<{ tools?: unknown; nextCursor?: unknown }> {
  return (await client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, { timeout: timeoutMs })) as {
    tools?: unknown;
    nextCursor?: unknown;
  };
}

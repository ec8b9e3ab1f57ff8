// `hcpx adopt <host> --url <url> [--token-env NAME]` (issue 24 §4): the host's
// entry for a team's `hcpx mcp --http` server instead of a local command. The
// shape of each host's remote entry is data (hosts/<host>.json5,
// `entry.remoteFields`, with the host's documentation in `docs`); a host whose
// remote shape is not documented has none, and is refused by name. The token is
// never written: only the host's reference to an environment variable
// (`envSyntax`, or the variable's name where the host takes a name).
//
// probeRemote() is what `--check` (and doctor) see of the URL: reachable,
// authenticated, tools listed — real HTTP, the MCP SDK's client.
import { listHosts, loadDescriptor, type Descriptor, type Target } from "./descriptor";
import { HcpxError, type Problem } from "../util/errors";
import { ENV_NAME, urlProblem } from "./remote-shape";
import { loadMcpAdapter } from "../runtime/mcp-load";

export interface RemoteOptions {
  url: string;
  /** the environment variable that holds the bearer token (its name; the value is never read here) */
  tokenEnv?: string;
}

/** --url and --token-env as given: an http(s) URL without credentials in it, a plain variable name. */
export function checkRemoteOptions(url: string, tokenEnv: string | undefined): RemoteOptions {
  const bad = urlProblem(url);
  if (bad?.includes("user name or password"))
    throw new HcpxError(
      {
        code: "bad_args",
        message: "--url holds a user name or password: hcpx never writes a credential into a host's file",
        hint: "give the URL without it, and the token with --token-env NAME (the host reads it from that variable)",
      },
      64,
    );
  if (bad)
    throw new HcpxError(
      {
        code: "bad_args",
        message: `--url takes an http:// or https:// URL: ${JSON.stringify(url.slice(0, 200))} ${bad}`,
        hint: "e.g. --url https://hcp.example.com/mcp",
      },
      64,
    );
  if (tokenEnv !== undefined && !ENV_NAME.test(tokenEnv))
    throw new HcpxError(
      {
        code: "bad_args",
        message: `--token-env takes the name of an environment variable (letters, digits, _), not '${tokenEnv}'`,
        hint: "e.g. --token-env HCP_TOKEN; the token itself is never written",
      },
      64,
    );
  return { url, ...(tokenEnv !== undefined ? { tokenEnv } : {}) };
}

/** The target that holds a host's MCP entry at a scope. */
export function mcpTarget(desc: Descriptor, scope: "project" | "user"): Target | undefined {
  return desc.scopes[scope]?.targets.find((t) => t.entry !== undefined);
}

/** Every host named takes a remote entry at this scope, or the refusal names the ones that do not. */
export function requireRemote(hosts: readonly string[], scope: "project" | "user"): void {
  const without = hosts
    .map((h) => loadDescriptor(h))
    .filter((d) => d.scopes[scope] && !mcpTarget(d, scope)?.entry?.remoteFields);
  if (!without.length) return;
  const able = hostsWithRemote(scope);
  throw new HcpxError(
    without.map((d) => ({
      code: "remote_unsupported" as const,
      message: `${d.name} (${d.host}): hcpx does not know how this host takes a remote MCP server by URL (its remote entry is not documented), so --url writes nothing`,
      hint: `adopt it with the local command (without --url); hosts that take --url: ${able.join(", ")}`,
    })),
    64,
  );
}

/** The hosts whose descriptor has a remote entry at this scope. */
export function hostsWithRemote(scope: "project" | "user"): string[] {
  return listHosts().filter((h) => mcpTarget(loadDescriptor(h), scope)?.entry?.remoteFields);
}

/** The remote entry a target's `entry.remoteFields` describes, in its field order. */
export function remoteEntryValue(
  t: Target,
  remote: RemoteOptions,
  desc: Descriptor,
  approval: (v: "toolApprovals" | { items: unknown }, field: string) => unknown,
): Record<string, unknown> {
  const fields = t.entry?.remoteFields;
  if (!fields)
    throw new HcpxError({
      code: "remote_unsupported",
      message: `${desc.name}: no documented remote entry`,
      hint: "adopt it without --url",
    });
  if (t.vars && new RegExp(t.vars.pattern, "u").test(remote.url)) {
    throw new HcpxError({
      code: "host_variable",
      message: `the URL holds text ${desc.name} expands as a variable (${t.vars.syntax}); it has no escape for it, so hcpx writes nothing`,
      hint: "give the URL without that text",
    });
  }
  const ref = (name: string) => t.envSyntax!.replaceAll("VAR", name);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === "url") out[k] = remote.url;
    else if (v === "tokenEnv") {
      if (remote.tokenEnv) out[k] = remote.tokenEnv;
    } else if (v === "toolApprovals" || "items" in v) {
      // the approval rules, as in the local entry
      const value = approval(v, k);
      if (value !== undefined) out[k] = value;
    } else if ("headers" in v) {
      if (remote.tokenEnv)
        out[k] = Object.fromEntries(
          Object.entries(v.headers).map(([h, tmpl]) => [h, tmpl.replaceAll("{token}", ref(remote.tokenEnv!))]),
        );
    } else out[k] = v.value;
  }
  return out;
}

/** What one protocol era of the MCP SDK's client saw at the URL. */
export interface EraProbe {
  /** "legacy": the 2025 `initialize` handshake (what most hosts speak today); "modern": 2026-07-28 (`server/discover`) */
  era: "legacy" | "modern";
  /** the protocol version negotiated */
  version?: string;
  /** the tools listed (names), when they were */
  tools?: string[];
  /** each listed tool's class by its annotations (toolClass) */
  classes?: Record<string, ToolClass>;
  error?: string;
}

export interface RemoteProbe {
  url: string;
  /** an HTTP answer came back */
  reachable: boolean;
  /** the server took the request (not 401/403) */
  authenticated: boolean;
  /** the variable whose value was sent as the bearer token (its name; absent: no token sent) */
  tokenFrom?: string;
  /** the tools it lists (the legacy era's, else the modern one's), when it listed them */
  tools?: string[];
  /** each era, as the SDK's client saw it */
  eras?: EraProbe[];
  /**
   * what the host's approval rules are written from (remoteClasses): each listed tool whose name a
   * rule may hold, by the server's annotations, the strictest of the eras that list it
   */
  classes?: Record<string, ToolClass>;
  status?: number;
  /** what went wrong, in words */
  error?: string;
}

const CLIENT = { name: "hcpx-adopt-check", version: "1" };

/** One era: connect with the SDK's v2 client (legacy, or pinned to 2026-07-28) and list the tools. Never throws. */
async function probeEra(
  era: EraProbe["era"],
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<EraProbe> {
  const out: EraProbe = { era };
  try {
    // the SDK client from the mcp adapter's file (runtime/mcp-load.ts): not in adopt's bundle
    const { Client, StreamableHTTPClientTransport } = await loadMcpAdapter();
    const client = new Client(CLIENT, era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {});
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }), {
      timeout: timeoutMs,
    });
    try {
      const v = client.getNegotiatedProtocolVersion();
      if (v) out.version = v;
      const r = await client.listTools(undefined, { timeout: timeoutMs });
      out.tools = r.tools.map((t) => t.name);
      out.classes = Object.create(null) as Record<string, ToolClass>;
      for (const t of r.tools) stricter(out.classes, t.name, toolClass(t.annotations)); // a name listed twice: its strictest
    } finally {
      await client.close().catch(() => {});
    }
  } catch (e) {
    out.error = `the MCP client failed: ${((e as Error)?.message ?? String(e)).slice(0, 300)}`;
  }
  return out;
}

/**
 * Reach the URL as the host will: an MCP initialize over Streamable HTTP with
 * `Authorization: Bearer <the token's value>` when a token variable is named
 * (and set), then tools/list in each era with the SDK's v2 client. Never
 * throws; `timeoutMs` bounds each step. Callers pass only a URL and a variable
 * name the person gave on the command line (never ones read from a file).
 */
export async function probeRemote(
  remote: RemoteOptions,
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 10_000,
): Promise<RemoteProbe> {
  const token = remote.tokenEnv ? env[remote.tokenEnv] : undefined;
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const probe: RemoteProbe = {
    url: remote.url,
    reachable: false,
    authenticated: false,
    ...(token ? { tokenFrom: remote.tokenEnv } : {}),
  };
  // first, the plain answer: status and WWW-Authenticate (the SDK's client hides the status)
  try {
    const r = await fetch(remote.url, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: CLIENT },
      }),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "manual",
    });
    probe.reachable = true;
    probe.status = r.status;
    await r.body?.cancel().catch(() => {});
    if (r.status === 401 || r.status === 403) {
      probe.error = `HTTP ${r.status}${remote.tokenEnv ? (token ? ` with the token in ${remote.tokenEnv}` : ` (${remote.tokenEnv} is not set here)`) : " (no --token-env given)"}`;
      return probe;
    }
    if (r.status >= 300) {
      probe.error = `HTTP ${r.status} to an MCP initialize${r.status < 400 ? " (a redirect: hcpx does not follow one with the token; give the final URL)" : ""}`;
      return probe;
    }
    probe.authenticated = true;
  } catch (e) {
    probe.error =
      (e as Error)?.name === "TimeoutError"
        ? `no answer within ${timeoutMs} ms`
        : `${(e as { cause?: { code?: string } })?.cause?.code ?? (e as Error)?.message ?? String(e)}`;
    return probe;
  }
  // then what the host does: the SDK's client, initialize + tools/list, in each era
  probe.eras = [
    await probeEra("legacy", remote.url, headers, timeoutMs),
    await probeEra("modern", remote.url, headers, timeoutMs),
  ];
  const listed = probe.eras.find((e) => e.tools);
  if (listed?.tools) {
    probe.tools = listed.tools;
    probe.classes = remoteClasses(probe.eras);
  } else probe.error = probe.eras.map((e) => `${e.era}: ${e.error}`).join("; ");
  return probe;
}

/** How a host's approval rules treat a listed tool: "read" allowed, "write" left to the host's default, "confirm" asked. */
export type ToolClass = "read" | "write" | "confirm";

/**
 * A listed tool's class by its MCP annotations, with the spec's defaults (readOnlyHint false,
 * destructiveHint true): only a tool marked read-only is a read; one marked not destructive is an
 * ungated write; anything else (no annotations at all included) is asked. An hcpx server marks
 * them from its Policy (src/mcp/listing.ts mcpTool): a confirm-gated or external write is destructive.
 */
export function toolClass(a: { readOnlyHint?: unknown; destructiveHint?: unknown } | undefined): ToolClass {
  if (a?.readOnlyHint === true) return "read";
  return a?.destructiveHint === false ? "write" : "confirm";
}

/** A tool name a host rule may hold as is: no glob, quote or separator a host reads into it (MCP's own name characters, less `.`). */
export const RULE_TOOL_NAME = /^[A-Za-z0-9_-]{1,128}$/;
const STRICT: Record<ToolClass, number> = { read: 0, write: 1, confirm: 2 };

/** The tools of every era that listed them, each the strictest class any era gave it; a name no rule may hold is left out (the host asks). */
export function remoteClasses(eras: readonly EraProbe[]): Record<string, ToolClass> {
  const out = Object.create(null) as Record<string, ToolClass>;
  for (const e of eras)
    for (const [name, cls] of Object.entries(e.classes ?? {}))
      if (RULE_TOOL_NAME.test(name) && name !== "__proto__") stricter(out, name, cls);
  return out;
}

/** `name`'s class in `out`: `cls`, unless it holds a stricter one already (`out` has no prototype). */
function stricter(out: Record<string, ToolClass>, name: string, cls: ToolClass): void {
  const had = Object.hasOwn(out, name) ? out[name] : undefined;
  if (had === undefined || STRICT[cls] > STRICT[had]) out[name] = cls;
}

/** A probe in words: what the host will see. */
export function probeSummary(p: RemoteProbe): string {
  if (!p.reachable) return `${p.url}: not reachable (${p.error})`;
  if (!p.authenticated) return `${p.url}: reachable, not authenticated (${p.error})`;
  const token = p.tokenFrom ? `with the token from $${p.tokenFrom}` : "without a token";
  if (!p.tools) return `${p.url}: reachable, authenticated ${token}, but no tools listed (${p.error})`;
  const names = p.tools.length ? `: ${p.tools.slice(0, 8).join(", ")}${p.tools.length > 8 ? ", …" : ""}` : "";
  const eras = (p.eras ?? [])
    .map((e) => (e.tools ? `${e.version ?? e.era} lists ${e.tools.length}` : `${e.era} era failed (${e.error})`))
    .join("; ");
  return `${p.url}: reachable, authenticated ${token}, ${p.tools.length} tool(s)${names} (${eras})`;
}

/** A probe's findings as adopt's health problems (empty: the host will see the server and its tools). */
export function probeProblems(desc: Descriptor, p: RemoteProbe): Problem[] {
  const out: Problem[] = [];
  const at = `${desc.name}: ${p.url}`;
  if (!p.reachable)
    out.push({
      code: "remote_unreachable",
      severity: "error",
      message: `${at} is not reachable (${p.error})`,
      hint: "start the server (`hcpx mcp --http <port> --server-config <file>`, docs/http.md), or check the URL and the proxy in front of it",
    });
  else if (!p.authenticated)
    out.push({
      code: "remote_unauthorized",
      severity: "error",
      message: `${at} refused the request: ${p.error}`,
      hint: "set the token's variable where the host runs (--token-env NAME), and check that the server knows the token",
    });
  else if (!p.tools)
    out.push({
      code: "remote_unreachable",
      severity: "error",
      message: `${at} answered but did not list tools: ${p.error}`,
      hint: "check that the URL is the MCP endpoint (e.g. …/mcp)",
    });
  return out;
}

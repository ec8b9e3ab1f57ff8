// `hcpx mcp`: the reference MCP export (§12.5) — a stdio server on the official
// @modelcontextprotocol/sdk. Every tool call goes through the runtime's
// execute() (grant check → Policy → args → Binding → Adapter → envelope); this
// module never checks Policy or touches Binding itself (§12.5.3).
//
// Config: the tool list is built at start and rebuilt when the config or a
// pack file changes (fs.watch → notifications/tools/list_changed), and checked
// on every tools/list (a stat of each file it was built from; rebuilt only
// when one changed); each tools/call re-reads hcp.config.json5 (~1 ms) and hands that
// fresh Project to the runtime, so a revoked grant stops working at once,
// without restarting the host.
//
// This module is only reached through import() from `hcpx mcp`, so only that
// command pays for loading the SDK. stdout carries nothing but protocol.
import { statSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { findProjectConfig, loadProject, type LoadProjectOptions } from "../pack/load";
import type { Project } from "../pack/model";
import { HcpxError } from "../util/errors";
import { asUserError } from "../util/ioerror";
import { userConfigDir } from "../util/paths";
import { execute, type ConfirmQuestion, type ExecRequest, type PersonAnswer } from "../runtime/execute";
import { failure, problemFailure, type Envelope } from "../runtime/envelope";
import { READ_SKILL_TOOL, toMcp } from "../projection/tools";
import { brokenLines, exportView, type ExportView } from "./view";
import { HCP_TOOL, instructions, toolsFor, type McpToolDef, type Shape } from "./tools";

declare const HCPX_VERSION: string;
const VERSION = typeof HCPX_VERSION === "string" ? HCPX_VERSION : "0.0.0-dev";

export interface ServeOptions {
  shape: Shape;
  config?: string;
  cwd?: string;
  /** Watch the config and pack files and announce tool-list changes (default true). */
  watch?: boolean;
}

export const SKILL_URI = (pack: string) => `skill://${pack}/SKILL.md`;
const SKILL_URI_RE = /^skill:\/\/([a-z][a-z0-9-]{0,31})\/SKILL\.md$/;

const log = (msg: string) => process.stderr.write(`hcpx mcp: ${msg}\n`);
const debug = (msg: string) => {
  if (process.env.HCPX_DEBUG) log(msg);
};

function problemEnvelope(e0: unknown): Envelope {
  const e = asUserError(e0);
  if (e instanceof HcpxError) return problemFailure(e.problems);
  return failure("internal", `internal error: ${(e as Error)?.message ?? String(e)}`, { hint: "this is a bug in hcpx; rerun with HCPX_DEBUG=1 and report it" });
}

export function toResult(env: Envelope): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(env) }], structuredContent: env as unknown as Record<string, unknown>, isError: !env.ok };
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isArgv = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

/** The `hcp` tool's input → a runtime request (or a bad_args envelope). */
export function requestFromHcp(input: Record<string, unknown>): ExecRequest | Envelope {
  const { pack, verb, args, confirm, argv, ...rest } = input;
  const extra = Object.keys(rest);
  if (extra.length) return failure("bad_args", `unknown input ${extra.map((k) => `'${k}'`).join(", ")} for tool hcp`, { hint: "hcp takes {pack, verb, args, confirm}; put the verb's own args inside args" });
  if (typeof pack !== "string" || !pack) return failure("bad_args", "'pack' must be a pack id (string)", { hint: "see the pack list in the hcp tool description" });
  if (typeof verb !== "string" || !verb) return failure("bad_args", "'verb' must be a verb_key (string)", { hint: "see the pack list in the hcp tool description" });
  if (args !== undefined && !isObj(args)) return failure("bad_args", "'args' must be an object of the verb's args", { hint: "e.g. {\"account\": \"checking\"}; pass-through verbs take argv: [\"…\"]" });
  if (confirm !== undefined && typeof confirm !== "boolean") return failure("bad_args", "'confirm' must be true or false");
  // The schema (src/projection/tools.ts shellTool) has a pass-through argv at the top
  // level; models also put it in args.argv. Accept either, not both.
  if (argv !== undefined) {
    if (!isArgv(argv)) return failure("bad_args", "'argv' must be an array of strings");
    if (args && "argv" in args) return failure("bad_args", "give the pass-through argv once: args.argv or argv");
    return split(pack, verb, { ...(args ?? {}), argv }, confirm === true);
  }
  return split(pack, verb, args ?? {}, confirm === true);
}

function split(pack: string, verb: string, args: Record<string, unknown>, confirm: boolean): ExecRequest {
  // An array-valued `argv` can only be a pass-through argv: declared args are scalars.
  if (isArgv(args.argv)) {
    const { argv, ...named } = args;
    return { pack, verb, args: named, argv: argv as string[], confirm };
  }
  return { pack, verb, args, confirm };
}

const noConfig = (p: Project): boolean => p.configFile === undefined && p.userConfigFile === undefined;

export async function serve(opts: ServeOptions): Promise<void> {
  // No config at all (a user-scope entry started in a folder that is not a
  // project) serves no packs and says why; a config that does not parse is fatal.
  // a project's entry serves the project's packs alone; the user's own config is served where there is
  // no project (and by the user-scope entry, which names it with --config): the two entries never overlap
  const loadOpts: LoadProjectOptions = { config: opts.config, cwd: opts.cwd ?? process.cwd(), optional: true, user: "fallback" };
  const shape = opts.shape;
  // a long-lived process: the mcp adapter keeps each mcp pack's server running between calls (src/runtime/mcp-adapter.ts)
  (globalThis as Record<symbol, unknown>)[Symbol.for("hcpx.mcp.keepAlive")] = true;
  const freshProject = (): Project => loadProject(loadOpts);

  // What a view was built from, as file identities (stat: device, inode, size,
  // mtime and ctime): while none has changed, tools/list, resources/list
  // and the rest serve the view already built instead of rebuilding it (at 100
  // packs a rebuild was 32–41 ms; the stat pass is ~1 ms). A change between the
  // stat and the read is caught by the next request: the stamp is taken first.
  const configStamp = (): string => {
    const file = loadOpts.config ? resolve(loadOpts.cwd!, loadOpts.config) : process.env.HCP_CONFIG ? resolve(loadOpts.cwd!, process.env.HCP_CONFIG) : findProjectConfig(loadOpts.cwd!);
    return `${file ?? "-"}=${identity(file)}|${identity(join(userConfigDir(), "config.json5"))}`;
  };
  const packsStamp = (project: Project): string => project.packDirs.map((d) => PACK_FILES.map((f) => identity(join(d, f))).join(",")).join("|");

  // At start a broken config is fatal (reported on stderr by the CLI, exit 1):
  // a host shows "failed to connect" rather than a server with no tools.
  let built = { config: configStamp(), packs: "" };
  let view: ExportView;
  {
    const project = freshProject();
    built.packs = packsStamp(project);
    view = exportView(project);
  }
  let tools: McpToolDef[] = toolsFor(shape, view);
  let listed = tools.map(toMcp);
  let key = viewKey(view, tools);
  let brokenSaid = "";
  /** Say on stderr which packs are not served and why (again only when that changes). */
  const sayBroken = (v: ExportView) => {
    const lines = brokenLines(v.broken);
    const said = lines.join("\n");
    if (said === brokenSaid) return;
    brokenSaid = said;
    if (lines.length) log(`not serving ${lines.length} broken pack(s):\n${lines.map((l) => `  ${l}`).join("\n")}`);
    else log("every activated pack loads again");
  };
  if (view.broken.length) sayBroken(view);

  const server = new Server(
    { name: "hcpx", version: VERSION },
    {
      capabilities: { tools: { listChanged: true }, resources: { listChanged: true } },
      instructions: (noConfig(view.project) ? `No hcp.config.json5 in ${loadOpts.cwd} or above, and no user config: no packs are served. Run \`hcpx init\` in the project, or start the host there.\n` : "") + instructions(view.packs, shape, view.broken),
    },
  );

  /** Rebuild the view from disk when a file it was built from changed; keeps the last good one when the config cannot be read. */
  const refresh = (): boolean => {
    const config = configStamp();
    let project = view.project;
    if (config !== built.config) {
      try {
        project = freshProject();
      } catch (e) {
        log(`config not reloaded: ${e instanceof HcpxError ? e.problems[0]!.message : (e as Error).message}`);
        return false;
      }
    }
    const packs = packsStamp(project);
    if (config === built.config && packs === built.packs) return false;
    let next: ExportView;
    try {
      next = exportView(project);
    } catch (e) {
      log(`config not reloaded: ${e instanceof HcpxError ? e.problems[0]!.message : (e as Error).message}`);
      return false;
    }
    built = { config, packs };
    const nextTools = toolsFor(shape, next);
    const nextKey = viewKey(next, nextTools);
    sayBroken(next);
    view = next;
    tools = nextTools;
    listed = tools.map(toMcp);
    if (nextKey === key) return false;
    key = nextKey;
    return true;
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    if (refresh()) announce();
    return { tools: listed as never };
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    if (refresh()) announce();
    return {
      resources: view.packs.map((p) => ({ uri: SKILL_URI(p.pack.id), name: p.pack.id, title: `${p.pack.id} Skill`, description: p.description, mimeType: "text/markdown" })),
    };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const m = SKILL_URI_RE.exec(req.params.uri);
    if (refresh()) announce();
    const p = m ? view.packs.find((x) => x.pack.id === m[1]) : undefined;
    if (!p) throw new McpError(-32002, `resource not found: ${req.params.uri}`, { uri: req.params.uri });
    return { contents: [{ uri: req.params.uri, mimeType: "text/markdown", text: view.skills.get(p.pack.id) ?? "" }] };
  });

  // Each call runs under its own AbortController: aborted by the client's
  // notifications/cancelled (the SDK's extra.signal) and by shutdown(), which
  // then waits for the calls, so no bin outlives the server.
  const inflight = new Map<Promise<unknown>, AbortController>();
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const ac = new AbortController();
    const onCancel = () => ac.abort("the client cancelled the request");
    if (extra.signal.aborted) onCancel();
    else extra.signal.addEventListener("abort", onCancel, { once: true });
    if (closing) ac.abort("hcpx mcp is shutting down");
    const task = callTool(req.params.name, req.params.arguments ?? {}, ac.signal);
    inflight.set(task, ac);
    try {
      return await task;
    } finally {
      inflight.delete(task);
      extra.signal.removeEventListener("abort", onCancel);
    }
  });

  async function callTool(name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const t0 = performance.now();
    let env: Envelope | undefined;
    try {
      if (name === READ_SKILL_TOOL) return readSkill(input);
      let req: ExecRequest | Envelope;
      if (name === HCP_TOOL && shape === "single") req = requestFromHcp(input);
      else if (shape === "per-command") req = requestFromTool(name, input);
      else req = failure("unknown_verb", `no tool '${name}'`, { hint: `call ${HCP_TOOL} with {pack, verb, args}` });
      if ("ok" in req) return toResult((env = req));
      // Per call: the config as it is now, so grant changes apply without a restart.
      let project: Project;
      try {
        project = freshProject();
      } catch (e) {
        return toResult((env = problemEnvelope(e)));
      }
      env = await execute(project, req, { signal, askPerson: canElicit() ? askPerson : undefined });
      return toResult(env);
    } catch (e) {
      if (e instanceof McpError) throw e;
      if (process.env.HCPX_DEBUG) log(`${(e as Error)?.stack ?? String(e)}`);
      return toResult((env = problemEnvelope(e)));
    } finally {
      debug(`${name} ${env ? (env.ok ? "ok" : env.error.code) : "-"} ${(performance.now() - t0).toFixed(1)} ms`);
    }
  }

  /** The client declared form elicitation (the SDK reads a bare `elicitation: {}` as form). */
  function canElicit(): boolean {
    return server.getClientCapabilities()?.elicitation?.form !== undefined;
  }

  /**
   * Ask the person through the client (elicitation/create) whether a gated write
   * may run. Only "accept" runs it; a decline, a cancel, no answer within the
   * configured time, or an error all run nothing.
   */
  async function askPerson(q: ConfirmQuestion, signal: AbortSignal | undefined): Promise<PersonAnswer> {
    try {
      const r = await server.elicitInput({ mode: "form", message: q.message, requestedSchema: { type: "object", properties: {} } }, { timeout: q.timeoutMs, signal });
      return r.action === "accept" ? "accept" : r.action === "decline" ? "decline" : "cancel";
    } catch (e) {
      const timedOut = e instanceof McpError && e.code === ErrorCode.RequestTimeout;
      log(`confirm for ${q.pack}.${q.verb}: ${timedOut ? "no answer in time" : `the question failed: ${(e as Error)?.message ?? String(e)}`}; nothing was run`);
      return timedOut ? "timeout" : "error";
    }
  }

  function requestFromTool(name: string, input: Record<string, unknown>): ExecRequest | Envelope {
    let hit = view.byTool.get(name);
    if (!hit && refresh()) {
      announce();
      hit = view.byTool.get(name);
    }
    if (!hit) return failure("unknown_verb", `no tool '${name}' (not a granted command of an activated pack)`, { hint: "list the tools again; hcpx only serves granted commands" });
    const { confirm, ...rest } = input;
    // `confirm` is the tool-call confirm unless the command declares an arg of that name.
    if ("confirm" in hit.command.args) return split(hit.pack, hit.verb, input, false);
    if (confirm !== undefined && typeof confirm !== "boolean") return failure("bad_args", "'confirm' must be true or false");
    return split(hit.pack, hit.verb, rest, confirm === true);
  }

  function readSkill(input: Record<string, unknown>): CallToolResult {
    const id = input.pack;
    if (typeof id !== "string" || !id) return toResult(failure("bad_args", "'pack' must be a pack id (string)"));
    if (refresh()) announce();
    const p = view.packs.find((x) => x.pack.id === id);
    if (!p) {
      const b = view.broken.find((x) => x.id === id);
      if (b) {
        const why = b.problems.find((x) => x.severity !== "warning") ?? b.problems[0];
        return toResult(failure("bad_pack", `pack ${id} is broken: ${why?.message ?? "it does not load"}`, { ...(why?.file ? { file: why.file } : {}), ...(why?.line ? { line: why.line } : {}), hint: "run `hcpx lint` on the pack" }));
      }
      const activated = view.project.packDirs.some((d) => basename(d) === id);
      return toResult(activated ? failure("not_granted", `no command of pack '${id}' is granted`, { hint: "grant it with `hcpx grant`" }) : failure("unknown_pack", `no activated pack '${id}'`, { hint: `packs: ${view.packs.map((x) => x.pack.id).join(", ") || "(none)"}` }));
    }
    return { content: [{ type: "text", text: view.skills.get(p.pack.id) ?? "" }] };
  }

  // ---- change notifications ----
  let initialized = false;
  server.oninitialized = () => {
    initialized = true;
  };
  function announce(): void {
    if (!initialized || closing) return;
    server.sendToolListChanged().catch(() => {});
    server.sendResourceListChanged().catch(() => {});
  }
  const watchers = new Map<string, FSWatcher>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onFsEvent = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (refresh()) {
        debug("config changed: tool list changed");
        announce();
      }
      syncWatchers();
    }, 100);
    timer.unref();
  };
  function syncWatchers(): void {
    if (opts.watch === false) return;
    const want = new Map<string, Set<string> | undefined>();
    const cfg = view.project.configFile;
    if (cfg) want.set(dirname(cfg), new Set([basename(cfg)]));
    want.set(userConfigDir(), new Set(["config.json5"]));
    for (const d of view.project.packDirs) want.set(d, new Set(PACK_FILES));
    for (const [dir, w] of watchers) {
      if (!want.has(dir)) {
        w.close();
        watchers.delete(dir);
      }
    }
    for (const [dir, names] of want) {
      if (watchers.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: false }, (_ev, file) => {
          if (!file || !names || names.has(file.toString())) onFsEvent();
        });
        w.on("error", () => {
          w.close();
          watchers.delete(dir);
        });
        watchers.set(dir, w);
      } catch {
        // a missing directory (no user config): tools/list still re-reads it
      }
    }
  }
  syncWatchers();

  // ---- lifetime: exit when stdin closes (clients leave timed-out servers running) ----
  let closing = false;
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    debug(`stopping (${why})`);
    for (const w of watchers.values()) w.close();
    if (timer) clearTimeout(timer);
    // The client is gone: every running call is cancelled, and the server waits
    // until each bin's tree is stopped (wrap.ts terminateTree: SIGTERM, a grace,
    // SIGKILL, bounded) before it exits.
    for (const ac of inflight.values()) ac.abort(`hcpx mcp is shutting down (${why})`);
    if (inflight.size) await Promise.race([Promise.allSettled([...inflight.keys()]), new Promise((r) => setTimeout(r, 5000).unref())]);
    // The SDK writes a handler's response a few microtasks after it settles: let it.
    await new Promise((r) => setImmediate(r));
    await server.close().catch(() => {});
    process.exit(0);
  };
  process.stdin.on("end", () => void shutdown("stdin closed"));
  process.stdin.on("close", () => void shutdown("stdin closed"));
  process.stdout.on("error", () => void shutdown("stdout closed"));
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(sig, () => void shutdown(sig));

  const transport = new StdioServerTransport();
  transport.onerror = (e) => log(`transport: ${e.message}`);
  await server.connect(transport);
  log(`serving ${view.packs.length} pack(s), ${tools.length} tool(s), shape ${shape}${view.project.configFile ? `, config ${view.project.configFile}` : ""}`);
  // The process stays up on stdin; serve() returns and the CLI must not exit.
}

const PACK_FILES = ["surface.json", "policy.json", "SKILL.md"];

function identity(file: string | undefined): string {
  if (!file) return "-";
  try {
    // numbers, not bigints (half the cost); mtimeMs/ctimeMs keep sub-µs precision
    const st = statSync(file);
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch {
    return "-";
  }
}

function viewKey(view: ExportView, tools: McpToolDef[]): string {
  return JSON.stringify([tools, view.packs.map((p) => [p.pack.id, p.description])]);
}

// The one tool-call front of the MCP export: every transport (stdio in
// server.ts, the loopback HTTP listener in http.ts, and what the HTTP issue
// grows from it) lists and calls tools through this object, in either protocol
// era. It owns the export view (rebuilt when a file it was built from
// changes) and the confirm flow; it never checks Policy or touches Binding
// itself — every call goes through the runtime's execute() (§12.5.3).
//
// No MCP SDK here: the transports translate. A confirm is asked one of two
// ways, per call:
//   legacy (initialize-era) clients that declared elicitation: the caller's
//     `elicit` pushes elicitation/create and waits, as before;
//   modern (2026-07-28) clients that declare elicitation in the request's
//     clientCapabilities: the call returns an InputRequiredResult (one form
//     question + a signed requestState, src/mcp/confirm-state.ts) and runs
//     when the client retries the call with the person's answer.
// size: the one tool-call front of both eras and both transports (confirm, command inputs, audit trace); splitting the inputs and the confirm rounds into their own modules is the next step (issue 28)
import { statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { findPack, findProjectConfig, loadProject, type LoadProjectOptions } from "../pack/load";
import { MAX_ENTRIES, useValidationCache } from "../pack/validcache";
import { CONFIRM_STRICTNESS, toolName, type Command, type ConfirmMode, type Grants, type Pack, type Project } from "../pack/model";
import { HcpxError } from "../util/errors";
import { asUserError } from "../util/ioerror";
import { userConfigDir } from "../util/paths";
import { redactOut } from "../util/redact";
import { execute, type ConfirmQuestion, type ExecRequest, type PersonAnswer } from "../runtime/execute";
import { failure, problemFailure, type Envelope } from "../runtime/envelope";
import { READ_SKILL_TOOL, boundedList } from "../projection/tools";
import type { ToolDef } from "../projection/types";
import { brokenLines, exportView, type ExportView } from "./view";
import { HCP_TOOL, instructions, packIndex, toolsFor, type McpToolDef, type Shape } from "./tools";
import { argsHash, ConfirmStateError, ConfirmStates, type ConfirmBinding, type StateCall } from "./confirm-state";
import { argsFromInputs, canAnswer, capabilityOf, MissingCapability, inputArgs, inputRequest, inputRounds, methodOf, readAnswer, type InputRequestOut, type InputValue } from "./inputs";
import { auditArgs, AuditWriter, decisionOf, type AuditRecord } from "../runtime/audit";
import { settledBefore, Stamped } from "./stamp";
import { readStart, startKey, writeStart, type StartEntry } from "./start-cache";
import { isObj } from "../util/is";

export type Era = "legacy" | "modern";

/** A tool result as MCP carries it (both eras). */
export interface ToolResult {
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The 2026-07-28 InputRequiredResult hcpx returns for a confirm, or for a round of a command's inputs (src/mcp/inputs.ts). */
export interface InputRequired {
  resultType: "input_required";
  inputRequests: Record<string, InputRequestOut>;
  requestState: string;
}

/** Whether the host's own approval guards a call (built by the CLI from src/host/approval.ts). */
export type HostApproval = (project: Project, pack: string, verb: string, tool: string, client?: string) => Promise<boolean>;

/** The key of hcpx's one question in inputRequests / inputResponses. */
export const CONFIRM_KEY = "confirm";

export interface CallContext {
  era: Era;
  /** who is calling: "local" on stdio, the authenticated principal over HTTP */
  principal?: string;
  /** the client's name (clientInfo / User-Agent) when known */
  client?: string;
  /**
   * the name the client gave itself in MCP's clientInfo (legacy: `initialize`; 2026-07-28: this
   * request's `_meta`), never a User-Agent: on an entry several hosts read it says which host's
   * approval may count (`--client-host`, src/host/approval.ts)
   */
  clientInfo?: string;
  signal: AbortSignal;
  /** legacy: ask the person now (elicitation/create); absent when the client cannot. */
  elicit?: (q: ConfirmQuestion, signal: AbortSignal | undefined) => Promise<PersonAnswer>;
  /** modern: the request's clientCapabilities declared form elicitation. */
  canAskModern?: boolean;
  /** modern: the retry's answers and the echoed state. */
  inputResponses?: Record<string, unknown>;
  requestState?: string;
  /** the client's declared capabilities (legacy: from initialize; modern: the request's) — which inputs it can answer */
  clientCaps?: unknown;
  /** legacy: send one input's request to the client now and wait for its result */
  askInput?: (r: InputRequestOut, timeoutMs: number, signal: AbortSignal) => Promise<unknown>;
  /**
   * the library (src/lib/index.ts): a gated write runs only on the person's answer through `elicit`,
   * whatever the model's `confirm` and the project's setting; Binding values come from `env`
   */
  personOnly?: { env: NodeJS.ProcessEnv };
}

export interface FrontOptions {
  shape: Shape;
  config?: string;
  cwd?: string;
  /** The signer of modern confirm states (a per-process key by default). */
  states?: ConfirmStates;
  /** Whether the host's own approval guards a call (`hcpx mcp --host`, src/host/approval.ts). */
  hostApproval?: HostApproval;
  log?: (msg: string) => void;
  /** how calls come in, for the audit log (src/runtime/audit.ts) */
  via?: "stdio" | "http" | "library";
  /** the host id the server was started for (`--host`), for the audit log */
  host?: string;
  /** take the packs' validated files from the validation cache (hcpx mcp on stdio) */
  validationCache?: boolean;
  /** answer the first requests from the start cache while nothing it was built from changed (hcpx mcp on stdio; src/mcp/start-cache.ts) */
  startCache?: boolean;
  /** where each call's audit record goes (default: the audit log; tests give their own) */
  audit?: (rec: AuditRecord) => void;
  /**
   * `hcpx mcp --http`: the authenticated principal this front serves. Its
   * grants apply within the project's (a command must be granted by both),
   * and of its confirm setting and the project's the stricter wins.
   */
  principal?: FrontPrincipal;
  /**
   * `hcpx mcp --http --server-config`: the principal as the server config says now (team-config.ts
   * liveServerConfig; throws when the config no longer loads or names it: the call is refused).
   * Read per call, reused while `file` is unchanged (its stamp joins the project's).
   */
  livePrincipal?: { file: string; get(): FrontPrincipal };
}

export interface FrontPrincipal {
  id: string;
  grants: Grants;
  confirm?: { by: ConfirmMode; timeoutMs?: number };
}

/** The project as one principal of the team server sees it (see FrontOptions.principal). */
export function asPrincipal(p: Project, who: FrontPrincipal): Project {
  const c = who.confirm;
  const by = c && CONFIRM_STRICTNESS[c.by] > CONFIRM_STRICTNESS[p.confirm.by] ? c.by : p.confirm.by;
  return {
    ...p,
    principal: { id: who.id, kind: "agent" },
    grants: { allow: who.grants.allow, deny: who.grants.deny, within: p.grants },
    confirm: { by, timeoutMs: c?.timeoutMs ?? p.confirm.timeoutMs },
  };
}

/** What one call's audit record learns on its way through the front. */
interface Trace {
  pack?: string;
  verb?: string;
  args?: unknown;
  answer?: NonNullable<AuditRecord["confirm"]>["answer"];
  /** the called pack as its files are now (currentPack), handed to execute() */
  loaded?: Pack;
}

const PACK_FILES = ["surface.json", "policy.json", "SKILL.md"];

/** Every tool result of hcpx mcp (stdio, HTTP) is made here, through the one redaction. */
export function toResult(env0: Envelope): ToolResult {
  const env = redactOut(env0);
  return { content: [{ type: "text", text: JSON.stringify(env) }], structuredContent: env as unknown as Record<string, unknown>, isError: !env.ok };
}

function problemEnvelope(e0: unknown): Envelope {
  const e = asUserError(e0);
  if (e instanceof HcpxError) return problemFailure(e.problems);
  return failure("internal", `internal error: ${(e as Error)?.message ?? String(e)}`, { hint: "this is a bug in hcpx; rerun with HCPX_DEBUG=1 and report it" });
}

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

/**
 * MCP tool metadata from the Policy: annotations (read-only, destructive,
 * idempotent, open-world) from the operation and the land, and a title.
 */
export function mcpTool(t: ToolDef, command: Command | undefined, packId: string | undefined, all: Command[]): Record<string, unknown> {
  let title: string;
  let ann: Record<string, boolean>;
  if (command) {
    const p = command.policy;
    const read = p.operation === "read";
    title = `${packId}: ${command.summary.trim().replace(/[.;:,]$/, "")}`;
    ann = { readOnlyHint: read, destructiveHint: !read && (p.confirm || p.land === "external"), idempotentHint: read, openWorldHint: p.land !== "local" };
  } else if (t.name === READ_SKILL_TOOL) {
    title = "Read an HCP pack's Skill";
    ann = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  } else {
    // the single tool `hcp`: the union of what its verbs may do
    const writes = all.filter((c) => c.policy.operation === "write");
    title = "HCP packs";
    ann = { readOnlyHint: writes.length === 0, destructiveHint: writes.some((c) => c.policy.confirm || c.policy.land === "external"), idempotentHint: writes.length === 0, openWorldHint: all.some((c) => c.policy.land !== "local") };
  }
  return { name: t.name, title, description: t.description, inputSchema: command?.inputs ? withoutInputArgs(t.inputSchema, command) : t.inputSchema, annotations: { title, ...ann } };
}

/** A tool's input schema without the args the command's inputs fill (hcpx asks the client for those). */
function withoutInputArgs(schema: Record<string, unknown>, c: Command): Record<string, unknown> {
  const filled = inputArgs(c);
  const props = Object.fromEntries(Object.entries((schema.properties ?? {}) as Record<string, unknown>).filter(([k]) => !filled.has(k)));
  const required = ((schema.required ?? []) as string[]).filter((k) => !filled.has(k));
  const { required: _r, ...rest } = schema;
  return { ...rest, properties: props, ...(required.length ? { required } : {}) };
}

/** The one tool-call front (see the file comment). */
export class McpFront {
  readonly shape: Shape;
  private readonly loadOpts: LoadProjectOptions;
  private readonly states: ConfirmStates;
  private readonly log: (msg: string) => void;
  private readonly hostApproval?: HostApproval;
  private readonly via: "stdio" | "http" | "library";
  private readonly host?: string;
  private readonly audit: (rec: AuditRecord) => void;
  private readonly principal?: FrontPrincipal;
  private readonly livePrincipal?: { file: string; get(): FrontPrincipal };
  private built = { config: "", packs: "" };
  // The view is built when first needed: a start answered from the start cache
  // has the listing, the instructions and the stamps, and no view until a
  // call, a Skill or a change asks for one.
  private built_?: ExportView;
  private tools_?: McpToolDef[];
  listed: Record<string, unknown>[] = [];
  private instr = "";
  /** the project config the view is built from */
  configFile?: string;
  private packDirs: string[] = [];
  /** how many packs are served */
  packCount = 0;
  /** the tool-list change key (JSON of the listing and the packs served); from the start cache, made when compared */
  private key: string | (() => string) = "";
  /** the view built late (from the start cache) differs from the listing served: the next refresh() says the list changed */
  private lateChange = false;
  private brokenSaid = "";
  // Watched packs (server.ts): while every pack directory of the view (and its
  // parent) has a live watch and none fired, a request skips the pack files'
  // stat pass (3 stats a pack: 60 ms at 5,000 packs). A watch event marks the
  // packs dirty synchronously when it is read; a request read before it (a
  // loaded machine) gets the listing of a moment ago. Calls are never decided
  // on the listing: execute() reads the pack's files as they are.
  private packsWatched = false;
  private packsDirty = true;
  /** Called after a rebuild: the server watches the new view's directories. */
  onInstall?: () => void;

  constructor(opts: FrontOptions) {
    this.shape = opts.shape;
    // a project's entry serves the project's packs alone; the user's own config is served where there is
    // no project (and by the user-scope entry, which names it with --config): the two entries never overlap
    this.loadOpts = { config: opts.config, cwd: opts.cwd ?? process.cwd(), optional: true, user: "fallback" };
    this.states = opts.states ?? new ConfirmStates();
    this.log = opts.log ?? (() => {});
    this.hostApproval = opts.hostApproval;
    this.via = opts.via ?? "stdio";
    this.host = opts.host;
    if (opts.audit) this.audit = opts.audit;
    else {
      const w = new AuditWriter(this.log, true);
      this.audit = (rec) => w.write(rec);
    }
    this.principal = opts.principal;
    this.livePrincipal = opts.livePrincipal;
    // At start a broken config is fatal (the CLI reports it, exit 1).
    const readAt = Date.now();
    this.built.config = this.configStamp();
    const key = opts.startCache && !opts.principal ? startKey(this.shape, this.loadOpts.cwd!, opts.config) : undefined;
    if (key !== undefined && this.fromStartCache(key, opts.validationCache === true)) return;
    const project = this.freshProject();
    // hcpx mcp on stdio: the packs' validated files come from the validation cache (src/pack/validcache.ts,
    // keyed on each file's identity, ctime included), as for hcpx exec; not for a project whose 2 files a
    // pack would crowd the cache's entries (exec's among them) out
    if (opts.validationCache && project.packDirs.length * 2 <= MAX_ENTRIES / 4) useValidationCache();
    this.built.packs = this.packsStamp(project.packDirs);
    this.install(exportView(project));
    // kept once the first requests had their turn (a start that misses writes ~0.5 MB at 100 packs per-command)
    if (key !== undefined) setImmediate(() => this.keepStart(key, readAt));
  }

  /** Serve the start cache's entry of `key` when every stamp of it holds now (src/mcp/start-cache.ts). */
  private fromStartCache(key: string, validationCache: boolean): boolean {
    const e = readStart(key);
    if (!e || e.config !== this.built.config || e.packs !== this.packsStamp(e.packDirs)) return false;
    if (validationCache && e.packDirs.length * 2 <= MAX_ENTRIES / 4) useValidationCache();
    this.built.packs = e.packs;
    this.sayBroken(e.brokenLines);
    this.listed = e.listed;
    this.instr = e.instructions;
    this.configFile = e.configFile;
    this.packDirs = e.packDirs;
    this.packCount = e.served.length;
    this.key = () => JSON.stringify([e.listed, e.served]);
    if (process.env.HCPX_DEBUG) this.log("the tool list from the start cache (nothing it was built from changed)");
    return true;
  }

  /** Keep this start's listing for the next, when no file it was built from changed within RACY_MS of reading it, nor since. */
  private keepStart(key: string, readAt: number): void {
    const v = this.built_!;
    const files = [...(this.configFile ? [this.configFile] : []), join(userConfigDir(), "config.json5"), ...this.packDirs.flatMap((d) => PACK_FILES.map((f) => join(d, f)))];
    if (!settledBefore(files, readAt) || this.configStamp() !== this.built.config || this.packsStamp(this.packDirs) !== this.built.packs) return;
    const entry: StartEntry = { key, config: this.built.config, packs: this.built.packs, packDirs: this.packDirs, ...(this.configFile ? { configFile: this.configFile } : {}), listed: this.listed, instructions: this.instr, served: servedOf(v.packs), brokenLines: brokenLines(v.broken) };
    writeStart(entry);
  }

  /** The export view: built now when the start was answered from the start cache. Throws when the config no longer loads. */
  get view(): ExportView {
    if (this.built_) return this.built_;
    const config = this.configStamp();
    const project = this.freshProject();
    const packs = this.packsStamp(project.packDirs);
    const v = exportView(project);
    this.built = { config, packs };
    if (this.install(v)) this.lateChange = true;
    return v;
  }

  /** The tools of the view (the listing is `listed`). */
  get tools(): McpToolDef[] {
    if (!this.tools_) void this.view;
    return this.tools_!;
  }

  freshProject(): Project {
    const p = loadProject(this.loadOpts);
    const who = this.livePrincipal ? this.livePrincipal.get() : this.principal;
    return who ? asPrincipal(p, who) : p;
  }

  // Per call (issue 24 §5, issue 29): the project and the called pack as the files are now, loaded
  // again only when a file they come from changed (a stamp: one stat a file, src/mcp/stamp.ts, which
  // never vouches for a file changed within the last seconds); else the ones loaded before.
  private projects = new Stamped<Project>();
  private packMemo: { project?: Project; files: string[]; byId: Map<string, Stamped<Pack>> } = { files: [], byId: new Map() };

  /** The project as its config files say now (see above). */
  currentProject(): Project {
    return this.projects.get(this.configFiles(), () => this.freshProject());
  }

  /**
   * The pack `id` of `project` as its files say now, or undefined when it does not load (execute()
   * then reads it and says why). Stamped on every activated pack's surface.json and policy.json:
   * findPack refuses an id that two activated packs declare.
   */
  private currentPack(project: Project, id: string): Pack | undefined {
    let m = this.packMemo;
    if (m.project !== project) m = this.packMemo = { project, files: project.packDirs.flatMap((d) => [join(d, "surface.json"), join(d, "policy.json")]), byId: new Map() };
    const s = m.byId.get(id) ?? new Stamped<Pack>();
    try {
      const pack = s.get(m.files, () => findPack(project, id));
      m.byId.set(id, s);
      return pack;
    } catch {
      m.byId.delete(id);
      return undefined;
    }
  }

  /** The files the project is loaded from, as they are named now (the upward search for hcp.config.json5 included). */
  private configFiles(): (string | undefined)[] {
    const o = this.loadOpts;
    const file = o.config ? resolve(o.cwd!, o.config) : process.env.HCP_CONFIG ? resolve(o.cwd!, process.env.HCP_CONFIG) : findProjectConfig(o.cwd!);
    return [file, join(userConfigDir(), "config.json5"), this.livePrincipal?.file];
  }

  /** No config at all: the instructions say so. */
  get instructions(): string {
    return this.instr;
  }

  private install(next: ExportView): boolean {
    this.sayBroken(brokenLines(next.broken));
    const tools = toolsFor(this.shape, next);
    const all = next.packs.flatMap((p) => p.commands.map((c) => c.command));
    this.built_ = next;
    this.configFile = next.project.configFile;
    this.packDirs = next.project.packDirs;
    this.packCount = next.packs.length;
    this.packsWatched = false;
    this.onInstall?.();
    this.tools_ = tools;
    this.listed = tools.map((t) => {
      const hit = next.byTool.get(t.name);
      return mcpTool(t, hit?.command, hit?.pack, all);
    });
    const p = next.project;
    const none = p.configFile === undefined && p.userConfigFile === undefined;
    this.instr = (none ? `No hcp.config.json5 in ${this.loadOpts.cwd} or above, and no user config: no packs are served. Run \`hcpx init\` in the project, or start the host there.\n` : "") + instructions(next.packs, this.shape, next.broken);
    // the prompts (src/mcp/prompts.ts) change with the commands' prompt declarations
    const key = JSON.stringify([this.listed, servedOf(next.packs)]);
    const changed = key !== (typeof this.key === "function" ? this.key() : this.key);
    this.key = key;
    return changed;
  }

  private sayBroken(lines: string[]): void {
    const said = lines.join("\n");
    if (said === this.brokenSaid) return;
    this.brokenSaid = said;
    if (lines.length) this.log(`not serving ${lines.length} broken pack(s):\n${lines.map((l) => `  ${l}`).join("\n")}`);
    else this.log("every activated pack loads again");
  }

  // What a view was built from, as file identities: while none has changed,
  // the view already built is served (a rebuild at 100 packs is 32–41 ms; the
  // stat pass ~1 ms). The stamp is taken before the read.
  private configStamp(): string {
    const o = this.loadOpts;
    const file = o.config ? resolve(o.cwd!, o.config) : process.env.HCP_CONFIG ? resolve(o.cwd!, process.env.HCP_CONFIG) : findProjectConfig(o.cwd!);
    return `${file ?? "-"}=${identity(file)}|${identity(join(userConfigDir(), "config.json5"))}|${identity(this.livePrincipal?.file)}`;
  }

  private packsStamp(packDirs: string[]): string {
    return packDirs.map((d) => PACK_FILES.map((f) => identity(join(d, f))).join(",")).join("|");
  }

  /** Rebuild the view when a file it was built from changed; true when the tool list changed. Keeps the last good view when the config cannot be read. */
  refresh(): boolean {
    const late = this.lateChange;
    this.lateChange = false;
    const config = this.configStamp();
    // undefined: the config did not change (its project is the view's, built or not yet)
    let project: Project | undefined;
    const notReloaded = (e: unknown) => {
      this.log(`config not reloaded: ${e instanceof HcpxError ? e.problems[0]!.message : (e as Error).message}`);
      return late;
    };
    if (config !== this.built.config) {
      try {
        project = this.freshProject();
      } catch (e) {
        return notReloaded(e);
      }
    }
    const skip = this.packsWatched && !this.packsDirty && project === undefined;
    this.packsDirty = false;
    const packs = skip ? this.built.packs : this.packsStamp(project?.packDirs ?? this.packDirs);
    if (config === this.built.config && packs === this.built.packs) return late;
    let next: ExportView;
    try {
      next = exportView(project ?? this.built_?.project ?? this.freshProject());
    } catch (e) {
      return notReloaded(e);
    }
    this.built = { config, packs };
    return this.install(next) || late;
  }

  /** The files to watch for changes: dir → names (the config, the user config, each pack's files, each pack directory in its parent). */
  watched(): Map<string, Set<string>> {
    const want = new Map<string, Set<string>>();
    const add = (dir: string, names: string[]) => {
      const had = want.get(dir);
      if (had) for (const n of names) had.add(n);
      else want.set(dir, new Set(names));
    };
    const cfg = this.configFile;
    if (cfg) add(resolve(cfg, ".."), [basename(cfg)]);
    add(userConfigDir(), ["config.json5"]);
    const server = this.livePrincipal?.file;
    if (server) add(resolve(server, ".."), [basename(server)]);
    for (const d of this.packDirs) {
      add(d, PACK_FILES);
      add(resolve(d, ".."), [basename(d)]);
    }
    return want;
  }

  /** The watched directories a request may trust instead of a stat pass: each pack directory and its parent. */
  packWatchDirs(): Set<string> {
    const dirs = new Set<string>();
    for (const d of this.packDirs) dirs.add(d).add(resolve(d, ".."));
    return dirs;
  }

  /** server.ts: whether every directory of packWatchDirs() has a live watch now. A newly set watch may have missed a change: one stat pass follows. */
  setPacksWatched(live: boolean): void {
    this.packsWatched = live;
    this.packsDirty = true;
  }

  /** server.ts, synchronously from a watch event on a pack file or directory. */
  packsChanged(): void {
    this.packsDirty = true;
  }

  /**
   * One tools/call, either era. Returns a tool result (an envelope; failures
   * are tool errors with isError) or, for a modern client's confirm, an
   * InputRequiredResult. Throws ConfirmStateError for a requestState that is
   * not good for this call (the transport answers it as a JSON-RPC error).
   */
  async callTool(name: string, input: Record<string, unknown>, ctx: CallContext, onChanged?: () => void): Promise<ToolResult | InputRequired> {
    const t0 = Date.now();
    const trace: Trace = {};
    let out: ToolResult | InputRequired | undefined;
    let thrown: unknown;
    try {
      out = await this.callTraced(name, input, ctx, trace, onChanged);
      return out;
    } catch (e) {
      thrown = e;
      throw e;
    } finally {
      let result: string;
      if (out && "resultType" in out) result = "input_required";
      else if (out) {
        const env = out.structuredContent as { ok?: boolean; error?: { code?: string } } | undefined;
        result = env ? (env.ok ? "ok" : env.error?.code ?? "failed") : out.isError ? "failed" : "ok";
      } else result = thrown instanceof ConfirmStateError ? `request_state_${thrown.reason}` : "internal";
      const decision = trace.answer === "pending" ? "confirm_asked" : thrown ? "refused" : decisionOf(result);
      const args = trace.args ?? input;
      this.audit({
        time: new Date(t0).toISOString(),
        principal: ctx.principal ?? "local",
        via: this.via,
        ...(ctx.client ? { client: ctx.client } : {}),
        ...(this.host ? { host: this.host } : {}),
        tool: name,
        ...(trace.pack ? { pack: trace.pack } : {}),
        ...(trace.verb ? { verb: trace.verb } : {}),
        ...auditArgs(args),
        decision,
        ...(trace.answer ? { confirm: { answer: trace.answer } } : {}),
        result,
        duration_ms: Date.now() - t0,
      });
    }
  }

  private async callTraced(name: string, input: Record<string, unknown>, ctx: CallContext, trace: Trace, onChanged?: () => void): Promise<ToolResult | InputRequired> {
    if (name === READ_SKILL_TOOL) {
      if (typeof input.pack === "string") trace.pack = input.pack;
      return this.readSkill(input, onChanged);
    }
    let req: ExecRequest | Envelope;
    if (name === HCP_TOOL && this.shape === "single") req = requestFromHcp(input);
    else if (this.shape === "per-command") {
      req = this.requestFromTool(name, input, onChanged);
      // the library: a name the view does not serve goes to the runtime, which says why in hcpx exec's words
      if (ctx.personOnly && "ok" in req && !req.ok && req.error.code === "unknown_verb") req = requestByName(this, name, input) ?? req;
    }
    else req = failure("unknown_verb", `no tool '${name}'`, { hint: `call ${HCP_TOOL} with {pack, verb, args}` });
    if ("ok" in req) return toResult(req);
    trace.pack = req.pack;
    trace.verb = req.verb;
    trace.args = req.argv ? { ...req.args, argv: req.argv } : req.args;
    // Per call: the config as it is now, so grant changes apply without a restart.
    let project: Project;
    let pack: Pack | undefined;
    try {
      project = this.currentProject();
      pack = this.currentPack(project, req.pack);
    } catch (e) {
      return toResult(problemEnvelope(e));
    }
    trace.loaded = pack;
    // asked by execute only for a gated write under confirm "host" (it reads the host's files); the host's rule
    // names the tool as the host sees it (`hcp` in the single shape, a verb under mcp.tool_names)
    const check = this.hostApproval;
    const hostApproved = check ? () => check(project, req.pack, req.verb, name, ctx.clientInfo) : false;
    // a command that declares inputs: the args they fill come from the client's answers, never from the call
    const command = this.commandOf(req);
    const withInputs = command?.inputs && Object.keys(command.inputs).length ? command : undefined;
    if (withInputs) {
      const given = [...inputArgs(withInputs)].filter((a) => Object.hasOwn(req.args ?? {}, a));
      if (given.length) return toResult(failure("bad_args", `${req.pack} ${req.verb}: '${given[0]}' is asked of the client (the command's inputs), not taken from the tool call`, { hint: "call the tool without it; hcpx asks for it (docs/inputs.md)" }));
    }
    if (ctx.era === "legacy") {
      let r = req;
      if (withInputs) {
        const g = await this.gatherLegacy(withInputs, req, ctx, project.confirm.timeoutMs);
        if ("env" in g) return toResult(g.env);
        r = { ...req, args: { ...req.args, ...argsFromInputs(withInputs, g.got) } };
      }
      const elicit = ctx.elicit;
      const askPerson = elicit
        ? async (q: ConfirmQuestion, sig: AbortSignal | undefined) => {
            const a = await elicit(q, sig);
            trace.answer = a;
            return a;
          }
        : undefined;
      const only = ctx.personOnly;
      if (only) return toResult(await execute({ ...project, confirm: { ...project.confirm, by: "person" } }, { ...r, confirm: false }, { signal: ctx.signal, askPerson, env: only.env, pack }));
      return toResult(await execute(project, r, { signal: ctx.signal, askPerson, hostApproved, pack }));
    }
    return this.callModern(project, req, ctx, hostApproved, trace, withInputs);
  }

  /** The granted command a request names, as the view serves it (undefined: execute() says why). */
  private commandOf(req: ExecRequest): Command | undefined {
    return this.view.packs.find((p) => p.pack.id === req.pack)?.commands.find((c) => c.command.verb_key === req.verb)?.command;
  }

  /** legacy: ask the client for each input, round by round, now (server → client requests). Also prompts/get's (src/mcp/prompts.ts). */
  async gatherLegacy(c: Command, req: ExecRequest, ctx: CallContext, timeoutMs: number): Promise<{ got: Record<string, InputValue> } | { env: Envelope }> {
    const got: Record<string, InputValue> = {};
    for (const round of inputRounds(c)) {
      for (const [k, i] of round) {
        if (!ctx.askInput || !canAnswer(i, ctx.clientCaps)) {
          if (i.optional) continue;
          return { env: unavailable(req, k, methodOf(i)) };
        }
        let r: unknown;
        try {
          r = await ctx.askInput(inputRequest(c, i), timeoutMs, ctx.signal);
        } catch (e) {
          return { env: failure("input_declined", `input '${k}' of ${req.pack} ${req.verb} got no answer (${(e as Error)?.message ?? String(e)}); nothing was run`) };
        }
        const a = readAnswer(k, i, r);
        if ("declined" in a) return { env: failure("input_declined", `${a.declined}; ${req.pack} ${req.verb} was not run`) };
        if ("invalid" in a) return { env: failure("bad_args", `${a.invalid}; nothing was run`) };
        got[k] = a.value;
      }
    }
    return { got };
  }

  /**
   * modern: one round of a command's inputs. Returns the answers when every
   * round is answered, else the InputRequiredResult of the first round still
   * open (its requestState signs the answers so far, bound to this call and
   * the model's args, single-use, expiring — like a confirm's). Also
   * prompts/get's (src/mcp/prompts.ts), whose `call` says use "prompt".
   */
  gatherModern(c: Command, req: ExecRequest, ctx: CallContext, bound: ConfirmBinding | undefined, call: StateCall): { got: Record<string, InputValue> } | { failed: Envelope } | { ask: InputRequired } {
    const hash = argsHash({ args: req.args, argv: req.argv ?? null });
    if (bound && bound.argsHash !== hash) throw new ConfirmStateError("mismatch", `the answers are for ${bound.pack}.${bound.verb} with other args than this call's; nothing was run; call the tool again to be asked anew`);
    const got: Record<string, InputValue> = { ...(bound?.inputs ?? {}) };
    for (const round of inputRounds(c)) {
      const open: [string, (typeof round)[number][1]][] = [];
      for (const [k, i] of round) {
        if (Object.hasOwn(got, k)) continue;
        if (!canAnswer(i, ctx.clientCaps)) {
          if (i.optional) continue;
          throw new MissingCapability(unavailableText(req, k, methodOf(i)), capabilityOf(i));
        }
        const r = ctx.inputResponses?.[k];
        if (r === undefined) {
          open.push([k, i]);
          continue;
        }
        const a = readAnswer(k, i, r);
        if ("declined" in a) return { failed: failure("input_declined", `${a.declined}; ${req.pack} ${req.verb} was not run`) };
        if ("invalid" in a) return { failed: failure("bad_args", `${a.invalid}; nothing was run`) };
        got[k] = a.value;
      }
      if (open.length) {
        return {
          ask: {
            resultType: "input_required",
            inputRequests: Object.fromEntries(open.map(([k, i]) => [k, inputRequest(c, i)])),
            requestState: this.states.mint({ ...call, argsHash: hash, stage: "inputs", inputs: got }),
          },
        };
      }
    }
    return { got };
  }

  /** Check an echoed requestState for a call or a prompts/get (src/mcp/prompts.ts); spends it. */
  redeem(state: string, call: StateCall): ConfirmBinding {
    return this.states.redeem(state, call);
  }

  private async callModern(project: Project, req: ExecRequest, ctx: CallContext, hostApproved: boolean | (() => Promise<boolean>), trace: Trace, withInputs?: Command): Promise<ToolResult | InputRequired> {
    const principal = project.principal.id;
    const call = { principal, pack: req.pack, verb: req.verb };
    // A retry: the state must be ours, unspent, unexpired and for this call.
    const bound = ctx.requestState !== undefined ? this.states.redeem(ctx.requestState, call) : undefined;
    if (!withInputs) {
      if (bound?.stage === "inputs") throw new ConfirmStateError("mismatch", `the answers are for the inputs of ${bound.pack}.${bound.verb}, which asks for none now; nothing was run; call the tool again`);
      return this.confirmModern(project, req, ctx, hostApproved, bound, {}, trace);
    }
    if (!bound || bound.stage === "inputs") {
      const g = this.gatherModern(withInputs, req, ctx, bound, call);
      if ("failed" in g) return toResult(g.failed);
      if ("ask" in g) return g.ask;
      // every input answered: on to the call itself (its confirm question, if any, is asked anew)
      return this.confirmModern(project, { ...req, args: { ...req.args, ...argsFromInputs(withInputs, g.got) } }, { ...ctx, inputResponses: undefined }, hostApproved, undefined, g.got, trace);
    }
    // the answer to the confirm asked after the inputs: the inputs come back from the signed state
    const got = bound.inputs ?? {};
    return this.confirmModern(project, { ...req, args: { ...req.args, ...argsFromInputs(withInputs, got) } }, ctx, hostApproved, bound, got, trace);
  }

  private async confirmModern(project: Project, req: ExecRequest, ctx: CallContext, hostApproved: boolean | (() => Promise<boolean>), bound: ConfirmBinding | undefined, inputs: Record<string, InputValue>, trace: Trace): Promise<ToolResult | InputRequired> {
    const principal = project.principal.id;
    if (bound) {
      const given = ctx.inputResponses?.[CONFIRM_KEY];
      // no answer to hcpx's question in the retry: ask again (the spent state is not reissued)
      if (given === undefined) return this.confirmModern(project, req, { ...ctx, inputResponses: undefined }, hostApproved, undefined, inputs, trace);
      const answer = personAnswer(given);
      trace.answer = answer;
      let mismatch: string | undefined;
      const env = await execute(project, req, {
        signal: ctx.signal,
        hostApproved,
        pack: trace.loaded,
        askPerson: async (q) => {
          if (q.argsHash !== bound.argsHash) {
            mismatch = `the answer is for ${bound.pack}.${bound.verb} with other args than this call's; nothing was run; call the tool again to be asked about these args`;
            return "error";
          }
          return answer;
        },
      });
      if (mismatch) throw new ConfirmStateError("mismatch", mismatch);
      return toResult(env);
    }
    // A first call: the question goes back to the client as an InputRequiredResult.
    let question: ConfirmQuestion | undefined;
    const env = await execute(project, req, {
      signal: ctx.signal,
      hostApproved,
      pack: trace.loaded,
      askPerson: ctx.canAskModern
        ? async (q) => {
            question = q;
            return "cancel";
          }
        : undefined,
    });
    if (!question) return toResult(env);
    trace.answer = "pending";
    return {
      resultType: "input_required",
      inputRequests: { [CONFIRM_KEY]: { method: "elicitation/create", params: { mode: "form", message: redactOut(question.message), requestedSchema: { type: "object", properties: {} } } } },
      requestState: this.states.mint({ principal, pack: question.pack, verb: question.verb, argsHash: question.argsHash, inputs }),
    };
  }

  private requestFromTool(name: string, input: Record<string, unknown>, onChanged?: () => void): ExecRequest | Envelope {
    let hit = this.view.byTool.get(name);
    if (!hit && this.refresh()) {
      onChanged?.();
      hit = this.view.byTool.get(name);
    }
    if (!hit) return failure("unknown_verb", `no tool '${name}' (not a granted command of an activated pack)`, { hint: "list the tools again; hcpx only serves granted commands" });
    const { confirm, ...rest } = input;
    // `confirm` is the tool-call confirm unless the command declares an arg of that name.
    if ("confirm" in hit.command.args) return split(hit.pack, hit.verb, input, false);
    if (confirm !== undefined && typeof confirm !== "boolean") return failure("bad_args", "'confirm' must be true or false");
    return split(hit.pack, hit.verb, rest, confirm === true);
  }

  private readSkill(input: Record<string, unknown>, onChanged?: () => void): ToolResult {
    const id = input.pack;
    if (id === undefined) {
      // no pack: a page of the pack index (the `hcp` description lists only the packs that fit)
      const page = input.page ?? 1;
      if (typeof page !== "number" || !Number.isInteger(page) || page < 1) return toResult(failure("bad_args", "'page' must be a whole number from 1"));
      if (this.refresh()) onChanged?.();
      return { content: [{ type: "text", text: packIndex(this.view.packs, page) }] };
    }
    if (typeof id !== "string" || !id) return toResult(failure("bad_args", "'pack' must be a pack id (string)", { hint: `leave it out for the pack index (${READ_SKILL_TOOL} {})` }));
    if (this.refresh()) onChanged?.();
    const view = this.view;
    const p = view.packs.find((x) => x.pack.id === id);
    if (!p) {
      const b = view.broken.find((x) => x.id === id);
      if (b) {
        const why = b.problems.find((x) => x.severity !== "warning") ?? b.problems[0];
        return toResult(failure("bad_pack", `pack ${id} is broken: ${why?.message ?? "it does not load"}`, { ...(why?.file ? { file: why.file } : {}), ...(why?.line ? { line: why.line } : {}), hint: "run `hcpx lint` on the pack" }));
      }
      const activated = view.project.packDirs.some((d) => basename(d) === id);
      return toResult(activated ? failure("not_granted", `no command of pack '${id}' is granted`, { hint: "grant it with `hcpx grant`" }) : failure("unknown_pack", `no activated pack '${id}'`, { hint: `packs: ${boundedList(view.packs.map((x) => x.pack.id), `${READ_SKILL_TOOL} {} lists them`) || "(none)"}` }));
    }
    return { content: [{ type: "text", text: view.skills.get(p.pack.id) ?? "" }] };
  }
}

/** A tool name `<pack>__<verb>` as a request for the runtime to judge (not granted, no such pack or verb); undefined when it names no one command. */
function requestByName(front: McpFront, name: string, input: Record<string, unknown>): ExecRequest | undefined {
  const cut = name.indexOf("__");
  if (cut <= 0) return undefined;
  const packId = name.slice(0, cut);
  let verb = name.slice(cut + 2);
  let declared = false;
  try {
    const pack = findPack(front.freshProject(), packId);
    const hits = pack.commands.filter((c) => toolName(pack.id, c.verb_key) === name);
    if (hits.length > 1) return undefined;
    if (hits[0]) [verb, declared] = [hits[0].verb_key, "confirm" in hits[0].args];
  } catch {
    // an unknown or broken pack: execute() says which
  }
  const { confirm: _c, ...rest } = input;
  return split(packId, verb, declared ? input : rest, false);
}

function unavailableText(req: ExecRequest, key: string, method: string): string {
  return `${req.pack} ${req.verb} asks the client for input '${key}' (${method}), which this client did not declare it can answer; nothing was run`;
}

function unavailable(req: ExecRequest, key: string, method: string): Envelope {
  return failure("input_unavailable", unavailableText(req, key, method));
}

/** A form elicitation's answer as the client sent it → the runtime's answer (anything else: no yes). */
function personAnswer(r: unknown): PersonAnswer {
  if (!isObj(r)) return "cancel";
  return r.action === "accept" ? "accept" : r.action === "decline" ? "decline" : "cancel";
}

export { declaresFormElicitation } from "./inputs";

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

/**
 * The packs served, as the tool-list change key holds them: id, description and
 * each command's prompt declaration (the prompts, src/mcp/prompts.ts, change with it).
 */
function servedOf(packs: ExportView["packs"]): unknown[][] {
  return packs.map((p) => [p.pack.id, p.description, p.commands.map((c) => c.command.prompt ?? null)]);
}

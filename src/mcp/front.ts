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
import { statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { findProjectConfig, loadProject, type LoadProjectOptions } from "../pack/load";
import type { Command, Project } from "../pack/model";
import { HcpxError } from "../util/errors";
import { asUserError } from "../util/ioerror";
import { userConfigDir } from "../util/paths";
import { redactOut } from "../util/redact";
import { execute, type ConfirmQuestion, type ExecRequest, type PersonAnswer } from "../runtime/execute";
import { failure, problemFailure, type Envelope } from "../runtime/envelope";
import { READ_SKILL_TOOL } from "../projection/tools";
import type { ToolDef } from "../projection/types";
import { brokenLines, exportView, type ExportView } from "./view";
import { HCP_TOOL, instructions, toolsFor, type McpToolDef, type Shape } from "./tools";
import { ConfirmStateError, ConfirmStates } from "./confirm-state";
import { isObj } from "../util/is";

export type Era = "legacy" | "modern";

/** A tool result as MCP carries it (both eras). */
export interface ToolResult {
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The 2026-07-28 InputRequiredResult hcpx returns for a confirm. */
export interface InputRequired {
  resultType: "input_required";
  inputRequests: Record<string, { method: "elicitation/create"; params: { mode: "form"; message: string; requestedSchema: { type: "object"; properties: Record<string, unknown>; required?: string[] } } }>;
  requestState: string;
}

/** Whether the host's own approval guards a call (built by the CLI from src/host/approval.ts). */
export type HostApproval = (project: Project, pack: string, verb: string) => boolean;

/** The key of hcpx's one question in inputRequests / inputResponses. */
export const CONFIRM_KEY = "confirm";

export interface CallContext {
  era: Era;
  signal: AbortSignal;
  /** legacy: ask the person now (elicitation/create); absent when the client cannot. */
  elicit?: (q: ConfirmQuestion, signal: AbortSignal | undefined) => Promise<PersonAnswer>;
  /** modern: the request's clientCapabilities declared form elicitation. */
  canAskModern?: boolean;
  /** modern: the retry's answers and the echoed state. */
  inputResponses?: Record<string, unknown>;
  requestState?: string;
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
  return { name: t.name, title, description: t.description, inputSchema: t.inputSchema, annotations: { title, ...ann } };
}

/** The one tool-call front (see the file comment). */
export class McpFront {
  readonly shape: Shape;
  private readonly loadOpts: LoadProjectOptions;
  private readonly states: ConfirmStates;
  private readonly log: (msg: string) => void;
  private readonly hostApproval?: HostApproval;
  private built = { config: "", packs: "" };
  view!: ExportView;
  tools: McpToolDef[] = [];
  listed: Record<string, unknown>[] = [];
  private key = "";
  private brokenSaid = "";

  constructor(opts: FrontOptions) {
    this.shape = opts.shape;
    // a project's entry serves the project's packs alone; the user's own config is served where there is
    // no project (and by the user-scope entry, which names it with --config): the two entries never overlap
    this.loadOpts = { config: opts.config, cwd: opts.cwd ?? process.cwd(), optional: true, user: "fallback" };
    this.states = opts.states ?? new ConfirmStates();
    this.log = opts.log ?? (() => {});
    this.hostApproval = opts.hostApproval;
    // At start a broken config is fatal (the CLI reports it, exit 1).
    this.built.config = this.configStamp();
    const project = this.freshProject();
    this.built.packs = this.packsStamp(project);
    this.install(exportView(project));
  }

  freshProject(): Project {
    return loadProject(this.loadOpts);
  }

  /** No config at all: the instructions say so. */
  get instructions(): string {
    const p = this.view.project;
    const none = p.configFile === undefined && p.userConfigFile === undefined;
    return (none ? `No hcp.config.json5 in ${this.loadOpts.cwd} or above, and no user config: no packs are served. Run \`hcpx init\` in the project, or start the host there.\n` : "") + instructions(this.view.packs, this.shape, this.view.broken);
  }

  private install(next: ExportView): boolean {
    this.sayBroken(next);
    const tools = toolsFor(this.shape, next);
    const all = next.packs.flatMap((p) => p.commands.map((c) => c.command));
    this.view = next;
    this.tools = tools;
    this.listed = tools.map((t) => {
      const hit = next.byTool.get(t.name);
      return mcpTool(t, hit?.command, hit?.pack, all);
    });
    const key = JSON.stringify([this.listed, next.packs.map((p) => [p.pack.id, p.description])]);
    const changed = key !== this.key;
    this.key = key;
    return changed;
  }

  private sayBroken(v: ExportView): void {
    const lines = brokenLines(v.broken);
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
    return `${file ?? "-"}=${identity(file)}|${identity(join(userConfigDir(), "config.json5"))}`;
  }

  private packsStamp(project: Project): string {
    return project.packDirs.map((d) => PACK_FILES.map((f) => identity(join(d, f))).join(",")).join("|");
  }

  /** Rebuild the view when a file it was built from changed; true when the tool list changed. Keeps the last good view when the config cannot be read. */
  refresh(): boolean {
    const config = this.configStamp();
    let project = this.view.project;
    if (config !== this.built.config) {
      try {
        project = this.freshProject();
      } catch (e) {
        this.log(`config not reloaded: ${e instanceof HcpxError ? e.problems[0]!.message : (e as Error).message}`);
        return false;
      }
    }
    const packs = this.packsStamp(project);
    if (config === this.built.config && packs === this.built.packs) return false;
    let next: ExportView;
    try {
      next = exportView(project);
    } catch (e) {
      this.log(`config not reloaded: ${e instanceof HcpxError ? e.problems[0]!.message : (e as Error).message}`);
      return false;
    }
    this.built = { config, packs };
    return this.install(next);
  }

  /** The files to watch for changes: dir → names (the config, the user config, each pack's files). */
  watched(): Map<string, Set<string>> {
    const want = new Map<string, Set<string>>();
    const cfg = this.view.project.configFile;
    if (cfg) want.set(resolve(cfg, ".."), new Set([basename(cfg)]));
    want.set(userConfigDir(), new Set(["config.json5"]));
    for (const d of this.view.project.packDirs) want.set(d, new Set(PACK_FILES));
    return want;
  }

  /**
   * One tools/call, either era. Returns a tool result (an envelope; failures
   * are tool errors with isError) or, for a modern client's confirm, an
   * InputRequiredResult. Throws ConfirmStateError for a requestState that is
   * not good for this call (the transport answers it as a JSON-RPC error).
   */
  async callTool(name: string, input: Record<string, unknown>, ctx: CallContext, onChanged?: () => void): Promise<ToolResult | InputRequired> {
    if (name === READ_SKILL_TOOL) return this.readSkill(input, onChanged);
    let req: ExecRequest | Envelope;
    if (name === HCP_TOOL && this.shape === "single") req = requestFromHcp(input);
    else if (this.shape === "per-command") req = this.requestFromTool(name, input, onChanged);
    else req = failure("unknown_verb", `no tool '${name}'`, { hint: `call ${HCP_TOOL} with {pack, verb, args}` });
    if ("ok" in req) return toResult(req);
    // Per call: the config as it is now, so grant changes apply without a restart.
    let project: Project;
    try {
      project = this.freshProject();
    } catch (e) {
      return toResult(problemEnvelope(e));
    }
    const hostApproved = this.hostApproval?.(project, req.pack, req.verb) === true;
    if (ctx.era === "legacy") return toResult(await execute(project, req, { signal: ctx.signal, askPerson: ctx.elicit, hostApproved }));
    return this.callModern(project, req, ctx, hostApproved);
  }

  private async callModern(project: Project, req: ExecRequest, ctx: CallContext, hostApproved: boolean): Promise<ToolResult | InputRequired> {
    const principal = project.principal.id;
    const call = { principal, pack: req.pack, verb: req.verb };
    if (ctx.requestState !== undefined) {
      // A retry: the state must be ours, unspent, unexpired and for this call.
      const bound = this.states.redeem(ctx.requestState, call);
      const given = ctx.inputResponses?.[CONFIRM_KEY];
      // no answer to hcpx's question in the retry: ask again (the spent state is not reissued)
      if (given === undefined) return this.callModern(project, req, { ...ctx, requestState: undefined, inputResponses: undefined }, hostApproved);
      const answer = personAnswer(given);
      let mismatch: string | undefined;
      const env = await execute(project, req, {
        signal: ctx.signal,
        hostApproved,
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
      askPerson: ctx.canAskModern
        ? async (q) => {
            question = q;
            return "cancel";
          }
        : undefined,
    });
    if (!question) return toResult(env);
    return {
      resultType: "input_required",
      inputRequests: { [CONFIRM_KEY]: { method: "elicitation/create", params: { mode: "form", message: redactOut(question.message), requestedSchema: { type: "object", properties: {} } } } },
      requestState: this.states.mint({ principal, pack: question.pack, verb: question.verb, argsHash: question.argsHash }),
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
    if (typeof id !== "string" || !id) return toResult(failure("bad_args", "'pack' must be a pack id (string)"));
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
      return toResult(activated ? failure("not_granted", `no command of pack '${id}' is granted`, { hint: "grant it with `hcpx grant`" }) : failure("unknown_pack", `no activated pack '${id}'`, { hint: `packs: ${view.packs.map((x) => x.pack.id).join(", ") || "(none)"}` }));
    }
    return { content: [{ type: "text", text: view.skills.get(p.pack.id) ?? "" }] };
  }
}

/** A form elicitation's answer as the client sent it → the runtime's answer (anything else: no yes). */
function personAnswer(r: unknown): PersonAnswer {
  if (!isObj(r)) return "cancel";
  return r.action === "accept" ? "accept" : r.action === "decline" ? "decline" : "cancel";
}

/** The client declared form elicitation (a bare `elicitation: {}` is form). */
export function declaresFormElicitation(caps: unknown): boolean {
  if (!isObj(caps) || !isObj(caps.elicitation)) return false;
  const e = caps.elicitation;
  return Object.keys(e).length === 0 || e.form !== undefined;
}

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

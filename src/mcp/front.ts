// The one tool-call front: `hcpx mcp` on stdio (server.ts), the HTTP server
// (http.ts) — both through the SDK's handlers (sdk-server.ts) — and the
// library (src/lib/index.ts) call tools through this object, in either
// protocol era. A call goes one way down:
//   name + input → a runtime request (call-request.ts; a per-command tool's
//   name → its pack and verb) → the project and pack as their files are now
//   (view-cache.ts), whose command says what the call may pass → the
//   command's inputs and the confirm, asked in the caller's era (ask.ts) →
//   execute() (grants, validation, Binding, the Adapter run, redaction;
//   §12.5.3) → one tool result (contract.ts toResult) → one audit record
//   (here).
// It never checks Policy or touches Binding itself. The view and its listing
// (rebuilt when a file changes) are the ViewCache this class extends.
// No MCP SDK here: the transports translate.
import type { Command, Pack, Project } from "../pack/model";
import { isGranted } from "../pack/grants";
import type { ExecRequest } from "../runtime/execute";
import { failure, type Envelope } from "../runtime/envelope";
import { READ_SKILL_TOOL } from "../projection/tools";
import { auditArgs, auditTime, AuditWriter, decisionOf, type AuditRecord } from "../runtime/audit";
import { argsHash } from "../util/argshash";
import { nestedDeeper } from "../util/nesting";
import { MAX_JSON_DEPTH } from "../runtime/args";
import { HCP_TOOL } from "./tools";
import { ConfirmStateError, ConfirmStates, type Checked, type StateCall } from "./confirm-state";
import { inputArgs } from "./inputs";
import { gatherLegacy, gatherModern, runLegacy, runModern, type CallRun } from "./ask";
import { requestByName, requestFromHcp, requestFromTool, toolCallOf, type ToolCall } from "./call-request";
import { readSkill } from "./read-skill";
import { asAgentSees } from "./unseen";
import {
  problemEnvelope,
  toResult,
  type CallContext,
  type FrontOptions,
  type HostApproval,
  type InputRequired,
  type ToolResult,
  type Trace,
} from "./contract";
import { ViewCache } from "./view-cache";

export type {
  CallContext,
  Era,
  FrontOptions,
  FrontPrincipal,
  HostApproval,
  InputRequired,
  ToolResult,
} from "./contract";
export { declaresFormElicitation } from "./inputs";

type Answer = ToolResult | InputRequired;

/** The one tool-call front (see the file comment). */
export class McpFront extends ViewCache {
  private readonly states: ConfirmStates;
  private readonly hostApproval?: HostApproval;
  private readonly via: "stdio" | "http" | "library";
  private readonly host?: string;
  private readonly audit: (rec: AuditRecord) => void | Promise<void>;
  /** the calls it runs at most at once (HTTP: one front is one principal's), and those it runs now */
  private readonly maxCalls: number;
  private running = 0;

  constructor(opts: FrontOptions) {
    super(opts);
    this.maxCalls = opts.maxCalls ?? Infinity;
    this.states = opts.states ?? new ConfirmStates();
    this.hostApproval = opts.hostApproval;
    this.via = opts.via ?? "stdio";
    this.host = opts.host;
    if (opts.audit) this.audit = opts.audit;
    else {
      const w = new AuditWriter(this.log, true);
      this.audit = (rec) => w.record(rec);
    }
  }

  /**
   * One tools/call, either era. Returns a tool result (an envelope; failures
   * are tool errors with isError) or, for a modern client's confirm, an
   * InputRequiredResult. Throws ConfirmStateError for a requestState that is
   * not good for this call (the transport answers it as a JSON-RPC error).
   */
  async callTool(
    name: string,
    input: Record<string, unknown>,
    ctx: CallContext,
    onChanged?: () => void,
  ): Promise<Answer> {
    const t0 = Date.now();
    const trace: Trace = {};
    let out: Answer | undefined;
    let thrown: unknown;
    let failed = false;
    // over its principal's limit: refused before anything is read, and counted only while it runs
    const over = this.running >= this.maxCalls;
    if (!over) this.running++;
    try {
      out = over
        ? tooManyCalls(this.maxCalls, ctx.principal)
        : nestedDeeper(input, MAX_INPUT_NESTING)
          ? tooDeep(trace)
          : await this.callTraced(name, input, ctx, trace, onChanged);
    } catch (e) {
      failed = true;
      thrown = e;
    } finally {
      // however it ended (an answer, a failure, a cancel, the client gone: its signal stopped the bin)
      if (!over) this.running--;
    }
    // answered once its record is written (the writer groups the records of one event-loop turn)
    await this.record(name, input, ctx, trace, t0, out, thrown);
    if (failed) throw thrown;
    return toPerson(ctx) ? out! : this.asAgentSees(out!, trace, onChanged);
  }

  /** A refusal that would tell the agent of a pack or command it was not granted, as for one that does not exist (unseen.ts). */
  private asAgentSees(out: Answer, trace: Trace, onChanged?: () => void): Answer {
    const env = "structuredContent" in out ? (out.structuredContent as unknown as Envelope | undefined) : undefined;
    if (!env || env.ok || trace.pack === undefined || trace.verb === undefined) return out;
    if (!["unknown_pack", "not_granted", "unknown_verb"].includes(env.error.code)) return out;
    let project: Project | undefined;
    try {
      project = this.currentProject();
    } catch {
      return out; // the config does not load: that refusal names no pack
    }
    if (this.refresh()) onChanged?.(); // the packs served now, for the hint
    const seen = asAgentSees(
      env,
      this.view.packs.map((p) => p.pack.id),
      { pack: trace.pack, verb: trace.verb, project, loaded: trace.loaded },
    );
    return seen === env ? out : toResult(seen);
  }

  /** The call's audit record: what it asked, what was decided, how it ended. */
  private record(
    name: string,
    input: Record<string, unknown>,
    ctx: CallContext,
    trace: Trace,
    t0: number,
    out: Answer | undefined,
    thrown: unknown,
  ): void | Promise<void> {
    let result: string;
    let error: { code?: string; started?: unknown } | undefined;
    if (out && "resultType" in out) result = "input_required";
    else if (out) {
      const env = out.structuredContent as { ok?: boolean; error?: typeof error } | undefined;
      error = env?.error;
      result = env ? (env.ok ? "ok" : (env.error?.code ?? "failed")) : out.isError ? "failed" : "ok";
    } else result = thrown instanceof ConfirmStateError ? `request_state_${thrown.reason}` : "internal";
    // a failure before the called pack was loaded (the server config or the principal refused it, a Skill not read): nothing ran
    const early = trace.loaded === undefined && result !== "ok" && decisionOf(result, error) === "ran";
    const decision =
      trace.answer === "pending" ? "confirm_asked" : thrown || early ? "refused" : decisionOf(result, error);
    const args = trace.args ?? input;
    return this.audit({
      time: auditTime(t0),
      principal: ctx.principal ?? "local",
      via: this.via,
      ...(ctx.client ? { client: ctx.client } : {}),
      ...(this.host ? { host: this.host } : {}),
      tool: name,
      ...(trace.pack ? { pack: trace.pack } : {}),
      ...(trace.verb ? { verb: trace.verb } : {}),
      ...auditArgs(args, trace.hashed),
      decision,
      ...(trace.answer ? { confirm: { answer: trace.answer } } : {}),
      result,
      duration_ms: Date.now() - t0,
    });
  }

  private async callTraced(
    name: string,
    input: Record<string, unknown>,
    ctx: CallContext,
    trace: Trace,
    onChanged?: () => void,
  ): Promise<Answer> {
    if (name === READ_SKILL_TOOL) {
      if (typeof input.pack === "string") trace.pack = input.pack;
      return readSkill(this, input, onChanged, toPerson(ctx));
    }
    const named = this.request(name, input, ctx, onChanged);
    if ("ok" in named) return toResult(named);
    trace.pack = named.pack;
    trace.verb = named.verb;
    // the record's args: a request's now, a per-command tool's once its input is read (below)
    if (!("input" in named)) this.traceArgs(trace, named, input);
    // Per call: the config as it is now, so grant changes apply without a restart.
    let project: Project;
    let pack: Pack | undefined;
    try {
      project = this.currentProject();
      pack = this.currentPack(project, named.pack);
    } catch (e) {
      return toResult(problemEnvelope(e));
    }
    // none: execute() says why, and refuses a pack that loads by then (the checks below ran on none)
    trace.loaded = pack ?? null;
    trace.activePacks = () => this.currentPacks(project);
    // what the call may pass is read from the pack execute() runs (never the listing, which a call does not
    // rebuild): a tool's `confirm`, and the args its inputs fill
    const command = commandOf(project, pack, named.verb);
    const req = "input" in named ? requestFromTool(named, command) : named;
    if ("ok" in req) return toResult(req);
    if (req !== named) this.traceArgs(trace, req, input);
    // a command that declares inputs: the args they fill come from the client's answers, never from the call
    const withInputs = command?.inputs && Object.keys(command.inputs).length ? command : undefined;
    if (withInputs) {
      const given = [...inputArgs(withInputs)].filter((a) => Object.hasOwn(req.args ?? {}, a));
      if (given.length)
        return toResult(
          failure(
            "bad_args",
            `${req.pack} ${req.verb}: '${given[0]}' is asked of the client (the command's inputs), not taken from the tool call`,
            { hint: "call the tool without it; hcpx asks for it (docs/inputs.md)" },
          ),
        );
    }
    const run: CallRun = {
      states: this.states,
      project,
      ctx,
      hostApproved: this.hostApprovedFor(project, req, name, ctx),
      trace,
    };
    return ctx.era === "legacy" ? runLegacy(run, req, withInputs) : runModern(run, req, withInputs);
  }

  /** The tool call as a runtime request, in this front's shape, or a per-command tool's call (requestFromTool reads it), or the envelope that says why not. */
  private request(
    name: string,
    input: Record<string, unknown>,
    ctx: CallContext,
    onChanged?: () => void,
  ): ExecRequest | ToolCall | Envelope {
    if (name === HCP_TOOL && this.shape === "single") return requestFromHcp(input);
    if (this.shape !== "per-command")
      return failure("unknown_verb", `no tool '${name}'`, { hint: `call ${HCP_TOOL} with {pack, verb, args}` });
    const refreshed = () => {
      if (!this.refresh()) return undefined;
      onChanged?.();
      return this.view;
    };
    const req = toolCallOf(this.view, name, input, refreshed);
    // the library: a name the view does not serve goes to the runtime, which says why in hcpx exec's words
    if (toPerson(ctx) && "ok" in req && !req.ok && req.error.code === "unknown_verb")
      return requestByName(() => this.freshProject(), name, input) ?? req;
    return req;
  }

  /**
   * Asked by execute only for a gated write under confirm "host" (it reads the host's files); the host's
   * rule names the tool as the host sees it (`hcp` in the single shape, a verb under mcp.tool_names).
   */
  private hostApprovedFor(
    project: Project,
    req: ExecRequest,
    name: string,
    ctx: CallContext,
  ): boolean | (() => Promise<boolean>) {
    const check = this.hostApproval;
    return check ? () => check(project, req.pack, req.verb, name, ctx.clientInfo) : false;
  }

  /** The args the record keeps, and their hash taken while the bin runs. */
  private traceArgs(trace: Trace, req: ExecRequest, input: Record<string, unknown>): void {
    trace.args = req.argv ? { ...req.args, argv: req.argv } : req.args;
    // the record's hash of what it records (record(): the args, else the input), taken while the bin runs
    // (as hcpx exec does): ~50 µs of a server's call (noble's sha256 mostly uncompiled at one call in 30 ms)
    // off the answer's path
    const recorded = trace.args ?? input;
    trace.started = () => (trace.hashed = argsHash(recorded));
  }

  /** legacy: a command's inputs asked now (ask.ts); prompts/get's (src/mcp/prompts.ts). */
  gatherLegacy(c: Command, req: ExecRequest, ctx: CallContext, timeoutMs: number): ReturnType<typeof gatherLegacy> {
    return gatherLegacy(c, req, ctx, timeoutMs);
  }

  /** modern: one round of a command's inputs, signed by this front's states (ask.ts); prompts/get's (src/mcp/prompts.ts). */
  gatherModern(
    c: Command,
    req: ExecRequest,
    ctx: CallContext,
    bound: Checked | undefined,
    call: StateCall,
  ): ReturnType<typeof gatherModern> {
    return gatherModern(this.states, c, req, ctx, bound, call);
  }

  /** Check an echoed requestState for a prompts/get (src/mcp/prompts.ts); gatherModern spends it once its args hash holds. */
  checkState(state: string, call: StateCall): Checked {
    return this.states.check(state, call);
  }
}

/** Levels of arrays and objects a tool call's input may nest (a JSON arg's cap): deeper is refused before anything walks it. */
const MAX_INPUT_NESTING = MAX_JSON_DEPTH;

/** The refusal of an input nested too deep; its record keeps a note in place of the args (the walks over them recurse). */
function tooDeep(trace: Trace): ToolResult {
  trace.args = `(nested deeper than ${MAX_INPUT_NESTING} levels: not recorded)`;
  return toResult(
    failure("bad_args", `the tool input is nested deeper than ${MAX_INPUT_NESTING} levels; nothing was run`, {
      hint: "nest the args less deeply",
    }),
  );
}

/** The refusal of a call over its principal's limit of calls at once (limits.max_calls_per_principal); nothing was read or run. */
function tooManyCalls(max: number, principal = "local"): ToolResult {
  return toResult(
    failure(
      "too_many_calls",
      `principal '${principal}' has ${max} tool calls running, its limit (limits.max_calls_per_principal = ${max}); nothing was run`,
      {
        hint: "wait for one of them to finish, then call again; the server's admin can raise limits.max_calls_per_principal (docs/http.md)",
      },
    ),
  );
}

/** The granted command a call names, as its pack's files are now (undefined: execute() says why it does not run). */
function commandOf(project: Project, pack: Pack | undefined, verb: string): Command | undefined {
  return pack && isGranted(project.grants, pack.id, verb) ? pack.commands.find((c) => c.verb_key === verb) : undefined;
}

/** The answer goes to a person (the library's call(), without `forModel`): it names what was not granted, and how to grant it. */
const toPerson = (ctx: CallContext): boolean => ctx.personOnly !== undefined && ctx.personOnly.forModel !== true;

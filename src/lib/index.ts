// hcpx as a library (`import { openProject } from "hcpx"`): the projection of
// a project's activated packs for an agent you build yourself, and `call()`,
// which runs a tool call through the runtime's execute() — the same grants,
// confirm gate, argument checks, Binding and redaction as `hcpx exec` and
// `hcpx mcp` (§12.2.5: every call goes through the runtime). A call goes
// through `hcpx mcp`'s one tool-call front (src/mcp/front.ts), which writes
// its audit record (`via: "library"`).
//
// The confirm gate in-process: a confirm-gated write runs only when the host
// app's `confirm` callback (its way to ask its person, the twin of MCP
// elicitation) answers true. The model's own `confirm: true` is never enough
// here: without a callback a gated write is `confirm_required`, a "no" is
// `confirm_declined`, and nothing runs.
//
// The public types are declared in this file, not imported from the rest of
// src/, so the emitted index.d.ts stands alone (scripts/build.mjs checks it).
//
// `import("hcpx")` loads this entry, the one redaction and the error types only
// (bench/lib.bench.mjs: ~115 M instructions against ~189 M when the loader and the
// runtime came with it, and `hcpx exec calc add`'s ~141 M): the packs' loader, the
// runtime, the projection and the host engine are chunks imported as a call needs them.
import { join } from "node:path";
import type { Project } from "../pack/model";
import type { buildProjection } from "../projection/build";
import { READ_SKILL_TOOL } from "../projection/names";
import type { ConfirmQuestion, PersonAnswer } from "../runtime/execute";
import type { McpFront } from "../mcp/front";
import { holdSecretEnv, redactDeep, redactOut, secretsFrom } from "../util/redact";
import { HcpxError } from "../util/errors";
import { failure, problemFailure, type Envelope as RuntimeEnvelope } from "../runtime/envelope";
import { isObj } from "../util/is";
import { strayOf } from "../runtime/stray";
import { neutralise } from "../util/neutral";

// ---- public types ----

/** The JSON Schema of a tool's input: an object, `additionalProperties: false`. */
export interface JsonSchema {
  type: "object";
  properties: { [arg: string]: unknown };
  required?: string[];
  additionalProperties?: boolean;
  [key: string]: unknown;
}

/**
 * The runtime's answer to every call: `ok: false` exactly when the command did
 * not do what was asked. The public spelling of src/runtime/envelope.ts's one
 * Envelope (declared here: the package ships src/lib's declarations only;
 * `error.code` is one of the codes in docs/errors.md).
 */
export type Envelope =
  | { ok: true; data: unknown }
  | { ok: false; error: { code: string; message: string; hint?: string; [key: string]: unknown } };

export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string };
}
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema;
}
export interface OpenAITool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}
/** The tool shapes `tools()` renders, the same as `hcpx generate`'s tools/<shape>.json. */
export type ToolShape = "mcp" | "anthropic" | "openai";
export interface ToolsOf {
  mcp: McpTool;
  anthropic: AnthropicTool;
  openai: OpenAITool;
}

/** What the host app shows its person before a confirm-gated write runs. */
export interface ConfirmRequest {
  /** the tool name the model called, `<pack>__<verb>` */
  tool: string;
  pack: string;
  verb: string;
  /**
   * the arguments as they will run (validated and typed; an openapi pack's JSON Schema args can be arrays or objects):
   * the model's values as they are, terminal controls and bidi marks included (Binding values hidden). Show `message`
   * (neutralised), or make these safe before a person sees them.
   */
  args: { [arg: string]: unknown } | { argv: string[] };
  operation: "write";
  /** where the write lands (the pack's Policy): local, remote or external */
  land?: "local" | "remote" | "external";
  /** the command's summary from the pack */
  summary: string;
  /** the runtime's question to the person (what will run, where it lands): the text hcpx mcp's elicitation shows */
  message: string;
}

/** Ask the person; resolve true to run the write. Anything else (false, a throw) runs nothing. */
export type ConfirmCallback = (request: ConfirmRequest) => boolean | Promise<boolean>;

export interface CallOptions {
  /** The host app's way to ask its person. Without it a confirm-gated write is `confirm_required`. */
  confirm?: ConfirmCallback;
  /**
   * The answer goes to a model (the SDK adapters `hcpx/ai-sdk`, `hcpx/anthropic` and `hcpx/openai-agents`
   * pass it; pass it in a loop of your own): a pack or command not granted is answered as one that does
   * not exist, as `hcpx mcp` answers an agent. Without it, the person's view: `not_granted`, and how to grant.
   */
  forModel?: boolean;
}

export interface PackSkill {
  pack: string;
  /** the Skill's frontmatter description */
  description: string;
  /** SKILL.md as this Principal may read it (withheld commands taken out) */
  content: string;
}

export interface OpenProjectOptions {
  /** Where to look for hcp.config.json5 (this directory and up); default process.cwd(). */
  cwd?: string;
  /** An explicit config file instead of the search from `cwd`. */
  config?: string;
  /** The runtime's environment, where Binding values are read from; default process.env. */
  env?: Record<string, string | undefined>;
  /** Where the prompt block says the Skill copies are (relative to the project root); default `.hcp/generated/skills`. */
  skillsPath?: string;
}

export interface HcpxProject {
  /** the project root (the config's directory) */
  readonly root: string;
  readonly configFile: string | undefined;
  /** the stable system-prompt block, header line with its hash first (`hcpx generate`'s system-prompt.md) */
  readonly promptBlock: string;
  /** sha256 of the block's body, first 16 hex digits */
  readonly promptHash: string;
  /** one Skill per projected pack, sorted by pack id */
  readonly skills: readonly PackSkill[];
  /** the tool names, in list order: one per granted command, then `hcp__read_skill` */
  readonly toolNames: readonly string[];
  /** The tool definitions in one shape (default "mcp"), as `hcpx generate` writes tools/<shape>.json. */
  tools<S extends ToolShape = "mcp">(shape?: S): ToolsOf[S][];
  /**
   * Run one tool call through the runtime and return its envelope. Never
   * throws for a runtime condition: an unknown tool, an ungranted command, a
   * gated write without a yes, bad arguments or a failing bin are envelopes.
   * The config is read again on every call, so a revoked grant stops working
   * at once.
   */
  call(tool: string, input?: unknown, options?: CallOptions): Promise<Envelope>;
}

/** A config or pack that cannot be read, from openProject(). */
export interface ProjectProblem {
  code: string;
  message: string;
  file?: string;
  path?: string;
  line?: number;
  column?: number;
  hint?: string;
}
export class ProjectError extends Error {
  readonly code: string;
  readonly problems: ProjectProblem[];
  constructor(problems0: ProjectProblem[]) {
    // an error the library throws is an exit too: through the one redaction
    const problems = redactOut(problems0);
    super(
      problems
        .map(
          (p) =>
            `${p.file ? `${p.file}${p.line ? `:${p.line}` : ""}: ` : ""}${p.message}${p.hint ? ` (hint: ${p.hint})` : ""}`,
        )
        .join("\n"),
    );
    this.name = "ProjectError";
    this.code = problems[0]?.code ?? "error";
    this.problems = problems;
  }
}

/** What adopt() is asked: `hcpx adopt`'s flags (README "Use it on your own project"). */
export interface AdoptOptions {
  /** host ids or `all`; empty with `detected` */
  hosts: string[];
  scope?: "project" | "user";
  /** apply the plan (default: plan only, nothing written) */
  write?: boolean;
  /** compare only: `inSync` says whether a --write would change nothing and each host will use the server */
  check?: boolean;
  /** plan the removal of what hcpx wrote for these hosts */
  remove?: boolean;
  /** replace entries changed by hand since hcpx wrote them */
  force?: boolean;
  /** the MCP command line the entries run (`--command`) */
  command?: string;
  /** the hosts in use instead of named ones (`--detected`) */
  detected?: boolean;
  /** keep the hcp block in the project's .gitignore (`--gitignore`) */
  gitignore?: boolean;
  /** where to look for hcp.config.json5 (this directory and up); default process.cwd() */
  cwd?: string;
  /** an explicit config file */
  config?: string;
}

/** One file of a plan. */
export interface PlannedChange {
  path: string;
  kind: "create" | "update" | "delete";
  hosts: string[];
  notes: string[];
}

/** What adopt() planned, and wrote with `write`. */
export interface AdoptResult {
  scope: "project" | "user";
  hosts: string[];
  /** nothing to change and each host will use the server */
  inSync: boolean;
  /** a byte was written (false without `write`, and when everything was up to date) */
  wrote: boolean;
  changes: PlannedChange[];
  /** files changed by hand, left alone */
  conflicts: ProjectProblem[];
  warnings: ProjectProblem[];
  notes: string[];
  /** why a host will not use the server */
  health: ProjectProblem[];
  /** with `write`: the files written and deleted */
  written: string[];
  deleted: string[];
}

/** What generate() is asked: `hcpx generate`'s flags. */
export interface GenerateOptions {
  /** the out dir; default `<project>/.hcp/generated` */
  out?: string;
  /** host previews; default claude and cursor; `["none"]` for none */
  hosts?: string[];
  /** compare only: nothing written, `current` says whether the out dir is up to date */
  check?: boolean;
  cwd?: string;
  config?: string;
}

export interface GenerateResult {
  /** the out dir as shown */
  out: string;
  /** every file of the projection, relative to the out dir */
  files: string[];
  /** with `check`: the out dir holds exactly the plan */
  current: boolean;
  /** with `check`: each file that differs, is missing or is stale */
  drift: { path: string; state: string }[];
  written: string[];
  removed: string[];
  warnings: ProjectProblem[];
}

export const READ_SKILL: string = READ_SKILL_TOOL;
const SHAPES: readonly ToolShape[] = ["mcp", "anthropic", "openai"];

// ---- implementation ----

// the runtime's envelope is this one: a change to either that breaks it fails the type check
const sameEnvelope = (e: RuntimeEnvelope): Envelope => e;
void sameEnvelope;

function problemsOf(e: HcpxError): ProjectProblem[] {
  return e.problems.filter((p) => p.severity !== "warning").map(({ severity: _s, ...p }) => p);
}

function problemEnvelope(e: unknown): Envelope {
  if (e instanceof HcpxError) return problemFailure(e.problems);
  return failure("internal", `internal error: ${(e as Error)?.message ?? String(e)}`, {
    hint: "this is a bug in hcpx; report it",
  });
}

/**
 * Open a project: read hcp.config.json5 (from `cwd` up, or `config`), load the
 * activated packs and build their projection for the configured Principal.
 * Throws a ProjectError when the config or a pack cannot be read.
 */
export async function openProject(options: OpenProjectOptions = {}): Promise<HcpxProject> {
  const loadOpts = { cwd: options.cwd ?? process.cwd(), config: options.config };
  const env = options.env ?? process.env;
  // its values of every active pack's Binding names are hidden at every exit, as process.env's are (src/util/redact.ts)
  holdSecretEnv(env);
  // what a project needs and `import("hcpx")` does not, loaded now (./impl/project.ts)
  const {
    loadPacks,
    loadProject,
    useValidationCache,
    toolList,
    buildProjection: build,
    DEFAULT_SKILLS_PATH,
    McpFront: Front,
  } = await import("./impl/project");
  useValidationCache();
  let project: Project;
  let projection: ReturnType<typeof buildProjection>;
  try {
    project = loadProject(loadOpts);
    projection = build(project, loadPacks(project), { skillsPath: options.skillsPath ?? DEFAULT_SKILLS_PATH });
  } catch (e) {
    if (e instanceof HcpxError) throw new ProjectError(problemsOf(e).length ? problemsOf(e) : e.problems);
    throw e;
  }
  // every call goes through the one tool-call front of `hcpx mcp` (src/mcp/front.ts; its questions in src/mcp/ask.ts), with the person's callback as its elicitation
  let front: McpFront;
  try {
    front = new Front({ shape: "per-command", cwd: loadOpts.cwd, config: loadOpts.config, via: "library" });
  } catch (e) {
    throw asProjectError(e);
  }
  const skills: PackSkill[] = projection.packs.map((p) => ({
    pack: p.pack.id,
    description: p.description,
    content: projection.skills.find((s) => s.packId === p.pack.id)?.content ?? "",
  }));
  const toolNames = projection.tools.map((t) => t.name);
  // The lists are rendered once; each call of tools() hands out a fresh copy.
  const rendered = new Map<ToolShape, string>();

  return {
    root: project.root,
    configFile: project.configFile,
    promptBlock: projection.promptBlock,
    promptHash: projection.hash,
    skills,
    toolNames,
    tools<S extends ToolShape = "mcp">(shape?: S): ToolsOf[S][] {
      const s = (shape ?? "mcp") as ToolShape;
      if (!SHAPES.includes(s))
        throw new ProjectError([
          { code: "bad_shape", message: `unknown tool shape '${String(s)}'`, hint: `use one of ${SHAPES.join(", ")}` },
        ]);
      let text = rendered.get(s);
      if (text === undefined) rendered.set(s, (text = JSON.stringify(toolList(projection.tools, s))));
      return JSON.parse(text) as ToolsOf[S][];
    },
    async call(tool: string, input: unknown = {}, callOptions: CallOptions = {}): Promise<Envelope> {
      // the library's exit: every envelope it hands back passes the one redaction (src/util/redact.ts)
      try {
        return redactOut(await callFront(front, env, tool, input, callOptions));
      } catch (e) {
        return redactOut(problemEnvelope(e));
      }
    },
  };
}

/** A HcpxError of a use case → the library's ProjectError (anything else is a bug and is thrown as it is). */
function asProjectError(e: unknown): unknown {
  return e instanceof HcpxError ? new ProjectError(problemsOf(e).length ? problemsOf(e) : e.problems) : e;
}

const plain = (ps: readonly { severity?: unknown }[]): ProjectProblem[] =>
  ps.map(({ severity: _s, ...p }) => p as ProjectProblem);

/**
 * Adopt: place the projections where each host reads them, as `hcpx adopt`
 * does (the same use case, src/app/adopt.ts). Plans only unless `write`.
 * Throws a ProjectError for a wrong request, an unreadable config or a file
 * hcpx will not touch.
 */
export async function adopt(options: AdoptOptions): Promise<AdoptResult> {
  // the host engine is its own chunk: `import("hcpx")` itself stays cheap
  const app = await import("../app/adopt");
  try {
    // an entry without `command` runs this package's own bin (not the host app's script)
    const { packageRoot } = await import("../host/descriptor");
    const selfEntry = join(packageRoot(), "dist", "hcpx.cjs");
    const { setup, report } = await app.adopt({ ...options, hosts: [...(options.hosts ?? [])], selfEntry });
    const plan = report?.plan;
    return redactOut({
      scope: setup.scope,
      hosts: setup.hosts,
      inSync: report ? report.inSync : true,
      wrote: report?.applied?.wrote === true,
      changes: (plan?.changes ?? []).map((c) => ({ path: c.path, kind: c.kind, hosts: c.hosts, notes: c.notes })),
      conflicts: plain(plan?.conflicts ?? []),
      warnings: plain(plan?.warnings ?? []),
      notes: plan?.notes ?? [],
      health: plain(report?.health ?? []),
      written: report?.applied?.written ?? [],
      deleted: report?.applied?.deleted ?? [],
    });
  } catch (e) {
    throw asProjectError(e);
  }
}

/** An error a composite pack's code threw where no call awaited it (strayError). */
export interface StrayError {
  /** the pack whose code threw it, when its stack (a frame in the pack's folder) or the one call running tells */
  pack?: string;
  /** its message: Binding values hidden, terminal controls and bidi marks shown as escapes */
  message: string;
  /** how many of the pack's calls still running were answered `composite_error` for it */
  failed: number;
}

/**
 * For the host app's own `uncaughtException`/`unhandledRejection` listener (the library installs none: the
 * process is the app's). A composite pack's module runs in this process and may throw where no call awaits
 * it (a timer's callback, a promise it did not await); Node would end the process and print the error as it
 * is, a Binding value in it included. Hand such an error here: a composite's is answered (a call of its pack
 * still running answers `composite_error` at once) and described, safe to log; anything else is undefined,
 * the app's own to handle (docs/output-safety.md).
 */
export function strayError(e: unknown): StrayError | undefined {
  const s = strayOf(e);
  if (!s) return undefined;
  return { ...(s.pack ? { pack: s.pack } : {}), message: neutralise(redactOut(s.message)), failed: s.failed };
}

/**
 * Generate: every projection file (prompt block, tool lists, Skill copies,
 * host previews) into the out dir, as `hcpx generate` does (src/app/generate.ts).
 * With `check`, compares only.
 */
export async function generate(options: GenerateOptions = {}): Promise<GenerateResult> {
  const app = await import("../app/generate");
  try {
    const r = await app.generate({
      out: options.out,
      host: options.hosts,
      check: options.check,
      cwd: options.cwd,
      config: options.config,
    });
    return redactOut({
      out: r.shownOut,
      files: r.files.map((f) => f.path),
      current: r.drift.length === 0,
      drift: r.changes,
      written: [...(r.applied?.written ?? [])].sort(),
      removed: r.applied?.deleted ?? [],
      warnings: plain([...r.warnings, ...r.conflicts]),
    });
  } catch (e) {
    throw asProjectError(e);
  }
}

const NEVER = new AbortController().signal;

/** One tool call through the front: the callback is the person the runtime asks; the model's `confirm` is never a yes here. */
async function callFront(
  front: McpFront,
  env: Record<string, string | undefined>,
  tool: string,
  input: unknown,
  opts: CallOptions,
): Promise<Envelope> {
  if (typeof tool !== "string" || !tool) return failure("bad_args", "the tool name must be a non-empty string");
  if (input === undefined || input === null) input = {};
  if (!isObj(input))
    return failure("bad_args", `the input of ${tool} must be an object`, {
      hint: "pass the tool call's input object as the model sent it",
    });
  let failed: { pack: string; verb: string; why: unknown } | undefined;
  const elicit = opts.confirm
    ? async (q: ConfirmQuestion): Promise<PersonAnswer> => {
        // built from the runtime's question (its args and message already redacted), through the one redaction again
        const request: ConfirmRequest = redactOut({
          tool,
          pack: q.pack,
          verb: q.verb,
          args: Array.isArray(q.args) ? { argv: q.args } : q.args,
          operation: "write",
          land: q.land as ConfirmRequest["land"],
          summary: front.view.byTool.get(tool)?.command.summary ?? "",
          message: q.message,
        });
        try {
          return (opts.confirm && (await opts.confirm(request))) === true ? "accept" : "decline";
        } catch (why) {
          failed = { pack: q.pack, verb: q.verb, why };
          return "error";
        }
      }
    : undefined;
  const out = await front.callTool(tool, input, {
    era: "legacy",
    signal: NEVER,
    elicit,
    personOnly: { env: env as NodeJS.ProcessEnv, ...(opts.forModel === true ? { forModel: true as const } : {}) },
  });
  if ("resultType" in out)
    return failure("internal", `internal error: ${tool} asked for input in-process`, {
      hint: "this is a bug in hcpx; report it",
    });
  // hcp__read_skill answers with the Skill's text
  if (!out.structuredContent)
    return {
      ok: true,
      data: {
        ...(typeof input.pack === "string" ? { pack: input.pack } : {}),
        text: out.content.map((c) => c.text).join(""),
      },
    };
  const res = out.structuredContent as unknown as Envelope;
  if (res.ok) return res;
  if (!opts.confirm && res.error.code === "confirm_required")
    res.error.hint =
      "this write runs only when a person says yes: the host app passes a confirm callback to call(); the model's confirm: true is not enough here";
  if (failed && res.error.code === "confirm_declined") {
    // the callback's own words, through the pack's Binding redaction
    const { bindingNames } = await import("./impl/project"); // loaded already, by openProject()
    const pack = front.view.packs.find((p) => p.pack.id === failed!.pack)?.pack;
    const secrets = secretsFrom(env as NodeJS.ProcessEnv, pack ? bindingNames(pack) : []);
    res.error.message = redactDeep(
      `${failed.pack}.${failed.verb} was not confirmed (the confirm callback failed: ${(failed.why as Error)?.message ?? String(failed.why)}); nothing was run`,
      secrets,
    );
  }
  return res;
}

// The MCP prompts of `hcpx mcp` (docs/prompts.md). A command opts in with
// `prompt: {}` in surface.json; the person picks it in the host (a slash
// command, a menu) and hcpx answers prompts/get with a message telling the
// model which tool to call with which args, and where the pack's Skill is.
// A prompt never runs anything and never counts as a confirm: the model's
// tool call takes the one path every call takes (the front, execute()).
//
// What is listed is what the tools are: granted commands of the activated
// packs the view serves, named like their tools (`<pack>__<verb>`, or the verb
// under mcp.tool_names). prompts/get checks the grant again against the
// config as it is now, validates the arguments as a tool call's are, and asks
// the prompt's own inputs (`prompt.inputs`, the format of docs/inputs.md) the
// way tools/call asks a command's: legacy clients now, modern clients by an
// InputRequiredResult whose requestState is the front's, signed for use
// "prompt" (src/mcp/confirm-state.ts), so it never serves a tool call.
// Every piece of pack text in a message passes the one neutraliser, the
// whole result the one redaction. Reached only from sdk-server.ts (`hcpx mcp`).
import type { Command, Project } from "../pack/model";
import { isGranted } from "../pack/grants";
import { ArgError, validateArgs } from "../runtime/args";
import type { Envelope } from "../runtime/envelope";
import type { ExecRequest } from "../runtime/execute";
import { READ_SKILL_TOOL } from "../projection/tools";
import { neutralise, neutralJson, neutralLine } from "../util/neutral";
import { redactOut } from "../util/redact";
import { HcpxError } from "../util/errors";
import { isObj } from "../util/is";
import { ConfirmStateError } from "./confirm-state";
import type { CallContext, InputRequired, McpFront } from "./front";
import { argsFromInputs, inputArgs, type InputValue } from "./inputs";
import { HCP_TOOL } from "./tools";
import type { ExportView } from "./view";

/** One prompt as prompts/list carries it (both eras). */
export interface McpPrompt {
  name: string;
  title: string;
  description: string;
  arguments: { name: string; description?: string; required: boolean }[];
}

/** GetPromptResult: one user message. */
export interface PromptResult {
  description: string;
  messages: { role: "user"; content: { type: "text"; text: string } }[];
}

/** Why a prompts/get is refused (the transport answers -32602 with data.reason); nothing was asked or nothing more. */
export class PromptError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = "PromptError";
  }
}

interface Served {
  name: string;
  pack: string;
  verb: string;
  command: Command;
}

/** The prompts of a view, built once per view. */
const tables = new WeakMap<ExportView, { list: McpPrompt[]; byName: Map<string, Served> }>();

function table(view: ExportView): { list: McpPrompt[]; byName: Map<string, Served> } {
  let t = tables.get(view);
  if (t) return t;
  const byName = new Map<string, Served>();
  const list: McpPrompt[] = [];
  for (const p of view.packs) {
    for (const c of p.commands) {
      const prompt = c.command.prompt;
      if (!prompt) continue;
      const s = { name: c.toolName, pack: p.pack.id, verb: c.command.verb_key, command: c.command };
      byName.set(s.name, s);
      const asked = new Set([...inputArgs(c.command), ...promptArgs(c.command)]);
      const summary = neutralLine(c.command.summary.trim().replace(/[.;:,]$/, ""));
      list.push({
        name: s.name,
        title: `${neutralLine(p.pack.id)}: ${summary}`,
        description: neutralLine(prompt.description ?? c.command.summary),
        arguments: Object.entries(c.command.args)
          .filter(([k]) => !asked.has(k))
          .map(([k, a]) => ({
            name: k,
            ...(a.description ? { description: neutralLine(a.description) } : {}),
            required: a.required === true && a.default === undefined,
          })),
      });
    }
  }
  t = { list, byName };
  tables.set(view, t);
  return t;
}

/** The args a command's prompt inputs fill (asked of the person by prompts/get, never a prompt argument). */
function promptArgs(c: Command): Set<string> {
  return new Set(Object.values(c.prompt?.inputs ?? {}).map((i) => i.arg));
}

/** prompts/list: the opted-in granted commands of the served packs, in the tools' order. */
export function listPrompts(front: McpFront): McpPrompt[] {
  return table(front.view).list;
}

/** The command with only the args a prompt's message may name (the command's own inputs fill the others at the tool call). */
function messageFacing(c: Command, without: Set<string>): Command {
  return { ...c, args: Object.fromEntries(Object.entries(c.args).filter(([k]) => !without.has(k))) };
}

function argsOf(name: string, raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (!isObj(raw) || Array.isArray(raw))
    throw new PromptError("bad_args", `prompt ${name}: arguments must be an object of strings`);
  for (const [k, v] of Object.entries(raw))
    if (typeof v !== "string")
      throw new PromptError("bad_args", `prompt ${name}: argument '${k}' must be a string (prompt arguments are text)`);
  return raw as Record<string, string>;
}

function refusal(name: string, env: Envelope): PromptError {
  const e = env.ok ? undefined : env.error;
  return new PromptError(e?.code ?? "failed", `prompt ${name}: ${e?.message ?? "failed"}; no message was built`);
}

/**
 * prompts/get, either era: the messages, or (modern, a prompt with inputs)
 * the InputRequiredResult of the first round still open. Throws PromptError,
 * ConfirmStateError (a requestState not good for this prompt) and
 * MissingCapability (modern: an input this client cannot answer).
 */
export async function getPrompt(
  front: McpFront,
  name: string,
  rawArgs: unknown,
  ctx: CallContext,
): Promise<PromptResult | InputRequired> {
  const hit = table(front.view).byName.get(name);
  if (!hit)
    throw new PromptError(
      "unknown_prompt",
      `no prompt '${name}' (prompts are granted commands of activated packs that declare prompt); list the prompts again`,
    );
  // per call, the config as it is now: a revoked grant refuses at once
  let project: Project;
  try {
    project = front.freshProject();
  } catch (e) {
    throw new PromptError(
      "bad_config",
      `prompt ${name}: ${e instanceof HcpxError ? e.problems[0]!.message : (e as Error).message}`,
    );
  }
  if (!isGranted(project.grants, hit.pack, hit.verb))
    throw new PromptError(
      "not_granted",
      `no prompt '${name}': ${hit.pack}.${hit.verb} is not granted to ${project.principal.id}`,
    );
  const c = hit.command;
  const given = argsOf(name, rawArgs);
  const own = inputArgs(c);
  const asked = promptArgs(c);
  for (const k of Object.keys(given)) {
    if (own.has(k))
      throw new PromptError(
        "bad_args",
        `prompt ${name}: '${k}' is asked of the client by the tool call itself, not taken from the prompt`,
      );
    if (asked.has(k))
      throw new PromptError(
        "bad_args",
        `prompt ${name}: '${k}' is asked of the person by the prompt, not taken from its arguments`,
      );
  }
  // the arguments as a tool call's are checked, before anyone is asked anything
  validated(name, messageFacing(c, new Set([...own, ...asked])), given);
  let got: Record<string, InputValue> = {};
  const inputs =
    c.prompt?.inputs && Object.keys(c.prompt.inputs).length ? { ...c, inputs: c.prompt.inputs } : undefined;
  const req: ExecRequest = { pack: hit.pack, verb: hit.verb, args: given };
  const call = { principal: project.principal.id, pack: hit.pack, verb: hit.verb, use: "prompt" as const };
  if (ctx.era === "legacy") {
    if (inputs) {
      const g = await front.gatherLegacy(inputs, req, ctx, project.confirm.timeoutMs);
      if ("env" in g) throw refusal(name, g.env);
      got = g.got;
    }
  } else {
    const bound = ctx.requestState !== undefined ? front.checkState(ctx.requestState, call) : undefined;
    if (bound && !inputs)
      throw new ConfirmStateError(
        "mismatch",
        `the answers are for the inputs of prompt ${name}, which asks for none now; nothing was built; get the prompt again`,
      );
    if (inputs) {
      const g = front.gatherModern(inputs, req, ctx, bound, call);
      if ("failed" in g) throw refusal(name, g.failed);
      if ("ask" in g) return g.ask;
      got = g.got;
    }
  }
  const filled = { ...given, ...(inputs ? argsFromInputs(inputs, got) : {}) };
  const all = validated(name, messageFacing(c, own), filled);
  const toolArgs = Object.fromEntries(Object.keys(filled).map((k) => [k, all[k]]));
  return redactOut(messages(front, hit, toolArgs));
}

function validated(name: string, c: Command, args: Record<string, unknown>): Record<string, unknown> {
  try {
    return validateArgs(c, args, undefined);
  } catch (e) {
    if (e instanceof ArgError) throw new PromptError("bad_args", `prompt ${name}: ${e.message}`);
    throw e;
  }
}

/** The message: which tool to call with which args, the confirm rule, the Skill. Pack text through the one neutraliser. */
function messages(front: McpFront, hit: Served, args: Record<string, unknown>): PromptResult {
  const c = hit.command;
  const single = front.shape === "single";
  const tool = single ? HCP_TOOL : hit.name;
  const input = single ? { pack: hit.pack, verb: hit.verb, args } : args;
  const gated = c.policy.operation === "write" && c.policy.confirm;
  const asksItself = Object.keys(c.inputs ?? {}).length > 0;
  const lines = [
    `The person asks you to run \`${neutralLine(hit.pack)} ${neutralLine(hit.verb)}\` of the HCP pack ${neutralLine(hit.pack)}: ${neutralLine(c.summary)}`,
    `Call the tool \`${neutralLine(tool)}\` with these arguments:`,
    neutralJson(JSON.stringify(input)),
    ...(asksItself ? ["The tool asks for the rest itself (hcpx asks your client); do not add those arguments."] : []),
    ...(gated
      ? [
          "It is a write that needs confirmation: follow the tool's description, and set confirm only after the person agreed to exactly this call.",
        ]
      : []),
    `If you have not read the pack's Skill yet, call \`${READ_SKILL_TOOL}\` with ${JSON.stringify({ pack: hit.pack })} first.`,
  ];
  return {
    description: neutralLine(c.prompt?.description ?? c.summary),
    messages: [{ role: "user", content: { type: "text", text: neutralise(lines.join("\n")) } }],
  };
}

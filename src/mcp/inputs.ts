// A command's inputs (surface.json `inputs`, docs/inputs.md): what hcpx asks
// the MCP client for before the command runs — a form question to the person
// (elicitation/create), a prompt to the client's model (sampling/createMessage)
// or the client's roots (roots/list). Each answer fills one declared arg; the
// call then takes the one path every call takes (execute(): grants, confirm,
// Binding, the adapter). An input is data, never a gate: confirm stays the
// person's one question, asked after the inputs, about the args they filled.
//
// Loaded by the MCP front only; `hcpx exec` never loads this (there the args
// are passed on the command line). No SDK here.
import type { Command, CommandInput } from "../pack/model";
import { redactOut } from "../util/redact";
import { isObj } from "../util/is";

export type InputMethod = "elicitation/create" | "sampling/createMessage" | "roots/list";
export interface InputRequestOut {
  method: InputMethod;
  params: Record<string, unknown>;
}

/** An answer's value as it fills an arg; bounded so a requestState stays small. */
export type InputValue = string | number | boolean;
export const MAX_INPUT_CHARS = 4096;

/** The client declared form elicitation (a bare `elicitation: {}` is form). */
export function declaresFormElicitation(caps: unknown): boolean {
  if (!isObj(caps) || !isObj(caps.elicitation)) return false;
  const e = caps.elicitation;
  return Object.keys(e).length === 0 || e.form !== undefined;
}

/**
 * modern era: a required input the request's clientCapabilities cannot
 * answer. The transport answers it as MissingRequiredClientCapabilityError
 * (-32021, data.requiredCapabilities); nothing ran.
 */
export class MissingCapability extends Error {
  constructor(
    message: string,
    readonly required: Record<string, Record<string, unknown>>,
  ) {
    super(message);
    this.name = "MissingCapability";
  }
}

/** The client capability an input needs, as requiredCapabilities names it. */
export function capabilityOf(i: CommandInput): Record<string, Record<string, unknown>> {
  return i.ask === "form" ? { elicitation: { form: {} } } : i.ask === "sampling" ? { sampling: {} } : { roots: {} };
}

/** The inputs of a command, by round (ascending), each round's keys in declaration order. */
export function inputRounds(c: Command): [string, CommandInput][][] {
  const by = new Map<number, [string, CommandInput][]>();
  for (const [k, i] of Object.entries(c.inputs ?? {})) {
    const r = i.round ?? 1;
    if (!by.has(r)) by.set(r, []);
    by.get(r)!.push([k, i]);
  }
  return [...by.keys()].sort((a, b) => a - b).map((r) => by.get(r)!);
}

/** The args a command's inputs fill (the model never gives them over MCP). */
export function inputArgs(c: Command): Set<string> {
  return new Set(Object.values(c.inputs ?? {}).map((i) => i.arg));
}

export function methodOf(i: CommandInput): InputMethod {
  return i.ask === "form" ? "elicitation/create" : i.ask === "sampling" ? "sampling/createMessage" : "roots/list";
}

/** Whether the client declared it can answer this input (its capabilities, either era). */
export function canAnswer(i: CommandInput, caps: unknown): boolean {
  if (i.ask === "form") return declaresFormElicitation(caps);
  return isObj(caps) && isObj(i.ask === "sampling" ? caps.sampling : caps.roots);
}

/** The request that asks for one input (an inputRequests entry, or the legacy server→client request). */
export function inputRequest(c: Command, i: CommandInput): InputRequestOut {
  if (i.ask === "form") {
    const field = i.field ?? i.arg;
    const a = c.args[i.arg];
    const prop: Record<string, unknown> = { type: a?.type === "enum" ? "string" : (a?.type ?? "string") };
    if (a?.type === "enum" && a.values) prop.enum = a.values.map(String);
    if (a?.description) prop.description = a.description;
    return {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: redactOut(i.message ?? ""),
        requestedSchema: { type: "object", properties: { [field]: prop }, required: [field] },
      },
    };
  }
  if (i.ask === "sampling") {
    return {
      method: "sampling/createMessage",
      params: {
        messages: [{ role: "user", content: { type: "text", text: redactOut(i.prompt ?? "") } }],
        maxTokens: i.max_tokens ?? 500,
      },
    };
  }
  return { method: "roots/list", params: {} };
}

export type Answer = { value: InputValue } | { declined: string } | { invalid: string };

/** A client's answer to one input → the arg's value, a refusal, or why it is not an answer. */
export function readAnswer(key: string, i: CommandInput, r: unknown): Answer {
  if (!isObj(r)) return { invalid: `the answer to input '${key}' is not an object` };
  let v: unknown;
  if (i.ask === "form") {
    if (r.action === "decline" || r.action === "cancel")
      return { declined: `the person answered '${r.action}' to input '${key}'` };
    if (r.action !== "accept")
      return { invalid: `the answer to input '${key}' has no action accept, decline or cancel` };
    const field = i.field ?? i.arg;
    v = isObj(r.content) ? r.content[field] : undefined;
    if (v === undefined) return { invalid: `the answer to input '${key}' has no '${field}'` };
  } else if (i.ask === "sampling") {
    const parts = Array.isArray(r.content) ? r.content : [r.content];
    const texts = parts
      .filter((p): p is Record<string, unknown> => isObj(p) && p.type === "text" && typeof p.text === "string")
      .map((p) => p.text as string);
    if (texts.length === 0) return { invalid: `the answer to input '${key}' holds no text` };
    v = texts.join("\n");
  } else {
    const roots = Array.isArray(r.roots) ? r.roots : undefined;
    if (!roots || !roots.every((x) => isObj(x) && typeof x.uri === "string"))
      return { invalid: `the answer to input '${key}' is not a list of roots` };
    v = roots.map((x) => (x as { uri: string }).uri).join("\n");
  }
  if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean")
    return { invalid: `the answer to input '${key}' is not a string, number or boolean` };
  if (typeof v === "string" && v.length > MAX_INPUT_CHARS)
    return { invalid: `the answer to input '${key}' is longer than ${MAX_INPUT_CHARS} characters` };
  return { value: v };
}

/** The collected answers → the args they fill. */
export function argsFromInputs(c: Command, got: Record<string, InputValue>): Record<string, InputValue> {
  const out: Record<string, InputValue> = {};
  for (const [k, v] of Object.entries(got)) {
    const i = c.inputs?.[k];
    if (i) out[i.arg] = v;
  }
  return out;
}

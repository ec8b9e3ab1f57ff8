// Argument validation: typed args (MCP, in-process) and `k=v` strings (CLI) are
// checked against the command's `args` and coerced by type. Unknown or missing
// args are errors; nothing runs with an argument the pack did not declare.
import type { ArgSpec } from "../pack/schema";
import type { Command } from "../pack/model";

/** array / object / json args (openapi) hold parsed JSON. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };
export type ArgValue = string | number | boolean | JsonValue[] | { [k: string]: JsonValue } | null;
export type ArgValues = Record<string, ArgValue>;

export class ArgError extends Error {
  constructor(
    message: string,
    readonly arg?: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);

function describe(spec: ArgSpec): string {
  if (spec.type === "enum") return `one of ${(spec.values ?? []).map(String).join(", ")}`;
  if (spec.type === "array") return "a JSON array";
  if (spec.type === "object") return "a JSON object";
  if (spec.type === "json") return "a JSON value";
  return `a ${spec.type === "integer" ? "whole number" : spec.type}`;
}

/** Nesting and size caps for a JSON arg (what a tool call or `k=<json>` may carry). */
export const MAX_JSON_DEPTH = 64;
const MAX_JSON_CHARS = 1_000_000;

function plainJson(v: unknown, depth = 0): boolean {
  if (depth > MAX_JSON_DEPTH) return false;
  if (v === null || typeof v === "string" || typeof v === "boolean") return true;
  if (typeof v === "number") return Number.isFinite(v);
  if (Array.isArray(v)) return v.every((x) => plainJson(x, depth + 1));
  if (typeof v === "object") {
    if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return false;
    return Object.entries(v as object).every(([k, x]) => k !== "__proto__" && plainJson(x, depth + 1));
  }
  return false;
}

/** `k=<json>` on the CLI, or a typed value from a tool call. */
function jsonArg(spec: ArgSpec, raw: unknown, bad: (why?: string) => ArgError): ArgValue {
  let v = raw;
  if (typeof raw === "string" && spec.type !== "json") {
    if (raw.length > MAX_JSON_CHARS) throw bad("too large");
    try {
      v = JSON.parse(raw);
    } catch {
      throw bad("not valid JSON");
    }
  } else if (typeof raw === "string") {
    // json: a CLI value that parses as JSON is that value, anything else is the string itself
    const t = raw.trim();
    if (t && raw.length <= MAX_JSON_CHARS && /^[[{"\d-]|^(true|false|null)$/.test(t)) {
      try {
        v = JSON.parse(t);
      } catch {
        v = raw;
      }
    }
  }
  if (!plainJson(v)) throw bad(`nested deeper than ${MAX_JSON_DEPTH} or not plain JSON`);
  if (spec.type === "array" && !Array.isArray(v)) throw bad();
  if (spec.type === "object" && (v === null || typeof v !== "object" || Array.isArray(v))) throw bad();
  return v as ArgValue;
}

/** Coerce one value (a CLI string or a typed JSON value) to the arg's type. */
export function coerce(name: string, spec: ArgSpec, raw: unknown): ArgValue {
  const bad = (why?: string) =>
    new ArgError(
      `argument '${name}' must be ${describe(spec)}${why ? ` (${why})` : ""}, got ${JSON.stringify(raw)}`,
      name,
    );
  switch (spec.type) {
    case "string":
      if (typeof raw === "string") return raw;
      if (typeof raw === "number" && Number.isFinite(raw)) return String(raw);
      if (typeof raw === "boolean") return String(raw);
      throw bad();
    case "integer": {
      if (typeof raw === "number") {
        if (Number.isSafeInteger(raw)) return raw;
        throw bad();
      }
      if (typeof raw === "string" && /^[+-]?\d+$/.test(raw.trim())) {
        const n = Number(raw.trim());
        if (Number.isSafeInteger(n)) return n;
        throw bad("out of range");
      }
      throw bad();
    }
    case "number": {
      if (typeof raw === "number" && Number.isFinite(raw)) return raw;
      if (typeof raw === "string" && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw.trim()))
        return Number(raw.trim());
      throw bad();
    }
    case "boolean":
      if (typeof raw === "boolean") return raw;
      if (typeof raw === "string" && TRUE.has(raw.trim().toLowerCase())) return true;
      if (typeof raw === "string" && FALSE.has(raw.trim().toLowerCase())) return false;
      throw bad("true or false");
    case "enum": {
      const hit = (spec.values ?? []).find((v) => String(v) === String(raw));
      if (hit === undefined || (typeof raw !== "string" && typeof raw !== "number")) throw bad();
      return hit;
    }
    case "array":
    case "object":
    case "json":
      return jsonArg(spec, raw, bad);
  }
}

/** Parse CLI `k=v` operands into raw strings (first `=` splits; duplicates refused). */
export function parseKv(kv: readonly string[]): Record<string, string> {
  // no prototype: `__proto__=x` is a key like any other (then refused as unknown), not a prototype assignment
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const item of kv) {
    const eq = item.indexOf("=");
    if (eq <= 0) {
      const hint = item.startsWith("-")
        ? "options (--json, --confirm) go before --; after -- come only k=v pairs"
        : "pass arguments as k=v after --, e.g. `hcpx exec ledger balance -- account=checking`";
      throw new ArgError(`expected name=value, got ${JSON.stringify(item)}`, undefined, hint);
    }
    const k = item.slice(0, eq);
    if (Object.hasOwn(out, k)) throw new ArgError(`argument '${k}' is given twice`, k);
    out[k] = item.slice(eq + 1);
  }
  return out;
}

/** Validate and coerce the args of one call against the command's declaration. */
export function validateArgs(
  cmd: Command,
  args: Record<string, unknown> | undefined,
  kv: readonly string[] | undefined,
): ArgValues {
  const raw: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(args ?? {})) if (v !== undefined && v !== null) raw[k] = v;
  if (kv?.length) {
    for (const [k, v] of Object.entries(parseKv(kv))) raw[k] = v;
  }
  const known = Object.keys(cmd.args);
  for (const k of Object.keys(raw)) {
    if (!Object.hasOwn(cmd.args, k)) {
      throw new ArgError(
        `unknown argument '${k}' for ${cmd.verb_key}`,
        k,
        known.length ? `known arguments: ${known.join(", ")}` : `${cmd.verb_key} takes no arguments`,
      );
    }
  }
  const out: ArgValues = Object.create(null) as ArgValues;
  for (const [name, spec] of Object.entries(cmd.args)) {
    if (Object.hasOwn(raw, name)) out[name] = coerce(name, spec, raw[name]);
    else if (spec.default !== undefined) out[name] = coerce(name, spec, spec.default);
    else if (spec.required)
      throw new ArgError(
        `missing required argument '${name}'${spec.description ? ` (${spec.description})` : ""}`,
        name,
        `add ${name}=<${spec.type === "enum" ? (spec.values ?? []).join("|") : spec.type === "array" || spec.type === "object" ? `${spec.type} as JSON` : spec.type}>`,
      );
  }
  return out;
}

/** One argument as text (argv elements, header values): a JSON arg as its JSON. */
export function argText(v: ArgValue): string {
  return v !== null && typeof v === "object" ? JSON.stringify(v) : String(v);
}

// Schema validation that speaks to a person: one Problem per issue, with the
// file, the JSON path, the line, and a hint. Everything is an error, unknown
// keys included: these files decide what may run, so a misspelt key
// (`confrim: true`) must stop the pack, never be dropped and run as if absent.
// An unknown key's hint names the key it most likely meant. Keys that are
// JavaScript's own (`__proto__`, `constructor`, `prototype`) are refused
// anywhere in a file: they would make the validated value and the parsed one
// differ (validcache.ts hands back the parsed one).
import type * as z from "zod/mini";
import { HcpxError, pathToString, type ErrorCode, type Problem } from "../util/errors";
import { neutralLine } from "../util/neutral";
import { locate, parseJson5, readJson5, type Json5Doc } from "./json5";
import { schemaFor, type Schemas } from "./schema";
import { cachedValue, markValidated } from "./validcache";

type Issue = z.core.$ZodIssue;

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (Number.isInteger(v)) return "integer";
  return typeof v;
}

function at(value: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = value;
  for (const seg of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg];
  }
  return v;
}

function describe(issue: Issue, value: unknown): { message: string; hint?: string } {
  const got = at(value, issue.path);
  const custom = issue.message && issue.message !== "Invalid input" ? issue.message : undefined;
  switch (issue.code) {
    case "invalid_type":
      if (got === undefined) return { message: `missing required key (expected ${issue.expected})`, hint: "add it" };
      return { message: `expected ${issue.expected}, got ${typeName(got)}` };
    case "invalid_value": {
      const allowed = issue.values.map((v) => JSON.stringify(v)).join(", ");
      if (got === undefined)
        return {
          message: `missing required key (expected ${issue.values.length > 1 ? "one of " : ""}${allowed})`,
          hint: "add it",
        };
      return { message: `${JSON.stringify(got)} is not one of ${allowed}` };
    }
    case "too_small":
      if (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint")
        return {
          message:
            custom ??
            `${JSON.stringify(got)} is too small: must be ${issue.inclusive === false ? "greater than" : "at least"} ${issue.minimum}`,
        };
      return {
        message:
          custom ??
          (issue.origin === "string"
            ? `must not be empty`
            : `must have at least ${issue.minimum} ${issue.origin === "array" ? "item(s)" : ""}`.trim()),
      };
    case "too_big":
      if (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint")
        return {
          message:
            custom ??
            `${JSON.stringify(got)} is too big: must be ${issue.inclusive === false ? "less than" : "at most"} ${issue.maximum}`,
        };
      return {
        message:
          custom ??
          `must be at most ${issue.maximum}${issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : ""}`,
      };
    case "invalid_format":
      return { message: custom ? `${JSON.stringify(got)}: ${custom}` : `${JSON.stringify(got)} has the wrong format` };
    case "invalid_union":
      return { message: custom ?? `${JSON.stringify(got)} has the wrong type or shape` };
    default:
      return { message: custom ?? `invalid value ${JSON.stringify(got)}` };
  }
}

export interface Validated<T> {
  data: T;
  warnings: Problem[];
}

/** JavaScript's own keys: never a name in a pack or a config. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Levenshtein distance, bounded: returns max + 1 as soon as it is certain to exceed max. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

/** The known key nearest to `key` (case-insensitive, at most 2 edits, or a transposition), if any. */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const k = key.toLowerCase();
  for (const cand of known) {
    const c = cand.toLowerCase();
    const max = Math.min(2, Math.max(1, Math.floor(c.length / 3)));
    const d = c === k ? 0 : distance(k, c, max);
    if (d <= max && d < bestD) {
      best = cand;
      bestD = d;
    }
  }
  return best;
}

type Def = {
  type: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  element?: unknown;
  valueType?: unknown;
  options?: unknown[];
};
const defOf = (s: unknown): Def | undefined => (s as { _zod?: { def?: Def } } | undefined)?._zod?.def;

/** The keys an object schema at `path` knows (walks optional, nullable, array, record and union). */
export function knownKeysAt(schema: unknown, path: readonly PropertyKey[]): string[] {
  let cur: unknown[] = [schema];
  const unwrap = (list: unknown[]): unknown[] => {
    const out: unknown[] = [];
    const todo = [...list];
    while (todo.length) {
      const s = todo.pop();
      const d = defOf(s);
      if (!d) continue;
      if (
        (d.type === "optional" || d.type === "nullable" || d.type === "default" || d.type === "readonly") &&
        d.innerType
      )
        todo.push(d.innerType);
      else if (d.type === "union" && d.options) todo.push(...d.options);
      else out.push(s);
    }
    return out;
  };
  for (const seg of path) {
    const next: unknown[] = [];
    for (const s of unwrap(cur)) {
      const d = defOf(s)!;
      if (d.type === "object" && typeof seg === "string" && d.shape && Object.hasOwn(d.shape, seg))
        next.push(d.shape[seg]);
      else if (d.type === "array" && typeof seg === "number") next.push(d.element);
      else if (d.type === "record" && typeof seg === "string") next.push(d.valueType);
    }
    cur = next;
  }
  const keys = new Set<string>();
  for (const s of unwrap(cur)) {
    const d = defOf(s)!;
    if (d.type === "object" && d.shape) for (const k of Object.keys(d.shape)) keys.add(k);
  }
  return [...keys];
}

/** A container met by reservedKeyPaths: its parent and its key there (the path is spelt out only for a find). */
interface Step {
  up: Step | undefined;
  key: string | number;
}

function pathOf(step: Step | undefined, last: string | number): (string | number)[] {
  const path = [last];
  for (let s = step; s; s = s.up) path.push(s.key);
  return path.reverse();
}

/** Whether any own key of `value`, at any depth, is one of RESERVED_KEYS (iterative; no path kept: the common case). */
function hasReservedKey(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  const stack: object[] = [value];
  while (stack.length) {
    const v = stack.pop()!;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (x !== null && typeof x === "object") stack.push(x);
      }
      continue;
    }
    for (const k of Object.keys(v)) {
      if (RESERVED_KEYS.has(k)) return true;
      const x = (v as Record<string, unknown>)[k];
      if (x !== null && typeof x === "object") stack.push(x);
    }
  }
  return false;
}

/**
 * Every own key of `value` that is one of RESERVED_KEYS, with its path (iterative: no recursion). The
 * paths are looked for only when there is one (each container's step kept: ~10 KB a pack file).
 */
function reservedKeyPaths(value: unknown): (string | number)[][] {
  const out: (string | number)[][] = [];
  if (!hasReservedKey(value)) return out;
  // containers only (a scalar has no keys): each with the step that leads to it
  const stack: [object, Step | undefined][] = [];
  const visit = (x: unknown, up: Step | undefined, key: string | number) => {
    if (x !== null && typeof x === "object") stack.push([x, { up, key }]);
  };
  if (value !== null && typeof value === "object") stack.push([value, undefined]);
  while (stack.length && out.length < 20) {
    const [v, at] = stack.pop()!;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) visit(v[i], at, i);
      continue;
    }
    for (const k of Object.keys(v)) {
      if (RESERVED_KEYS.has(k)) out.push(pathOf(at, k));
      else visit((v as Record<string, unknown>)[k], at, k);
    }
  }
  return out;
}

/** Validate `value` (parsed from `text` of `file`); throws HcpxError with every error. */
export function validate<T>(
  schema: z.ZodMiniType<T>,
  value: unknown,
  file: string,
  text: string | undefined,
): Validated<T> {
  const problemAt = (path: (string | number)[], code: ErrorCode, message: string, hint?: string): Problem => {
    const pos = text !== undefined ? locate(text, path) : undefined;
    return {
      code,
      message,
      file,
      path: pathToString(path) || undefined,
      line: pos?.line,
      column: pos?.column,
      hint,
      severity: "error",
    };
  };
  const reserved = reservedKeyPaths(value);
  if (reserved.length) {
    throw new HcpxError(
      reserved.map((p) =>
        problemAt(
          p,
          "reserved_key",
          `'${String(p[p.length - 1])}' is a reserved name (JavaScript's own) and cannot be a key here`,
          "rename it: __proto__, constructor and prototype are never names of a command, an argument, a bin or a variable",
        ),
      ),
    );
  }
  const result = schema.safeParse(value);
  if (result.success) return { data: result.data, warnings: [] };
  const problems: Problem[] = [];
  for (const issue of result.error.issues) {
    const path = issue.path.filter((s): s is string | number => typeof s !== "symbol");
    if (issue.code === "unrecognized_keys") {
      const known = knownKeysAt(schema, path);
      for (const k of issue.keys) {
        const near = nearestKey(k, known);
        const hint = near
          ? `did you mean '${near}'?`
          : known.length
            ? `the keys allowed here are ${known.map((x) => `'${x}'`).join(", ")}; remove it or fix its name`
            : "remove it";
        problems.push(
          problemAt(
            [...path, k],
            "unknown_key",
            // the key is the file's text, a name: on its line (a line break in it would add lines to the error)
            `unknown key '${neutralLine(k)}'${path.length ? ` in ${pathToString(path)}` : ""}`,
            hint,
          ),
        );
      }
      continue;
    }
    const { message, hint } = describe(issue, value);
    problems.push(problemAt(path, "schema", message, hint));
  }
  throw new HcpxError(problems);
}

/**
 * Validate a parsed file against one of the schemas, and remember a clean one
 * with its value (validcache.ts) when the cache is on. The schemas have no
 * defaults or transforms, so the parsed value is what validation returns.
 */
export function validateDoc<K extends keyof Schemas>(
  kind: K,
  doc: Json5Doc,
  /** when the file was read (before its identity was taken): what the racy rule measures from */
  readAt: number,
): Validated<z.infer<Schemas[K]>> {
  // a surface's or a config's lean schema when it parses this value as the full one would (schema.ts)
  const v = validate(
    schemaFor(kind, doc.value) as unknown as z.ZodMiniType<z.infer<Schemas[K]>>,
    doc.value,
    doc.file,
    doc.text,
  );
  if (v.warnings.length === 0) markValidated(kind, doc.id, doc.value, readAt, doc.text);
  return v;
}

export interface ReadValidated<T> extends Validated<T> {
  /** the file as shown in messages */
  file: string;
  /** the file's text, as read for the value (a cache hit's included): for locating a later problem */
  text(): string;
}

/**
 * Read, parse and validate a JSON5 file of `kind` — or, when the file's text as read now
 * validated clean before (validcache.ts: exec, mcp, the library, adopt), take the value
 * remembered then: no parser, no schemas.
 */
export function readValidated<K extends keyof Schemas>(
  kind: K,
  file: string,
  shown: string,
  maxBytes: number,
): ReadValidated<z.infer<Schemas[K]>> {
  const read = cachedValue(kind, file, maxBytes);
  if (read?.hit) {
    let text: string | undefined;
    return { data: read.value as z.infer<Schemas[K]>, warnings: [], file: shown, text: () => (text ??= read.text()) };
  }
  // a miss parses the text the cache's lookup read (one read of the file), else (the cache off) reads it
  const readAt = read?.readAt ?? Date.now();
  const doc = read ? { ...parseJson5(read.text, shown), id: read.id } : readJson5(file, shown, maxBytes);
  return { ...validateDoc(kind, doc, readAt), file: doc.file, text: () => doc.text };
}

// JSON Schema for a tool's input, and an arg's spec, from an operation's schemas.
import { oneLine } from "../util/prose";
import type { ArgSpec } from "../pack/schema";
import { isObj } from "../util/is";
import { type Json } from "./types";

/** An internal `#/…` ref followed (a cycle or an outside ref → undefined); the parser resolved the others. */
export function derefInternal(doc: Json, v: unknown, seen = new Set<string>()): unknown {
  if (!isObj(v) || typeof v.$ref !== "string") return v;
  const ref = v.$ref;
  if (!ref.startsWith("#/") || seen.has(ref)) return undefined;
  seen.add(ref);
  let cur: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const k = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    cur = isObj(cur) ? cur[k] : Array.isArray(cur) ? cur[Number(k)] : undefined;
  }
  return derefInternal(doc, cur, seen);
}

// ---- JSON Schema for the tool input ----

const KEEP = [
  "type",
  "format",
  "enum",
  "const",
  "default",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
] as const;
/** Deeper than this, a schema becomes `{}` (any value): tool schemas stay small. */
const MAX_SCHEMA_DEPTH = 6;

/**
 * A self-contained JSON Schema (draft 2020-12 subset) from an OpenAPI schema:
 * no `$ref`, no cycles (a recursive part becomes `{}`), readOnly properties
 * dropped (this is a request), 3.0's `nullable` as a "null" type, descriptions
 * on one short line at the top levels only.
 */
export function toJsonSchema(doc: Json, input: unknown, depth = 0, stack: unknown[] = []): Json {
  const s = derefInternal(doc, input);
  if (!isObj(s) || depth > MAX_SCHEMA_DEPTH || stack.includes(s)) return {};
  const next = [...stack, s];
  const out: Json = {};
  for (const k of KEEP) {
    if (s[k] === undefined) continue;
    if ((k === "exclusiveMinimum" || k === "exclusiveMaximum") && typeof s[k] === "boolean") {
      const bound = k === "exclusiveMinimum" ? "minimum" : "maximum";
      if (s[k] === true && typeof s[bound] === "number") {
        out[k] = s[bound];
        delete out[bound];
      }
      continue;
    }
    if ((k === "minimum" || k === "maximum") && s[k === "minimum" ? "exclusiveMinimum" : "exclusiveMaximum"] === true)
      continue;
    out[k] = s[k];
  }
  if (s.nullable === true && typeof out.type === "string") out.type = [out.type, "null"];
  if (depth <= 2) {
    const d = oneLine(s.description, 160);
    if (d) out.description = d;
  }
  if (s.items !== undefined) out.items = Array.isArray(s.items) ? {} : toJsonSchema(doc, s.items, depth + 1, next);
  if (isObj(s.properties)) {
    const props: Json = {};
    for (const [k, v] of Object.entries(s.properties)) {
      const p = derefInternal(doc, v);
      if (isObj(p) && p.readOnly === true) continue;
      props[k] = toJsonSchema(doc, p, depth + 1, next);
    }
    out.properties = props;
    if (Array.isArray(s.required)) {
      const req = s.required.filter((r) => typeof r === "string" && Object.hasOwn(props, r));
      if (req.length) out.required = req;
    }
  }
  if (s.additionalProperties !== undefined)
    out.additionalProperties =
      typeof s.additionalProperties === "boolean"
        ? s.additionalProperties
        : toJsonSchema(doc, s.additionalProperties, depth + 1, next);
  for (const k of ["oneOf", "anyOf", "allOf"] as const) {
    if (Array.isArray(s[k])) out[k] = (s[k] as unknown[]).map((a) => toJsonSchema(doc, a, depth + 1, next));
  }
  return out;
}

/** allOf merged into one object schema (properties, required); undefined when it is not an object. */
export function mergeObject(
  doc: Json,
  input: unknown,
  stack: unknown[] = [],
): { properties: Record<string, unknown>; required: string[] } | undefined {
  const s = derefInternal(doc, input);
  if (!isObj(s) || stack.includes(s)) return undefined;
  const props: Record<string, unknown> = {};
  const req = new Set<string>();
  let any = false;
  if (isObj(s.properties)) {
    any = true;
    Object.assign(props, s.properties);
  }
  if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === "string") req.add(r);
  if (Array.isArray(s.allOf)) {
    for (const part of s.allOf) {
      const m = mergeObject(doc, part, [...stack, s]);
      if (!m) return undefined;
      any = true;
      Object.assign(props, m.properties);
      for (const r of m.required) req.add(r);
    }
  }
  for (const k of ["oneOf", "anyOf"] as const) {
    if (!Array.isArray(s[k])) continue;
    // alternatives that are all objects: the union of their properties; required = what every one requires
    const alts = (s[k] as unknown[]).map((a) => mergeObject(doc, a, [...stack, s]));
    if (alts.some((a) => !a)) return undefined;
    any = true;
    for (const a of alts)
      for (const [p, v] of Object.entries(a!.properties)) if (!Object.hasOwn(props, p)) props[p] = v;
    const common = alts.map((a) => new Set(a!.required)).reduce((x, y) => new Set([...x].filter((r) => y.has(r))));
    for (const r of common) req.add(r);
  }
  if (!any && s.type !== "object") return undefined;
  if (!any) return undefined; // a free-form object: sent whole
  return { properties: props, required: [...req].filter((r) => Object.hasOwn(props, r)) };
}

/** The arg for one schema: a scalar type where the schema is one, else array/object/json with the schema. */
export function argFromSchema(doc: Json, schemaIn: unknown): ArgSpec {
  const top = derefInternal(doc, schemaIn);
  if (!isObj(top)) return { type: "string" };
  let s: Json = top;
  // nullable / oneOf [X, null]: one non-null alternative decides
  for (const k of ["oneOf", "anyOf", "allOf"]) {
    const alts = s[k];
    if (Array.isArray(alts) && !s.type) {
      const real = alts.map((a) => derefInternal(doc, a)).filter((a) => isObj(a) && a.type !== "null");
      if (real.length === 1 && isObj(real[0])) s = real[0];
      else if (real.length > 1)
        return {
          type: real.every((a) => isObj(a) && (a.type === "object" || isObj(a.properties))) ? "object" : "json",
          schema: toJsonSchema(doc, top),
        };
    }
  }
  let type = s.type;
  if (Array.isArray(type)) {
    const t = type.filter((x) => x !== "null");
    type = t.length === 1 ? t[0] : undefined;
    if (t.length > 1) return { type: "json", schema: toJsonSchema(doc, s) };
  }
  if (
    Array.isArray(s.enum) &&
    s.enum.length &&
    s.enum.every((x) => typeof x === "string" || typeof x === "number") &&
    (type === "string" || type === "integer" || type === "number" || type === undefined)
  ) {
    return { type: "enum", values: [...new Set(s.enum as (string | number)[])] };
  }
  switch (type) {
    case "integer":
    case "number":
    case "boolean":
    case "string":
      return { type };
    case "array":
      return { type: "array", schema: toJsonSchema(doc, s) };
    case "object":
      return { type: "object", schema: toJsonSchema(doc, s) };
    default:
      if (isObj(s.properties) || s.additionalProperties !== undefined)
        return { type: "object", schema: toJsonSchema(doc, s) };
      if (s.items !== undefined) return { type: "array", schema: toJsonSchema(doc, s) };
      return Object.keys(s).length === 0 || (typeof s.description === "string" && Object.keys(s).length === 1)
        ? { type: "json", schema: toJsonSchema(doc, s) }
        : { type: "string" };
  }
}

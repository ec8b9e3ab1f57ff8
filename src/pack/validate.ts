// Schema validation that speaks to a person: one Problem per issue, with the
// file, the JSON path, the line, and a hint. Unknown keys are warnings (a pack
// written for a newer HCP still loads), everything else is an error.
import type * as z from "zod/mini";
import { HcpxError, pathToString, type Problem } from "../util/errors";
import { locate, type Json5Doc } from "./json5";
import { schemas, type Schemas } from "./schema";
import { isValidated, markValidated } from "./validcache";

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
    case "invalid_value":
      return { message: `${JSON.stringify(got)} is not one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}` };
    case "unrecognized_keys":
      return { message: `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `'${k}'`).join(", ")}`, hint: "check the spelling: every field is listed in docs/pack-format.md; unknown keys are ignored" };
    case "too_small":
      if (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint") return { message: custom ?? `${JSON.stringify(got)} is too small: must be ${issue.inclusive === false ? "greater than" : "at least"} ${issue.minimum}` };
      return { message: custom ?? (issue.origin === "string" ? `must not be empty` : `must have at least ${issue.minimum} ${issue.origin === "array" ? "item(s)" : ""}`.trim()) };
    case "too_big":
      if (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint") return { message: custom ?? `${JSON.stringify(got)} is too big: must be ${issue.inclusive === false ? "less than" : "at most"} ${issue.maximum}` };
      return { message: custom ?? `must be at most ${issue.maximum}${issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : ""}` };
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

/** Validate `value` (parsed from `text` of `file`); throws HcpxError with every error. */
export function validate<T>(schema: z.ZodMiniType<T>, value: unknown, file: string, text: string | undefined): Validated<T> {
  const toProblem = (issue: Issue, severity: "error" | "warning"): Problem => {
    const { message, hint } = describe(issue, value);
    const path = issue.path.filter((s): s is string | number => typeof s !== "symbol");
    const pos = text !== undefined ? locate(text, path) : undefined;
    return { code: severity === "warning" ? "unknown_key" : "schema", message, file, path: pathToString(path) || undefined, line: pos?.line, column: pos?.column, hint, severity };
  };
  const first = schema.safeParse(value);
  if (first.success) return { data: first.data, warnings: [] };
  const unknown = first.error.issues.filter((i) => i.code === "unrecognized_keys");
  const errors = first.error.issues.filter((i) => i.code !== "unrecognized_keys");
  if (errors.length) throw new HcpxError([...errors.map((i) => toProblem(i, "error")), ...unknown.map((i) => toProblem(i, "warning"))]);
  // Only unknown keys: drop them and parse again.
  const copy = structuredClone(value);
  for (const issue of unknown) {
    if (issue.code !== "unrecognized_keys") continue;
    const holder = at(copy, issue.path) as Record<string, unknown>;
    for (const k of issue.keys) delete holder[k];
  }
  const second = schema.safeParse(copy);
  if (!second.success) throw new HcpxError(second.error.issues.map((i) => toProblem(i, "error")));
  return { data: second.data, warnings: unknown.map((i) => toProblem(i, "warning")) };
}

/**
 * Validate a parsed file against one of the schemas. A text that validated
 * clean before (validcache.ts) is taken as it is, without building the schemas:
 * the schemas have no defaults or transforms, so the parsed value is what
 * validation would return.
 */
export function validateDoc<K extends keyof Schemas>(kind: K, doc: Json5Doc): Validated<z.infer<Schemas[K]>> {
  if (isValidated(kind, doc.text)) return { data: doc.value as z.infer<Schemas[K]>, warnings: [] };
  const v = validate(schemas()[kind] as unknown as z.ZodMiniType<z.infer<Schemas[K]>>, doc.value, doc.file, doc.text);
  if (v.warnings.length === 0) markValidated(kind, doc.text);
  return v;
}

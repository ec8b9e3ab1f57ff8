// OpenAPI 3.x → pack: surface.json (named commands with everything the runtime
// needs to send the request — it never reads the document), a draft
// policy.json (GET/HEAD → read, others → write, DELETE → write + confirm;
// every row `inferred: true` until a person reviews it) and a SKILL.md with the
// hot-path table grouped by tag.
//
// `importOpenapi` takes a document whose `$ref`s the parser already resolved
// (`@apidevtools/swagger-parser`, in the CLI command; cycles stay object
// cycles) — a leftover internal `#/…` ref is still followed, for callers that
// pass a raw document. Pure functions: the CLI command does the file I/O.
import { createHash } from "node:crypto";
import { ARG_NAME_RE, VERB_KEY_RE } from "../pack/schema";
import { firstSentence, oneLine } from "../util/prose";
import { openapiLead, POLICY_LINE } from "../pack/skillsync";
import type { ArgSpec, SchemeSpec } from "../pack/schema";
import { isObj } from "../util/is";

type Json = Record<string, unknown>;
const METHODS = ["get", "post", "put", "patch", "delete", "head"] as const;

/** The longest server name + tool name every host takes (README "Tool names"). */
export const MAX_SERVER_TOOL = 50;
export const SERVER_NAME = "hcp";

export type ImportedArg = ArgSpec & { in: "path" | "query" | "body" | "header" | "cookie" };

export interface ImportedHttp {
  method: string;
  path: string;
  base_url?: string;
  body?: {
    media: "application/json" | "application/x-www-form-urlencoded" | "multipart/form-data";
    required?: boolean;
    whole?: string;
  };
  accept?: string;
  security?: string[][];
}

export interface ImportedCommand {
  verb_key: string;
  summary: string;
  description?: string;
  http: ImportedHttp;
  args: Record<string, ImportedArg>;
  operation: "read" | "write";
  /** a write's land: `external` when the document says others see its effect (drafted with confirm) */
  land?: "remote" | "external";
  confirm: boolean;
  /** the operation's first tag (the Skill groups by it) */
  tag: string;
  operationId?: string;
  /** where it came from, for messages */
  source: string;
}

export interface ImportResult {
  id: string;
  title: string;
  description: string;
  version: string;
  /** absolute, or relative ("/api/v3") when the document's server URL is relative and no --origin was given */
  baseUrl: string;
  schemes: Record<string, SchemeSpec>;
  security?: string[][];
  commands: ImportedCommand[];
  /** what was left out and why */
  notes: string[];
  /** operations the --include / --exclude filters left out */
  filtered: number;
  /** a hint for some notes (what to do), keyed by the note */
  hints: Record<string, string>;
}

export interface ImportOptions {
  /** replaces the document's server URL */
  baseUrl?: string;
  /** where the document is served from: relative server URLs resolve against it */
  origin?: string;
  /** keep only operations matching one of these (tag:<t>, path:<glob>, op:<operationId glob>, or a bare word: tag or operationId) */
  include?: string[];
  exclude?: string[];
  /** credentials the document does not declare (`--auth`): parsed by parseAuth */
  auth?: AuthSpec;
}

/** `--auth`: bearer, basic, or an API key in a header, the query or a cookie. */
export type AuthSpec =
  { type: "bearer" } | { type: "basic" } | { type: "apiKey"; in: "header" | "query" | "cookie"; name: string };

export const AUTH_FORMS = "bearer, basic, header:<name>, query:<name> or cookie:<name> (an API key)";

/** The `--auth` value, or undefined when it is none of AUTH_FORMS. */
export function parseAuth(spec: string): AuthSpec | undefined {
  if (spec === "bearer" || spec === "basic") return { type: spec };
  const m = /^(header|query|cookie):([A-Za-z0-9_.[\]-]{1,64})$/.exec(spec);
  return m ? { type: "apiKey", in: m[1] as "header" | "query" | "cookie", name: m[2]! } : undefined;
}

/**
 * Words by which a document says that a write's effect is seen by others (DESIGN
 * `land: external`: send, publish, pay): such a write is drafted external + confirm.
 */
const EXTERNAL_RE =
  /\b(publish(?:es|ed|ing)?|send(?:s|ing)?|e-?mails?|notif(?:y|ies|ied|ication|ications)|invit(?:e|es|ation|ations)|broadcasts?|messages?|comments?|tweets?|pay(?:s|ment|ments)?|charges?|refunds?|transfers?|deploy(?:s|ment|ments)?|merges?|releases?|visible to (?:others|everyone|the public|all)|publicly|subscribers?)\b/gi;

/** What in an operation's own words says others see its effect (at most 4 words), or undefined. */
export function externalWords(op: {
  operationId?: string;
  summary?: unknown;
  description?: unknown;
}): string[] | undefined {
  const id = (op.operationId ?? "").replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_./-]+/g, " ");
  const text = [
    id,
    typeof op.summary === "string" ? op.summary : "",
    typeof op.description === "string" ? op.description.slice(0, 4000) : "",
  ].join("\n");
  const found = [...new Set([...text.matchAll(EXTERNAL_RE)].map((m) => m[1]!.toLowerCase()))];
  return found.length ? found.slice(0, 4) : undefined;
}

/** camelCase / snake / kebab / spaces → lower_snake words; dots and slashes become separators. */
export function verbFromOperationId(opId: string): string | undefined {
  const parts = opId
    .split(/[./:]+/)
    .map((seg) =>
      seg
        .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
        .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "_")
        .replace(/^_+|_+$/g, ""),
    )
    .filter(Boolean)
    .map((seg) => (/^[a-z]/.test(seg) ? seg : `op_${seg}`));
  const v = parts.join(".");
  return v && VERB_KEY_RE.test(v) ? v : undefined;
}

/** A readable verb_key from method + path: GET /todos → todos.list, GET /todos/{id} → todos.get. */
export function verbFromPath(method: string, path: string): string {
  const segs = path.split("/").filter(Boolean);
  const words = segs
    .filter((s) => !/^\{.*\}$/.test(s))
    .map((s) =>
      s
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "_")
        .replace(/^_+|_+$/g, ""),
    )
    .filter(Boolean)
    .map((s) => (/^[a-z]/.test(s) ? s : `n${s}`));
  const item = segs.length > 0 && /^\{.*\}$/.test(segs[segs.length - 1]!);
  const m = method.toLowerCase();
  const action =
    m === "get"
      ? item
        ? "get"
        : "list"
      : m === "post"
        ? "create"
        : m === "put"
          ? "replace"
          : m === "patch"
            ? "update"
            : m === "delete"
              ? "delete"
              : m;
  return [...words, action].join(".");
}

const shortHash = (s: string, n = 4) => createHash("sha256").update(s).digest("hex").slice(0, n);

/**
 * Fit a verb_key so that `<server>` + `<pack>__<verb with dots as _>` stays within
 * MAX_SERVER_TOOL: whole words are kept from the front and a short hash of the
 * operation names the rest. Deterministic for a given document.
 */
export function fitVerb(verb: string, packId: string, key: string): string {
  const budget = MAX_SERVER_TOOL - SERVER_NAME.length - packId.length - 2;
  if (verb.length <= budget) return verb;
  const h = `_${shortHash(key)}`;
  const room = budget - h.length;
  // every word stays, shortened from the longest down (to 3 letters at least):
  // governance.proposals.parameters.list → govern.propos.parame.list_b4e7
  const segs = verb.split(".").map((seg) => seg.split("_"));
  const len = () =>
    segs.reduce((n, ws) => n + ws.reduce((m, w) => m + w.length, 0) + ws.length - 1, 0) + segs.length - 1;
  while (len() > room) {
    let best: [number, number] | undefined;
    let bestLen = 3;
    segs.forEach((ws, i) =>
      ws.forEach((w, j) => {
        if (w.length > bestLen) {
          bestLen = w.length;
          best = [i, j];
        }
      }),
    );
    if (!best) break;
    const [i, j] = best;
    segs[i]![j] = segs[i]![j]!.slice(0, -1);
  }
  let out = segs.map((ws) => ws.join("_")).join(".");
  // still too long (very many words): cut at a separator
  if (out.length > room) out = out.slice(0, room).replace(/[._][^._]*$/, "") || out.slice(0, room);
  return out.replace(/[._]+$/, "") + h;
}

/** A usable arg name for a parameter / property name (the original stays in `name`). */
function argName(raw: string): string {
  if (ARG_NAME_RE.test(raw) && raw !== "__proto__" && raw !== "constructor" && raw !== "prototype") return raw;
  let s = raw.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "");
  if (!s || !/^[A-Za-z_]/.test(s)) s = `p_${s}`;
  if (s === "__proto__" || s === "constructor" || s === "prototype") s = `p_${s}`;
  return s;
}

function derefInternal(doc: Json, v: unknown, seen = new Set<string>()): unknown {
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

function envPrefix(id: string): string {
  return id.toUpperCase().replace(/-/g, "_");
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
function mergeObject(
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
function argFromSchema(doc: Json, schemaIn: unknown): ArgSpec {
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

// ---- servers ----

function serverUrl(s: unknown): string | undefined {
  if (!isObj(s) || typeof s.url !== "string") return undefined;
  let u = s.url.trim();
  const vars = isObj(s.variables) ? s.variables : {};
  u = u.replace(/\{([^}]+)\}/g, (m, name: string) => {
    const v = vars[name];
    return isObj(v) && v.default !== undefined ? String(v.default) : m;
  });
  return u;
}

function resolveServer(u: string, origin: string | undefined, notes: string[], where: string): string {
  let out = u;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(u) && origin) {
    try {
      out = new URL(u, origin).href;
    } catch {
      /* keep it relative */
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(out)) {
    const x = new URL(out);
    x.username = "";
    x.password = "";
    out = x.href;
    notes.push(
      `${where}: the server URL carried a user name and password; removed (give credentials through the Binding)`,
    );
  }
  if (out.includes("{")) notes.push(`${where}: server URL variable without a default left in ${out}`);
  return out.length > 1 ? out.replace(/\/+$/, "") : out;
}

// ---- filters ----

function globRe(glob: string, pathLike: boolean): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      re += ".*";
      i++;
    } else if (c === "*") re += pathLike ? "[^/]*" : ".*";
    else if (c === "?") re += pathLike ? "[^/]" : ".";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`, pathLike ? "" : "i");
}

function matcher(
  patterns: string[] | undefined,
): ((op: { tags: string[]; path: string; operationId?: string }) => boolean) | undefined {
  if (!patterns?.length) return undefined;
  const tests = patterns.map((p) => {
    const m = /^(tag|path|op):(.*)$/.exec(p);
    if (m?.[1] === "tag") {
      const re = globRe(m[2]!, false);
      return (o: { tags: string[] }) => o.tags.some((t) => re.test(t));
    }
    if (m?.[1] === "path" || (!m && p.startsWith("/"))) {
      const re = globRe(m ? m[2]! : p, true);
      return (o: { path: string }) => re.test(o.path);
    }
    const re = globRe(m ? m[2]! : p, false);
    return (o: { tags: string[]; operationId?: string }) =>
      (o.operationId !== undefined && re.test(o.operationId)) || (!m && o.tags.some((t) => re.test(t)));
  });
  return (o) => tests.some((t) => t(o as never));
}

// ---- security ----

function importSchemes(doc: Json, id: string, notes: string[]): Record<string, SchemeSpec> {
  const raw = isObj(doc.components) && isObj(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  const entries = Object.entries(raw).map(([name, s]) => [name, derefInternal(doc, s)] as const);
  const kind = (s: unknown) => (!isObj(s) ? "?" : s.type === "http" ? String(s.scheme).toLowerCase() : String(s.type));
  const count = new Map<string, number>();
  for (const [, s] of entries) {
    const k = kind(s) === "oauth2" || kind(s) === "openidconnect" || kind(s) === "openIdConnect" ? "bearer" : kind(s);
    count.set(k, (count.get(k) ?? 0) + 1);
  }
  const P = envPrefix(id);
  const tag = (name: string) =>
    name
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "");
  const out: Record<string, SchemeSpec> = {};
  const used = new Set<string>();
  const env = (base: string) => {
    let e = base;
    for (let n = 2; used.has(e); n++) e = `${base}_${n}`;
    used.add(e);
    return e;
  };
  for (const [name, s] of entries) {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
      notes.push(`security scheme '${name}': the name is not usable; left out`);
      continue;
    }
    if (!isObj(s)) continue;
    const k = kind(s);
    if (k === "bearer" || k === "oauth2" || k === "openidconnect") {
      const many = (count.get("bearer") ?? 0) > 1;
      out[name] = { type: "bearer", env: env(many ? `${P}_${tag(name)}_TOKEN` : `${P}_TOKEN`) };
      if (k !== "bearer")
        notes.push(
          `security scheme '${name}' (${String(s.type)}): sent as a bearer token from ${out[name].type === "bearer" ? (out[name] as { env: string }).env : ""}; get the token yourself (no OAuth flow here)`,
        );
    } else if (k === "basic") {
      const many = (count.get("basic") ?? 0) > 1;
      const pre = many ? `${P}_${tag(name)}` : P;
      out[name] = { type: "basic", username_env: env(`${pre}_USERNAME`), password_env: env(`${pre}_PASSWORD`) };
    } else if (
      k === "apiKey" &&
      typeof s.name === "string" &&
      (s.in === "header" || s.in === "query" || s.in === "cookie")
    ) {
      const many = (count.get("apiKey") ?? 0) > 1;
      out[name] = { type: "apiKey", in: s.in, name: s.name, env: env(many ? `${P}_${tag(name)}` : `${P}_API_KEY`) };
    } else
      notes.push(
        `security scheme '${name}' (${k}) is not supported (apiKey, http bearer/basic, oauth2/openIdConnect as bearer): operations that need only it are sent without credentials`,
      );
  }
  return out;
}

function importSecurity(req: unknown, schemes: Record<string, SchemeSpec>): string[][] | undefined {
  if (!Array.isArray(req)) return undefined;
  const alts: string[][] = [];
  for (const r of req) {
    if (!isObj(r)) continue;
    const names = Object.keys(r);
    if (names.every((n) => Object.hasOwn(schemes, n))) alts.push(names);
  }
  return alts;
}

const sameReq = (a: string[][] | undefined, b: string[][] | undefined) => JSON.stringify(a) === JSON.stringify(b);

// ---- the import ----

type BodyMedia = "application/json" | "application/x-www-form-urlencoded" | "multipart/form-data";

function pickMedia(content: Json): { key: string; media: BodyMedia } | undefined {
  const keys = Object.keys(content);
  const json = keys.find((k) => /^application\/(.+\+)?json\b/i.test(k));
  if (json) return { key: json, media: "application/json" };
  const form = keys.find((k) => /^application\/x-www-form-urlencoded\b/i.test(k));
  if (form) return { key: form, media: "application/x-www-form-urlencoded" };
  const mp = keys.find((k) => /^multipart\/form-data\b/i.test(k));
  if (mp) return { key: mp, media: "multipart/form-data" };
  return undefined;
}

function acceptOf(op: Json): string | undefined {
  const responses = isObj(op.responses) ? op.responses : {};
  const types = new Set<string>();
  for (const [code, r] of Object.entries(responses)) {
    if (!/^2/.test(code) && code !== "default") continue;
    const rr = r as Json;
    if (isObj(rr) && isObj(rr.content)) for (const k of Object.keys(rr.content)) types.add(k);
  }
  if (types.size === 0) return undefined;
  const list = [...types];
  const json = list.find((t) => /^application\/(.+\+)?json\b/i.test(t));
  if (json) return json === "application/json" ? undefined : json;
  return list.slice(0, 4).join(", ");
}

const PARAM_DEFAULT_STYLE: Record<string, string> = { path: "simple", header: "simple", query: "form", cookie: "form" };

/** Why the document is not one hcpx imports (Swagger 2.0, OpenAPI 3.2+, no version), or undefined. */
export function versionProblem(doc: Json): string | undefined {
  const version = typeof doc.openapi === "string" ? doc.openapi : undefined;
  if (version && /^3\.[01](\.|$)/.test(version)) return undefined;
  if (typeof doc.swagger === "string")
    return `this is a Swagger ${doc.swagger} document; hcpx imports OpenAPI 3.0 and 3.1: convert it first (e.g. \`npx swagger2openapi <file> -o openapi.json\`), then import the result`;
  return version
    ? `OpenAPI ${version} is not supported: hcpx imports OpenAPI 3.0 and 3.1`
    : "not an OpenAPI 3.x document (no `openapi: 3.x` field)";
}

/** What one import run shares while it walks the operations. */
interface ImportRun {
  doc: Json;
  id: string;
  opts: ImportOptions;
  notes: string[];
  hints: Record<string, string>;
  baseUrl: string;
  schemes: Record<string, SchemeSpec>;
  docSecurity: string[][] | undefined;
  takenVerb: Set<string>;
  takenTool: Set<string>;
}

/** The base URL: --base-url, else the first server (variables at their defaults; relative → --origin). */
function importBaseUrl(doc: Json, id: string, opts: ImportOptions, notes: string[]): string {
  if (opts.baseUrl) return opts.baseUrl.replace(/\/+$/, "");
  const first = Array.isArray(doc.servers) ? serverUrl(doc.servers[0]) : undefined;
  const baseUrl = resolveServer(first ?? "/", opts.origin, notes, "servers[0]");
  if (!/^[a-z][a-z0-9+.-]*:/i.test(baseUrl))
    notes.push(
      `the server URL is relative (${baseUrl}): set HCP_${envPrefix(id)}_BASE_URL to the server's origin (the path is kept), or import again with --origin <where the document is served>`,
    );
  return baseUrl;
}

/** The document's security schemes and requirement, with --auth's scheme added (its env names unique). */
function importAuth(
  doc: Json,
  id: string,
  opts: ImportOptions,
  notes: string[],
  hints: Record<string, string>,
): Pick<ImportRun, "schemes" | "docSecurity"> {
  const schemes = importSchemes(doc, id, notes);
  let docSecurity = importSecurity(doc.security, schemes);
  if (opts.auth) {
    const name = Object.hasOwn(schemes, "auth") ? "hcpx_auth" : "auth";
    const used = new Set(
      Object.values(schemes).flatMap((s) => (s.type === "basic" ? [s.username_env, s.password_env] : [s.env])),
    );
    const env = (base: string) => {
      let e = base;
      for (let n = 2; used.has(e); n++) e = `${base}_${n}`;
      used.add(e);
      return e;
    };
    const P = envPrefix(id);
    const a = opts.auth;
    schemes[name] =
      a.type === "bearer"
        ? { type: "bearer", env: env(`${P}_TOKEN`) }
        : a.type === "basic"
          ? { type: "basic", username_env: env(`${P}_USERNAME`), password_env: env(`${P}_PASSWORD`) }
          : { type: "apiKey", in: a.in, name: a.name, env: env(`${P}_API_KEY`) };
    docSecurity = [...(docSecurity ?? []), [name]];
  } else if (Object.keys(schemes).length === 0) {
    const msg = "the document declares no security scheme: every request is sent without credentials";
    notes.push(msg);
    hints[msg] =
      `if the API needs credentials, import again with --auth bearer (${envPrefix(id)}_TOKEN), --auth basic, or --auth header:<name> | query:<name> | cookie:<name> (an API key, ${envPrefix(id)}_API_KEY); the value comes from the Binding`;
  }
  return { schemes, docSecurity };
}

/** The verb: from the operationId (or method + path), fitted to the hosts' name limits, unique. */
function importVerb(
  run: ImportRun,
  method: string,
  path: string,
  source: string,
  operationId: string | undefined,
): string {
  const { id, notes, takenVerb, takenTool } = run;
  const natural = (operationId && verbFromOperationId(operationId)) || verbFromPath(method, path);
  let verb = fitVerb(natural, id, `${source} ${operationId ?? ""}`);
  const tool = (v: string) => v.replace(/\./g, "_");
  if (takenVerb.has(verb) || takenTool.has(tool(verb))) {
    const h = `_${shortHash(`${source} ${operationId ?? ""}`, 4)}`;
    let v = fitVerb(natural + h, id, `${source}#2`);
    for (let n = 2; takenVerb.has(v) || takenTool.has(tool(v)); n++)
      v = fitVerb(`${natural}_${n}`, id, `${source}#${n}`);
    notes.push(`${source}: verb_key ${verb} was taken, named ${v}`);
    verb = v;
  } else if (verb !== natural)
    notes.push(
      `${source}: verb_key ${natural} shortened to ${verb} (host tool names: server + tool ≤ ${MAX_SERVER_TOOL})`,
    );
  takenVerb.add(verb);
  takenTool.add(tool(verb));
  return verb;
}

/** Adds an arg under a name free in `args` (the wire name kept as `name` when it differs); returns the name. */
type AddArg = (wire: string, spec: ImportedArg, prefer?: string) => string;

function argAdder(args: Record<string, ImportedArg>): AddArg {
  return (wire, spec, prefer) => {
    let name = argName(prefer ?? wire);
    if (Object.hasOwn(args, name)) {
      name = argName(`${spec.in}_${name}`);
      for (let n = 2; Object.hasOwn(args, name); n++) name = argName(`${spec.in}_${wire}_${n}`);
    }
    args[name] = { ...spec, ...(name !== wire ? { name: wire } : {}) };
    return name;
  };
}

/** The operation's parameters (shared ones first) as args, and every {name} of the path; returns the path with the args' names. */
function importParams(
  run: ImportRun,
  params: Map<string, Json>,
  path: string,
  source: string,
  args: Record<string, ImportedArg>,
  add: AddArg,
): string {
  const { doc, notes } = run;
  let httpPath = path;
  for (const p of params.values()) {
    const wire = p.name as string;
    const where = p.in as string;
    if (!["path", "query", "header", "cookie"].includes(where)) continue;
    // OpenAPI: Accept, Content-Type and Authorization header parameters are ignored
    if (where === "header" && /^(accept|content-type|authorization)$/i.test(wire)) continue;
    const schema =
      p.schema ?? (isObj(p.content) ? (Object.values(p.content)[0] as Json | undefined)?.schema : undefined);
    const a = argFromSchema(doc, schema);
    const desc = oneLine(p.description);
    const style = typeof p.style === "string" ? p.style : undefined;
    const explode = typeof p.explode === "boolean" ? p.explode : undefined;
    const defStyle = PARAM_DEFAULT_STYLE[where]!;
    const spec: ImportedArg = {
      ...a,
      ...(p.required === true || where === "path" ? { required: true } : {}),
      ...(desc ? { description: desc } : {}),
      in: where as ImportedArg["in"],
      ...(style && style !== defStyle ? { style: style as ImportedArg["style"] } : {}),
      ...(explode !== undefined && explode !== (style ?? defStyle).startsWith("form") ? { explode } : {}),
    };
    if (
      spec.style &&
      !["simple", "label", "matrix", "form", "spaceDelimited", "pipeDelimited", "deepObject"].includes(spec.style)
    ) {
      notes.push(
        `${source}: parameter '${wire}' has style '${spec.style}', which is not an OpenAPI style; sent in the default style`,
      );
      delete spec.style;
    }
    const name = add(wire, spec);
    if (where === "path" && name !== wire) httpPath = httpPath.split(`{${wire}}`).join(`{${name}}`);
  }
  // every {name} of the path is an argument, declared or not
  for (const m of httpPath.matchAll(/\{([^}]+)\}/g)) {
    const name = m[1]!;
    if (args[name]) continue;
    const n = add(name, { type: "string", required: true, in: "path" });
    if (n !== name) httpPath = httpPath.split(`{${name}}`).join(`{${n}}`);
    notes.push(`${source}: path parameter '${name}' is not declared in the document; added as a required string`);
  }
  return httpPath;
}

/** The request body as args (an object's properties, or one arg for the whole body); `skip` when hcpx cannot send it. */
function importBody(
  run: ImportRun,
  op: Json,
  source: string,
  args: Record<string, ImportedArg>,
  add: AddArg,
): { body?: ImportedHttp["body"]; skip: boolean } {
  const { doc, notes } = run;
  let body: ImportedHttp["body"];
  const rb = derefInternal(doc, op.requestBody);
  let skip = false;
  if (isObj(rb) && isObj(rb.content) && Object.keys(rb.content).length) {
    const picked = pickMedia(rb.content);
    if (!picked) {
      const types = Object.keys(rb.content).join(", ");
      if (rb.required === true) {
        notes.push(
          `${source}: left out: its request body is ${types}, which hcpx cannot send (JSON, form-urlencoded and multipart text fields only)`,
        );
        skip = true;
      } else notes.push(`${source}: the optional request body (${types}) is left out`);
    } else {
      const media = derefInternal(doc, rb.content[picked.key]);
      const schema = isObj(media) ? derefInternal(doc, media.schema) : undefined;
      body = { media: picked.media, ...(rb.required === true ? { required: true } : {}) };
      const merged = mergeObject(doc, schema);
      if (merged && Object.keys(merged.properties).length) {
        for (const [prop, ps] of Object.entries(merged.properties)) {
          const p = derefInternal(doc, ps);
          if (isObj(p) && p.readOnly === true) continue;
          const a = argFromSchema(doc, p);
          if (
            picked.media === "multipart/form-data" &&
            isObj(p) &&
            (p.format === "binary" || p.contentMediaType !== undefined) &&
            a.type === "string"
          ) {
            if (merged.required.includes(prop)) {
              notes.push(
                `${source}: left out: its multipart body needs the file '${prop}' (only text fields are sent)`,
              );
              skip = true;
            } else notes.push(`${source}: multipart file field '${prop}' left out (only text fields are sent)`);
            continue;
          }
          const desc = isObj(p) ? oneLine(p.description) : undefined;
          add(
            prop,
            {
              ...a,
              ...(merged.required.includes(prop) ? { required: true } : {}),
              ...(desc ? { description: desc } : {}),
              in: "body",
            },
            Object.hasOwn(args, argName(prop)) ? `body_${prop}` : undefined,
          );
        }
      } else {
        // not an object with properties (an array, a scalar, a free-form object): one arg is the whole body
        const a = argFromSchema(doc, schema ?? {});
        const name = add("body", {
          ...a,
          ...(rb.required === true ? { required: true } : {}),
          description: oneLine(rb.description) ?? `the request body (${picked.media})`,
          in: "body",
        });
        delete args[name]!.name;
        body.whole = name;
      }
    }
  }
  return { body, skip };
}

/** One operation as a command (undefined: left out, with a note). */
function importOperation(
  run: ImportRun,
  path: string,
  item: Json,
  method: (typeof METHODS)[number],
  op: Json,
  sel: { tags: string[]; operationId: string | undefined },
): ImportedCommand | undefined {
  const { doc, opts, notes, hints, baseUrl, schemes, docSecurity } = run;
  const { tags, operationId } = sel;
  const source = `${method.toUpperCase()} ${path}`;
  const verb = importVerb(run, method, path, source, operationId);

  const args: Record<string, ImportedArg> = {};
  const params = new Map<string, Json>();
  const shared = Array.isArray(item.parameters) ? item.parameters : [];
  for (const p of [...shared, ...(Array.isArray(op.parameters) ? op.parameters : [])]) {
    const d = derefInternal(doc, p);
    if (isObj(d) && typeof d.name === "string" && typeof d.in === "string") params.set(`${d.in}:${d.name}`, d);
  }
  const add = argAdder(args);
  const httpPath = importParams(run, params, path, source, args, add);
  const { body, skip } = importBody(run, op, source, args, add);
  if (skip) return undefined;
  // per-operation servers and security
  const opServers =
    Array.isArray(op.servers) && op.servers.length
      ? op.servers
      : Array.isArray(item.servers) && item.servers.length
        ? item.servers
        : undefined;
  const opBase = opServers
    ? resolveServer(
        serverUrl(opServers[0]) ?? "/",
        opts.origin ?? (/^[a-z]+:/i.test(baseUrl) ? baseUrl : undefined),
        notes,
        source,
      )
    : undefined;
  const opSec = op.security !== undefined ? importSecurity(op.security, schemes) : undefined;
  if (Array.isArray(op.security) && op.security.length > 0 && opSec?.length === 0)
    notes.push(`${source}: none of its security schemes is supported; sent without credentials`);
  const accept = acceptOf(op);
  const summary = oneLine(op.summary, 120) ?? firstSentence(op.description) ?? source;
  const description = oneLine(op.description, 300);
  const operation = method === "get" || method === "head" ? "read" : "write";
  const seen =
    operation === "write"
      ? externalWords({ operationId, summary: op.summary, description: op.description })
      : undefined;
  if (seen) {
    const msg = `${source} (${verb}): drafted external + confirm: the document says ${seen.map((w) => `"${w}"`).join(", ")} (others see its effect)`;
    notes.push(msg);
    hints[msg] =
      "review its row in policy.json (land, confirm), then `hcpx pack sync <dir>` carries the review into the Skill";
  }
  return {
    verb_key: verb,
    summary,
    ...(description && description !== summary ? { description } : {}),
    http: {
      method: method.toUpperCase(),
      path: httpPath,
      ...(opBase && opBase !== baseUrl ? { base_url: opBase } : {}),
      ...(body ? { body } : {}),
      ...(accept ? { accept } : {}),
      ...(opSec !== undefined && !sameReq(opSec, docSecurity) ? { security: opSec } : {}),
    },
    args,
    operation,
    ...(operation === "write" ? { land: seen ? ("external" as const) : ("remote" as const) } : {}),
    confirm: method === "delete" || seen !== undefined,
    tag: tags[0] ?? "other",
    ...(operationId ? { operationId } : {}),
    source,
  };
}

export function importOpenapi(docIn: unknown, id: string, opts: ImportOptions = {}): ImportResult {
  if (!isObj(docIn)) throw new Error("the document is not an object");
  const doc = docIn;
  const bad = versionProblem(doc);
  if (bad) throw new Error(bad);
  const info = isObj(doc.info) ? doc.info : {};
  const notes: string[] = [];
  const baseUrl = importBaseUrl(doc, id, opts, notes);
  const hints: Record<string, string> = {};
  const run: ImportRun = {
    doc,
    id,
    opts,
    notes,
    hints,
    baseUrl,
    ...importAuth(doc, id, opts, notes, hints),
    takenVerb: new Set(),
    takenTool: new Set(),
  };
  const include = matcher(opts.include);
  const exclude = matcher(opts.exclude);
  let filtered = 0;
  const commands: ImportedCommand[] = [];
  const paths = isObj(doc.paths) ? doc.paths : {};
  for (const path of Object.keys(paths).sort()) {
    const item = derefInternal(doc, paths[path]);
    if (!isObj(item)) continue;
    if (!path.startsWith("/")) {
      notes.push(`skipped path ${path}: it does not start with /`);
      continue;
    }
    for (const method of METHODS) {
      const op = derefInternal(doc, item[method]);
      if (!isObj(op)) continue;
      const tags = Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === "string") : [];
      const operationId = typeof op.operationId === "string" ? op.operationId : undefined;
      const sel = { tags, path, operationId };
      if ((include && !include(sel)) || (exclude && exclude(sel))) {
        filtered++;
        continue;
      }
      const cmd = importOperation(run, path, item, method, op, sel);
      if (cmd) commands.push(cmd);
    }
  }
  const { schemes, docSecurity } = run;
  const title = oneLine(info.title, 80) ?? id;
  const description = oneLine(info.description, 300) ?? `${title} over HTTP`;
  return {
    id,
    title,
    description,
    version: typeof info.version === "string" && info.version.trim() ? info.version : "0.1.0",
    baseUrl,
    schemes,
    ...(docSecurity && docSecurity.length ? { security: docSecurity } : {}),
    commands,
    notes,
    filtered,
    hints,
  };
}

/**
 * The document with only the imported operations under `paths` (after --include /
 * --exclude): a path keeps its shared fields when one of its operations stays.
 */
export function keepImported(docIn: unknown, commands: ImportedCommand[]): unknown {
  if (!isObj(docIn) || !isObj(docIn.paths)) return docIn;
  const keep = new Set(commands.map((c) => c.source));
  const ops = new Set<string>([...METHODS, "options", "trace"]);
  const paths: Json = {};
  for (const [path, item] of Object.entries(docIn.paths)) {
    if (!isObj(item)) continue;
    const kept = Object.entries(item).filter(([k]) => !ops.has(k) || keep.has(`${k.toUpperCase()} ${path}`));
    if (kept.some(([k]) => ops.has(k))) paths[path] = Object.fromEntries(kept);
  }
  return { ...docIn, paths };
}

const q = (s: string) => JSON.stringify(s);

/** Every Binding env name of the schemes. */
export function bindingEnv(r: ImportResult): string[] {
  return Object.values(r.schemes).flatMap((s) => (s.type === "basic" ? [s.username_env, s.password_env] : [s.env]));
}

export function renderSurface(r: ImportResult, documentFile: string): string {
  const env = bindingEnv(r);
  const surface: Json = {
    hcp: "1.1",
    id: r.id,
    version: r.version,
    description: r.description,
    kind: "openapi",
    openapi: {
      document: `./${documentFile}`,
      base_url: r.baseUrl,
      ...(Object.keys(r.schemes).length ? { schemes: r.schemes } : {}),
      ...(r.security ? { security: r.security } : {}),
    },
    ...(env.length ? { binding: { env } } : {}),
    commands: r.commands.map((c) => ({
      verb_key: c.verb_key,
      summary: c.summary,
      ...(c.description ? { description: c.description } : {}),
      http: c.http,
      args: c.args,
    })),
  };
  // one command per line: a 1,000-operation pack stays a readable, diffable file of moderate size
  const cmds = (surface.commands as Json[]).map((c) => `    ${JSON.stringify(c)}`).join(",\n");
  const head = JSON.stringify({ ...surface, commands: [] }, null, 2).replace(
    /"commands": \[\]\n\}$/,
    `"commands": [\n${cmds}\n  ]\n}`,
  );
  return `// ${r.id} — drafted by \`hcpx pack from-openapi\` from ${documentFile}. Review the verb_keys\n// and args; the runtime sends each command as an HTTP request (base URL override:\n// $HCP_${envPrefix(r.id)}_BASE_URL).\n${head}\n`;
}

export function renderPolicy(r: ImportResult): string {
  const rows = r.commands.map(
    (c) =>
      `    ${q(c.verb_key)}: { operation: ${q(c.operation)}${c.operation === "write" ? `, land: ${q(c.land ?? "remote")}` : ""}${c.confirm ? ", confirm: true" : ""}, inferred: true },`,
  );
  return `// Draft Policy inferred by \`hcpx pack from-openapi\` (GET/HEAD -> read, other methods ->\n// write, DELETE -> write + confirm, a write whose effect the document says others see ->\n// external + confirm). Review each row (operation, land, confirm), remove the \`inferred\`\n// marks, then run \`hcpx pack sync <dir>\` to carry the review into SKILL.md.\n{\n  inferred: true,\n  rows: {\n${rows.join("\n")}\n  },\n}\n`;
}

function cell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\s+/g, " ");
}

function credentialText(r: ImportResult): string {
  const parts = Object.entries(r.schemes).map(([name, s]) =>
    s.type === "bearer"
      ? `\`${s.env}\` as a bearer token (${name})`
      : s.type === "basic"
        ? `\`${s.username_env}\`/\`${s.password_env}\` as HTTP Basic (${name})`
        : `\`${s.env}\` as the ${s.in} ${s.in === "header" ? "header" : "parameter"} \`${s.name}\` (${name})`,
  );
  return parts.length ? ` with the user's credentials from the environment: ${parts.join("; ")}` : "";
}

function argHint(a: ImportedArg): string {
  if (a.type === "enum") return (a.values ?? []).join("|");
  if (a.type === "array") return "JSON array";
  if (a.type === "object") return "JSON object";
  return a.type;
}

export function renderSkill(r: ImportResult): string {
  const reads = r.commands.filter((c) => c.operation === "read").map((c) => c.verb_key);
  const confirms = r.commands.filter((c) => c.confirm).map((c) => c.verb_key);
  const lead = openapiLead(r.id, r.title, reads, confirms);
  const tags = [...new Set(r.commands.map((c) => c.tag))];
  const desc = `${r.description}${r.description.endsWith(".") ? "" : "."} ${r.commands.length} commands${tags.length > 1 ? ` by area: ${tags.join(", ")}` : `: ${r.commands.map((c) => c.verb_key).join(", ")}`}.`;
  const description = desc.length > 1000 ? desc.slice(0, 999).replace(/[,\s]+[^,\s]*$/, "") + "…" : desc;
  const example = r.commands.find((c) => c.operation === "read") ?? r.commands[0];
  const exArgs = example
    ? Object.entries(example.args)
        .filter(([, a]) => a.required)
        .map(([n, a]) => `${n}=<${argHint(a)}>`)
    : [];
  const lines = [
    "---",
    `name: ${r.id}`,
    `description: ${q(description)}`,
    "leads:",
    `  - ${q(lead)}`,
    "---",
    "",
    `# ${r.id}`,
    "",
    `${r.title}: an OpenAPI pack. The runtime sends each command as an HTTP request to`,
    `\`${/^[a-z]+:/i.test(r.baseUrl) ? r.baseUrl : `$HCP_${envPrefix(r.id)}_BASE_URL + ${r.baseUrl}`}\`${credentialText(r)}.`,
    POLICY_LINE.inferred,
    "Array and object arguments take JSON: `labels='[\"bug\"]'` on the command line, plain JSON in a tool call.",
    "",
    ...(example
      ? ["```sh", `hcpx exec ${r.id} ${example.verb_key}${exArgs.length ? ` -- ${exArgs.join(" ")}` : ""}`, "```", ""]
      : []),
    "## Hot path",
  ];
  for (const tag of tags) {
    const cmds = r.commands.filter((c) => c.tag === tag);
    if (tags.length > 1) lines.push("", `### ${cell(tag)}`);
    lines.push(
      "",
      "| verb | what it does | read/write |",
      "|---|---|---|",
      ...cmds.map((c) => `| \`${c.verb_key}\` | ${cell(c.summary)} | ${c.operation}${c.confirm ? ", confirm" : ""} |`),
    );
  }
  lines.push("");
  return lines.join("\n");
}

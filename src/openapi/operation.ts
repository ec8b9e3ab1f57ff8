// One operation → one command: its verb, params, body, media and security,
// with the base URL and auth an import run shares.
import { firstSentence, oneLine } from "../util/prose";
import type { SchemeSpec } from "../pack/schema";
import { isObj } from "../util/is";
import {
  MAX_SERVER_TOOL,
  METHODS,
  type ImportedArg,
  type ImportedCommand,
  type ImportedHttp,
  type ImportOptions,
  type Json,
} from "./types";
import { argName, envPrefix, fitVerb, shortHash, verbFromOperationId, verbFromPath } from "./names";
import { draftRow } from "./policy";
import { importSchemes, importSecurity, resolveServer, sameReq, serverUrl } from "./document";
import { argFromSchema, derefInternal, mergeObject } from "./schema";

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
export interface ImportRun {
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
export function importBaseUrl(doc: Json, id: string, opts: ImportOptions, notes: string[]): string {
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
export function importAuth(
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
export function importOperation(
  run: ImportRun,
  path: string,
  item: Json,
  method: (typeof METHODS)[number],
  op: Json,
  sel: { tags: string[]; operationId: string | undefined },
): ImportedCommand | undefined {
  const { doc, opts, notes, baseUrl, schemes, docSecurity } = run;
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
  const summary = oneLine(op.summary, 120) ?? firstSentence(op.description) ?? oneLine(source, 120) ?? method;
  const description = oneLine(op.description, 300);
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
    ...draftRow(run, { source, verb, method, path, operationId }, op),
    // a heading and a list item of SKILL.md: one line of the document's words
    tag: oneLine(tags[0], 60) ?? "other",
    ...(operationId ? { operationId } : {}),
    source,
  };
}

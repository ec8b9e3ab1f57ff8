// OpenAPI 3.x → pack: surface.json (named commands), a draft policy.json
// (GET/HEAD → read, others → write, DELETE → write + confirm; every row
// `inferred: true` until a person reviews it) and a SKILL.md with the hot-path
// table. Pure functions: the CLI command does the file I/O.
import { ARG_NAME_RE, VERB_KEY_RE } from "../pack/schema";

type Json = Record<string, unknown>;
const METHODS = ["get", "post", "put", "patch", "delete", "head"] as const;

export interface ImportedArg {
  type: "string" | "integer" | "number" | "boolean" | "enum";
  required?: boolean;
  description?: string;
  values?: (string | number)[];
  in: "path" | "query" | "body" | "header";
}

export interface ImportedCommand {
  verb_key: string;
  summary: string;
  description?: string;
  http: { method: string; path: string };
  args: Record<string, ImportedArg>;
  operation: "read" | "write";
  confirm: boolean;
  /** where it came from, for messages */
  source: string;
}

export interface ImportResult {
  id: string;
  title: string;
  description: string;
  version: string;
  baseUrl: string;
  /** true when no absolute server URL was found and a placeholder was used */
  baseUrlGuessed: boolean;
  auth?: { header: string; env: string; scheme?: string };
  commands: ImportedCommand[];
  /** what was left out and why */
  notes: string[];
}

const isObj = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

/** camelCase / snake / kebab / spaces → lower_snake words; dots stay separators. */
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
    .map((s) => s.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, ""))
    .filter(Boolean)
    .map((s) => (/^[a-z]/.test(s) ? s : `n${s}`));
  const item = segs.length > 0 && /^\{.*\}$/.test(segs[segs.length - 1]!);
  const m = method.toLowerCase();
  const action = m === "get" ? (item ? "get" : "list") : m === "post" ? "create" : m === "put" ? "replace" : m === "patch" ? "update" : m === "delete" ? "delete" : m;
  return [...words, action].join(".");
}

function deref(doc: Json, v: unknown, seen = new Set<string>()): unknown {
  if (!isObj(v) || typeof v.$ref !== "string") return v;
  const ref = v.$ref;
  if (!ref.startsWith("#/") || seen.has(ref)) return undefined;
  seen.add(ref);
  let cur: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const k = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    cur = isObj(cur) ? cur[k] : undefined;
  }
  return deref(doc, cur, seen);
}

function argFromSchema(doc: Json, schemaIn: unknown): Omit<ImportedArg, "in"> | undefined {
  const top = deref(doc, schemaIn);
  if (!isObj(top)) return { type: "string" };
  let schema: Json = top;
  // nullable / oneOf [X, null]: take the first non-null alternative
  for (const k of ["oneOf", "anyOf", "allOf"]) {
    const alts = schema[k];
    if (Array.isArray(alts) && !schema.type) {
      const first = alts.map((a) => deref(doc, a)).find((a) => isObj(a) && a.type !== "null");
      if (isObj(first)) schema = first;
    }
  }
  const s = schema as Json;
  let type = s.type;
  if (Array.isArray(type)) type = type.find((t) => t !== "null");
  if (Array.isArray(s.enum) && s.enum.length && s.enum.every((x) => typeof x === "string" || typeof x === "number")) return { type: "enum", values: s.enum as (string | number)[] };
  switch (type) {
    case "integer":
      return { type: "integer" };
    case "number":
      return { type: "number" };
    case "boolean":
      return { type: "boolean" };
    case "string":
    case undefined:
      return { type: "string" };
    default:
      return undefined; // array / object: not representable as one argument
  }
}

function oneLine(s: unknown, max = 200): string | undefined {
  if (typeof s !== "string") return undefined;
  const t = s.replace(/\s+/g, " ").trim();
  if (!t) return undefined;
  return t.length > max ? t.slice(0, max - 1).trimEnd() + "…" : t;
}

function firstSentence(s: unknown): string | undefined {
  const t = oneLine(s, 1000);
  if (!t) return undefined;
  const m = /^(.+?[.!?])(\s|$)/.exec(t);
  return oneLine(m ? m[1] : t, 120);
}

function envPrefix(id: string): string {
  return id.toUpperCase().replace(/-/g, "_");
}

export function importOpenapi(docIn: unknown, id: string, opts: { baseUrl?: string } = {}): ImportResult {
  if (!isObj(docIn)) throw new Error("the document is not an object");
  const doc = docIn;
  const version = typeof doc.openapi === "string" ? doc.openapi : undefined;
  if (!version || !/^3\./.test(version)) {
    throw new Error(doc.swagger ? "Swagger 2.0 documents are not supported; convert to OpenAPI 3 first" : "not an OpenAPI 3.x document (no `openapi: 3.x` field)");
  }
  const info = isObj(doc.info) ? doc.info : {};
  const notes: string[] = [];
  // base URL: --base-url, else the first absolute server URL
  let baseUrl = opts.baseUrl;
  let baseUrlGuessed = false;
  if (!baseUrl) {
    const servers = Array.isArray(doc.servers) ? doc.servers : [];
    const abs = servers.map((s) => (isObj(s) && typeof s.url === "string" ? s.url : "")).find((u) => /^https?:\/\//i.test(u) && !u.includes("{"));
    if (abs) baseUrl = abs.replace(/\/+$/, "");
    else {
      baseUrl = "http://127.0.0.1:8080";
      baseUrlGuessed = true;
      notes.push(`no absolute server URL in the document: openapi.base_url is a placeholder (${baseUrl}); set it, or HCP_${envPrefix(id)}_BASE_URL`);
    }
  }
  // auth: the first security scheme we can express as one header
  let auth: ImportResult["auth"];
  const schemes = isObj(doc.components) && isObj(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  for (const [name, raw] of Object.entries(schemes)) {
    const s = deref(doc, raw);
    if (!isObj(s)) continue;
    if (s.type === "http" && typeof s.scheme === "string" && s.scheme.toLowerCase() === "bearer") {
      auth = { header: "Authorization", env: `${envPrefix(id)}_TOKEN`, scheme: "Bearer" };
    } else if (s.type === "apiKey" && s.in === "header" && typeof s.name === "string") {
      auth = { header: s.name, env: `${envPrefix(id)}_API_KEY` };
    } else if (s.type === "oauth2" || s.type === "openIdConnect") {
      auth = { header: "Authorization", env: `${envPrefix(id)}_TOKEN`, scheme: "Bearer" };
    } else {
      notes.push(`security scheme '${name}' (${String(s.type)}) cannot be sent as one header: add auth by hand`);
      continue;
    }
    break;
  }
  const commands: ImportedCommand[] = [];
  const taken = new Set<string>();
  const paths = isObj(doc.paths) ? doc.paths : {};
  for (const path of Object.keys(paths).sort()) {
    const item = deref(doc, paths[path]);
    if (!isObj(item)) continue;
    if (!path.startsWith("/")) {
      notes.push(`skipped path ${path}: it does not start with /`);
      continue;
    }
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      const source = `${method.toUpperCase()} ${path}`;
      let verb = (typeof op.operationId === "string" && verbFromOperationId(op.operationId)) || verbFromPath(method, path);
      if (taken.has(verb)) {
        let n = 2;
        while (taken.has(`${verb}_${n}`)) n++;
        notes.push(`${source}: verb_key ${verb} was taken, named ${verb}_${n}`);
        verb = `${verb}_${n}`;
      }
      taken.add(verb);
      const args: Record<string, ImportedArg> = {};
      const params = new Map<string, Json>();
      for (const p of [...shared, ...(Array.isArray(op.parameters) ? op.parameters : [])]) {
        const d = deref(doc, p);
        if (isObj(d) && typeof d.name === "string" && typeof d.in === "string") params.set(`${d.in}:${d.name}`, d);
      }
      for (const p of params.values()) {
        const name = p.name as string;
        const where = p.in as string;
        if (where === "cookie") {
          notes.push(`${source}: cookie parameter '${name}' left out`);
          continue;
        }
        if (where === "header" && auth && name.toLowerCase() === auth.header.toLowerCase()) continue;
        if (!ARG_NAME_RE.test(name)) {
          notes.push(`${source}: parameter '${name}' left out: not a usable argument name`);
          continue;
        }
        const a = argFromSchema(doc, p.schema);
        if (!a) {
          notes.push(`${source}: parameter '${name}' (array/object) left out`);
          continue;
        }
        args[name] = { ...a, ...(p.required === true || where === "path" ? { required: true } : {}), ...(oneLine(p.description) ? { description: oneLine(p.description) } : {}), in: where as ImportedArg["in"] };
      }
      // every {name} of the path is an argument, declared or not
      for (const m of path.matchAll(/\{([^}]+)\}/g)) {
        const name = m[1]!;
        if (args[name]) continue;
        if (!ARG_NAME_RE.test(name)) throw new Error(`${source}: the path parameter {${name}} is not a usable argument name`);
        args[name] = { type: "string", required: true, in: "path" };
        notes.push(`${source}: path parameter '${name}' is not declared in the document; added as a required string`);
      }
      const body = deref(doc, op.requestBody);
      if (isObj(body) && isObj(body.content)) {
        const jsonKey = Object.keys(body.content).find((k) => /^application\/(.+\+)?json/.test(k));
        const media = jsonKey ? deref(doc, body.content[jsonKey]) : undefined;
        const schema = isObj(media) ? deref(doc, media.schema) : undefined;
        if (!jsonKey) notes.push(`${source}: request body is not JSON; left out`);
        else if (isObj(schema) && isObj(schema.properties)) {
          const req = Array.isArray(schema.required) ? schema.required : [];
          for (const [name, ps] of Object.entries(schema.properties)) {
            const prop = deref(doc, ps);
            if (isObj(prop) && prop.readOnly === true) continue;
            if (args[name]) {
              notes.push(`${source}: body property '${name}' has the name of a parameter; left out`);
              continue;
            }
            if (!ARG_NAME_RE.test(name)) {
              notes.push(`${source}: body property '${name}' left out: not a usable argument name`);
              continue;
            }
            const a = argFromSchema(doc, prop);
            if (!a) {
              notes.push(`${source}: body property '${name}' (array/object) left out`);
              continue;
            }
            const desc = isObj(prop) ? oneLine(prop.description) : undefined;
            args[name] = { ...a, ...(req.includes(name) ? { required: true } : {}), ...(desc ? { description: desc } : {}), in: "body" };
          }
        } else notes.push(`${source}: JSON body schema has no properties; left out`);
      }
      const summary = oneLine(op.summary, 120) ?? firstSentence(op.description) ?? source;
      const description = oneLine(op.description, 500);
      commands.push({
        verb_key: verb,
        summary,
        ...(description && description !== summary ? { description } : {}),
        http: { method: method.toUpperCase(), path },
        args,
        operation: method === "get" || method === "head" ? "read" : "write",
        confirm: method === "delete",
        source,
      });
    }
  }
  const title = oneLine(info.title, 80) ?? id;
  const description = oneLine(info.description, 300) ?? `${title} over HTTP`;
  return { id, title, description, version: typeof info.version === "string" ? info.version : "0.1.0", baseUrl, baseUrlGuessed, auth, commands, notes };
}

const q = (s: string) => JSON.stringify(s);

export function renderSurface(r: ImportResult, documentFile: string): string {
  const surface: Json = {
    hcp: "1.1",
    id: r.id,
    version: r.version,
    description: r.description,
    kind: "openapi",
    openapi: { document: `./${documentFile}`, base_url: r.baseUrl, ...(r.auth ? { auth: r.auth } : {}) },
    ...(r.auth ? { binding: { env: [r.auth.env] } } : {}),
    commands: r.commands.map((c) => ({ verb_key: c.verb_key, summary: c.summary, ...(c.description ? { description: c.description } : {}), http: c.http, args: c.args })),
  };
  return `// ${r.id} — drafted by \`hcpx pack from-openapi\` from ${documentFile}. Review the verb_keys\n// and args; the runtime sends each command as an HTTP request (base URL override:\n// $HCP_${envPrefix(r.id)}_BASE_URL).\n${JSON.stringify(surface, null, 2)}\n`;
}

export function renderPolicy(r: ImportResult): string {
  const rows = r.commands.map((c) => `    ${q(c.verb_key)}: { operation: ${q(c.operation)}${c.operation === "write" ? `, land: "remote"` : ""}${c.confirm ? ", confirm: true" : ""}, inferred: true },`);
  return `// Draft Policy inferred by \`hcpx pack from-openapi\` (GET/HEAD -> read, other methods ->\n// write, DELETE -> write + confirm). Review each row (operation, land, confirm), then\n// remove the \`inferred\` marks.\n{\n  inferred: true,\n  rows: {\n${rows.join("\n")}\n  },\n}\n`;
}

function cell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\s+/g, " ");
}

export function renderSkill(r: ImportResult): string {
  const reads = r.commands.filter((c) => c.operation === "read").map((c) => c.verb_key);
  const confirms = r.commands.filter((c) => c.confirm).map((c) => c.verb_key);
  const lead = `${r.id}: ${r.title}${reads.length ? `; reads: ${reads.slice(0, 4).join(", ")}${reads.length > 4 ? ", …" : ""}` : ""}${confirms.length ? `; needs confirm: ${confirms.slice(0, 3).join(", ")}${confirms.length > 3 ? ", …" : ""}` : ""}.`;
  const desc = `${r.description}${r.description.endsWith(".") ? "" : "."} Commands: ${r.commands.map((c) => c.verb_key).join(", ")}.`.slice(0, 1000);
  const example = r.commands.find((c) => c.operation === "read") ?? r.commands[0];
  const exArgs = example ? Object.entries(example.args).filter(([, a]) => a.required).map(([n, a]) => `${n}=<${a.type === "enum" ? (a.values ?? []).join("|") : a.type}>`) : [];
  const lines = [
    "---",
    `name: ${r.id}`,
    `description: ${q(desc)}`,
    "leads:",
    `  - ${q(lead.slice(0, 200))}`,
    "---",
    "",
    `# ${r.id}`,
    "",
    `${r.title}: an OpenAPI pack. The runtime sends each command as an HTTP request to`,
    `\`${r.baseUrl}\`${r.auth ? ` with the user's \`${r.auth.env}\` as the \`${r.auth.header}\` header` : ""}.`,
    "Drafted by `hcpx pack from-openapi`: the Policy is inferred — review it.",
    "",
    ...(example ? ["```sh", `hcpx exec ${r.id} ${example.verb_key}${exArgs.length ? ` -- ${exArgs.join(" ")}` : ""}`, "```", ""] : []),
    "## Hot path",
    "",
    "| verb | what it does | read/write |",
    "|---|---|---|",
    ...r.commands.map((c) => `| \`${c.verb_key}\` | ${cell(c.summary)} | ${c.operation}${c.confirm ? ", confirm" : ""} |`),
    "",
  ];
  return lines.join("\n");
}

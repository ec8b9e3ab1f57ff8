// OpenAPI 3.x → pack: surface.json (named commands with everything the runtime
// needs to send the request — it never reads the document), a draft
// policy.json (GET/HEAD → read, but write + confirm when its own words say it
// deletes, wipes, destroys, purges, drops, resets or removes; others → write,
// DELETE → write + confirm; every row `inferred: true` until a person reviews
// it, and hcpx grants no inferred row by default) and a SKILL.md with the
// hot-path table grouped by tag.
//
// `importOpenapi` takes a document whose `$ref`s the parser already resolved
// (`@apidevtools/swagger-parser`, in the CLI command; cycles stay object
// cycles) — a leftover internal `#/…` ref is still followed, for callers that
// pass a raw document. Pure functions: the CLI command does the file I/O.
//
// The steps, one module each: types.ts (what an import is asked and returns),
// document.ts (servers, filters, security schemes), operation.ts (one
// operation → one command), policy.ts (its draft Policy row), names.ts (verbs,
// arg and env names), schema.ts
// (JSON Schema of a tool's input), render.ts (surface.json, policy.json,
// SKILL.md). This module walks the document and is the importer's one entry.
import { oneLine } from "../util/prose";
import { isObj } from "../util/is";
import { METHODS, type ImportedCommand, type ImportOptions, type ImportResult, type Json } from "./types";
import { matcher } from "./document";
import { importAuth, importBaseUrl, importOperation, versionProblem, type ImportRun } from "./operation";
import { derefInternal } from "./schema";
export {
  AUTH_FORMS,
  MAX_SERVER_TOOL,
  SERVER_NAME,
  parseAuth,
  type AuthSpec,
  type ImportedArg,
  type ImportedCommand,
  type ImportedHttp,
  type ImportOptions,
  type ImportResult,
} from "./types";
export { externalWords, fitVerb, verbFromOperationId, verbFromPath } from "./names";
export { toJsonSchema } from "./schema";
export { versionProblem } from "./operation";
export { bindingEnv, renderPolicy, renderSkill, renderSurface } from "./render";

/** The pack an OpenAPI document makes: one command per operation kept by the filters, in path order. */
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
    // one line: the version lands in SKILL.md's Skill copies (src/projection/skillcopy.ts)
    version: oneLine(info.version, 40) ?? "0.1.0",
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

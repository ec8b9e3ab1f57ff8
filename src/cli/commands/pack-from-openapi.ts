// hcpx pack from-openapi <document> --id <id> [--out packs/<id>] [--base-url URL]
//   [--origin URL] [--include P]… [--exclude P]… [--auth A] [--force]
// Writes an openapi pack: surface.json (everything the runtime needs: it never
// reads the document), a draft policy.json (inferred), SKILL.md, and a copy of
// the document (bundled into one file when it had external $refs). Refuses to
// write into an existing pack directory without --force.
//
// The document is read with @apidevtools/swagger-parser (its $ref resolver:
// local files, YAML or JSON; no network). That library is bundled into this
// command only: nothing on the exec path loads it.
import { existsSync, readdirSync } from "node:fs";
import { baseForDir, guard, writeFiles } from "../../util/door";
import { CAPS, readTextFile } from "../../util/readfile";
import { join, resolve } from "node:path";
import { HcpxError, fail, usage } from "../../util/errors";
import { display } from "../../util/paths";
import { PACK_ID_RE } from "../../pack/schema";
import { loadPack } from "../../pack/load";
import { AUTH_FORMS, bindingEnv, importOpenapi, keepImported, parseAuth, versionProblem, renderPolicy, renderSkill, renderSurface } from "../../openapi/import";
import { c, done, makeOut, printWarnings } from "../output";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

/** `hcpx pack from-openapi`'s options, as the options schema (../spec.ts) types them, with the global ones. */
export type FromOpenapiOptions = OptionsOf<"pack from-openapi"> & GlobalOpts;

function checkUrl(flag: string, u: string | undefined): void {
  if (u === undefined) return;
  let x: URL;
  try {
    x = new URL(u);
  } catch {
    usage(`${flag} is not an absolute URL`, `give an http(s) URL, e.g. ${flag} https://api.example.com/v1`);
  }
  if (x.protocol !== "http:" && x.protocol !== "https:") usage(`${flag} is not http(s)`, `give an http(s) URL`);
  if (x.username || x.password) {
    usage(`${flag} carries a user name and password; they would be written into the pack`, "leave them out: the runtime sends credentials from the Binding (or put the URL with its userinfo in HCP_<PACK>_BASE_URL)");
  }
}

export async function run(document: string, opts: FromOpenapiOptions): Promise<number> {
  const out = makeOut(opts);
  const id = opts.id;
  if (!PACK_ID_RE.test(id)) fail("bad_id", `'${id}' is not a pack id`, { hint: "a pack id matches ^[a-z][a-z0-9-]{0,31}$, e.g. todo or my-api", exit: 64 });
  checkUrl("--base-url", opts.baseUrl);
  checkUrl("--origin", opts.origin);
  const auth = opts.auth === undefined ? undefined : parseAuth(opts.auth);
  if (opts.auth !== undefined && !auth) fail("bad_args", `--auth '${opts.auth}' is not a kind of credential hcpx sends`, { hint: `give ${AUTH_FORMS}, e.g. --auth bearer or --auth header:X-API-Key`, exit: 64 });
  const docFile = resolve(document);
  let text: string;
  try {
    text = readTextFile(docFile, display(docFile), CAPS.openapi);
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    throw new HcpxError(e.problems.map((p) => ({ ...p, message: `cannot read the document: ${p.message}`, hint: p.hint ?? "give the path of an OpenAPI 3 document (.json, .yaml or .yml)" })));
  }
  // JSON or YAML by content, not by the file name
  const isJson = /^\s*[{[]/.test(text);
  let root: unknown;
  try {
    if (isJson) root = JSON.parse(text);
    else root = (await import("yaml")).parse(text, { maxAliasCount: 10_000 });
  } catch (e) {
    fail("bad_document", `the document does not parse as ${isJson ? "JSON" : "YAML"}: ${(e as Error).message.split("\n")[0]}`, { file: display(docFile), hint: "give a valid OpenAPI 3 document in JSON or YAML" });
  }
  const r0 = root as { openapi?: unknown; swagger?: unknown } | null;
  if (!r0 || typeof r0 !== "object" || Array.isArray(r0)) fail("bad_document", "the document is not an object", { file: display(docFile) });
  // the version first: a clear word before the parser's
  const bad = versionProblem(r0 as Record<string, unknown>);
  if (bad) fail("bad_document", bad, { file: display(docFile), hint: "give an OpenAPI 3.0 or 3.1 document" });
  const { default: SwaggerParser } = await import("@apidevtools/swagger-parser");
  const parser = new SwaggerParser();
  const parserOpts = { resolve: { http: false as const }, dereference: { circular: true as const }, validate: { schema: false, spec: false } };
  let doc: unknown;
  try {
    // the parser resolves in place: `root` is not used again (the bundle below parses afresh)
    doc = await parser.dereference(docFile, root as never, parserOpts as never);
  } catch (e) {
    const msg = (e as Error).message.split("\n")[0]!.replace(docFile, display(docFile));
    fail("bad_document", `the document's $refs do not resolve: ${msg}`, { file: display(docFile), hint: "every $ref must name a local file (JSON or YAML) or a place in one; remote (http) refs are not fetched" });
  }
  const files = parser.$refs.paths();
  let result;
  try {
    result = importOpenapi(doc, id, { baseUrl: opts.baseUrl, origin: opts.origin, include: opts.include, exclude: opts.exclude, auth });
  } catch (e) {
    fail("bad_document", (e as Error).message, { file: display(docFile) });
  }
  if (result.commands.length === 0) {
    fail("bad_document", result.filtered ? `no operation is left after --include/--exclude (${result.filtered} filtered out)` : "the document has no operations under paths that hcpx can send", { file: display(docFile), hint: result.filtered ? "check the patterns: tag:<tag>, path:/repos/**, op:<operationId>" : "an openapi pack needs at least one operation" });
  }
  const dir = resolve(opts.out ?? join("packs", id));
  if (existsSync(dir) && readdirSync(dir).length > 0 && !opts.force) {
    fail("exists", "the pack directory exists and is not empty; nothing was written", { file: display(dir), hint: "choose another --out, or pass --force to overwrite its pack files" });
  }
  const door = baseForDir(dir);
  guard(door, dir);
  // the pack's copy of the document: one file (external refs bundled in)
  let copy = text;
  let docName = isJson ? "openapi.json" : "openapi.yaml";
  if (files.length > 1) {
    const bundled = await new SwaggerParser().bundle(docFile, { resolve: { http: false } } as never);
    copy = JSON.stringify(result.filtered ? keepImported(bundled, result.commands) : bundled, null, 2) + "\n";
    docName = "openapi.json";
  } else if (result.filtered) {
    // --include / --exclude: the pack's copy holds only the operations imported (parsed afresh: `root` was resolved in place)
    const kept = keepImported(isJson ? JSON.parse(text) : (await import("yaml")).parse(text, { maxAliasCount: 10_000 }), result.commands);
    copy = isJson ? JSON.stringify(kept, null, 2) + "\n" : (await import("yaml")).stringify(kept, { aliasDuplicateObjects: false });
  }
  const written = [
    [docName, copy],
    ["surface.json", renderSurface(result, docName)],
    ["policy.json", renderPolicy(result)],
    ["SKILL.md", renderSkill(result)],
  ] as const;
  // the document, surface, policy and Skill land together or not at all
  writeFiles(door, written.map(([name, body]) => ({ abs: join(dir, name), data: body })));
  // what we wrote must load
  const pack = loadPack(dir);
  const notes = result.notes.map((m) => ({ code: "openapi_import" as const, message: m, severity: "warning" as const, ...(result.hints[m] ? { hint: result.hints[m]!.replace("<dir>", display(dir)) } : {}) }));
  const shownNotes = notes.length > 20 ? [...notes.slice(0, 20), { code: "openapi_import" as const, message: `… and ${notes.length - 20} more notes (--json lists them all)`, severity: "warning" as const }] : notes;
  if (!opts.json) printWarnings(shownNotes, out);
  const env = bindingEnv(result);
  done(
    out,
    {
      id,
      dir: display(dir),
      files: written.map(([n]) => n),
      document_files: files.length,
      commands: result.commands.map((cmd) => ({ verb_key: cmd.verb_key, ...(cmd.operationId ? { operationId: cmd.operationId } : {}), tag: cmd.tag, http: { method: cmd.http.method, path: cmd.http.path }, operation: cmd.operation, ...(cmd.land ? { land: cmd.land } : {}), confirm: cmd.confirm })),
      filtered: result.filtered,
      notes: result.notes,
      base_url: result.baseUrl,
      schemes: result.schemes,
      binding: env,
    },
    (color) =>
      [
        `${c.green(color, "wrote")} ${display(dir)}: ${written.map(([n]) => n).join(", ")} (${pack.commands.length} commands${result.filtered ? `, ${result.filtered} operations filtered out` : ""})`,
        ...result.commands.slice(0, 40).map((cmd) => `  ${cmd.verb_key.padEnd(24)} ${cmd.http.method} ${cmd.http.path}  ${cmd.operation}${cmd.land === "external" ? " (external)" : ""}${cmd.confirm ? ", confirm" : ""}`),
        ...(result.commands.length > 40 ? [`  … and ${result.commands.length - 40} more (see surface.json or --json)`] : []),
        "next:",
        `  review ${display(join(dir, "policy.json"))} (inferred: GET -> read, others -> write) and remove the inferred marks, then \`hcpx pack sync ${display(dir)}\` carries it into SKILL.md`,
        ...(env.length ? [`  set ${env.join(", ")} in the environment (the Binding)`] : []),
        `  hcpx lint ${display(dir)}; hcpx activate ${display(dir)}`,
      ].join("\n"),
  );
  return 0;
}

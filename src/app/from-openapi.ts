// The from-openapi use case (`hcpx pack from-openapi <document> --id <id>`):
// typed options in, a plan (the pack's files, nothing written) and a report
// out; nothing here prints. The pack: surface.json (everything the runtime
// needs: it never reads the document), a draft policy.json (inferred),
// SKILL.md, and a copy of the document (bundled into one file when it had
// external $refs). Refuses to write into an existing pack directory without
// `force`.
//
// The document is read with @apidevtools/swagger-parser (its $ref resolver:
// local files, YAML or JSON; no network). That library is loaded by this use
// case only: nothing on the exec path loads it.
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { baseForDir, guard, writeFiles } from "../util/door";
import { CAPS, readBytes, readTextFile } from "../util/readfile";
import { HcpxError, fail, usage } from "../util/errors";
import { display } from "../util/paths";
import { checkNesting, outOfStack } from "../util/nesting";
import { PACK_ID_RE } from "../pack/schema";
import { loadPack } from "../pack/load";
import type { Pack } from "../pack/model";
import {
  AUTH_FORMS,
  bindingEnv,
  importOpenapi,
  keepImported,
  parseAuth,
  versionProblem,
  renderPolicy,
  renderSkill,
  renderSurface,
  type ImportResult,
} from "../openapi/import";

/** What `hcpx pack from-openapi` is asked. */
export interface FromOpenapiOptions {
  id: string;
  /** the pack directory (default packs/<id>) */
  out?: string;
  baseUrl?: string;
  origin?: string;
  include?: string[];
  exclude?: string[];
  /** the credential form (bearer, basic, header:<name>, query:<name>, cookie:<name>) */
  auth?: string;
  force?: boolean;
}

/** The pack to write: its directory and its files, in order (nothing written yet). */
export interface FromOpenapiPlan {
  id: string;
  dir: string;
  files: (readonly [name: string, body: string])[];
  /** how many files the document spans ($refs) */
  documentFiles: number;
  result: ImportResult;
}

/** The plan, written: the pack as loaded back. */
export interface FromOpenapiReport extends FromOpenapiPlan {
  pack: Pack;
  /** the Binding's environment names */
  env: string[];
}

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
    usage(
      `${flag} carries a user name and password; they would be written into the pack`,
      "leave them out: the runtime sends credentials from the Binding (or put the URL with its userinfo in HCP_<PACK>_BASE_URL)",
    );
  }
}

/** The options, checked (exit 64 on a bad one): the parsed --auth. */
function checkOptions(opts: FromOpenapiOptions): ReturnType<typeof parseAuth> {
  const id = opts.id;
  if (!PACK_ID_RE.test(id)) {
    fail("bad_id", `'${id}' is not a pack id`, {
      hint: "a pack id matches ^[a-z][a-z0-9-]{0,31}$, e.g. todo or my-api",
      exit: 64,
    });
  }
  checkUrl("--base-url", opts.baseUrl);
  checkUrl("--origin", opts.origin);
  const auth = opts.auth === undefined ? undefined : parseAuth(opts.auth);
  if (opts.auth !== undefined && !auth) {
    fail("bad_args", `--auth '${opts.auth}' is not a kind of credential hcpx sends`, {
      hint: `give ${AUTH_FORMS}, e.g. --auth bearer or --auth header:X-API-Key`,
      exit: 64,
    });
  }
  return auth;
}

const parseYaml = async (text: string) => (await import("yaml")).parse(text, { maxAliasCount: 10_000 }) as unknown;

interface ReadDocument {
  docFile: string;
  text: string;
  isJson: boolean;
  root: Record<string, unknown>;
}

/** The document's text, parsed (JSON or YAML by content, not by the file name), an OpenAPI 3 object. */
async function readDocument(document: string): Promise<ReadDocument> {
  const docFile = resolve(document);
  let text: string;
  try {
    text = readTextFile(docFile, display(docFile), CAPS.openapi);
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    const hint = "give the path of an OpenAPI 3 document (.json, .yaml or .yml)";
    throw new HcpxError(
      e.problems.map((p) => ({ ...p, message: `cannot read the document: ${p.message}`, hint: p.hint ?? hint })),
    );
  }
  const isJson = /^\s*[{[]/.test(text);
  deepAsDocument(() => checkNesting(text, display(docFile), isJson ? "json" : "yaml"));
  let root: unknown;
  try {
    root = isJson ? JSON.parse(text) : await parseYaml(text);
  } catch (e) {
    const first = (e as Error).message.split("\n")[0];
    fail("bad_document", `the document does not parse as ${isJson ? "JSON" : "YAML"}: ${first}`, {
      file: display(docFile),
      hint: "give a valid OpenAPI 3 document in JSON or YAML",
    });
  }
  const r0 = root as Record<string, unknown> | null;
  if (!r0 || typeof r0 !== "object" || Array.isArray(r0))
    fail("bad_document", "the document is not an object", { file: display(docFile) });
  // the version first: a clear word before the parser's
  const bad = versionProblem(r0);
  if (bad) fail("bad_document", bad, { file: display(docFile), hint: "give an OpenAPI 3.0 or 3.1 document" });
  return { docFile, text, isJson, root: r0 };
}

/**
 * How the parser reads the files a document's $refs name: never over http, and never its own file reader
 * (which reads a FIFO forever, /dev/zero without end, any size, anywhere). Each file goes through the one
 * reader (src/util/readfile.ts: a regular file, under the document cap) and must lie in the document's
 * folder or below, symlinks followed (a $ref to /etc/passwd or ~/.ssh would be copied into the pack).
 */
function refResolver(docFile: string, refused: { problem?: string } = {}) {
  const base = dirname(docFile);
  return {
    http: false as const,
    file: false as const,
    guarded: {
      order: 1,
      canRead: (f: { url: string }) => !/^[a-z][a-z0-9+.-]*:/i.test(f.url) || f.url.startsWith("file:"),
      read: (f: { url: string }) => {
        const path = f.url.startsWith("file:") ? fileURLToPath(f.url) : decodeURIComponent(f.url);
        try {
          return readBytes(path, display(path), CAPS.openapi, { base, baseLabel: "the document's folder" });
        } catch (e) {
          // the parser keeps none of a resolver's error: the caller reads it here
          if (e instanceof HcpxError) refused.problem = `${display(path)}: ${e.problems[0]!.message}`;
          throw e;
        }
      },
    },
  };
}

const DEEP_HINT =
  "an OpenAPI document's schemas nest a few dozen levels: this one is not one a tool wrote; fix it, or import the operations you need (--include)";

/** A nesting check's too_deep with what to do about a document (not a host's file). */
function deepAsDocument(check: () => void): void {
  try {
    check();
  } catch (e) {
    if (e instanceof HcpxError && e.problems[0]?.code === "too_deep")
      throw new HcpxError(e.problems.map((p) => ({ ...p, hint: DEEP_HINT })));
    throw e;
  }
}

/** A schema nested too deep through its $refs (no bracket nests: a chain of schemas, each naming the next). */
function tooDeepByRefs(file: string): HcpxError {
  return new HcpxError({
    code: "too_deep",
    message: "the document's schemas nest too deep through their $refs to read (the reader ran out of stack)",
    file,
    hint: DEEP_HINT,
  });
}

/** The document with its $refs resolved (files in its folder only), and the files it spans. */
async function dereference({ docFile, root }: ReadDocument): Promise<{ doc: unknown; files: string[] }> {
  const { default: SwaggerParser } = await import("@apidevtools/swagger-parser");
  const parser = new SwaggerParser();
  const refused: { problem?: string } = {};
  const parserOpts = {
    resolve: refResolver(docFile, refused),
    dereference: { circular: true as const },
    validate: { schema: false, spec: false },
  };
  let doc: unknown;
  try {
    // the parser resolves in place: `root` is not used again (the bundle below parses afresh)
    doc = await parser.dereference(docFile, root as never, parserOpts as never);
  } catch (e) {
    if (outOfStack(e)) throw tooDeepByRefs(display(docFile));
    const msg = refused.problem ?? (e as Error).message.split("\n")[0]!.replace(docFile, display(docFile));
    fail("bad_document", `the document's $refs do not resolve: ${msg}`, {
      file: display(docFile),
      hint: "every $ref must name a file in the document's folder or below (JSON or YAML) or a place in one; remote (http) refs are not fetched",
    });
  }
  return { doc, files: parser.$refs.paths() };
}

/** The pack's copy of the document: one file (external refs bundled in), only the operations imported. */
async function documentCopy(
  d: ReadDocument,
  files: string[],
  result: ImportResult,
): Promise<{ copy: string; docName: string }> {
  const { docFile, text, isJson } = d;
  if (files.length > 1) {
    const { default: SwaggerParser } = await import("@apidevtools/swagger-parser");
    const bundled = await new SwaggerParser().bundle(docFile, { resolve: refResolver(docFile) } as never);
    const kept = result.filtered ? keepImported(bundled, result.commands) : bundled;
    return { copy: JSON.stringify(kept, null, 2) + "\n", docName: "openapi.json" };
  }
  const docName = isJson ? "openapi.json" : "openapi.yaml";
  if (!result.filtered) return { copy: text, docName };
  // --include / --exclude: the pack's copy holds only the operations imported (parsed afresh: `root` was resolved in place)
  const kept = keepImported(isJson ? JSON.parse(text) : await parseYaml(text), result.commands);
  const copy = isJson
    ? JSON.stringify(kept, null, 2) + "\n"
    : (await import("yaml")).stringify(kept, { aliasDuplicateObjects: false });
  return { copy, docName };
}

/** Plan the pack (read-only): the document read, resolved and imported, the directory checked, the files rendered. */
export async function planFromOpenapi(document: string, opts: FromOpenapiOptions): Promise<FromOpenapiPlan> {
  const id = opts.id;
  const auth = checkOptions(opts);
  const read = await readDocument(document);
  const { doc, files } = await dereference(read);
  const file = display(read.docFile);
  let result: ImportResult;
  try {
    result = importOpenapi(doc, id, {
      baseUrl: opts.baseUrl,
      origin: opts.origin,
      include: opts.include,
      exclude: opts.exclude,
      auth,
    });
  } catch (e) {
    if (outOfStack(e)) throw tooDeepByRefs(file);
    fail("bad_document", (e as Error).message, { file });
  }
  if (result.commands.length === 0) {
    fail(
      "bad_document",
      result.filtered
        ? `no operation is left after --include/--exclude (${result.filtered} filtered out)`
        : "the document has no operations under paths that hcpx can send",
      {
        file,
        hint: result.filtered
          ? "check the patterns: tag:<tag>, path:/repos/**, op:<operationId>"
          : "an openapi pack needs at least one operation",
      },
    );
  }
  const dir = resolve(opts.out ?? join("packs", id));
  if (existsSync(dir) && readdirSync(dir).length > 0 && !opts.force) {
    fail("exists", "the pack directory exists and is not empty; nothing was written", {
      file: display(dir),
      hint: "choose another --out, or pass --force to overwrite its pack files",
    });
  }
  guard(baseForDir(dir), dir);
  const { copy, docName } = await documentCopy(read, files, result);
  const planned = [
    [docName, copy],
    ["surface.json", renderSurface(result, docName)],
    ["policy.json", renderPolicy(result)],
    ["SKILL.md", renderSkill(result)],
  ] as const;
  refuseUnreadable(planned);
  return { id, dir, files: [...planned], documentFiles: files.length, result };
}

/** What the pack's files are read with (src/util/readfile.ts CAPS): a file past its cap would make a pack that never loads. */
const READ_CAP: Record<string, number> = {
  "surface.json": CAPS.pack,
  "policy.json": CAPS.pack,
  "SKILL.md": CAPS.skill,
};

function refuseUnreadable(files: readonly (readonly [string, string])[]): void {
  for (const [name, body] of files) {
    const cap = READ_CAP[name];
    const n = Buffer.byteLength(body);
    if (cap !== undefined && n > cap)
      fail(
        "too_large",
        `the pack's ${name} would be ${n} bytes, more than the ${cap} hcpx reads; nothing was written`,
        {
          hint: "import fewer operations (--include tag:<tag>, path:/…/**, op:<operationId>, or --exclude)",
        },
      );
  }
}

/** Write the plan: the document, surface, policy and Skill land together or not at all; what was written must load. */
export function applyFromOpenapi(plan: FromOpenapiPlan): FromOpenapiReport {
  const door = baseForDir(plan.dir);
  guard(door, plan.dir);
  writeFiles(
    door,
    plan.files.map(([name, body]) => ({ abs: join(plan.dir, name), data: body })),
  );
  return { ...plan, pack: loadPack(plan.dir), env: bindingEnv(plan.result) };
}

/** The whole use case: plan, then write. */
export async function fromOpenapi(document: string, opts: FromOpenapiOptions): Promise<FromOpenapiReport> {
  return applyFromOpenapi(await planFromOpenapi(document, opts));
}

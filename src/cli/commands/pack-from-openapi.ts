// hcpx pack from-openapi <document> --id <id> [--out packs/<id>] [--base-url URL] [--force]
// Writes an openapi pack: surface.json, a draft policy.json (inferred), SKILL.md,
// and a copy of the document. Refuses to write into an existing pack directory
// without --force. Not on the exec hot path (yaml is imported lazily).
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { CAPS, readTextFile } from "../../util/readfile";
import { extname, join, resolve } from "node:path";
import { atomicWrite } from "../../util/atomic";
import { HcpxError } from "../../util/errors";
import { display } from "../../util/paths";
import { PACK_ID_RE } from "../../pack/schema";
import { loadPack } from "../../pack/load";
import { importOpenapi, renderPolicy, renderSkill, renderSurface } from "../../openapi/import";
import { c, done, makeOut, printWarnings } from "../output";

export interface FromOpenapiOptions {
  id: string;
  out?: string;
  baseUrl?: string;
  force?: boolean;
  json?: boolean;
  config?: string;
}

export async function run(document: string, opts: FromOpenapiOptions): Promise<number> {
  const out = makeOut(opts);
  const id = opts.id;
  if (!PACK_ID_RE.test(id)) throw new HcpxError({ code: "bad_args", message: `'${id}' is not a pack id`, hint: "a pack id matches ^[a-z][a-z0-9-]{0,31}$, e.g. todo or my-api" });
  const docFile = resolve(document);
  let text: string;
  try {
    text = readTextFile(docFile, display(docFile), CAPS.openapi);
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    throw new HcpxError(e.problems.map((p) => ({ ...p, message: `cannot read the document: ${p.message}`, hint: p.hint ?? "give the path of an OpenAPI 3 document (.json, .yaml or .yml)" })));
  }
  const ext = extname(docFile).toLowerCase();
  let doc: unknown;
  try {
    if (ext === ".yaml" || ext === ".yml") {
      const yaml = await import("yaml");
      doc = yaml.parse(text);
    } else doc = JSON.parse(text);
  } catch (e) {
    throw new HcpxError({ code: "bad_document", message: `the document does not parse: ${(e as Error).message.split("\n")[0]}`, file: display(docFile), hint: "give a valid OpenAPI 3 document in JSON or YAML" });
  }
  let result;
  try {
    result = importOpenapi(doc, id, { baseUrl: opts.baseUrl });
  } catch (e) {
    throw new HcpxError({ code: "bad_document", message: (e as Error).message, file: display(docFile) });
  }
  if (result.commands.length === 0) throw new HcpxError({ code: "bad_document", message: "the document has no operations under paths", file: display(docFile), hint: "an openapi pack needs at least one operation" });
  const dir = resolve(opts.out ?? join("packs", id));
  if (existsSync(dir) && readdirSync(dir).length > 0 && !opts.force) {
    throw new HcpxError({ code: "exists", message: "the pack directory exists and is not empty; nothing was written", file: display(dir), hint: "choose another --out, or pass --force to overwrite its pack files" });
  }
  mkdirSync(dir, { recursive: true });
  const docName = ext === ".yaml" || ext === ".yml" ? `openapi${ext}` : "openapi.json";
  const files = [
    [docName, text],
    ["surface.json", renderSurface(result, docName)],
    ["policy.json", renderPolicy(result)],
    ["SKILL.md", renderSkill(result)],
  ] as const;
  for (const [name, body] of files) atomicWrite(join(dir, name), body);
  // what we wrote must load
  const pack = loadPack(dir);
  const notes = result.notes.map((m) => ({ code: "openapi_import", message: m, severity: "warning" as const }));
  printWarnings(notes, out);
  done(
    out,
    { id, dir: display(dir), files: files.map(([n]) => n), commands: result.commands.map((c) => ({ verb_key: c.verb_key, http: c.http, operation: c.operation, confirm: c.confirm })), notes: result.notes, base_url: result.baseUrl, auth: result.auth },
    (color) =>
      [
        `${c.green(color, "wrote")} ${display(dir)}: ${files.map(([n]) => n).join(", ")} (${pack.commands.length} commands)`,
        ...result.commands.map((cmd) => `  ${cmd.verb_key.padEnd(24)} ${cmd.http.method} ${cmd.http.path}  ${cmd.operation}${cmd.confirm ? ", confirm" : ""}`),
        "next:",
        `  review ${display(join(dir, "policy.json"))} (inferred: GET -> read, others -> write) and remove the inferred marks`,
        ...(result.auth ? [`  set ${result.auth.env} in the environment (sent as ${result.auth.header})`] : []),
        `  hcpx lint ${display(dir)}; hcpx activate ${display(dir)}`,
      ].join("\n"),
  );
  return 0;
}

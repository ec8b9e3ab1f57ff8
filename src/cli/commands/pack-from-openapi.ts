// hcpx pack from-openapi <document> --id <id> [--out packs/<id>] [--base-url URL]
//   [--origin URL] [--include P]… [--exclude P]… [--auth A] [--force]
// Writes an openapi pack: surface.json (everything the runtime needs: it never
// reads the document), a draft policy.json (inferred), SKILL.md, and a copy of
// the document (bundled into one file when it had external $refs). Refuses to
// write into an existing pack directory without --force.
//
// Renders the from-openapi use case (src/app/from-openapi.ts), which reads the
// document with @apidevtools/swagger-parser (bundled into this command only).
import { join } from "node:path";
import { display } from "../../util/paths";
import type { CommonOpts } from "../../config/common";
import { fromOpenapi, type FromOpenapiOptions as AppOptions } from "../../app/from-openapi";
import { c, done, makeOut, neutralLine as o, printWarnings } from "../output";

export interface FromOpenapiOptions extends AppOptions, Pick<CommonOpts, "json" | "config"> {}

export async function run(document: string, opts: FromOpenapiOptions): Promise<number> {
  const out = makeOut(opts);
  const r = await fromOpenapi(document, opts);
  const { id, dir, result, pack, env } = r;
  const written = r.files;
  const notes = result.notes.map((m) => ({
    code: "openapi_import" as const,
    // one line each: a note quotes the document's names and paths (src/util/neutral.ts neutralLine)
    message: o(m),
    severity: "warning" as const,
    ...(result.hints[m] ? { hint: result.hints[m]!.replace("<dir>", display(dir)) } : {}),
  }));
  const shownNotes =
    notes.length > 20
      ? [
          ...notes.slice(0, 20),
          {
            code: "openapi_import" as const,
            message: `… and ${notes.length - 20} more notes (--json lists them all)`,
            severity: "warning" as const,
          },
        ]
      : notes;
  if (!opts.json) printWarnings(shownNotes, out);
  done(
    out,
    {
      id,
      dir: display(dir),
      files: written.map(([n]) => n),
      document_files: r.documentFiles,
      commands: result.commands.map((cmd) => ({
        verb_key: cmd.verb_key,
        ...(cmd.operationId ? { operationId: cmd.operationId } : {}),
        tag: cmd.tag,
        http: { method: cmd.http.method, path: cmd.http.path },
        operation: cmd.operation,
        ...(cmd.land ? { land: cmd.land } : {}),
        confirm: cmd.confirm,
      })),
      filtered: result.filtered,
      notes: result.notes,
      base_url: result.baseUrl,
      schemes: result.schemes,
      binding: env,
    },
    (color) =>
      [
        `${c.green(color, "wrote")} ${display(dir)}: ${written.map(([n]) => n).join(", ")} (${pack.commands.length} commands${result.filtered ? `, ${result.filtered} operations filtered out` : ""})`,
        ...result.commands
          .slice(0, 40)
          .map(
            (cmd) =>
              `  ${cmd.verb_key.padEnd(24)} ${cmd.http.method} ${o(cmd.http.path)}  ${cmd.operation}${cmd.land === "external" ? " (external)" : ""}${cmd.confirm ? ", confirm" : ""}`,
          ),
        ...(result.commands.length > 40
          ? [`  … and ${result.commands.length - 40} more (see surface.json or --json)`]
          : []),
        "next:",
        `  review ${display(join(dir, "policy.json"))} (inferred: GET -> read unless its words say it deletes, others -> write; no inferred row is granted by activate) and remove the inferred marks, then \`hcpx pack sync ${display(dir)}\` carries it into SKILL.md`,
        ...(env.length ? [`  set ${env.join(", ")} in the environment (the Binding)`] : []),
        `  hcpx lint ${display(dir)}; hcpx activate ${display(dir)}`,
      ].join("\n"),
  );
  return 0;
}

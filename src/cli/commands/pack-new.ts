// hcpx pack new <id> --wrap <bin> [--verb spec…] [--write spec…] | --composite | --sense [--dir packs/<id>]
// Scaffolds a pack that lints clean: the command's grammar (which kind, the
// --verb/--write specs) here, the scaffold use case in src/app/scaffold.ts.
import { relative } from "node:path";
import { fail } from "../../util/errors";
import { toPosix } from "../../util/paths";
import { PACK_ID_RE } from "../../pack/schema";
import { CONFIG_NAME } from "../../pack/load";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";
import type { ScaffoldKind } from "../../scaffold/pack";
import { parseVerbSpecs, type VerbSpec } from "../../scaffold/spec";
import { ID_RULE, scaffold } from "../../app/scaffold";
import { c, done, makeOut, printWarnings } from "../output";

/** `hcpx pack new`'s options, as the options schema (../spec.ts) types them, with the global ones. */
export type PackNewOpts = OptionsOf<"pack new"> & GlobalOpts;

export { ID_RULE };

/** The --verb / --write specs (src/scaffold/spec.ts); wrap only. */
export function parseVerbs(opts: PackNewOpts, kind: ScaffoldKind, id: string): VerbSpec[] | undefined {
  const reads = opts.verb ?? [];
  const writes = opts.write ?? [];
  if (reads.length === 0 && writes.length === 0) {
    if (opts.land !== undefined || opts.confirm)
      fail("usage", "--land and --confirm go with --write", {
        hint: `hcpx pack new ${id} --wrap <bin> --write "commit:local:confirm=commit -m {{message}}"`,
      });
    return undefined;
  }
  if (kind !== "wrap")
    fail("usage", `${reads.length ? "--verb" : "--write"} goes with --wrap`, {
      hint: `hcpx pack new ${id} --wrap <bin> --verb "status=status --short"`,
    });
  return parseVerbSpecs(reads, writes, { land: opts.land, confirm: opts.confirm });
}

export async function run(id: string, opts: PackNewOpts): Promise<number> {
  const out = makeOut(opts);
  if (!PACK_ID_RE.test(id)) fail("bad_id", `'${id}' is not a valid pack id`, { hint: ID_RULE, exit: 64 });
  const kinds = [opts.wrap !== undefined, opts.composite === true, opts.sense === true].filter(Boolean).length;
  if (kinds !== 1)
    fail("usage", kinds === 0 ? "say what kind of pack to scaffold" : "choose one of --wrap, --composite, --sense", {
      hint: `hcpx pack new ${id} --wrap <bin>   (or --composite, or --sense)`,
    });
  const kind: ScaffoldKind = opts.wrap !== undefined ? "wrap" : opts.composite ? "composite" : "sense_only";
  const verbs = parseVerbs(opts, kind, id);

  const r = scaffold({ id, kind, bin: opts.wrap, verbs, dir: opts.dir, force: opts.force, config: opts.config });
  const { dir, files, sandboxBin, warnings, binRecorded } = r;

  const rel = toPosix(relative(process.cwd(), dir)) || ".";
  const shown = rel.startsWith("..") ? dir : rel.startsWith(".") ? rel : `./${rel}`;
  printWarnings(warnings, out);
  done(
    out,
    {
      id,
      kind,
      dir,
      files: Object.keys(files),
      ...(sandboxBin ? { sandboxBin: { ...sandboxBin, recorded: binRecorded } } : {}),
      warnings,
    },
    (col) =>
      [
        `${c.green(col, "✓")} scaffolded ${kind} pack '${id}' in ${shown}: ${Object.keys(files).join(", ")}`,
        ...(binRecorded === "added"
          ? [`${c.green(col, "✓")} sandbox.bins.${sandboxBin!.name} = ${sandboxBin!.path} in ${CONFIG_NAME}`]
          : []),
        "next:",
        `  hcpx lint ${shown}`,
        `  hcpx activate ${shown}`,
      ].join("\n"),
  );
  return 0;
}

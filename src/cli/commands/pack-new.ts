// hcpx pack new <id> --wrap <bin> [--verb spec…] [--write spec…] | --composite | --sense [--dir packs/<id>]
// Scaffolds a pack that lints clean. For a wrap of a bare bin name it records
// the bin's absolute path in sandbox.bins of hcp.config.json5 (the runtime
// never looks a bare name up on PATH).
import { existsSync, readdirSync, statSync } from "node:fs";
import { baseForDir, guard, writeFiles } from "../../util/door";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fail, type Problem } from "../../util/errors";
import { display, isInside, toPosix } from "../../util/paths";
import { PACK_ID_RE } from "../../pack/schema";
import { CONFIG_NAME } from "../../pack/load";
import { configPath } from "../../config/file";
import { warning } from "../../config/common";
import { scaffoldFiles, type ScaffoldKind } from "../../scaffold/pack";
import { recordSandboxBin, type BinRecorded } from "../../config/sandbox";
import { whichOnPath } from "../../util/which";
import { parseVerbSpecs, type VerbSpec } from "../../scaffold/spec";
import { c, done, makeOut, printWarnings } from "../output";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

/** `hcpx pack new`'s options, as the options schema (../spec.ts) types them, with the global ones. */
export type PackNewOpts = OptionsOf<"pack new"> & GlobalOpts;

export const ID_RULE = "a pack id is 1-32 characters: a lower-case letter, then lower-case letters, digits or '-' (^[a-z][a-z0-9-]{0,31}$)";

/** The --verb / --write specs (src/scaffold/spec.ts); wrap only. */
export function parseVerbs(opts: PackNewOpts, kind: ScaffoldKind, id: string): VerbSpec[] | undefined {
  const reads = opts.verb ?? [];
  const writes = opts.write ?? [];
  if (reads.length === 0 && writes.length === 0) {
    if (opts.land !== undefined || opts.confirm) fail("usage", "--land and --confirm go with --write", { hint: `hcpx pack new ${id} --wrap <bin> --write "commit:local:confirm=commit -m {{message}}"` });
    return undefined;
  }
  if (kind !== "wrap") fail("usage", `${reads.length ? "--verb" : "--write"} goes with --wrap`, { hint: `hcpx pack new ${id} --wrap <bin> --verb "status=status --short"` });
  return parseVerbSpecs(reads, writes, { land: opts.land, confirm: opts.confirm });
}

export async function run(id: string, opts: PackNewOpts): Promise<number> {
  const out = makeOut(opts);
  if (!PACK_ID_RE.test(id)) fail("bad_id", `'${id}' is not a valid pack id`, { hint: ID_RULE, exit: 64 });
  const kinds = [opts.wrap !== undefined, opts.composite === true, opts.sense === true].filter(Boolean).length;
  if (kinds !== 1) fail("usage", kinds === 0 ? "say what kind of pack to scaffold" : "choose one of --wrap, --composite, --sense", { hint: `hcpx pack new ${id} --wrap <bin>   (or --composite, or --sense)` });
  const kind: ScaffoldKind = opts.wrap !== undefined ? "wrap" : opts.composite ? "composite" : "sense_only";
  const verbs = parseVerbs(opts, kind, id);

  const cfgFile = configPath(opts);
  const haveConfig = cfgFile !== undefined && existsSync(cfgFile);
  const base = haveConfig ? dirname(cfgFile) : process.cwd();
  const dir = resolve(opts.dir ?? join(base, "packs", id));
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0) && !opts.force) {
    fail("dir_exists", "the target directory exists and is not empty; nothing written", { file: display(dir), hint: `choose another --dir, or remove it first` });
  }

  // every file goes through the one write door: refused before anything (the config's sandbox.bins included) is written
  const door = baseForDir(dir);
  guard(door, dir);

  const warnings: Problem[] = [];
  let bin: string | undefined;
  let binName: string | undefined;
  let sandboxBin: { name: string; path: string } | undefined;
  if (kind === "wrap") {
    const b = opts.wrap!;
    if (!b.trim()) fail("usage", "--wrap needs a program name or path", { hint: `hcpx pack new ${id} --wrap git` });
    if (b.includes("/")) {
      const abs = resolve(b);
      if (!existsSync(abs)) fail("bin_not_found", `no program at ${display(abs)}`, { hint: "check the path, or pass a bare name found on PATH, like --wrap git" });
      binName = basename(abs);
      if (isInside(abs, base)) bin = toPosix(relative(dir, abs));
      else {
        // outside the project: reference it by a bare name through sandbox.bins
        bin = binName;
        sandboxBin = { name: binName, path: abs };
      }
    } else {
      if (!/^[A-Za-z0-9._+-]+$/.test(b)) fail("usage", `'${b}' is not a program name`, { hint: "pass a bare name like git, or a path like ./bin/tool" });
      bin = binName = b;
      const found = whichOnPath(b);
      if (found) sandboxBin = { name: b, path: found };
      else warnings.push(warning("bin_not_found", `'${b}' is not on PATH, so sandbox.bins.${b} was not set`, `add it to hcp.config.json5: sandbox: { bins: { ${b}: "/absolute/path/to/${b}" } }`));
    }
  }

  // sandbox.bins: recorded in the project config when there is one
  const binRecorded: BinRecorded | undefined = sandboxBin ? recordSandboxBin(opts, haveConfig, sandboxBin, warnings) : undefined;

  const files = scaffoldFiles({ id, kind, bin, binName, verbs });
  // the pack's files land together or not at all (a full disk's error names the file: src/util/ioerror.ts)
  writeFiles(door, Object.entries(files).map(([name, text]) => ({ abs: join(dir, name), data: text })));

  const rel = toPosix(relative(process.cwd(), dir)) || ".";
  const shown = rel.startsWith("..") ? dir : rel.startsWith(".") ? rel : `./${rel}`;
  printWarnings(warnings, out);
  done(
    out,
    { id, kind, dir, files: Object.keys(files), ...(sandboxBin ? { sandboxBin: { ...sandboxBin, recorded: binRecorded } } : {}), warnings },
    (col) =>
      [
        `${c.green(col, "✓")} scaffolded ${kind} pack '${id}' in ${shown}: ${Object.keys(files).join(", ")}`,
        ...(binRecorded === "added" ? [`${c.green(col, "✓")} sandbox.bins.${sandboxBin!.name} = ${sandboxBin!.path} in ${CONFIG_NAME}`] : []),
        "next:",
        `  hcpx lint ${shown}`,
        `  hcpx activate ${shown}`,
      ].join("\n"),
  );
  return 0;
}

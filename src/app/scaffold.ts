// The scaffold use case (`hcpx pack new <id>`): typed options in, a plan (the
// pack's files and the bin to record, nothing written) and a report out;
// nothing here prints. The pack lints clean. For a wrap of a bare bin name the
// bin's absolute path is recorded in sandbox.bins of hcp.config.json5 (the
// runtime never looks a bare name up on PATH). Every file goes through the
// one write door (src/util/door.ts), refused before anything is written.
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { baseForDir, guard, writeFiles } from "../util/door";
import { fail, type Problem } from "../util/errors";
import { display, isInside, toPosix } from "../util/paths";
import { whichOnPath } from "../util/which";
import { PACK_ID_RE } from "../pack/schema";
import { configPath } from "../config/file";
import { warning } from "../config/common";
import { recordSandboxBin, type BinRecorded } from "../config/sandbox";
import { scaffoldFiles, type ScaffoldKind } from "../scaffold/pack";
import type { VerbSpec } from "../scaffold/spec";

export const ID_RULE =
  "a pack id is 1-32 characters: a lower-case letter, then lower-case letters, digits or '-' (^[a-z][a-z0-9-]{0,31}$)";

/** What `hcpx pack new` is asked. */
export interface ScaffoldOptions {
  id: string;
  kind: ScaffoldKind;
  /** the program a wrap runs: a bare name (looked up on PATH now) or a path */
  bin?: string;
  /** the wrap's commands (src/scaffold/spec.ts) */
  verbs?: VerbSpec[];
  /** the pack directory (default packs/<id> next to the config, or in the working directory) */
  dir?: string;
  force?: boolean;
  /** --config <file> */
  config?: string;
}

/** The pack to write and the bin to record (nothing written yet). */
export interface ScaffoldPlan {
  id: string;
  kind: ScaffoldKind;
  dir: string;
  /** file name → text */
  files: Record<string, string>;
  /** the bin's absolute path, to record in sandbox.bins */
  sandboxBin?: { name: string; path: string };
  /** whether there is a config to record it in */
  haveConfig: boolean;
  config?: string;
  warnings: Problem[];
}

export interface ScaffoldReport extends ScaffoldPlan {
  binRecorded?: BinRecorded;
}

interface WrapBin {
  bin: string;
  binName: string;
  sandboxBin?: { name: string; path: string };
}

/** A wrap's program: a path inside the project (relative), outside it or a bare name (via sandbox.bins). */
function wrapBin(id: string, b: string, dir: string, base: string, warnings: Problem[]): WrapBin {
  if (!b.trim()) fail("usage", "--wrap needs a program name or path", { hint: `hcpx pack new ${id} --wrap git` });
  if (b.includes("/")) {
    const abs = resolve(b);
    if (!existsSync(abs)) {
      fail("bin_not_found", `no program at ${display(abs)}`, {
        hint: "check the path, or pass a bare name found on PATH, like --wrap git",
      });
    }
    const binName = basename(abs);
    if (isInside(abs, base)) return { bin: toPosix(relative(dir, abs)), binName };
    // outside the project: reference it by a bare name through sandbox.bins
    return { bin: binName, binName, sandboxBin: { name: binName, path: abs } };
  }
  if (!/^[A-Za-z0-9._+-]+$/.test(b)) {
    fail("usage", `'${b}' is not a program name`, { hint: "pass a bare name like git, or a path like ./bin/tool" });
  }
  const found = whichOnPath(b);
  if (!found) {
    warnings.push(
      warning(
        "bin_not_found",
        `'${b}' is not on PATH, so sandbox.bins.${b} was not set`,
        `add it to hcp.config.json5: sandbox: { bins: { ${b}: "/absolute/path/to/${b}" } }`,
      ),
    );
  }
  return { bin: b, binName: b, sandboxBin: found ? { name: b, path: found } : undefined };
}

/** Plan the pack (read-only): its directory checked, its bin resolved, its files rendered. */
export function planScaffold(opts: ScaffoldOptions): ScaffoldPlan {
  const { id, kind } = opts;
  if (!PACK_ID_RE.test(id)) fail("bad_id", `'${id}' is not a valid pack id`, { hint: ID_RULE, exit: 64 });
  const cfgFile = configPath({ config: opts.config });
  const haveConfig = cfgFile !== undefined && existsSync(cfgFile);
  const base = haveConfig ? dirname(cfgFile) : process.cwd();
  const dir = resolve(opts.dir ?? join(base, "packs", id));
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0) && !opts.force) {
    fail("dir_exists", "the target directory exists and is not empty; nothing written", {
      file: display(dir),
      hint: `choose another --dir, or remove it first`,
    });
  }
  // every file goes through the one write door: refused before anything (the config's sandbox.bins included) is written
  guard(baseForDir(dir), dir);
  const warnings: Problem[] = [];
  const w = opts.bin !== undefined ? wrapBin(id, opts.bin, dir, base, warnings) : undefined;
  const files = scaffoldFiles({ id, kind, bin: w?.bin, binName: w?.binName, verbs: opts.verbs });
  return { id, kind, dir, files, sandboxBin: w?.sandboxBin, haveConfig, config: opts.config, warnings };
}

/** Write the plan: the bin into sandbox.bins (when there is a config), then the pack's files, together or not at all. */
export function applyScaffold(plan: ScaffoldPlan): ScaffoldReport {
  const warnings = [...plan.warnings];
  const { sandboxBin } = plan;
  const binRecorded = sandboxBin
    ? recordSandboxBin({ config: plan.config }, plan.haveConfig, sandboxBin, warnings)
    : undefined;
  const door = baseForDir(plan.dir);
  guard(door, plan.dir);
  // a full disk's error names the file (src/util/ioerror.ts)
  writeFiles(
    door,
    Object.entries(plan.files).map(([name, text]) => ({ abs: join(plan.dir, name), data: text })),
  );
  return { ...plan, warnings, binRecorded };
}

/** The whole use case: plan, then write. */
export function scaffold(opts: ScaffoldOptions): ScaffoldReport {
  return applyScaffold(planScaffold(opts));
}

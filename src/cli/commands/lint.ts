// `hcpx lint [pack-dir…] [--strict] [--json]`: the rules of src/pack/lint.ts over
// the given pack directories, or over every activated pack of the project.
import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { formatProblem, type Problem, fail } from "../../util/errors";
import { display, home } from "../../util/paths";
import { locate, readJson5 } from "../../pack/json5";
import { CONFIG_NAME, loadProject } from "../../pack/load";
import { lintPackDir, type LintOptions } from "../../pack/lint";
import type { Project } from "../../pack/model";
import { c, finish, makeOut, sayRaw } from "../output";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

/** `hcpx lint`'s options, as the options schema (../spec.ts) types them, with the global ones. */
export type LintCliOptions = OptionsOf<"lint"> & GlobalOpts;

export interface LintedPack {
  id: string | null;
  dir: string;
  problems: Problem[];
}

export interface LintReport {
  packs: LintedPack[];
  errors: number;
  warnings: number;
}

const isError = (p: Problem) => p.severity !== "warning";

/** Lint dirs (or the project's activated packs); no printing. */
export function lintDirs(dirs: string[], opts: { config?: string; cwd?: string } = {}): LintReport {
  const cwd = resolve(opts.cwd ?? process.cwd());
  let targets = dirs.map((d) => resolve(cwd, d));
  let lintOpts: LintOptions = {};
  if (targets.length === 0) {
    const project: Project = loadProject({ config: opts.config, cwd, optional: true });
    if (project.packDirs.length === 0 && !project.configFile) {
      if (existsSync(resolve(cwd, "surface.json"))) targets = [cwd];
      else {
        fail(
          "no_config",
          `no ${CONFIG_NAME} in ${display(cwd)} or any parent directory, and ${display(cwd)} is not a pack`,
          { hint: "pass pack directories (`hcpx lint ./packs/ledger`), or run `hcpx init` to create a config" },
        );
      }
    } else {
      targets = project.packDirs;
      lintOpts = { project };
    }
  }
  const packs: LintedPack[] = [];
  const seen = new Map<string, string>();
  for (const dir of targets) {
    const r = lintPackDir(dir, lintOpts);
    const problems = lintOpts.project
      ? r.problems.map((p) => (p.code === "not_a_pack" ? pointAtConfig(p, dir, lintOpts.project!) : p))
      : r.problems;
    if (r.pack) {
      const prev = seen.get(r.pack.id);
      if (prev !== undefined && prev !== r.pack.dir) {
        problems.unshift({
          code: "duplicate_pack",
          severity: "error",
          message: `pack id '${r.pack.id}' is also the id of ${display(prev)}`,
          file: display(r.pack.surfaceFile),
          path: "id",
          hint: "pack ids are unique: rename one, or lint/activate only one of them",
        });
      }
      seen.set(r.pack.id, r.pack.dir);
    }
    packs.push({ id: r.pack?.id ?? null, dir: display(dir), problems });
  }
  const all = packs.flatMap((p) => p.problems);
  return { packs, errors: all.filter(isError).length, warnings: all.filter((p) => !isError(p)).length };
}

/** A pack directory the config activates but that is not a pack: say where the config names it. */
function pointAtConfig(p: Problem, dir: string, project: Project): Problem {
  for (const file of [project.configFile, project.userConfigFile]) {
    if (!file) continue;
    try {
      const doc = readJson5(file, display(file));
      const list = (doc.value as { packs?: unknown }).packs;
      if (!Array.isArray(list)) continue;
      const i = list.findIndex(
        (e) =>
          typeof e === "string" && resolve(dirname(file), e.startsWith("~/") ? join(home(), e.slice(2)) : e) === dir,
      );
      if (i < 0) continue;
      const pos = locate(doc.text, ["packs", i]);
      return {
        ...p,
        message: `${p.message}: ${display(dir)}`,
        file: doc.file,
        path: `packs[${i}]`,
        line: pos?.line,
        column: pos?.column,
        hint: "fix the path (relative to this config file), or remove the entry",
      };
    } catch {
      /* the config was read once already; keep the original problem */
    }
  }
  return p;
}

export async function run(dirs: string[], opts: LintCliOptions): Promise<number> {
  const out = makeOut(opts);
  const report = lintDirs(dirs, { config: opts.config });
  const code = report.errors > 0 ? 1 : report.warnings > 0 && opts.strict ? 2 : 0;
  if (out.json)
    return finish(out, code, report, {
      code: report.errors ? "lint_errors" : "lint_warnings",
      message: `lint: ${report.errors} error(s), ${report.warnings} warning(s)`,
      hint: report.errors
        ? "fix the errors in details.packs[].problems"
        : "--strict fails on warnings: fix them, or run without --strict",
    });
  const col = out.color;
  const lines: string[] = [];
  for (const p of report.packs) {
    const e = p.problems.filter(isError).length;
    const w = p.problems.length - e;
    const state = e
      ? c.red(col, `${e} error${e === 1 ? "" : "s"}`) + (w ? `, ${w} warning${w === 1 ? "" : "s"}` : "")
      : w
        ? c.yellow(col, `${w} warning${w === 1 ? "" : "s"}`)
        : c.green(col, "ok");
    lines.push(`${c.bold(col, p.id ?? `${basename(resolve(p.dir))} (not loaded)`)} ${c.dim(col, p.dir)}: ${state}`);
    for (const prob of p.problems) {
      const text = formatProblem(prob);
      const nl = text.indexOf("\n");
      const head = nl < 0 ? text : text.slice(0, nl);
      const sev = isError(prob) ? c.red(col, "error") : c.yellow(col, "warning");
      lines.push(
        sev +
          head.replace(/^(error|warning)/, "") +
          (prob.code ? c.dim(col, ` [${prob.code}]`) : "") +
          (nl < 0 ? "" : text.slice(nl)),
      );
    }
  }
  const n = report.packs.length;
  lines.push(
    `lint: ${n} pack${n === 1 ? "" : "s"}, ${report.errors} error${report.errors === 1 ? "" : "s"}, ${report.warnings} warning${report.warnings === 1 ? "" : "s"}` +
      (report.errors === 0 && report.warnings > 0 && !opts.strict ? " (use --strict to fail on warnings)" : ""),
  );
  sayRaw(lines.join("\n") + "\n");
  return code;
}

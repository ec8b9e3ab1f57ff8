// The generate use case (`hcpx generate`, and the library's generate()): typed
// options in, a plan and a report out; nothing here prints. Every projection
// of §12 is planned in memory (src/projection/plan.ts, host previews from the
// host engine), turned into a FilePlan below the out dir (src/plan/files.ts:
// every path, and every stale file the manifest names, passes the one guard),
// then either compared (--check) or written by the one applier.
//
// The manifest is committed with the out dir, so what it names passes guardPath
// (src/util/fsio.ts): a path outside the out dir, or through a symlink that
// leaves it, is ignored with a warning and never read or deleted.
import { join, relative, resolve } from "node:path";
import { loadPacks, loadProject } from "../pack/load";
import type { Pack, Project } from "../pack/model";
import { DEFAULT_SKILLS_PATH } from "../projection/build";
import { DEFAULT_HOSTS, planGenerate } from "../projection/plan";
import type { PlannedFile } from "../projection/types";
import { canonicalHost, listHosts } from "../host/descriptor";
import { renderHostPreviews } from "../host/preview";
import { applyPlan, type ApplyResult } from "../plan/apply";
import { driftOf, type Drift, type DriftKind } from "../plan/drift";
import { planFiles } from "../plan/files";
import type { FilePlan } from "../plan/types";
import { fail, usage, type Problem } from "../util/errors";
import { guardPath } from "../util/fsio";
import { display, isInside, toPosix } from "../util/paths";
import { didYouMean } from "../util/suggest";

export { DEFAULT_HOSTS };

export const MANIFEST = ".manifest.json";

/** What `hcpx generate` is asked. */
export interface GenerateOptions {
  /** the out dir (default `<project>/.hcp/generated`) */
  out?: string;
  /** host previews (ids, comma lists, `none`); default DEFAULT_HOSTS */
  host?: string[];
  /** compare only: the report's drift, nothing written */
  check?: boolean;
  /** --config <file> */
  config?: string;
  /** where the project is looked for (default process.cwd()) */
  cwd?: string;
  /** told the project's warnings as soon as it is read (before planning can fail) */
  warn?: (problems: Problem[]) => void;
}

export type FileState = "differs" | "missing" | "stale";
/** how `generate --check` has always named the drift of a file (a stale file someone changed is still stale) */
const STATE: Partial<Record<DriftKind, FileState>> = {
  missing: "missing",
  changed: "differs",
  stale: "stale",
  foreign: "stale",
};

export interface GenerateReport {
  project: Project;
  /** the out dir, absolute, and as shown */
  outDir: string;
  shownOut: string;
  /** every planned file, relative to the out dir */
  files: PlannedFile[];
  plan: FilePlan;
  /** what the plan left alone (conflicts) or ignored in the manifest (warnings) */
  warnings: Problem[];
  conflicts: Problem[];
  /** --check: the drift, and each drifted file's path (relative to the out dir) and state */
  drift: Drift[];
  changes: { path: string; state: FileState }[];
  /** the drift that is not a file's state (an ignored manifest entry, an interrupted write) */
  others: Drift[];
  /** written (not with --check) */
  applied?: ApplyResult;
}

/** Plan the projections of a project (read-only). */
export async function planGeneration(opts: GenerateOptions): Promise<GenerateReport> {
  if (opts.out !== undefined && opts.out.trim() === "")
    usage("--out needs a directory", "name the folder to write into, e.g. --out .hcp/generated (the default)");
  // the project's packs alone: generate writes files the project commits (the user's own packs are not the team's)
  const project = loadProject({ config: opts.config, cwd: opts.cwd, user: "fallback" });
  let packs: Pack[] | undefined = loadPacks(project);
  opts.warn?.(project.warnings);
  const outDir = resolve(opts.cwd ?? process.cwd(), opts.out ?? join(project.root, ".hcp", "generated"));
  const relOut = toPosix(relative(project.root, outDir)) || ".";
  const skillsPath = opts.out === undefined ? DEFAULT_SKILLS_PATH : `${relOut === "." ? "" : relOut + "/"}skills`;
  const plan = await planGenerate(project, packs, {
    hosts: hostsOf(opts.host),
    skillsPath,
    previews: renderHostPreviews,
  });
  packs = undefined; // planned: the packs (most of the memory at 5,000 packs) are not needed to compare or write
  // The default out dir is inside the project: a symlink on the way must not lead out of it.
  const root = project.root;
  if (isInside(outDir, root) && outDir !== root) {
    const g = guardPath(outDir, { dir: root, prefix: "" }, "absolute");
    if (!g.ok)
      fail("symlink_refused", `the out dir ${g.reason}`, {
        file: display(outDir),
        hint: "replace the symlink with a directory, or pass --out with a directory of its own",
      });
  }
  // every planned file, and every stale file the manifest names, passes the one guard (src/plan/files.ts)
  const fp = planFiles({
    files: plan.files,
    dir: outDir,
    label: "the out dir",
    manifest: MANIFEST,
    symlinkHint: "replace the symlink with a directory or a file of its own; hcpx writes nothing outside its out dir",
  });
  const drift = driftOf(fp);
  // paths relative to the out dir (a file left in place is named by its display path)
  const rel = (d: Drift) => (d.kind === "foreign" ? toPosix(relative(outDir, resolve(d.path))) : d.path);
  const changes = drift.filter((d) => STATE[d.kind]).map((d) => ({ path: rel(d), state: STATE[d.kind]! }));
  return {
    project,
    outDir,
    shownOut: display(outDir),
    files: plan.files,
    plan: fp,
    warnings: fp.warnings,
    conflicts: fp.conflicts,
    drift,
    changes,
    others: drift.filter((d) => !STATE[d.kind]),
  };
}

/** The hosts to preview: undefined = the default ones; `none` = no previews; an old id is its host. */
function hostsOf(host: string[] | undefined): string[] | undefined {
  const hostList = host
    ?.flatMap((h) => h.split(","))
    .map((h) => h.trim())
    .filter(Boolean);
  if (hostList === undefined) return undefined;
  const known = listHosts();
  // a host's old id is the host (descriptor `aliases`: windsurf → devin)
  const hosts = hostList.includes("none")
    ? []
    : [...new Set(hostList.map((h) => (known.includes(h) ? h : canonicalHost(h))))];
  for (const h of hosts) {
    if (!known.includes(h))
      fail("unknown_host", `unknown host '${h}'`, {
        hint: `${didYouMean(h, [...known, "none"])}known hosts: ${known.join(", ")} (or \`none\`)`,
        exit: 64,
      });
  }
  return hosts;
}

/** Write a generate plan (the one applier). */
export function applyGeneration(report: GenerateReport): ApplyResult {
  report.applied = applyPlan(report.plan);
  return report.applied;
}

/** The whole use case: plan, then (without `check`) write. */
export async function generate(opts: GenerateOptions): Promise<GenerateReport> {
  const report = await planGeneration(opts);
  if (!opts.check) applyGeneration(report);
  return report;
}

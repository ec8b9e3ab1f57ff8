// The bundle use case (`hcpx generate --as claude-plugin|gemini-extension|mcpb
// DIR`): typed options in, a plan and a report out. The bundle planner
// (src/host/bundle.ts) renders the files; the one applier (src/plan/apply.ts)
// writes them unless only a check was asked. Nothing here prints.
import { loadPacks, loadProject } from "../pack/load";
import type { Project } from "../pack/model";
import { fail } from "../util/errors";
import { didYouMean } from "../util/suggest";
import { listHosts } from "../host/descriptor";
import { planBundle, renderBundle } from "../host/bundle";
import { applyPlan, type ApplyResult } from "../plan/apply";
import { driftOf, type Drift } from "../plan/drift";
import type { FilePlan } from "../plan/types";

export interface BundleOptions {
  /** the bundle kind: a descriptor of hosts/ with `bundle` (claude-plugin, gemini-extension, mcpb) */
  kind: string;
  /** the bundle's directory */
  dir?: string;
  /** compare only (`--check`): nothing is written */
  check?: boolean;
  /** `--config <file>` */
  config?: string;
  /** where the project is looked for (default process.cwd()) */
  cwd?: string;
}

export interface BundleReport {
  kind: string;
  /** the bundle directory (absolute) */
  dir: string;
  project: Project;
  /** every file of the bundle (display paths inside dir) */
  files: string[];
  plan: FilePlan;
  drift: Drift[];
  /** what the applier wrote (not with `check`) */
  applied?: ApplyResult;
}

export async function bundle(opts: BundleOptions): Promise<BundleReport> {
  const { kind, dir } = opts;
  const bundles = listHosts("bundle");
  if (!bundles.includes(kind))
    fail("usage", `unknown bundle kind '${kind}'`, { hint: `${didYouMean(kind, bundles)}--as ${bundles.join(" | ")}` });
  if (!dir) fail("usage", `--as ${kind} needs a directory`, { hint: `hcpx generate --as ${kind} ./hcp-packs` });
  const project = loadProject({ config: opts.config, cwd: opts.cwd, user: "fallback" });
  const packs = loadPacks(project);
  const b = await renderBundle(kind, dir, project, packs);
  const plan = planBundle(kind, b.dir, b.files);
  const report: BundleReport = {
    kind,
    dir: b.dir,
    project,
    files: b.files.map((f) => f.path),
    plan,
    drift: driftOf(plan),
  };
  if (!opts.check) report.applied = applyPlan(plan);
  return report;
}

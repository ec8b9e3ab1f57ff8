// The adopt planner: from host descriptors and a projection to a plan of file
// changes, computed entirely in memory (nothing is written here). It knows
// neither hosts nor formats: everything host-specific is in hosts/*.json5 and
// templates/, every format's reading and editing in src/host/formats/ (one
// handler per format, looked up by the target's `format`). src/plan/apply.ts
// writes a plan; src/plan/diff.ts shows it; src/plan/drift.ts checks it.
//
// Its modules, by concern: adopt-types.ts (options, plan, the run's view),
// ledger-state.ts (the ledger and journal as read), adopt-run.ts (the run: one
// host at a time), adopt-remote.ts (a team server's entry), block-route.ts (the
// prompt block and the shell route), target-context.ts (what a format handler
// gets), entry-value.ts (the MCP entry's fields), pack-text.ts (pack text
// refused), finish-plan.ts (the FilePlan and its ledger record).
import type { Project } from "../pack/model";
import { canonicalHost } from "./descriptor";
import { gitignoreChange } from "./gitignore";
import { AdoptRun } from "./adopt-run";
import type { AdoptOptions, AdoptPlan, ProjectionFor } from "./adopt-types";
import type { ProjectionCache } from "./projection-cache";

export type { AdoptOptions, AdoptPlan, FileChange, ProjectionFor, Scope } from "./adopt-types";
export { journalPath, ledgerInside, ledgerPath } from "./ledger-state";
export { emptyLedger } from "./ledger";

/**
 * Plan adopting (or, with `remove`, removing) `hosts`. `projection`: the
 * projection each host renders, as the use case's ProjectionCache (its project
 * and packs, built once when first needed), or a function of the host's Skill
 * path (previews, bundles, tests).
 */
export async function planAdopt(
  project: Project,
  hosts: string[],
  projection: ProjectionFor | ProjectionCache,
  opts: AdoptOptions,
): Promise<AdoptPlan> {
  // a host's old id (descriptor `aliases`: windsurf → devin) is the host itself
  const run = new AdoptRun(project, [...new Set(hosts.map(canonicalHost))], opts);
  for (const desc of run.descriptors) {
    if (opts.remove) run.removeHost(desc);
    else await run.adoptHost(desc, projection);
  }
  const plan = run.plan();
  // the .gitignore block (--gitignore, or kept up to date once it is there): one more file of the plan
  const gi = opts.gitignore === undefined || opts.preview ? undefined : gitignoreChange(plan, opts.gitignore, opts.fs);
  if (gi) {
    plan.changes.push(gi);
    plan.changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  return plan;
}

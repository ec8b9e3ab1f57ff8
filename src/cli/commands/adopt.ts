// `hcpx adopt <host…|all> [--write | --check | --remove] [--scope project|user]
// [--command "<cmd> <args…>"] [--force] [--json]`: places the projections where
// each host reads them. Default: print the plan as a unified diff, write nothing.
import { loadPacks, loadProject } from "../../pack/load";
import { buildProjection, withSkillsPath } from "../../projection/build";
import type { Projection } from "../../projection/types";
import { fail } from "../../util/errors";
import { listHosts } from "../../host/descriptor";
import { didYouMean } from "../../util/suggest";
import { ledgerPath, planAdopt, type Scope } from "../../host/engine";
import { applyPlan, lockAdopt, type AdoptLock } from "../../plan/apply";
import { driftOf } from "../../plan/drift";
import { home } from "../../util/paths";
import { c, done, finish, makeOut, printWarnings, useColor, type Out } from "../output";
import type { Pack, Project } from "../../pack/model";

export interface AdoptCliOptions {
  write?: boolean;
  check?: boolean;
  remove?: boolean;
  force?: boolean;
  scope?: string;
  command?: string;
  useRecordedCommand?: boolean;
  json?: boolean;
}

export async function run(hostArgs: string[], opts: AdoptCliOptions, globals: { config?: string }): Promise<number> {
  const out = makeOut(opts);
  const scope = (opts.scope ?? "project") as Scope;
  if (scope !== "project" && scope !== "user") fail("bad_args", `--scope must be project or user, not '${opts.scope}'`, { hint: `${didYouMean(String(opts.scope), ["project", "user"])}--scope project (the default) or --scope user`, exit: 64 });
  if (opts.check && opts.write) fail("bad_args", "--check and --write exclude each other", { hint: "--check only compares; --write applies", exit: 64 });
  if (opts.command !== undefined && opts.useRecordedCommand) fail("bad_args", "--command and --use-recorded-command exclude each other", { hint: "--command gives the MCP command line; --use-recorded-command keeps the one the ledger records", exit: 64 });
  if (hostArgs.length === 0) fail("bad_args", "name at least one host", { hint: `hosts: ${listHosts().join(", ")}, or all`, exit: 64 });
  const known = listHosts();
  const hosts = [...new Set(hostArgs.flatMap((h) => h.split(",")).map((h) => h.trim()).filter(Boolean).flatMap((h) => (h === "all" ? known : [h])))];
  for (const h of hosts) {
    if (!known.includes(h) && listHosts("bundle").includes(h)) fail("bad_args", `'${h}' is a bundle, not a host to adopt`, { hint: `use \`hcpx generate --as ${h} DIR\``, exit: 64 });
    if (!known.includes(h)) fail("unknown_host", `unknown host '${h}'`, { hint: `${didYouMean(h, [...known, "all"])}known hosts: ${known.join(", ")} (or \`all\`)`, exit: 64 });
  }
  const project = loadProject({ config: globals.config, optional: scope === "user" || opts.remove === true });
  const packs = opts.remove ? [] : loadPacks(project);
  printWarnings(project.warnings, out);
  // --write: lock first, then plan (a plan made before another writer finished would lose its entries)
  const lock = opts.write ? lockAdopt(ledgerPath(scope, project), scope === "project" ? project.root : home(), scope) : undefined;
  try {
    return await adopt(project, packs, hosts, hostArgs, scope, opts, out, lock);
  } finally {
    lock?.release();
  }
}

async function adopt(project: Project, packs: Pack[], hosts: string[], hostArgs: string[], scope: Scope, opts: AdoptCliOptions, out: Out, lock: AdoptLock | undefined): Promise<number> {
  // built once, when the plan first needs it; each host then only re-renders the prompt block
  let projection: Projection | undefined;
  const plan = await planAdopt(project, hosts, (skillsPath, o) => withSkillsPath((projection ??= buildProjection(project, packs)), skillsPath, o), {
    scope,
    command: opts.command,
    useRecordedCommand: opts.useRecordedCommand,
    remove: opts.remove,
    force: opts.force,
  });
  // the diff package only when a diff is shown
  const planDiff = opts.write ? () => "" : (await import("../../plan/diff")).planDiff;
  // what the plan ignored in the ledger or journal, or a recorded command it did not use, is drift too
  const drifts = driftOf(plan);
  const drift = drifts.length > 0;
  printWarnings(plan.warnings, out);
  if (plan.record.journalPending) plan.notes.push("an earlier `adopt --write` was interrupted; --write finishes it (its ledger is rebuilt from the files on disk)");
  const summary = plan.changes.map((ch) => ({ path: ch.path, kind: ch.kind, parts: ch.parts, hosts: ch.hosts, notes: ch.notes }));
  if (opts.check) {
    if (out.json) {
      return finish(out, drift ? 1 : 0, { inSync: !drift, scope, hosts, drift: drifts, changes: summary, conflicts: plan.conflicts, warnings: plan.warnings, notes: plan.notes }, { code: "drift", message: `adopt ${hosts.join(" ")} (${scope}): ${plan.changes.length} file(s) out of date${plan.conflicts.length ? `, ${plan.conflicts.length} changed by hand` : ""}${plan.warnings.length ? `, ${plan.warnings.length} warning(s)` : ""}`, hint: `run \`hcpx adopt ${hostArgs.join(" ")}${scope === "user" ? " --scope user" : ""} --write\`` });
    } else {
      const color = useColor();
      let s = planDiff(plan, color);
      for (const p of plan.conflicts) s += c.yellow(color, `drift: ${p.file}: ${p.message}`) + "\n";
      s += drift ? c.red(color, `adopt ${hosts.join(" ")} (${scope}): ${plan.changes.length} file(s) out of date${plan.conflicts.length ? `, ${plan.conflicts.length} changed by hand` : ""}${plan.warnings.length ? `, ${plan.warnings.length} warning(s) (above)` : ""}; run \`hcpx adopt ${hostArgs.join(" ")}${scope === "user" ? " --scope user" : ""} --write\`\n`) : `adopt ${hosts.join(" ")} (${scope}): in sync\n`;
      process.stdout.write(s);
    }
    return drift ? 1 : 0;
  }
  if (!opts.write) {
    const color = useColor();
    if (out.json) done(out, { wrote: false, scope, hosts, changes: summary, conflicts: plan.conflicts, warnings: plan.warnings, notes: plan.notes, diff: planDiff(plan, false) });
    else {
      let s = planDiff(plan, color);
      for (const n of plan.notes) s += c.yellow(color, `note: ${n}`) + "\n";
      for (const p of plan.conflicts) s += c.yellow(color, `warning: ${p.file}: ${p.message} (${p.hint})`) + "\n";
      s += plan.changes.length ? `${plan.changes.length} file(s) would change; nothing written. Apply with --write.\n` : "Nothing to change.\n";
      process.stdout.write(s);
    }
    return 0;
  }
  const res = applyPlan(plan, lock!);
  if (out.json) done(out, { wrote: true, scope, hosts, written: res.written, deleted: res.deleted, conflicts: plan.conflicts, warnings: plan.warnings, notes: plan.notes });
  else {
    const color = useColor();
    let s = "";
    for (const ch of plan.changes) s += `${ch.kind === "create" ? c.green(color, "created") : ch.kind === "delete" ? c.red(color, "deleted") : c.cyan(color, "updated")} ${ch.path}${ch.notes.length ? c.dim(color, `  (${ch.notes.join("; ")})`) : ""}\n`;
    if (plan.changes.length) for (const n of plan.notes) s += c.yellow(color, `note: ${n}`) + "\n";
    for (const p of plan.conflicts) s += c.yellow(color, `warning: ${p.file}: ${p.message} (${p.hint})`) + "\n";
    s += plan.changes.length ? `${opts.remove ? "removed" : "adopted"}: ${hosts.join(", ")} (${scope}), ${res.written.length} written, ${res.deleted.length} deleted\n` : `${hosts.join(", ")} (${scope}): up to date, nothing written\n`;
    process.stdout.write(s);
  }
  return 0;
}

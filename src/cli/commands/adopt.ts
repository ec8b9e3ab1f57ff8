// `hcpx adopt <host…|all> [--write | --check | --remove] [--scope project|user]
// [--command "<cmd> <args…>"] [--force] [--json]`: places the projections where
// each host reads them. Default: print the plan as a unified diff, write nothing.
import { prepareAdopt, runAdopt, type AdoptOptions, type AdoptReport } from "../../app/adopt";
import { describeDetected } from "../../host/detect";
import { gitClasses } from "../../host/gitignore";
import { c, done, finish, makeOut, printWarnings, sayRaw, useColor, type Out } from "../output";
import type { Problem } from "../../util/errors";
import { probeSummary } from "../../host/remote";
import { neutralLine } from "../../util/neutral";
import { useValidationCache } from "../../pack/validcache";

export { useFdOut } from "../output";

export interface AdoptCliOptions extends Omit<AdoptOptions, "hosts" | "config" | "cwd" | "fs"> {
  json?: boolean;
}

export async function run(hostArgs: string[], opts: AdoptCliOptions, globals: { config?: string }): Promise<number> {
  const out = makeOut(opts);
  // what exec, mcp and the library remembered of the project's files (read only: adopt writes nothing in $HOME it did not plan)
  useValidationCache({ readOnly: true });
  const setup = prepareAdopt({ ...opts, hosts: hostArgs, config: globals.config });
  const { scope, hosts, detected } = setup;
  printWarnings(setup.project.warnings, out);
  if (detected && !out.json) {
    const lines = describeDetected(detected);
    sayRaw(
      lines.length
        ? `in use (${scope}):\n${lines.map((l) => `  ${l}`).join("\n")}\n`
        : `no host adopted or in use at ${scope} scope\n`,
    );
  }
  if (hosts.length === 0) {
    // `all --check` with nothing adopted or in use: nothing can be out of date
    if (out.json)
      done(out, {
        inSync: true,
        scope,
        hosts,
        detected: detected ?? [],
        changes: [],
        conflicts: [],
        warnings: [],
        notes: [],
        health: [],
      });
    else sayRaw(`adopt (${scope}): nothing adopted or in use; in sync\n`);
    return 0;
  }
  return render(await runAdopt(setup), opts, out);
}

type PlanDiff = (plan: AdoptReport["plan"], color: boolean) => string;

async function render(report: AdoptReport, opts: AdoptCliOptions, out: Out): Promise<number> {
  // the diff package only when a diff is shown
  const planDiff: PlanDiff = opts.write ? () => "" : (await import("../../plan/diff")).planDiff;
  printWarnings(report.plan.warnings, out);
  if (opts.check) return renderCheck(report, out, planDiff);
  if (!opts.write) return renderPlan(report, out, planDiff);
  return renderWritten(report, opts, out);
}

/** The reasons a host will not use the server, one red line and hint each. */
function healthLines(health: AdoptReport["health"], color: boolean): string {
  return health
    .map(
      (p) =>
        c.red(color, `not used: ${p.file ? `${p.file}: ` : ""}${p.message}`) + `\n    ${c.dim(color, `→ ${p.hint}`)}\n`,
    )
    .join("");
}

/** The changes as the --json envelope lists them. */
function changeSummary(plan: AdoptReport["plan"]) {
  return plan.changes.map((ch) => ({
    path: ch.path,
    kind: ch.kind,
    parts: ch.parts,
    hosts: ch.hosts,
    notes: ch.notes,
  }));
}

/** `--check`: exit 1 on drift or on a reason a host will not use the server. */
function renderCheck(report: AdoptReport, out: Out, planDiff: PlanDiff): number {
  const { plan, health, scope, hosts, detected } = report;
  const drift = !report.inSync;
  // the hint names exactly the hosts this run checked (never `all`, which --write reads as every host)
  const again = `hcpx adopt ${hosts.join(" ")}${scope === "user" ? " --scope user" : ""} --write`;
  // what --write does: bring the files out of date; what was changed by hand stays, and its own hint says what does
  const byHand = plan.conflicts[0]?.hint;
  const keeps = byHand ? `\`${again}\` keeps what was changed by hand: ${byHand}` : "";
  const step = plan.changes.length ? `run \`${again}\`${keeps ? `; ${keeps}` : ""}` : keeps || `run \`${again}\``;
  const problemsText = [
    plan.changes.length || !health.length ? `${plan.changes.length} file(s) out of date` : "",
    plan.conflicts.length ? `${plan.conflicts.length} changed by hand` : "",
    plan.warnings.length ? `${plan.warnings.length} warning(s)` : "",
    health.length ? `${health.length} reason(s) a host will not use the server or the rules adopt wrote (above)` : "",
  ]
    .filter(Boolean)
    .join(", ");
  if (out.json) {
    return finish(
      out,
      drift ? 1 : 0,
      {
        inSync: !drift,
        scope,
        hosts,
        ...(detected ? { detected } : {}),
        ...(report.remote ? { remote: report.remote } : {}),
        drift: report.drift,
        changes: changeSummary(plan),
        conflicts: plan.conflicts,
        warnings: plan.warnings,
        notes: plan.notes,
        health,
      },
      {
        code: "drift",
        message: `adopt ${hosts.join(" ")} (${scope}): ${problemsText}`,
        hint:
          health.length && !plan.changes.length ? health[0]!.hint : widenedOnly(plan) ? plan.warnings[0]!.hint : step,
      },
    );
  }
  const color = useColor();
  let s = planDiff(plan, color);
  for (const p of plan.conflicts) s += c.yellow(color, `drift: ${p.file}: ${p.message}`) + "\n";
  s += healthLines(health, color);
  if (report.remote) s += `remote: ${neutralLine(probeSummary(report.remote))}\n`;
  s += drift
    ? c.red(
        color,
        `adopt ${hosts.join(" ")} (${scope}): ${problemsText}${plan.changes.length || plan.conflicts.length || plan.warnings.length ? `; ${step}` : ""}\n`,
      )
    : `adopt ${hosts.join(" ")} (${scope}): in sync, and each host will use the server\n`;
  sayRaw(s);
  return drift ? 1 : 0;
}

/** Default: show the plan as a diff, write nothing. */
function renderPlan(report: AdoptReport, out: Out, planDiff: PlanDiff): number {
  const { plan, health, scope, hosts, detected } = report;
  const color = useColor();
  if (out.json)
    done(out, {
      wrote: false,
      scope,
      hosts,
      ...(detected ? { detected } : {}),
      changes: changeSummary(plan),
      conflicts: plan.conflicts,
      warnings: plan.warnings,
      notes: plan.notes,
      health,
      git: gitClasses(plan),
      diff: planDiff(plan, false),
    });
  else {
    let s = planDiff(plan, color);
    for (const n of plan.notes) s += c.yellow(color, `note: ${n}`) + "\n";
    for (const p of plan.conflicts) s += c.yellow(color, `warning: ${p.file}: ${p.message} (${p.hint})`) + "\n";
    s += healthLines(health, color);
    s += plan.changes.length
      ? `${plan.changes.length} file(s) would change; nothing written. Apply with --write.\n`
      : "Nothing to change.\n";
    sayRaw(s);
  }
  return 0;
}

/** --write (or --remove): what was written and deleted, and which files go in git. */
function renderWritten(report: AdoptReport, opts: AdoptCliOptions, out: Out): number {
  const { plan, health, scope, hosts, detected } = report;
  const res = report.applied!;
  const git = gitClasses(plan);
  if (out.json)
    done(out, {
      wrote: res.wrote,
      scope,
      hosts,
      ...(detected ? { detected } : {}),
      written: res.written,
      deleted: res.deleted,
      conflicts: plan.conflicts,
      warnings: plan.warnings,
      notes: plan.notes,
      health,
      git,
    });
  else {
    const color = useColor();
    let s = "";
    for (const ch of plan.changes)
      s += `${ch.kind === "create" ? c.green(color, "created") : ch.kind === "delete" ? c.red(color, "deleted") : c.cyan(color, "updated")} ${ch.path}${ch.notes.length ? c.dim(color, `  (${ch.notes.join("; ")})`) : ""}\n`;
    if (plan.changes.length) for (const n of plan.notes) s += c.yellow(color, `note: ${n}`) + "\n";
    for (const p of plan.conflicts) s += c.yellow(color, `warning: ${p.file}: ${p.message} (${p.hint})`) + "\n";
    s += healthLines(health, color);
    s += gitSummary(
      git,
      plan.notes.some((n) => n.includes("machine-specific")),
    );
    s += plan.changes.length
      ? `${opts.remove ? "removed" : "adopted"}: ${hosts.join(", ")} (${scope}), ${res.written.length} written, ${res.deleted.length} deleted\n`
      : `${hosts.join(", ")} (${scope}): up to date, nothing written\n`;
    sayRaw(s);
  }
  return 0;
}

/** After --write: which files go in git and which do not (hosts/<host>.json5 `git`), one line each. */
function gitSummary(git: { path: string; git: "commit" | "ignore" }[], machineSpecific: boolean): string {
  if (!git.length) return "";
  const commit = git.filter((g) => g.git === "commit").map((g) => g.path);
  const ignore = git.filter((g) => g.git === "ignore").map((g) => g.path);
  let s = "";
  if (commit.length)
    s += `git: commit ${commit.join(", ")}${machineSpecific ? " (the MCP entries name this machine's paths: put hcpx on PATH and re-adopt before you commit them)" : ""}\n`;
  if (ignore.length)
    s += `git: keep out of git (one person's files) ${ignore.join(", ")}; \`hcpx adopt … --gitignore\` lists them in .gitignore\n`;
  return s;
}

/** Every finding is a rule of the person's that widens the Policy: a --write would not change it, so its own hint is the one. */
function widenedOnly(plan: { changes: unknown[]; conflicts: unknown[]; warnings: Problem[] }): boolean {
  return (
    plan.changes.length === 0 &&
    plan.conflicts.length === 0 &&
    plan.warnings.length > 0 &&
    plan.warnings.every((w) => w.code === "policy_widened")
  );
}

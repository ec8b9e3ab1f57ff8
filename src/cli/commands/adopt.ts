// `hcpx adopt <host…|all> [--write | --check | --remove] [--scope project|user]
// [--command "<cmd> <args…>"] [--force] [--json]`: places the projections where
// each host reads them. Default: print the plan as a unified diff, write nothing.
import { loadPacks, loadProject } from "../../pack/load";
import { buildProjection, withSkillsPath } from "../../projection/build";
import type { Projection } from "../../projection/types";
import { HcpxError, fail } from "../../util/errors";
import { canonicalHost, listHosts, loadDescriptor } from "../../host/descriptor";
import { didYouMean } from "../../util/suggest";
import { ledgerPath, planAdopt, type Scope } from "../../host/engine";
import { applyPlan, lockAdopt, type AdoptLock } from "../../host/apply";
import { driftOf } from "../../plan/drift";
import { home } from "../../util/paths";
import { c, done, finish, makeOut, printWarnings, sayRaw, useColor, type Out } from "../output";
import type { Pack, Project } from "../../pack/model";
import { detectHosts, describeDetected, detectSummary, type Detected } from "../../host/detect";
import { gitClasses, gitignoreChange } from "../../host/gitignore";
import { checkHealth } from "../../host/health";
import { loadUserScope } from "../../host/userscope";
import type { Problem } from "../../util/errors";
import { checkRemoteOptions, remoteHealth, requireRemote, type RemoteOptions } from "../../host/remote";

export interface AdoptCliOptions {
  write?: boolean;
  check?: boolean;
  remove?: boolean;
  force?: boolean;
  scope?: string;
  command?: string;
  useRecordedCommand?: boolean;
  detected?: boolean;
  gitignore?: boolean;
  /** a team server's URL: each host's remote entry (src/host/remote.ts) */
  url?: string;
  tokenEnv?: string;
  approve?: boolean;
  json?: boolean;
}

export async function run(hostArgs: string[], opts: AdoptCliOptions, globals: { config?: string }): Promise<number> {
  const out = makeOut(opts);
  const scope = (opts.scope ?? "project") as Scope;
  if (scope !== "project" && scope !== "user") throw new HcpxError({ code: "bad_args", message: `--scope must be project or user, not '${opts.scope}'`, hint: `${didYouMean(String(opts.scope), ["project", "user"])}--scope project (the default) or --scope user` }, 64);
  if (opts.check && opts.write) throw new HcpxError({ code: "bad_args", message: "--check and --write exclude each other", hint: "--check only compares; --write applies" }, 64);
  if (opts.command !== undefined && opts.useRecordedCommand) throw new HcpxError({ code: "bad_args", message: "--command and --use-recorded-command exclude each other", hint: "--command gives the MCP command line; --use-recorded-command keeps the one the ledger records" }, 64);
  if (opts.detected && hostArgs.length) throw new HcpxError({ code: "bad_args", message: "--detected chooses the hosts itself: name no host with it", hint: "`hcpx adopt --detected` (the hosts in use), or `hcpx adopt <host…>`" }, 64);
  if (hostArgs.length === 0 && !opts.detected) throw new HcpxError({ code: "bad_args", message: "name at least one host, or --detected", hint: `hosts: ${listHosts().join(", ")}, or all; --detected adopts the hosts this ${scope === "user" ? "user" : "project"} uses` }, 64);
  if (opts.approve && opts.remove) throw new HcpxError({ code: "bad_args", message: "--approve writes your approval of the server; --remove takes hcpx's files out (the approval hcpx wrote with them)", hint: "leave out --approve when removing" }, 64);
  if (opts.gitignore && scope === "user") throw new HcpxError({ code: "bad_args", message: "--gitignore keeps a block in the project's .gitignore: it goes with --scope project", hint: "leave out --gitignore at user scope (files under $HOME are not in a repository)" }, 64);
  if (opts.tokenEnv !== undefined && opts.url === undefined) throw new HcpxError({ code: "bad_args", message: "--token-env goes with --url", hint: "--url <url> --token-env NAME" }, 64);
  if (opts.url !== undefined && opts.command !== undefined) throw new HcpxError({ code: "bad_args", message: "--url and --command exclude each other", hint: "--url writes a remote entry; --command a local one" }, 64);
  const remote = opts.url !== undefined ? checkRemoteOptions(opts.url, opts.tokenEnv) : undefined;
  const known = listHosts();
  const named = hostArgs.flatMap((h) => h.split(",")).map((h) => h.trim()).filter(Boolean);
  // `all --check` and `--detected` take the hosts in use: adopted (the ledger) or with traces (hosts/<host>.json5 `detect`)
  const byUse = opts.detected === true || (opts.check === true && named.includes("all"));
  // a host's old id is the host (descriptor `aliases`: `adopt windsurf` adopts devin)
  // `all`: every host with this scope (Claude Desktop has only a user scope)
  const withScope = () => known.filter((h) => loadDescriptor(h).scopes[scope] !== undefined);
  const hosts = [...new Set(named.flatMap((h) => (h === "all" ? (byUse ? [] : withScope()) : [known.includes(h) ? h : canonicalHost(h)])))];
  for (const h of hosts) {
    if (!known.includes(h) && listHosts("bundle").includes(h)) fail("bad_args", `'${h}' is a bundle, not a host to adopt`, { hint: `use \`hcpx generate --as ${h} DIR\``, exit: 64 });
    if (!known.includes(h)) fail("unknown_host", `unknown host '${h}'`, { hint: `${didYouMean(h, [...known, "all"])}known hosts: ${known.join(", ")} (or \`all\`)`, exit: 64 });
  }
  if (remote && !opts.remove) requireRemote(hosts, scope);
  // user scope serves the user's own config (never this project's packs): README "User scope"
  const user = scope === "user" ? loadUserScope({ config: globals.config, remove: opts.remove === true }) : undefined;
  // project scope: the project's packs alone (the user's own are the user-scope entry's), in files the project commits
  const project = user?.project ?? loadProject({ config: globals.config, optional: opts.remove === true, user: "fallback" });
  let detected: Detected[] | undefined;
  if (byUse) {
    detected = detectHosts({ scope, root: project.root, home: home(), ledgerFile: ledgerPath(scope, project) });
    for (const d of detected) if (!hosts.includes(d.host)) hosts.push(d.host);
    if (hosts.length === 0 && !opts.check) {
      throw new HcpxError({ code: "no_hosts_detected", message: `no host in use found at ${scope} scope`, hint: `name the hosts (\`hcpx adopt claude --write\`); --detected looks for: ${detectSummary(scope)}` });
    }
  }
  // `all` without --check is every host hcpx knows at this scope; where some hosts are adopted already that would
  // surprise (`all --check` checked only those): refused, naming the hosts in use and what would be added
  if (named.includes("all") && !byUse && !opts.remove) {
    const adopted = detectHosts({ scope, root: project.root, home: home(), ledgerFile: ledgerPath(scope, project) }).filter((d) => d.adopted).map((d) => d.host);
    const every = withScope();
    const added = every.filter((h) => !adopted.includes(h));
    if (adopted.length && added.length) {
      fail("all_adds_hosts", `\`all\` would adopt every host hcpx knows at ${scope} scope (${every.length}), ${added.length} of them not adopted here yet; adopted at ${scope} scope: ${adopted.join(", ")}`, { hint: `to update the adopted hosts: hcpx adopt ${adopted.join(" ")}${scope === "user" ? " --scope user" : ""} --write (what \`all --check\` checks); to add hosts, name them`, exit: 64 });
    }
  }
  const packs = opts.remove ? [] : loadPacks(project);
  printWarnings(project.warnings, out);
  if (detected && !out.json) {
    const lines = describeDetected(detected);
    sayRaw(lines.length ? `in use (${scope}):\n${lines.map((l) => `  ${l}`).join("\n")}\n` : `no host adopted or in use at ${scope} scope\n`);
  }
  if (hosts.length === 0) {
    // `all --check` with nothing adopted or in use: nothing can be out of date
    if (out.json) done(out, { inSync: true, scope, hosts, detected: detected ?? [], changes: [], conflicts: [], warnings: [], notes: [], health: [] });
    else sayRaw(`adopt (${scope}): nothing adopted or in use; in sync\n`);
    return 0;
  }
  // --write: lock first, then plan (a plan made before another writer finished would lose its entries)
  const lock = opts.write ? lockAdopt(ledgerPath(scope, project), scope === "project" ? project.root : home(), scope) : undefined;
  try {
    return await adopt(project, packs, hosts, opts.detected ? ["--detected"] : hostArgs, scope, opts, out, lock, { detected, userConfig: user?.configFile, userNotes: user?.notes ?? [], remote });
  } finally {
    lock?.release();
  }
}

interface Extra {
  detected?: Detected[];
  userConfig?: string;
  userNotes: string[];
  remote?: RemoteOptions;
}

async function adopt(project: Project, packs: Pack[], hosts: string[], hostArgs: string[], scope: Scope, opts: AdoptCliOptions, out: Out, lock: AdoptLock | undefined, extra: Extra): Promise<number> {
  // built once, when the plan first needs it; each host then only re-renders the prompt block
  let projection: Projection | undefined;
  const plan = await planAdopt(project, hosts, (skillsPath, o) => withSkillsPath((projection ??= buildProjection(project, packs)), skillsPath, o), {
    scope,
    command: opts.command,
    useRecordedCommand: opts.useRecordedCommand,
    remove: opts.remove,
    force: opts.force,
    approve: opts.approve,
    userConfig: extra.userConfig,
    ...(extra.remote && !opts.remove ? { remote: extra.remote } : {}),
  });
  // the .gitignore block (--gitignore, or kept up to date once it is there): one more file of the plan
  const gi = gitignoreChange(plan, opts.gitignore === true);
  if (gi) {
    plan.changes.push(gi);
    plan.changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  plan.notes.unshift(...extra.userNotes);
  // will each host use the server? (the command as the host starts it, trust, allow-lists)
  const health: Problem[] = opts.remove ? [] : await checkHealth(plan.hosts, { scope, root: project.root, home: home(), commands: plan.commands, config: scope === "project" ? project.configFile : extra.userConfig });
  // --url --check: what the host will see at the URL (reachable, authenticated, tools listed)
  if (extra.remote && opts.check && !opts.remove) health.push(...(await remoteHealth(plan.hosts, extra.remote)));
  const detected = extra.detected;
  // the diff package only when a diff is shown
  const planDiff = opts.write ? () => "" : (await import("../../plan/diff")).planDiff;
  // what the plan ignored in the ledger or journal, or a recorded command it did not use, is drift too
  const drifts = driftOf(plan);
  const drift = drifts.length > 0 || health.length > 0;
  printWarnings(plan.warnings, out);
  const healthLines = (color: boolean) => health.map((p) => c.red(color, `not used: ${p.file ? `${p.file}: ` : ""}${p.message}`) + `\n    ${c.dim(color, `→ ${p.hint}`)}\n`).join("");
  // the hint names exactly the hosts this run checked (never `all`, which --write reads as every host)
  const again = `hcpx adopt ${hosts.join(" ")}${scope === "user" ? " --scope user" : ""} --write`;
  const problemsText = [plan.changes.length || !health.length ? `${plan.changes.length} file(s) out of date` : "", plan.conflicts.length ? `${plan.conflicts.length} changed by hand` : "", plan.warnings.length ? `${plan.warnings.length} warning(s)` : "", health.length ? `${health.length} reason(s) a host will not use the server (above)` : ""].filter(Boolean).join(", ");
  if (plan.record.journalPending) plan.notes.push("an earlier `adopt --write` was interrupted; --write finishes it (its ledger is rebuilt from the files on disk)");
  const summary = plan.changes.map((ch) => ({ path: ch.path, kind: ch.kind, parts: ch.parts, hosts: ch.hosts, notes: ch.notes }));
  if (opts.check) {
    if (out.json) {
      return finish(out, drift ? 1 : 0, { inSync: !drift, scope, hosts, ...(detected ? { detected } : {}), drift: drifts, changes: summary, conflicts: plan.conflicts, warnings: plan.warnings, notes: plan.notes, health }, { code: "drift", message: `adopt ${hosts.join(" ")} (${scope}): ${problemsText}`, hint: health.length && !plan.changes.length ? health[0]!.hint : widenedOnly(plan) ? plan.warnings[0]!.hint : `run \`${again}\`` });
    } else {
      const color = useColor();
      let s = planDiff(plan, color);
      for (const p of plan.conflicts) s += c.yellow(color, `drift: ${p.file}: ${p.message}`) + "\n";
      s += healthLines(color);
      s += drift ? c.red(color, `adopt ${hosts.join(" ")} (${scope}): ${problemsText}${plan.changes.length || plan.conflicts.length || plan.warnings.length ? `; run \`${again}\`` : ""}\n`) : `adopt ${hosts.join(" ")} (${scope}): in sync, and each host will use the server\n`;
      sayRaw(s);
    }
    return drift ? 1 : 0;
  }
  if (!opts.write) {
    const color = useColor();
    if (out.json) done(out, { wrote: false, scope, hosts, ...(detected ? { detected } : {}), changes: summary, conflicts: plan.conflicts, warnings: plan.warnings, notes: plan.notes, health, git: gitClasses(plan), diff: planDiff(plan, false) });
    else {
      let s = planDiff(plan, color);
      for (const n of plan.notes) s += c.yellow(color, `note: ${n}`) + "\n";
      for (const p of plan.conflicts) s += c.yellow(color, `warning: ${p.file}: ${p.message} (${p.hint})`) + "\n";
      s += healthLines(color);
      s += plan.changes.length ? `${plan.changes.length} file(s) would change; nothing written. Apply with --write.\n` : "Nothing to change.\n";
      sayRaw(s);
    }
    return 0;
  }
  const res = applyPlan(plan, lock!);
  const git = gitClasses(plan);
  if (out.json) done(out, { wrote: true, scope, hosts, ...(detected ? { detected } : {}), written: res.written, deleted: res.deleted, conflicts: plan.conflicts, warnings: plan.warnings, notes: plan.notes, health, git });
  else {
    const color = useColor();
    let s = "";
    for (const ch of plan.changes) s += `${ch.kind === "create" ? c.green(color, "created") : ch.kind === "delete" ? c.red(color, "deleted") : c.cyan(color, "updated")} ${ch.path}${ch.notes.length ? c.dim(color, `  (${ch.notes.join("; ")})`) : ""}\n`;
    if (plan.changes.length) for (const n of plan.notes) s += c.yellow(color, `note: ${n}`) + "\n";
    for (const p of plan.conflicts) s += c.yellow(color, `warning: ${p.file}: ${p.message} (${p.hint})`) + "\n";
    s += healthLines(color);
    s += gitSummary(git, plan.notes.some((n) => n.includes("machine-specific")));
    s += plan.changes.length ? `${opts.remove ? "removed" : "adopted"}: ${hosts.join(", ")} (${scope}), ${res.written.length} written, ${res.deleted.length} deleted\n` : `${hosts.join(", ")} (${scope}): up to date, nothing written\n`;
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
  if (commit.length) s += `git: commit ${commit.join(", ")}${machineSpecific ? " (the MCP entries name this machine's paths: put hcpx on PATH and re-adopt before you commit them)" : ""}\n`;
  if (ignore.length) s += `git: keep out of git (one person's files) ${ignore.join(", ")}; \`hcpx adopt … --gitignore\` lists them in .gitignore\n`;
  return s;
}

/** Every finding is a rule of the person's that widens the Policy: a --write would not change it, so its own hint is the one. */
function widenedOnly(plan: { changes: unknown[]; conflicts: unknown[]; warnings: Problem[] }): boolean {
  return plan.changes.length === 0 && plan.conflicts.length === 0 && plan.warnings.length > 0 && plan.warnings.every((w) => w.code === "policy_widened");
}

// The adopt use case (`hcpx adopt`, and the library's adopt()): typed options
// in, a plan and a report out. Nothing here prints; the CLI renders the report
// (src/cli/commands/adopt.ts) and the library hands it back.
//
// The steps go down and do not come back: the request is checked and its hosts
// resolved (prepareAdopt), the project and its packs are read, then under the
// adopt lock (--write) the host engine plans (src/host/engine.ts, the
// .gitignore block included), health is checked, and the one applier writes
// the plan (src/plan/apply.ts). Planning reads the disk only through `fs`.
import { loadPacks, loadProject } from "../pack/load";
import type { Pack, Project } from "../pack/model";
import { ProjectionCache } from "../host/projection-cache";
import { canonicalHost, listHosts, loadDescriptor } from "../host/descriptor";
import { detectHosts, detectSummary, type Detected } from "../host/detect";
import { ledgerPath, planAdopt, type AdoptPlan, type Scope } from "../host/engine";
import { applyPlan, type AdoptLock, type ApplyResult } from "../plan/apply";
import { lockAdopt } from "../host/lock";
import { checkHealth, widenedBySettings } from "../host/health";
import {
  checkRemoteOptions,
  probeProblems,
  probeRemote,
  requireRemote,
  type RemoteOptions,
  type RemoteProbe,
} from "../host/remote";
import { loadUserScope } from "../host/userscope";
import { driftOf, type Drift } from "../plan/drift";
import type { ReadFs } from "../plan/fs";
import { fail, usage, type Problem } from "../util/errors";
import { home } from "../util/paths";
import { didYouMean } from "../util/suggest";

export type { Scope };

/** What `hcpx adopt` is asked (the CLI's flags, typed). */
export interface AdoptOptions {
  /** host ids, `all`, or comma lists of them; empty with `detected` */
  hosts: string[];
  scope?: string;
  write?: boolean;
  check?: boolean;
  remove?: boolean;
  force?: boolean;
  command?: string;
  useRecordedCommand?: boolean;
  detected?: boolean;
  gitignore?: boolean;
  /** a team server's URL: each host's remote entry (src/host/remote.ts) */
  url?: string;
  tokenEnv?: string;
  /** also write the person's approval of the server where the host keeps one (descriptor `approval`) */
  approve?: boolean;
  /** `--config <file>` */
  config?: string;
  /** where the project is looked for (default process.cwd()) */
  cwd?: string;
  /** the disk as planning reads it (src/plan/fs.ts); default the real one */
  fs?: ReadFs;
  /** the hcpx bin the entries run without `command` (default: this process's own) */
  selfEntry?: string;
}

/** A checked request: the hosts it names, the project and packs it adopts, what detection found. */
export interface AdoptSetup {
  opts: AdoptOptions;
  scope: Scope;
  hosts: string[];
  project: Project;
  packs: Pack[];
  /** with --detected or `all --check`: the hosts in use, and why */
  detected?: Detected[];
  /** user scope: the user config the entry serves, and what the person should know about it */
  userConfig?: string;
  userNotes: string[];
  /** --url: the remote entry's URL and token variable */
  remote?: RemoteOptions;
  /** what a URL the person gave listed, when the caller reached it already (`doctor --url`): the remote rules are written from it */
  probe?: RemoteProbe;
}

/** What one adopt run planned (and wrote, with --write). */
export interface AdoptReport {
  scope: Scope;
  hosts: string[];
  detected?: Detected[];
  plan: AdoptPlan;
  /** why a host will not use the server (the command as it starts it, trust, allow-lists); [] with --remove */
  health: Problem[];
  /** what --check calls drift: the plan's changes, conflicts and warnings */
  drift: Drift[];
  /** --check: in sync, and each host will use the server */
  inSync: boolean;
  /** --write: what the applier wrote */
  applied?: ApplyResult;
  /** --url: what the host will see at the URL (the tools its approval rules are written from) */
  remote?: RemoteProbe;
}

const SCOPES = ["project", "user"];

/** The flags that exclude each other or need another: a wrong command line (exit 64). */
function checkFlags(opts: AdoptOptions, scope: Scope): void {
  const hostArgs = opts.hosts;
  if (!SCOPES.includes(scope))
    usage(
      `--scope must be project or user, not '${opts.scope}'`,
      `${didYouMean(String(opts.scope), SCOPES)}--scope project (the default) or --scope user`,
    );
  if (opts.check && opts.write)
    usage("--check and --write exclude each other", "--check only compares; --write applies");
  if (opts.command !== undefined && opts.useRecordedCommand) {
    usage(
      "--command and --use-recorded-command exclude each other",
      "--command gives the MCP command line; --use-recorded-command keeps the one the ledger records",
    );
  }
  if (opts.detected && hostArgs.length)
    usage(
      "--detected chooses the hosts itself: name no host with it",
      "`hcpx adopt --detected` (the hosts in use), or `hcpx adopt <host…>`",
    );
  if (hostArgs.length === 0 && !opts.detected) {
    usage(
      "name at least one host, or --detected",
      `hosts: ${listHosts().join(", ")}, or all; --detected adopts the hosts this ${scope === "user" ? "user" : "project"} uses`,
    );
  }
  if (opts.approve && opts.remove)
    usage(
      "--approve writes your approval of the server; --remove takes hcpx's files out (the approval hcpx wrote with them)",
      "leave out --approve when removing",
    );
  if (opts.tokenEnv !== undefined && opts.url === undefined)
    usage("--token-env goes with --url", "--url <url> --token-env NAME");
  if (opts.url !== undefined && opts.command !== undefined)
    usage("--url and --command exclude each other", "--url writes a remote entry; --command a local one");
  if (opts.gitignore && scope === "user") {
    usage(
      "--gitignore keeps a block in the project's .gitignore: it goes with --scope project",
      "leave out --gitignore at user scope (files under $HOME are not in a repository)",
    );
  }
}

/** Check the request, resolve its hosts and read the project (nothing is written). */
export function prepareAdopt(opts: AdoptOptions): AdoptSetup {
  const scope = (opts.scope ?? "project") as Scope;
  checkFlags(opts, scope);
  const remote = opts.url !== undefined ? checkRemoteOptions(opts.url, opts.tokenEnv) : undefined;
  const hostArgs = opts.hosts;
  const known = listHosts();
  const named = hostArgs
    .flatMap((h) => h.split(","))
    .map((h) => h.trim())
    .filter(Boolean);
  // `all --check` and `--detected` take the hosts in use: adopted (the ledger) or with traces (hosts/<host>.json5 `detect`)
  const byUse = opts.detected === true || (opts.check === true && named.includes("all"));
  // a host's old id is the host (descriptor `aliases`: `adopt windsurf` adopts devin)
  // `all`: every host with this scope (Claude Desktop has only a user scope)
  const withScope = () => known.filter((h) => loadDescriptor(h).scopes[scope] !== undefined);
  const hosts = [
    ...new Set(
      named.flatMap((h) => (h === "all" ? (byUse ? [] : withScope()) : [known.includes(h) ? h : canonicalHost(h)])),
    ),
  ];
  for (const h of hosts) {
    if (!known.includes(h) && listHosts("bundle").includes(h))
      usage(`'${h}' is a bundle, not a host to adopt`, `use \`hcpx generate --as ${h} DIR\``);
    if (!known.includes(h))
      fail("unknown_host", `unknown host '${h}'`, {
        hint: `${didYouMean(h, [...known, "all"])}known hosts: ${known.join(", ")} (or \`all\`)`,
        exit: 64,
      });
  }
  if (remote && !opts.remove) requireRemote(hosts, scope);
  // user scope serves the user's own config (never this project's packs): README "User scope"
  const user =
    scope === "user" ? loadUserScope({ config: opts.config, remove: opts.remove === true, cwd: opts.cwd }) : undefined;
  // project scope: the project's packs alone (the user's own are the user-scope entry's), in files the project commits
  const project =
    user?.project ??
    // --url: the server is another machine's hcpx; this one may have no project (the block names the server's tools)
    loadProject({
      config: opts.config,
      cwd: opts.cwd,
      optional: opts.remove === true || remote !== undefined,
      user: "fallback",
    });
  let detected: Detected[] | undefined;
  const detect = () => detectHosts({ scope, root: project.root, home: home(), ledgerFile: ledgerPath(scope, project) });
  if (byUse) {
    detected = detect();
    for (const d of detected) if (!hosts.includes(d.host)) hosts.push(d.host);
    if (hosts.length === 0 && !opts.check) {
      fail("no_hosts_detected", `no host in use found at ${scope} scope`, {
        hint: `name the hosts (\`hcpx adopt claude --write\`); --detected looks for: ${detectSummary(scope)}`,
      });
    }
  }
  // `all` without --check is every host hcpx knows at this scope; where some hosts are adopted already that would
  // surprise (`all --check` checked only those): refused, naming the hosts in use and what would be added
  if (named.includes("all") && !byUse && !opts.remove) refuseAllAdds(scope, detect(), withScope());
  const packs = opts.remove ? [] : loadPacks(project);
  return {
    opts,
    scope,
    hosts,
    project,
    packs,
    detected,
    userConfig: user?.configFile,
    userNotes: user?.notes ?? [],
    ...(remote ? { remote } : {}),
  };
}

function refuseAllAdds(scope: Scope, inUse: Detected[], every: string[]): void {
  const adopted = inUse.filter((d) => d.adopted).map((d) => d.host);
  const added = every.filter((h) => !adopted.includes(h));
  if (!adopted.length || !added.length) return;
  const again = `hcpx adopt ${adopted.join(" ")}${scope === "user" ? " --scope user" : ""} --write`;
  fail(
    "all_adds_hosts",
    `\`all\` would adopt every host hcpx knows at ${scope} scope (${every.length}), ${added.length} of them not adopted here yet; adopted at ${scope} scope: ${adopted.join(", ")}`,
    {
      hint: `to update the adopted hosts: ${again} (what \`all --check\` checks); to add hosts, name them`,
      exit: 64,
    },
  );
}

/**
 * Plan a checked request and, with --write, apply it: the lock is taken before
 * the plan (a plan made before another writer finished would lose its entries)
 * and released after. `setup.hosts` must not be empty.
 */
export async function runAdopt(setup: AdoptSetup): Promise<AdoptReport> {
  const { scope, project, opts } = setup;
  // --url: the URL is reached before the lock is taken (a slow server holds no other adopt up)
  if (setup.remote && !opts.remove && !setup.probe) setup = { ...setup, probe: await probeRemote(setup.remote) };
  const lock = opts.write
    ? lockAdopt(ledgerPath(scope, project), scope === "project" ? project.root : home(), scope)
    : undefined;
  try {
    const report = await planAdoption(setup);
    if (lock) report.applied = applyAdoption(report.plan, lock);
    return report;
  } finally {
    lock?.release();
  }
}

/** The plan, its health and its drift: read-only. */
export async function planAdoption(setup: AdoptSetup): Promise<AdoptReport> {
  const { scope, project, packs, hosts, opts } = setup;
  // built once, when the plan first needs it; each host then only re-renders the prompt block
  const projection = new ProjectionCache(project, packs);
  // --url: what the host will see at the URL (reachable, authenticated, tools listed), and the tools the remote entry's
  // approval rules are written from; a URL the person gave, never one read back from the ledger (src/host/remote.ts)
  const probe = setup.probe ?? (setup.remote && !opts.remove ? await probeRemote(setup.remote) : undefined);
  const plan = await planAdopt(project, hosts, projection, {
    scope,
    command: opts.command,
    useRecordedCommand: opts.useRecordedCommand,
    remove: opts.remove,
    force: opts.force,
    approve: opts.approve,
    userConfig: setup.userConfig,
    ...(setup.remote && !opts.remove ? { remote: setup.remote } : {}),
    ...(probe ? { probe } : {}),
    gitignore: opts.gitignore === true,
    fs: opts.fs,
    selfEntry: opts.selfEntry,
  });
  plan.notes.unshift(...setup.userNotes);
  if (plan.record.journalPending)
    plan.notes.push(
      "an earlier `adopt --write` was interrupted; --write finishes it (its ledger is rebuilt from the files on disk)",
    );
  // will each host use the server? (the command as the host starts it, trust, allow-lists)
  // (and what the plan found the host would not read: a blank file it reads instead of the block's)
  const health: Problem[] = opts.remove
    ? []
    : [
        ...plan.unread,
        ...(await checkHealth(plan.hosts, {
          scope,
          root: project.root,
          home: home(),
          commands: plan.commands,
          config: scope === "project" ? project.configFile : setup.userConfig,
        })),
      ];
  // a setting of the person's that switches a host's own asking off (gate.inForce), where the Policy gates a write with confirm
  const gated = opts.remove
    ? []
    : projection
        .get()
        .packs.flatMap((p) =>
          p.commands.filter((c) => c.command.policy.operation !== "read" && c.command.policy.confirm),
        )
        .map((c) => c.toolName);
  if (!opts.remove && gated.length)
    plan.warnings.push(
      ...(await widenedBySettings(plan.hosts, { scope, root: project.root, home: home(), tools: gated })),
    );
  // --url: a host will not see the server's tools when the URL does not list them
  const remote = setup.remote && !opts.remove ? probe : undefined;
  if (remote) health.push(...plan.hosts.flatMap((h) => probeProblems(loadDescriptor(h), remote)));
  // what the plan ignored in the ledger or journal, or a recorded command it did not use, is drift too
  const drift = driftOf(plan);
  return {
    scope,
    hosts,
    detected: setup.detected,
    plan,
    health,
    drift,
    inSync: drift.length === 0 && health.length === 0,
    ...(remote ? { remote } : {}),
  };
}

/** Write an adopt plan under the lock it was planned under. */
export function applyAdoption(plan: AdoptPlan, lock: AdoptLock): ApplyResult {
  return applyPlan(plan, lock);
}

/** The whole use case for a caller that renders nothing as it goes (the library): prepare, plan, apply. */
export async function adopt(opts: AdoptOptions): Promise<{ setup: AdoptSetup; report?: AdoptReport }> {
  const setup = prepareAdopt(opts);
  if (setup.hosts.length === 0) return { setup };
  return { setup, report: await runAdopt(setup) };
}

// The kernel sandbox (sandbox.enforce "os", docs/sandbox.md): one call to
// confine() at each spawn site (wrap.ts's runWrap, mcp-adapter.ts's runMcp)
// turns the program's command line into bubblewrap's, from the verb's Policy
// row: a read sees the file system read-only, a write may change only
// sandbox.roots, both get a private /tmp, HOME's secrets are hidden, and the
// network is a namespace of its own unless the pack declares it for this kind
// of call (reach.network + reach.network_for), and the fds hcpx inherited
// reach the program as /dev/null (spawn.ts). With enforcement "off" it
// returns the spawn unchanged and touches nothing. Where "os" is asked and
// this machine cannot do it, the call is refused (sandbox_unavailable): never
// run unconfined. No dependency: node builtins only (it is on exec's path).
import { spawnSync } from "node:child_process";
import { existsSync, realpathSync, statSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import type { Pack, Project } from "../../pack/model";
import { isGranted } from "../../pack/grants";
import { display, isInside, userConfigDir } from "../../util/paths";
import { HcpxError } from "../../util/errors";
import { failure, type Envelope, type Failure } from "../envelope";
import { bwrapArgs, ownFolderOf, type BwrapPlan } from "./bwrap";
import { fewerMounts } from "./mounts";
import { gitProtected } from "./gitdirs";
import { sweepPlanted } from "./planted";
import { linksOn, refuseSwappableLinks, type Link } from "./links";
import { configReader, repoGitPointers, type ConfigReader } from "./git-config";
import { filterKnowsThisMachine, SECCOMP_FD, unixSocketFilter } from "./seccomp";
import { bwrapSaid, bwrapStatus, type BwrapStatus } from "./status";
import { denialsIn, type Denial } from "./denials";
export { denialsIn, type Denial } from "./denials";
import { secretMasks } from "./secrets";
import { quietStat } from "../../util/stamp";

import { classOf, type CallClass, type Confined, type ConfineContext, type SpawnLine } from "./line";

export { classOf, type CallClass, type Confined, type ConfineContext, type SpawnLine };
const WIDTH: Record<CallClass, number> = { read: 0, local: 1, remote: 2, external: 3 };
const NETWORK_FOR_DEFAULT: readonly CallClass[] = ["remote", "external"];

/**
 * The mcp adapter's server is one process serving several verbs: it runs with
 * the widest class among the pack's granted verbs (a read-only grant keeps it
 * read-only; one granted remote write gives it what that write gets).
 */
export function widestGranted(pack: Pack, project: Project): CallClass {
  let w: CallClass = "read";
  for (const c of pack.commands) {
    if (!isGranted(project.grants, pack.id, c.verb_key)) continue;
    const k = classOf(c.policy);
    if (WIDTH[k] > WIDTH[w]) w = k;
  }
  return w;
}

/** Whether a call of this class gets the network under "os": only when the pack declares it. */
export function networkFor(pack: Pack, cls: CallClass): boolean {
  const r = pack.surface.reach;
  if (!r?.network?.length) return false;
  return (r.network_for ?? NETWORK_FOR_DEFAULT).includes(cls);
}

const BWRAP_PATHS = ["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"];

/** The bubblewrap program: the user config's sandbox.bins.bwrap when set, else its usual places (never PATH). */
export function findBwrap(project: Pick<Project, "sandbox">): { path?: string; why?: string } {
  const mapped = project.sandbox.bwrap; // the user config's sandbox.bins.bwrap (load.ts: never a project's)
  if (mapped !== undefined)
    return isFile(mapped) ? { path: mapped } : { why: `sandbox.bins.bwrap is ${mapped}, which is not a file` };
  const found = BWRAP_PATHS.find(isFile);
  return found ? { path: found } : { why: `bubblewrap (bwrap) is not installed (looked in ${BWRAP_PATHS.join(", ")})` };
}

function isFile(p: string): boolean {
  return quietStat(p)?.isFile() === true;
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** What to install, per platform, for `doctor` and the refusal's hint. */
export function installHint(): string {
  if (process.platform === "linux")
    return 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap) and allow unprivileged user namespaces (docs/sandbox.md), or set sandbox.enforce to "off"';
  if (process.platform === "darwin")
    return 'macOS has no backend in hcpx yet: docs/sandbox.md has the sandbox-exec profile (untested); set sandbox.enforce to "off" to run unconfined';
  return `there is no OS sandbox backend for ${process.platform}: set sandbox.enforce to "off" to run unconfined`;
}

function unavailable(label: string, project: Project, why: string, hint?: string): Failure {
  const from = project.sandbox.enforcedBy?.length ? ` (asked in ${project.sandbox.enforcedBy.join(", ")})` : "";
  return failure("sandbox_unavailable", `${label} was not run: sandbox.enforce is "os"${from}, but ${why}`, {
    hint: hint ?? `${installHint()}; \`hcpx doctor\` checks it`,
  });
}

/** Why a call that needs the seccomp filter (no reach.unix_sockets) cannot be confined on this machine. */
const NO_FILTER = () =>
  `the filter that keeps unix sockets closed under it (seccomp) knows the system calls of x86_64, i386, aarch64 and arm, not of this machine's ${process.arch}`;
const NO_FILTER_HINT =
  'a pack whose program may reach unix sockets declares reach: { unix_sockets: true } in surface.json and runs confined without the filter; else set sandbox.enforce to "off" to run unconfined (docs/sandbox.md)';

const identity = (e: Envelope) => e;

/**
 * The spawn of `line`, confined per `ctx` when sandbox.enforce is "os"; the
 * same spawn when it is "off"; a sandbox_unavailable failure when "os" is
 * asked and this machine cannot.
 */
export function confine(line: SpawnLine, ctx: ConfineContext): Confined | Failure {
  const { project } = ctx;
  if (project.sandbox.enforce !== "os") return { ...line, explain: identity };
  if (process.platform === "darwin")
    return unavailable(
      ctx.label,
      project,
      "macOS has no sandbox backend in hcpx yet (the sandbox-exec profile in docs/sandbox.md is untested)",
    );
  if (process.platform !== "linux")
    return unavailable(ctx.label, project, `${process.platform} has no OS sandbox backend`);
  const bw = findBwrap(project);
  if (!bw.path) return unavailable(ctx.label, project, bw.why!);
  let plan: BwrapPlan;
  try {
    plan = planFor(line, ctx);
  } catch (e) {
    // what the plan cannot know (a git config it cannot read) stops the call: nothing runs
    if (!(e instanceof HcpxError) || e.code !== "sandbox_unavailable") throw e;
    return unavailable(ctx.label, project, e.problems[0]!.message, e.problems[0]!.hint);
  }
  if (plan.noUnixSockets && !filterKnowsThisMachine())
    return unavailable(ctx.label, project, NO_FILTER(), NO_FILTER_HINT);
  const env: NodeJS.ProcessEnv = { ...line.env, TMPDIR: "/tmp", TMP: "/tmp", TEMP: "/tmp" };
  const fds = plan.noUnixSockets ? [unixSocketFilter()] : [];
  const status = bwrapStatus(); // on the fd after the filter's: whether bubblewrap started the program
  const confined: Confined = {
    command: bw.path,
    argv: bwrapArgs(plan, line.command, line.argv, SECCOMP_FD, 3 + fds.length),
    env,
    cwd: line.cwd,
    ...(fds.length ? { fds } : {}),
    shutInherited: true, // bubblewrap passes on every fd it is given: an open folder of HOME, a socket
    report: status.take,
    refused: status.refused,
    plan: { ...plan, cls: ctx.cls, backend: "bwrap", bwrap: bw.path },
    explain: (e) => explainDenial(sweepPlanted(e, plan.unmade, ctx.label, ctx.remove), plan, ctx, status.refused),
  };
  return confined;
}

/** The homes whose secrets are hidden: the one the program is given, this process's, and the user's own (passwd's, which $HOME may not be). */
function homes(env: NodeJS.ProcessEnv): string[] {
  const out = new Set<string>();
  let own: string | undefined;
  try {
    own = userInfo().homedir;
  } catch {
    // no passwd entry for this uid (a container): $HOME is all there is
  }
  for (const h of [env.HOME, homedir(), own]) if (h && h !== "/" && existsSync(h)) out.add(real(h));
  return [...out];
}

function expand(p: string, home: string): string {
  return p.startsWith("~/") ? join(home, p.slice(2)) : p;
}

function planFor(line: SpawnLine, ctx: ConfineContext): BwrapPlan {
  const { pack, project, cls } = ctx;
  const hs = homes(line.env);
  const roots = project.sandbox.roots.map(real);
  // a write changes the user config's roots and a project config's inside its own folder (load.ts mergeSandbox)
  const writable =
    cls === "read" ? [] : (project.sandbox.writable ?? project.sandbox.roots).map(real).filter((r) => existsSync(r));
  // what must stay visible under the call's own /tmp and /dev/shm (bwrap.ts OWN_FOLDERS): the project,
  // the program, the pack, Node, HOME
  const needed = [
    ...roots,
    real(line.cwd),
    real(dirname(ctx.binPath)),
    real(pack.dir),
    real(dirname(dirname(process.execPath))),
    ...hs,
  ];
  const declared = (pack.surface.reach?.paths ?? [])
    .flatMap((p) => (p.startsWith("~/") ? hs.map((h) => expand(p, h)) : [p]))
    .map(real);
  const rebind = [...needed, ...declared].filter(
    (p) => ownFolderOf(p) !== undefined && existsSync(p) && !writable.some((w) => isInside(p, w)),
  );
  const { masks, unmask } = secretMasks(hs, declared);
  // the host's sockets are no network namespace's: a session bus (systemd-run --user runs anything
  // unconfined), an ssh or gpg agent, a container engine. A read-only mount does not stop connect().
  for (const path of new Set(RUN_SOCKETS.filter((p) => existsSync(p)).map(real))) {
    if (!masks.some((m) => m.path === path)) masks.push({ path, dir: statSync(path).isDirectory() });
  }
  const kept = protectedIn(writable, ctx, hs);
  const protect = fewerMounts(kept.paths, writable);
  refuseSwappableLinks(kept.links, writable, protect); // a link on the way to one cannot be pinned (links.ts)
  const noUnixSockets = pack.surface.reach?.unix_sockets !== true;
  const network = networkFor(pack, cls);
  // the commondir files absent now: looked for after the call (planted.ts)
  return { rebind, writable, protect, masks, unmask, network, cwd: line.cwd, noUnixSockets, unmade: kept.unmade };
}

/** The host's local sockets a call must not reach: the per-user runtime folders, the container engines', the system bus. */
const RUN_SOCKETS = [
  "/run/user",
  "/run/docker.sock",
  "/var/run/docker.sock",
  "/run/podman",
  "/run/containerd",
  "/run/dbus/system_bus_socket",
  "/run/snapd.socket",
];

/**
 * What a write inside the roots must not change, because it decides what runs next, unconfined or under
 * another Policy: the config files (a write that sets enforce "off"), the packs (their policy.json), hcp.lock,
 * git's hooks (run on the person's next commit) and git's config (a core.fsmonitor, core.hooksPath or alias
 * there runs at the person's next git command, a shell prompt's `git status` included), a submodule's and a
 * worktree's kept inside .git too, unless every config that asks "os" lists the pack in
 * sandbox.git_config_writers, what git's configs point at (core.hooksPath's folder, an included file:
 * git-config.ts), and the active packs' programs (what another pack's call runs, under its own
 * Policy). Only what exists and lies in a writable root; `links`: those met on the way to any of them.
 */
function protectedIn(
  writable: string[],
  ctx: ConfineContext,
  hs: readonly string[],
): { paths: string[]; links: Link[]; unmade: string[] } {
  const unmade: string[] = [];
  if (writable.length === 0) return { paths: [], links: [], unmade };
  const { project } = ctx;
  const gitConfig = !project.sandbox.gitConfigWriters?.includes(ctx.pack.id);
  const read = configReader(); // each git config read once for this call, whatever asks
  const candidates = [
    project.configFile,
    join(userConfigDir(), "config.json5"),
    ...(project.sandbox.nestedConfigs ?? []),
    ...project.packDirs,
    ...(ctx.packBins?.() ?? []),
    ...writable.flatMap((r) => [
      join(r, "hcp.config.json5"),
      join(r, "hcp.lock"),
      ...gitDirsOf(join(r, ".git"), gitConfig, hs[0], read, unmade),
      ...repoGitPointers(r, hs, read),
    ]),
  ];
  const out = new Set<string>();
  const links: Link[] = [];
  for (const c of candidates) {
    if (c === undefined || !existsSync(c)) continue;
    const p = real(c);
    if (p !== c) links.push(...linksOn(c)); // reached through a link: where it leads is bound, not the link
    if (writable.some((w) => isInside(p, w))) out.add(p);
  }
  return { paths: [...out], links, unmade };
}

/**
 * A repository's git dir and those it keeps inside (src/runtime/sandbox/gitdirs.ts): each runs its own
 * hooks and reads its own config when git works in a submodule or a worktree (`git status` in the
 * superproject included, which recurses into submodules).
 */
function gitDirsOf(
  git: string,
  config: boolean,
  home: string | undefined,
  read: ConfigReader,
  unmade: string[],
): string[] {
  return existsSync(git) ? gitProtected(git, config, home, read, unmade) : [];
}

/** git's config in a .git: its own, a submodule's (modules/…/config) or a worktree's (worktrees/<name>/config.worktree). */
const GIT_CONFIG = /(^|\/)\.git\/(?:config|modules\/.+\/config|worktrees\/[^/]+\/config\.worktree)$/;

/** How a denial is told in the refusal's message. */
const SAID: Record<Denial["what"], (d: Denial) => string> = {
  write: (d) => `writing ${d.path ?? "a file"}`,
  read: (d) => `reading ${d.path}`,
  tmp: (d) => {
    const root = ownFolderOf(d.path ?? "") ?? "/tmp";
    return `${d.path} (the host's ${root}: the call's ${root} is its own)`;
  },
  network: () => "the network",
  "unix socket": (d) => `connecting to a unix socket${d.path ? ` (${d.path})` : ""}`,
};

const ALLOWED: Record<CallClass, string> = {
  read: "a read: the file system is read-only (a private /tmp aside)",
  local: "a local write: only sandbox.roots (and a private /tmp) are writable",
  remote: "a remote write: only sandbox.roots (and a private /tmp) are writable",
  external: "an external write: only sandbox.roots (and a private /tmp) are writable",
};

/** `refused`: from bubblewrap's report (status.ts); `e`: a wrap call's end, or an mcp server's failed start */
function explainDenial(e: Envelope, plan: BwrapPlan, ctx: ConfineContext, refused: BwrapStatus["refused"]): Envelope {
  if (e.ok || (e.error.code !== "exit_nonzero" && e.error.code !== "spawn_failed")) return e;
  const err = e.error;
  const stderr = typeof err.stderr_tail === "string" ? err.stderr_tail : "";
  // bubblewrap's own refusal (no user namespaces, a mount it cannot make), as it reports it, never as the
  // stderr tells it (the program's too): it ran nothing, and only it wrote to stderr
  if (refused(typeof err.exit_code === "number" ? err.exit_code : undefined))
    return unavailable(ctx.label, ctx.project, `bubblewrap could not set the sandbox up: ${bwrapSaid(stderr)}`);
  if (err.code !== "exit_nonzero") return e; // a server that started and exited before it answered: its own failure
  const text = [
    stderr,
    typeof err.stdout_tail === "string" ? err.stdout_tail : "",
    typeof err.output === "object" && err.output !== null ? JSON.stringify(err.output) : "",
  ].join("\n");
  const denied = denialsIn(text, plan);
  if (!denied.length) return e;
  const what = [...new Set(denied.map((d) => SAID[d.what](d)))].join(", ");
  const net = plan.network ? "the network is shared (declared)" : "no network (none declared for this kind of call)";
  return failure(
    "sandbox_denied",
    `${ctx.label}: the sandbox denied ${what}; this call is ${ALLOWED[ctx.cls]}, ${net}`,
    {
      denied,
      policy: { operation: ctx.cls === "read" ? "read" : "write", ...(ctx.cls === "read" ? {} : { land: ctx.cls }) },
      exit_code: err.exit_code,
      stderr_tail: err.stderr_tail,
      hint: denied.some((d) => d.what === "unix socket")
        ? `no new unix socket under the sandbox (a database's, an agent's, a container engine's); if the program must reach one, declare it in surface.json: reach: { unix_sockets: true } (docs/sandbox.md)`
        : denied.some((d) => d.path !== undefined && GIT_CONFIG.test(d.path))
          ? `.git/config (a submodule's or worktree's too) stays read-only for this pack (a setting there runs at the person's next git command); if it must change git's config (git push -u, git remote add), list "${ctx.pack.id}" in sandbox.git_config_writers of every config that sets enforce "os" (${(ctx.project.sandbox.enforcedBy ?? []).map((f) => display(f)).join(", ")}; docs/sandbox.md)`
          : "nothing outside what the Policy row allows was changed; if the program needs it, fix the pack: its Policy row, or reach.network / reach.paths in surface.json (docs/sandbox.md)",
    },
  );
}

/**
 * Whether this machine can confine a call (for `hcpx doctor`): the backend is
 * there and starts a sandbox as confine() asks for one (namespaces, no
 * capabilities). Runs bubblewrap once; never on exec's path.
 * `some`: not every call is refused, only those `message` names.
 */
export function probeBackend(project: Pick<Project, "sandbox">): {
  ok: boolean;
  message: string;
  hint?: string;
  some?: true;
} {
  if (process.platform !== "linux")
    return {
      ok: false,
      message:
        process.platform === "darwin"
          ? "macOS: no sandbox backend in hcpx yet (docs/sandbox.md has the sandbox-exec profile, untested)"
          : `${process.platform}: no OS sandbox backend`,
      hint: installHint(),
    };
  const bw = findBwrap(project);
  if (!bw.path) return { ok: false, message: bw.why!, hint: installHint() };
  const probe = existsSync("/bin/true") ? ["/bin/true"] : [process.execPath, "-e", "0"];
  // the call's sandbox, the seccomp filter included (fed on the probe's stdin): a kernel without seccomp
  // filters, or a bubblewrap that cannot load one, fails every confined call as it fails this
  const known = filterKnowsThisMachine();
  const plan: BwrapPlan = {
    rebind: [],
    writable: [],
    masks: [],
    unmask: [],
    network: false,
    cwd: "/",
    noUnixSockets: known,
  };
  const r = spawnSync(bw.path, bwrapArgs(plan, probe[0]!, probe.slice(1), 0), {
    encoding: "utf8",
    timeout: 10_000,
    input: known ? unixSocketFilter() : "",
    stdio: ["pipe", "ignore", "pipe"],
  });
  if (r.status === 0 && !known)
    return {
      ok: false,
      some: true,
      message: `a call of a pack that does not declare reach.unix_sockets is refused: bubblewrap ${bw.path} confines a call here, but ${NO_FILTER()}`,
      hint: NO_FILTER_HINT,
    };
  if (r.status === 0)
    return {
      ok: true,
      message: `bubblewrap ${bw.path} confines a call here (mount, pid and network namespaces, no new unix socket)`,
    };
  const why = (r.stderr ?? "").trim().split("\n")[0] || (r.error ? r.error.message : `exit ${r.status ?? r.signal}`);
  return {
    ok: false,
    message: `bubblewrap ${bw.path} cannot set a sandbox up here: ${why}`,
    hint: "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; Ubuntu 24.04+: an AppArmor profile for bwrap, or kernel.apparmor_restrict_unprivileged_userns=0), or run where they are allowed (docs/sandbox.md)",
  };
}

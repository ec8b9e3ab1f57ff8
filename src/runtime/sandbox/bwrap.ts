// The bubblewrap argument builder: a confinement plan (what is writable, what
// is hidden, whether the network is shared) → bwrap's argv. Pure: no file
// system access, so it is tested by itself (test/runtime/sandbox-bwrap.test.ts)
// and by running it (test/runtime/sandbox.test.ts).
//
// The layout, in bwrap's order (later mounts cover earlier ones):
//   /            read-only (the host's own tree)
//   /dev /proc   fresh (no host devices, this pid namespace's processes); the
//                paths the call needs under /dev/shm (a project there) are
//                bound again, read-only, with those under /tmp (OWN_FOLDERS)
//   /tmp         a private, empty, writable tmpfs (the call's temp dir), over
//                which the paths the call needs that live under /tmp are
//                bound again, read-only
//   writable     sandbox.roots for a write, bound read-write; inside them the
//                configs, the packs and git's hooks and config bound back
//                read-only, the folders between them and the root pinned
//   masks        HOME's secrets: a directory becomes an empty one mode 000,
//                a file the null device on a nodev mount (opening it: EACCES);
//                a declared path inside one is bound back
//   namespaces   pid, ipc, uts (and cgroup where it can) always; the network
//                unless the call may use it; all capabilities dropped (root
//                included), a new session (no terminal injection), killed
//                when hcpx dies

import { SECCOMP_FD } from "./seccomp";
import { dirname } from "node:path";
import { isInside } from "../../util/paths";
import { outermost } from "./mounts";

export interface BwrapPlan {
  /** paths under /tmp or /dev/shm the call must still see, read-only (the project, the bin, HOME…) */
  rebind: string[];
  /** paths the call may write (a write's sandbox.roots), bound read-write */
  writable: string[];
  /** inside the writable roots, what decides what runs (the configs, the packs, git's hooks): bound back read-only */
  protect?: string[];
  /** secrets to hide: `dir` for a directory (an empty tmpfs, mode 000), else a file (/dev/null bound nodev: unopenable) */
  masks: { path: string; dir: boolean; traverse?: boolean }[];
  /** declared paths (reach.paths) inside a masked directory: bound back read-only */
  unmask: string[];
  /** share the host's network (else a network namespace with only loopback) */
  network: boolean;
  /** the working directory inside */
  cwd: string;
  /** no new unix socket: the seccomp filter (seccomp.ts) read from SECCOMP_FD, which the spawn feeds */
  noUnixSockets?: boolean;
  /** files a write must not make, absent before it (a git dir's commondir): looked for after the call (planted.ts) */
  unmade?: string[];
}

/**
 * The host's folders the layout gives the call its own of: /tmp, and /dev/shm in its fresh /dev. What the
 * call needs inside them (a project, HOME, the program) is bound again (`rebind`); nothing else of /dev
 * is, so a declared path never brings a host device in.
 */
export const OWN_FOLDERS = ["/tmp", "/dev/shm"];

/** Whether `path` lies inside one of OWN_FOLDERS (not the folder itself), as it resolves: the one it lies in. */
export function ownFolderOf(path: string): string | undefined {
  return OWN_FOLDERS.find((r) => isInside(path, r) && path !== r);
}

/** What of /proc changes the host's kernel (sysctls, SysRq, interrupts, bus devices). */
const PROC_RO = ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"];

const byDepth = (xs: readonly string[]) => [...new Set(xs)].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));

/** The folders between each protected path and the writable root it lies in (both left out). */
function pinned(protect: readonly string[], writable: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of protect) {
    const root = writable.filter((w) => p.startsWith(w === "/" ? "/" : `${w}/`)).sort((x, y) => y.length - x.length)[0];
    if (root === undefined) continue;
    for (let d = dirname(p); d !== root && d.length > root.length; d = dirname(d)) out.push(d);
  }
  return out;
}

/**
 * bwrap's arguments for `plan`, ending with `--` and the command to run. `seccompFd`: where bubblewrap
 * reads the filter (the spawn feeds SECCOMP_FD; doctor's probe, its stdin). `statusFd`: where it reports
 * whether it started the command (--json-status-fd, status.ts; the spawn reads it).
 */
export function bwrapArgs(
  plan: BwrapPlan,
  command: string,
  argv: readonly string[],
  seccompFd = SECCOMP_FD,
  statusFd?: number,
): string[] {
  const a = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  // the kernel's settings stay read-only: bwrap makes them so itself only inside a user namespace, and as
  // root it makes none (a read wrote /proc/sys/kernel/core_pattern, code run as the host's root)
  for (const p of PROC_RO) a.push("--ro-bind-try", p, p);
  a.push("--tmpfs", "/tmp");
  // a path inside another rebound one is no mount of its own: the outer bind (recursive, read-only) shows it
  // already, and every mount after covers both alike (a read's project, its bins and its pack: one bind, not
  // three; each read-only bind is ~0.07-0.09 ms of bwrap's start)
  for (const p of byDepth(outermost(plan.rebind))) a.push("--ro-bind", p, p);
  for (const p of byDepth(plan.writable)) a.push("--bind", p, p);
  // a protected path's folders inside its root are pinned (bound onto themselves): a mount point cannot be
  // renamed, and without them a write moved .git (or packs/) aside and made a new one, whose config or
  // policy.json the next call or git command read
  for (const p of byDepth(pinned(plan.protect ?? [], plan.writable))) a.push("--bind", p, p);
  for (const p of byDepth(plan.protect ?? [])) a.push("--ro-bind", p, p);
  for (const m of plan.masks) {
    // a directory with a declared path inside is traversable (0111: the path opens, nothing lists or reads the rest)
    if (m.dir) a.push("--perms", m.traverse ? "0111" : "0000", "--tmpfs", m.path);
    else a.push("--ro-bind", "/dev/null", m.path);
  }
  for (const p of byDepth(plan.unmask)) a.push("--ro-bind", p, p);
  for (const m of plan.masks) if (m.dir) a.push("--remount-ro", m.path);
  a.push("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try");
  if (!plan.network) a.push("--unshare-net");
  if (plan.noUnixSockets) a.push("--seccomp", String(seccompFd));
  if (statusFd !== undefined) a.push("--json-status-fd", String(statusFd));
  a.push("--die-with-parent", "--new-session", "--cap-drop", "ALL", "--chdir", plan.cwd, "--", command, ...argv);
  return a;
}

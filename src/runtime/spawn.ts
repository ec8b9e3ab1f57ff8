// The one place an adapter starts a child process (the wrap adapter's bin, the
// mcp adapter's server): no shell, the exact env given, its own process group
// (so a cancel or a timeout can stop the group and every descendant, wrap.ts
// terminateTree). A sandbox around the child hooks here, once, for every kind.
import type { ChildProcess, StdioOptions } from "node:child_process";
import { closeSync, openSync, readdirSync, readSync } from "node:fs";
import type { Readable } from "node:stream";
import { childProcess } from "../util/builtins";

/** The most of a report kept (ChildSpec.report): bubblewrap's status is two short lines. */
const REPORT_CAP = 4096;

export interface ChildSpec {
  command: string;
  argv: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
  /** what the child reads on fds 3, 4 … (the sandbox's seccomp filter): each a pipe, fed and closed at start */
  fds?: readonly Uint8Array[];
  /** the fds this process inherited reach the child as /dev/null, not as what they are (a confined call: inheritedFds) */
  shutInherited?: boolean;
  /** the fd after `fds` is a pipe the child writes (bubblewrap's status, sandbox/status.ts): its text, at its end */
  report?: (text: string) => void;
}

/** Start `command argv…` (may throw synchronously, like spawn(); an async failure is the child's "error" event). */
export function spawnChild(spec: ChildSpec): ChildProcess {
  const fds = spec.fds ?? [];
  const base = typeof spec.stdio === "string" ? [spec.stdio, spec.stdio, spec.stdio] : spec.stdio;
  const stdio = [...base, ...fds.map(() => "pipe" as const), ...(spec.report ? ["pipe" as const] : [])];
  const shut = spec.shutInherited ? inheritedFds(stdio.length) : [];
  const devNull = shut.length ? openSync("/dev/null", "r") : -1; // close-on-exec, as every fd Node opens
  let child: ChildProcess;
  try {
    child = childProcess().spawn(spec.command, spec.argv, {
      cwd: spec.cwd,
      env: spec.env,
      shell: false,
      detached: process.platform !== "win32",
      stdio: shut.length ? shutOver(stdio, shut, devNull) : stdio,
      windowsHide: true,
    });
  } finally {
    if (devNull >= 0) closeSync(devNull); // the child has exec'd (spawn returns after): its copies are its own
  }
  fds.forEach((data, i) => {
    const s = child.stdio[3 + i] as NodeJS.WritableStream | null | undefined;
    if (!s) return; // no process was started (its "error" says why)
    s.on("error", () => {}); // a child that exits before reading: its own failure says why
    s.end(data);
  });
  if (spec.report) readReport(child.stdio[3 + fds.length] as Readable | null | undefined, spec.report);
  return child;
}

/**
 * What the child writes on its report fd, its first REPORT_CAP bytes, handed to `report` once the child's
 * end is closed (before the child's "close", which waits for every pipe). Never called when the pipe
 * fails: the report is then unknown, not empty.
 */
function readReport(s: Readable | null | undefined, report: (text: string) => void): void {
  if (!s) return; // no process was started (its "error" says why)
  const got: Buffer[] = [];
  let n = 0;
  s.on("data", (d: Buffer) => {
    if (n < REPORT_CAP) got.push(d);
    n += d.length;
  });
  s.on("error", () => {});
  s.on("end", () => report(Buffer.concat(got).subarray(0, REPORT_CAP).toString("utf8")));
}

/**
 * The fds from `from` up this process has without close-on-exec (Linux): Node opens every fd of its own
 * close-on-exec, so these came from whoever started hcpx (a shell's `exec 200<"$HOME"`, a leaky parent),
 * and a spawn would pass them on, bubblewrap and all it starts included: a directory open outside the
 * sandbox's mounts is a way around them (/proc/self/fd/200/…), a socket one around the seccomp filter.
 * Throws when /proc cannot tell (the spawn fails: nothing runs with what it cannot see). Its cost, on
 * exec's path for a confined call: ~1.7 M instructions of the parent's ~150 M (callgrind; Node's own ~16
 * fds looked at, three calls each).
 */
function inheritedFds(from: number): number[] {
  const out: number[] = [];
  const head = new Uint8Array(64); // /proc/self/fdinfo/<fd> begins "pos:\t<offset>\nflags:\t<octal>\n"
  for (const name of readdirSync("/proc/self/fd")) {
    if (Number(name) < from) continue;
    const flags = openFlags(name, head);
    if (flags !== undefined && (flags & O_CLOEXEC) === 0) out.push(Number(name));
  }
  return out;
}

const O_CLOEXEC = 0o2000000;
const FLAGS = [102, 108, 97, 103, 115, 58, 9]; // "flags:\t"

/**
 * The open flags of fd `name` (/proc/self/fdinfo's octal "flags:"), undefined when it is gone (the
 * listing's own). Its first bytes, read into one buffer and parsed there: readFileSync would make a
 * 64 KiB buffer, a string and a regexp match a fd (measured: about twice the instructions).
 */
function openFlags(name: string, head: Uint8Array): number | undefined {
  let n: number;
  try {
    const f = openSync(`/proc/self/fdinfo/${name}`, "r");
    try {
      n = readSync(f, head, 0, head.length, null);
    } finally {
      closeSync(f);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  const at = head.subarray(0, n).indexOf(10) + 1; // the second line
  if (at === 0 || !FLAGS.every((c, k) => head[at + k] === c)) throw new Error(`/proc/self/fdinfo/${name}: no flags`);
  let flags = 0;
  for (let i = at + FLAGS.length; i < n && head[i]! >= 48 && head[i]! <= 55; i++) flags = flags * 8 + head[i]! - 48;
  return flags;
}

/**
 * `stdio` with each of `shut` set to /dev/null in the child (the gaps "ignore": libuv leaves those fds as
 * they are, close-on-exec or not open). Not closed in this process: a host app running hcpx as a library
 * may use an fd it inherited (a socket-activated listener, its parent's IPC channel), and Node has no
 * fcntl() to mark one close-on-exec; in the child a /dev/null at that number reaches nothing.
 */
function shutOver(stdio: StdioOptions & unknown[], shut: number[], devNull: number): StdioOptions {
  const out: unknown[] = [...stdio];
  const top = Math.max(...shut);
  while (out.length <= top) out.push("ignore");
  for (const fd of shut) out[fd] = devNull;
  return out as StdioOptions;
}

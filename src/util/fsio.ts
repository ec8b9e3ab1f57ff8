// File access for adopt: symlink policy, reads that never follow a link out of
// the base directory, atomic writes that keep the file mode, and the lock.
//
// Symlinks: a target path (or any directory on the way to it) that is a symlink
// is resolved; when it leads outside the base (the project root, or $HOME for
// user scope) adopt refuses it. When it stays inside, adopt writes through it:
// the link stays a link and the file it points to is updated (atomically, by a
// rename next to that file).
import { existsSync, linkSync, readdirSync, rmdirSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, normalize, relative, sep } from "node:path";
import { HcpxError } from "./errors";
import { display, isInside, toPosix } from "./paths";
import { atomicWrite, writeStep } from "./atomic";
import { CAPS, invalidUtf8Offset, readBytes } from "./readfile";
import { walkInside } from "./walk";

export { atomicWrite, writeStep };

export type Entry =
  | { kind: "absent" }
  | { kind: "file"; text: string; mode: number; links?: number }
  | { kind: "dir" }
  | { kind: "other" }
  | { kind: "binary"; offset: number; mode: number; links?: number };

export interface Resolved {
  /** the path as planned (inside base) */
  logical: string;
  /** the path operated on (symlinks inside base resolved) */
  real: string;
}

/**
 * Resolve symlinks along `abs` (which must be below `base`). Throws when a link
 * leads outside `base`, or when a path component is not a directory.
 */
export function resolveInside(abs: string, base: string, show: string): Resolved {
  const w = walkInside(abs, base);
  if ("real" in w) return { logical: abs, real: w.real };
  throw new HcpxError({ ...w.problem, file: show });
}

/**
 * The base a file hcpx reads back belongs to: the project root (project
 * scope, generate's out dir) or $HOME (user scope, display paths `~/…`).
 */
export interface TrustBase {
  /** absolute directory every named path must stay inside, symlinks followed */
  dir: string;
  /** "~/": display paths are written `~/<path below dir>` (user scope); "": relative to dir */
  prefix: "" | "~/";
  /** how the base is named in a reason ("the out dir"); default "the project", or "$HOME" */
  label?: string;
}

export type Guarded = { ok: true; abs: string; real: string; show: string } | { ok: false; reason: string };

/**
 * The one gate for every path named by a file hcpx reads back and did not
 * just compute itself — the adopt ledger's entries and directories, the
 * journal's files and directories, the directories recorded in a stale lock,
 * generate's manifest: such a file is committed and shared, so anyone who can
 * push can write it. `named` is a display path (`form: "display"`: relative
 * posix, `~/…` for user scope) or an absolute one. It passes only when it is a
 * plain path below `base.dir` (no `..`, `.`, empty segment, backslash or NUL;
 * never `~/` in a project base, never the base itself) and its realpath — every
 * symlink on the way followed, the last one included — stays inside
 * realpath(base.dir). A refused path is never read, written or deleted: the
 * caller drops the entry and warns.
 */
export function guardPath(named: unknown, base: TrustBase, form: "display" | "absolute" = "display"): Guarded {
  const no = (reason: string): Guarded => ({ ok: false, reason });
  if (typeof named !== "string" || named === "") return no("is not a path");
  if (named.includes("\0") || named.includes("\\")) return no("contains a NUL or a backslash");
  let abs: string;
  if (form === "display") {
    let rel: string;
    if (base.prefix === "~/") {
      if (!named.startsWith("~/")) return no("is not a user-scope path (~/…)");
      rel = named.slice(2);
    } else {
      if (named.startsWith("~")) return no("names a file in the user's home, not in this directory");
      if (named.startsWith("/")) return no("is an absolute path");
      rel = named;
    }
    if (rel.split("/").some((s) => s === "" || s === "." || s === ".."))
      return no("is not a plain relative path (it has an empty, . or .. segment)");
    abs = join(base.dir, rel);
  } else {
    if (!isAbsolute(named) || normalize(named) !== named || named.endsWith(sep))
      return no("is not a normalised absolute path");
    if (!isInside(named, base.dir) || named === base.dir) return no(`is not below ${base.dir}`);
    abs = named;
  }
  const w = walkInside(abs, base.dir, base.label);
  if (!("real" in w)) return no(w.problem.message);
  // the base as the walk resolved it (one realpath per guard; none there yet: the base as named)
  if (w.real === (w.realBase ?? base.dir)) return no("resolves to the base directory itself");
  return { ok: true, abs, real: w.real, show: base.prefix + toPosix(relative(base.dir, abs)) };
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export function readEntry(real: string): Entry {
  let st;
  try {
    st = statSync(real, { throwIfNoEntry: false });
  } catch {
    st = undefined;
  }
  if (st === undefined) return { kind: "absent" };
  if (st.isDirectory()) return { kind: "dir" };
  if (!st.isFile()) return { kind: "other" };
  // the one bounded reader: a file swapped for a FIFO or a device after the stat is an error, never a hang
  let buf: Buffer;
  try {
    buf = readBytes(real, real, CAPS.host);
  } catch (e) {
    if (e instanceof HcpxError && e.problems[0]?.code === "not_a_file") return { kind: "other" };
    if (e instanceof HcpxError && e.problems[0]?.code === "missing_file") return { kind: "absent" };
    throw e;
  }
  const mode = st.mode & 0o7777;
  // its names (hard links): a file with more than one is not replaced (src/util/atomic.ts hardLinked)
  const links = st.nlink;
  try {
    return { kind: "file", text: utf8.decode(buf), mode, links };
  } catch {
    // not UTF-8: never decoded lossily (a write-back would replace the bytes)
    return { kind: "binary", offset: invalidUtf8Offset(buf), mode, links };
  }
}

/** Directories from `dir` up to (not including) `base` that do not exist yet, deepest last. */
export function missingDirs(dir: string, base: string): string[] {
  const out: string[] = [];
  let d = dir;
  while (isInside(d, base) && d !== base && !existsSync(d)) {
    out.unshift(d);
    d = dirname(d);
  }
  return out;
}

export function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

/** removeFile of a planned deletion (a write step for the test hook). */
export function deleteTarget(file: string): void {
  removeFile(file);
  writeStep();
}

/** rmdir when empty; true when removed (or already gone). */
export function rmdirIfEmpty(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === "ENOENT";
  }
}

/** Whether a process with this pid runs (one of another user counts: EPERM). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The pid in a lock file's first line (NaN when unreadable or empty). */
function lockPid(text: string | undefined): number {
  return text === undefined ? NaN : Number.parseInt(text.split("\n")[0]!.trim(), 10);
}
/**
 * A lock file's text: undefined when it is gone. A lock that is not a regular
 * file (a planted symlink, a FIFO, a device) or is oversized is a clear
 * error, never a hang or an endless read: the lock is opened O_NOFOLLOW |
 * O_NONBLOCK by the bounded reader.
 */
function readOrUndefined(file: string): string | undefined {
  try {
    return readBytes(file, file, CAPS.lockFile, { noFollow: true }).toString("utf8");
  } catch (e) {
    if (e instanceof HcpxError && e.problems[0]?.code === "missing_file") return undefined;
    if (e instanceof HcpxError) {
      const p = e.problems[0]!;
      throw new HcpxError({
        code: "bad_lock_file",
        message: `the lock file ${p.message}`,
        file: display(file),
        hint: "hcpx writes its lock files itself; delete this one (it is not hcpx's) and run the command again",
      });
    }
    throw e;
  }
}

/** How long a lock is waited for before giving up (ms); `HCPX_LOCK_WAIT_MS` overrides. */
export function lockWaitMs(): number {
  const v = Number(process.env.HCPX_LOCK_WAIT_MS);
  return Number.isFinite(v) && v >= 0 ? v : 5000;
}

/**
 * Take the lock `file`: a file holding "<pid>\n<nonce>\n", created complete in
 * one step (written to a temp file, then hard-linked to the lock path, which
 * fails when a lock exists). A held lock is waited for (up to `lockWaitMs()`),
 * then refused with a clear error. A lock whose pid is dead (a killed hcpx) is
 * broken: under a short-lived guard (`<file>.break`) it is re-read and removed
 * only if it is still the same stale lock, so two breakers never remove a fresh lock.
 */
export function acquireLock(
  file: string,
  show: string,
  what = "hcpx adopt",
  extra?: () => string,
  onStale?: (text: string) => void,
): () => void {
  removeDeadLockTemps(file);
  const id = `${process.pid}\n${Math.random().toString(36).slice(2)}${Date.now().toString(36)}\n`;
  let nonce = id + (extra?.() ?? "");
  const deadline = Date.now() + lockWaitMs();
  let holder = NaN;
  for (let delay = 20; ; delay = Math.min(delay * 2, 200)) {
    if (tryLink(file, nonce)) {
      return () => {
        // release only our own lock
        if (readOrUndefined(file) === nonce) removeFile(file);
      };
    }
    const text = readOrUndefined(file);
    if (text === undefined) continue; // vanished meanwhile: retry at once
    holder = lockPid(text);
    const stale =
      !(Number.isInteger(holder) && holder > 0 && pidAlive(holder)) || (holder === process.pid && text !== nonce);
    if (stale && breakStale(file, text)) {
      if (onStale) {
        onStale(text);
        nonce = id + (extra?.() ?? "");
      }
      continue;
    }
    if (Date.now() >= deadline) break;
    sleepSync(delay);
  }
  throw new HcpxError({
    code: "locked",
    message: `another ${what} is running (pid ${holder}); waited ${lockWaitMs() / 1000} s for it`,
    file: show,
    hint: "wait for it to finish and run this again; if no hcpx is running, delete the lock file",
  });
}

/**
 * Temp files tryLink() leaves when killed between writing and removing them
 * (`<lock>.<pid>-<rand>.tmp`, `<lock>.break.<pid>-<rand>.tmp`): removed when
 * their pid is dead, so a killed run leaves nothing behind for good.
 */
function removeDeadLockTemps(file: string): void {
  const dir = dirname(file);
  const base = basename(file);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    if (!n.startsWith(base + ".")) continue;
    const m = /^(?:break\.)?(\d+)-[a-z0-9]+\.tmp$/.exec(n.slice(base.length + 1));
    if (m && !pidAlive(Number(m[1]))) removeFile(join(dir, n));
  }
}

function tryLink(file: string, content: string): boolean {
  const tmp = `${file}.${process.pid}-${Math.random().toString(36).slice(2, 8)}.tmp`;
  writeFileSync(tmp, content, { flag: "wx" });
  try {
    linkSync(tmp, file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    return false;
  } finally {
    removeFile(tmp);
  }
}

/** Remove the stale lock whose content is `seen`, under a guard; true when the lock may be retried. */
function breakStale(file: string, seen: string): boolean {
  const guard = `${file}.break`;
  const mine = `${process.pid}\n`;
  if (!tryLink(guard, mine)) {
    // another process is breaking it; a guard left by a killed breaker is removed when old
    try {
      const g = readOrUndefined(guard);
      if (g !== undefined && !pidAlive(lockPid(g)) && Date.now() - statSync(guard).mtimeMs > 2000) removeFile(guard);
    } catch {
      /* gone */
    }
    return false;
  }
  try {
    if (readOrUndefined(file) === seen) removeFile(file);
    return true;
  } finally {
    removeFile(guard);
  }
}

/** Temp files of atomicWrite for `file` whose writer is dead (left by a killed hcpx). */
export function staleTemps(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const n of names) {
    const m = /^\..+\.hcpx-(\d+)-[a-z0-9]+\.tmp$/.exec(n);
    if (m && !pidAlive(Number(m[1]))) out.push(join(dir, n));
  }
  return out;
}

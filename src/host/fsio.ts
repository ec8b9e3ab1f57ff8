// File access for adopt: symlink policy, reads that never follow a link out of
// the base directory, atomic writes that keep the file mode, and the lock.
//
// Symlinks: a target path (or any directory on the way to it) that is a symlink
// is resolved; when it leads outside the base (the project root, or $HOME for
// user scope) adopt refuses it. When it stays inside, adopt writes through it:
// the link stays a link and the file it points to is updated (atomically, by a
// rename next to that file).
import { closeSync, constants, chmodSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmdirSync, statSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { HcpxError } from "../util/errors";
import { isInside } from "../util/paths";

export type Entry = { kind: "absent" } | { kind: "file"; text: string; mode: number } | { kind: "dir" } | { kind: "other" };

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
  const realBase = realpathSync(base);
  const rel = relative(base, abs);
  const parts = rel.split(sep).filter(Boolean);
  let cur = realBase;
  for (let i = 0; i < parts.length; i++) {
    const next = join(cur, parts[i]!);
    let st;
    try {
      st = lstatSync(next);
    } catch {
      // the rest does not exist yet
      return { logical: abs, real: join(next, ...parts.slice(i + 1)) };
    }
    if (st.isSymbolicLink()) {
      let target: string;
      try {
        target = realpathSync(next);
      } catch {
        throw new HcpxError({ code: "symlink_refused", message: "is a dangling symlink", file: show, hint: "remove the link or point it at a file inside the project" });
      }
      if (!isInside(target, realBase)) {
        throw new HcpxError({ code: "symlink_refused", message: `is a symlink leading outside ${base === process.env.HOME ? "$HOME" : "the project"} (to ${target})`, file: show, hint: "hcpx does not write through links that leave its base directory; replace the link with a file, or adopt by hand" });
      }
      cur = target;
      st = statSync(next);
    } else cur = next;
    if (i < parts.length - 1 && !st.isDirectory()) {
      throw new HcpxError({ code: "not_a_directory", message: `${join(...parts.slice(0, i + 1))} is a file, expected a directory on the way to this path`, file: show, hint: "move that file away; hcpx does not replace files it does not own" });
    }
  }
  return { logical: abs, real: cur };
}

export function readEntry(real: string): Entry {
  let st;
  try {
    st = statSync(real);
  } catch {
    return { kind: "absent" };
  }
  if (st.isDirectory()) return { kind: "dir" };
  if (!st.isFile()) return { kind: "other" };
  return { kind: "file", text: readFileSync(real, "utf8"), mode: st.mode & 0o7777 };
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

/** Write `text` to `file` atomically (temp file in the same dir + rename), keeping an existing file's mode. */
export function atomicWrite(file: string, text: string): void {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true });
  let mode: number | undefined;
  try {
    mode = statSync(file).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  const tmp = join(dir, `.${basename(file)}.hcpx-${process.pid}-${Math.random().toString(36).slice(2, 8)}.tmp`);
  try {
    writeFileSync(tmp, text, { flag: "wx" });
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, file);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw e;
  }
}

export function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
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

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** An O_EXCL lock file holding our pid; a lock whose pid is dead is taken over. */
export function acquireLock(file: string, show: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o644);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => removeFile(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      let pid = NaN;
      try {
        pid = Number.parseInt(readFileSync(file, "utf8").trim(), 10);
      } catch {
        /* vanished meanwhile: retry */
      }
      if (Number.isInteger(pid) && pid > 0 && pidAlive(pid) && pid !== process.pid) {
        throw new HcpxError({ code: "locked", message: `another hcpx adopt is running (pid ${pid})`, file: show, hint: "wait for it to finish; if no hcpx is running, delete the lock file" });
      }
      removeFile(file); // stale
    }
  }
  throw new HcpxError({ code: "locked", message: "cannot take the adopt lock", file: show, hint: "delete the lock file if no hcpx is running" });
}

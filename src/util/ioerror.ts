// A file-system error that is a condition of the machine, not a bug: a
// read-only file system, a full disk, a quota, a permission. It reaches the
// user as an error naming the file and saying what to do (exit 1, or an
// `ok: false` envelope), never as "internal error" (exit 70). Used by the CLI
// entry (src/cli/failure.ts) and `hcpx mcp`.
import { accessSync, constants, statSync } from "node:fs";
import { dirname } from "node:path";
import { HcpxError, hintOf, type Problem } from "./errors";
import { display } from "./paths";

const WORDS: Record<string, [string, string]> = {
  EROFS: [
    "the file system is read-only",
    "run hcpx where it can write (or remount that file system read-write), then run the command again",
  ],
  ENOSPC: [
    "no space left on the device",
    "free some space on that disk, then run the command again; each file hcpx writes is either its old or its new content (temp file + rename)",
  ],
  EDQUOT: ["the disk quota is exceeded", "free some space within your quota, then run the command again"],
  EACCES: ["permission denied", "check the owner and mode of the file and its directory"],
  EPERM: ["operation not permitted", "check the owner and mode of the file and its directory (and any immutable flag)"],
  EIO: ["input/output error", "the disk or file system reported an error; check it, then run the command again"],
  EMFILE: ["too many open files", "raise the open-file limit (ulimit -n) or close other programs"],
  ENFILE: ["too many open files in the system", "close other programs, then run the command again"],
  ENOTDIR: ["a parent of this path is not a directory", "a file is where a directory should be; move it away"],
  EISDIR: ["is a directory, expected a file", "move the directory away"],
  ENAMETOOLONG: ["the path is too long", "use a shorter path"],
  ELOOP: ["too many symbolic links", "fix the symbolic link loop"],
  EBUSY: ["the file is busy", "try again when no other program uses it"],
  ETXTBSY: ["the file is busy (a running program)", "try again when the program has ended"],
  ENOENT: ["a directory on the way does not exist", "check the path"],
  EXDEV: ["crosses file systems", "keep the file and its temp file on one file system"],
  ENOTEMPTY: ["a folder is in the way (not empty)", "move that folder away, then run the command again"],
};

const VERB: Record<string, string> = {
  open: "open",
  read: "read",
  write: "write",
  mkdir: "create the directory",
  rename: "replace",
  unlink: "remove",
  rmdir: "remove the directory",
  chmod: "set the mode of",
  copyfile: "copy",
  link: "link",
  symlink: "link",
  scandir: "list",
  lstat: "inspect",
  stat: "inspect",
};

/**
 * A recursive mkdir on a read-only file system fails with ENOENT (Node walks up
 * and reports the first miss). The real reason is what the first existing
 * directory says to a write: access(2) answers EROFS or EACCES without
 * writing anything (an error report never writes: src/util/door.ts is the only
 * writer).
 */
function realMkdirCause(path: string): NodeJS.ErrnoException | undefined {
  let dir = path;
  for (let i = 0; i < 64; i++) {
    const up = dirname(dir);
    if (up === dir) return undefined;
    try {
      if (statSync(up).isDirectory()) {
        try {
          accessSync(up, constants.W_OK);
        } catch (e) {
          const x = e as NodeJS.ErrnoException;
          return Object.assign(new Error(x.message), {
            code: x.code,
            errno: x.errno,
            syscall: "mkdir",
            path: dir,
          }) as NodeJS.ErrnoException;
        }
        return undefined;
      }
      return undefined;
    } catch {
      dir = up;
    }
  }
  return undefined;
}

/** The user-facing problem for a file-system error of the machine, or undefined for anything else. */
export function ioProblem(e: unknown): Problem | undefined {
  let err = e as NodeJS.ErrnoException | undefined;
  if (!err || typeof err !== "object" || typeof err.code !== "string" || typeof err.syscall !== "string")
    return undefined;
  if (err.code === "ENOENT" && err.syscall === "mkdir" && err.path) err = realMkdirCause(err.path) ?? err;
  const words = WORDS[err.code!];
  if (!words) return undefined;
  const path = typeof err.path === "string" ? err.path : undefined;
  const verb = VERB[err.syscall!] ?? err.syscall;
  return {
    code: "io_error",
    message: `cannot ${verb}${path ? "" : " a file"}: ${words[0]} (${err.code})`,
    ...(path ? { file: display(path) } : {}),
    hint: words[1],
  };
}

/** `e` as an HcpxError when it is a machine condition (see ioProblem), else `e` unchanged. */
export function asUserError(e: unknown): unknown {
  const p = ioProblem(e);
  return p ? new HcpxError(p) : e;
}

/** Why `e` happened, on one line (for a message that names a second failure beside the first). */
export function errorLine(e: unknown): string {
  if (e instanceof HcpxError) return e.problems[0]?.message ?? e.message;
  const io = ioProblem(e);
  if (io) return `${io.message}${io.file ? `: ${io.file}` : ""}`;
  return e instanceof Error ? e.message : String(e);
}

/**
 * `first`, the error that made a command fail (its code kept), told with what its undoing left (`left`,
 * added to its message) and what to do about that (`todo`, first in its hint). Not a user error (a bug):
 * its message says the same, and it stays a bug.
 */
export function toldWithLeft(first: unknown, left: string, todo: string): unknown {
  const e = asUserError(first);
  if (!(e instanceof HcpxError)) {
    if (e instanceof Error) e.message += `; ${left}; ${todo}`;
    return e;
  }
  const [p, ...rest] = e.problems;
  const hint = hintOf(p!);
  const told = {
    ...p!,
    message: `${p!.message}; ${left}`,
    hint: hint ? `${todo}; then, for the error itself: ${hint}` : todo,
  };
  return new HcpxError([told, ...rest], e.exitCode);
}

// Writing a file so that a reader, or a process killed half-way, only ever
// sees the old bytes or the new ones: a temp file in the same directory, then a
// rename. The temp name (`.<name>.hcpx-<pid>-<rand>.tmp`) is what
// src/util/fsio.ts staleTemps() recognises, so a killed writer's leftover is
// cleaned up by the next adopt. Every command that writes a user-visible file
// uses this.
import {
  chmodSync,
  closeSync,
  constants,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { HcpxError, type Problem } from "./errors";
import { display } from "./paths";

/** A large text written in pieces (generate's tool lists), never held whole: `chunks()` yields it, the same each call. */
export interface Chunked {
  chunks(): Iterable<string>;
  /** told the bytes of each piece once they are in the temp file (the applier hashes what it writes: src/plan/apply.ts) */
  written?(bytes: Uint8Array): void;
}

/** What a write takes: a text, bytes, or a text in pieces. */
export type FileData = string | Uint8Array | Chunked;

/** Write `data` into a new file `tmp` (refused when anything is there). */
function writeNew(tmp: string, data: FileData, mode: number | undefined): void {
  if (typeof data === "string" || data instanceof Uint8Array) {
    writeFileSync(tmp, data, { flag: "wx", ...(mode !== undefined ? { mode } : {}) });
    return;
  }
  const fd = openSync(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    mode ?? 0o666,
  );
  try {
    // each piece encoded into one reused buffer (at most 3 bytes per UTF-16 unit): no new buffer per piece
    let buf = Buffer.allocUnsafe(0);
    for (const piece of data.chunks()) {
      if (buf.length < piece.length * 3) buf = Buffer.allocUnsafe(piece.length * 3);
      const bytes = buf.subarray(0, buf.write(piece, 0, "utf8"));
      for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off, bytes.length - off);
      data.written?.(bytes);
    }
  } finally {
    closeSync(fd);
  }
}

/** Directories this process has made or found (one mkdir per directory, not per file). */
const madeDirs = new Set<string>();

/**
 * What the caller's lstat of the file found just before the write (src/util/door.ts, a batch's memo):
 * its directory exists, and the file is absent (`mode` undefined) or a regular file of `mode` with
 * `links` names.
 */
export interface Found {
  mode: number | undefined;
  links?: number;
}

/**
 * A file with more than one name (a hard link: a dotfiles repository's copy of ~/.claude.json) is
 * not replaced: the rename would give this name new bytes and leave the others with the old ones,
 * two files where the person kept one. Refused before anything is written (hard_linked).
 */
export function refuseHardLinked(file: string, links: number | undefined): void {
  const problem = hardLinked(display(file), links, "so it was not written");
  if (problem) throw new HcpxError(problem);
}

/** The refusal of a file shown as `shown` with `links` names (none for one name); `outcome`: what was not done. */
export function hardLinked(shown: string, links: number | undefined, outcome: string): Problem | undefined {
  if (links === undefined || links <= 1) return undefined;
  const others = links > 2 ? `other ${links - 1} names` : "other name";
  return {
    code: "hard_linked",
    message: `${shown} has ${links} names (hard links): replacing it would leave the ${others} with the old bytes, ${outcome}`,
    file: shown,
  };
}

/**
 * Write `text` to `file` atomically (temp file in the same dir + rename), keeping an existing file's mode
 * (or setting `forceMode`). With `found`, neither its directory is made nor the file stat'ed again.
 */
export function atomicWrite(file: string, text: FileData, forceMode?: number, found?: Found): void {
  const dir = dirname(file);
  if (!found && !madeDirs.has(dir)) {
    mkdirSync(dir, { recursive: true });
    madeDirs.add(dir);
  }
  let mode: number | undefined = forceMode ?? found?.mode;
  if (found) refuseHardLinked(file, found.links);
  else {
    let st;
    try {
      st = statSync(file, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    // a folder there has a link count of 2 or more: refused as what it is, not as a file with other names
    if (st?.isDirectory())
      throw new HcpxError({
        code: "not_a_file",
        message: `${display(file)} is a directory, expected a regular file, so it was not written`,
        file: display(file),
        hint: "move that folder away (hcpx writes a file there), then run the command again",
      });
    refuseHardLinked(file, st?.nlink);
    if (mode === undefined && st) mode = st.mode & 0o7777;
  }
  const tmp = join(dir, `.${basename(file)}.hcpx-${process.pid}-${Math.random().toString(36).slice(2, 8)}.tmp`);
  try {
    // created with its final mode when one is known (an owner-only file is never readable by others, not even as a temp file)
    writeNew(tmp, text, mode);
    if (mode !== undefined) chmodSync(tmp, mode);
    writeStep();
    renameSync(tmp, file);
    writeStep();
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    // name the file being written, not the temp file (a write's ENOSPC names none): src/util/ioerror.ts reports it
    if (e && typeof e === "object" && typeof (e as NodeJS.ErrnoException).code === "string")
      (e as NodeJS.ErrnoException).path = file;
    throw e;
  }
}

// ---- test hook ----
// HCPX_TEST_KILL_AFTER_WRITES=N: the process SIGKILLs itself after its Nth write
// step (a temp file written, a rename, an unlink) — for the kill-mid-write tests
// only. Unset, it costs one env read per process.
let killAfter: number | undefined | null = null;
let steps = 0;
export function writeStep(): void {
  if (killAfter === null) {
    const v = Number(process.env.HCPX_TEST_KILL_AFTER_WRITES);
    killAfter = process.env.HCPX_TEST_KILL_AFTER_WRITES && Number.isInteger(v) ? v : undefined;
  }
  if (killAfter !== undefined && ++steps >= killAfter) process.kill(process.pid, "SIGKILL");
}

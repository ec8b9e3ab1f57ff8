// size: the one write door; every raw write primitive lives in this file on purpose (test/arch/door.test.ts allows them nowhere else), ~200 lines over (the staging, swap and swap-back of vendored folders are write primitives too)
// The one write door. Every file or directory hcpx creates, replaces, renames
// or deletes — in the project, in $HOME, in a cache, in a scratch folder —
// goes through this module (with src/util/atomic.ts, the temp-file-and-rename
// it uses, and src/util/fsio.ts, the adopt applier's lock and guard).
// test/arch/door.test.ts fails on a raw write anywhere else in src/.
//
// Rules, for every call:
// - every path is named with its base (the project root, $HOME, the cache
//   root, a pack folder the person named): no component of the path may be a
//   symlink leading outside realpath(base), or a non-directory on the way
//   (src/util/walk.ts); a link that stays inside is followed;
// - a file is written atomically (temp file in the same directory + rename);
// - a multi-file change (a pack's surface + policy + Skill) lands whole or
//   not at all: every temp file is written first, then renamed in, and taken
//   back if a rename fails (writeFiles);
// - a folder is replaced by staging it inside the base and renaming it in
//   (stagingDir, swapDir); a tree is deleted only after its path passed the
//   guard, and a symlink is never followed by a delete.
// node:fs and node:path only: exec's start path loads it (caches).
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { HcpxError } from "./errors";
import { errorLine, toldWithLeft } from "./ioerror";
import { display, isInside } from "./paths";
import { atomicWrite, refuseHardLinked, writeStep, type FileData, type Found } from "./atomic";
/** The door's refusal of a file with more than one name, for a caller that checks a whole plan first (src/plan/apply.ts). */
export { hardLinked } from "./atomic";
import { readBytes } from "./readfile";
import { walkInside } from "./walk";

/** Where a write may land: an absolute directory, and how it is named in a refusal. */
export interface Base {
  dir: string;
  /** "the project", "$HOME", "the cache", "the pack directory" */
  label?: string;
}

function baseOf(b: Base | string): Base {
  return typeof b === "string" ? { dir: b } : b;
}

/**
 * The path to operate on for `abs` below `base` (symlinks that stay inside
 * followed), or an HcpxError naming `show` (default: the path as displayed):
 * `symlink_refused` (a link leads out, or dangles), `outside_base`,
 * `not_a_directory` (a file where a directory is on the way).
 */
export function guard(base: Base | string, abs: string, show?: string): string {
  const b = baseOf(base);
  const w = walkInside(abs, b.dir, b.label);
  if ("real" in w) return w.real;
  throw new HcpxError({ ...w.problem, file: show ?? display(abs) });
}

/** The guarded real path of `abs`'s directory, joined with its own name: the last component is not followed. */
function guardParent(b: Base | string, abs: string, show?: string): string {
  return join(guard(b, dirname(abs), show ?? display(abs)), basename(abs));
}

/** Create `dir` (and its missing parents) below `base`, one component at a time, never through a link leading out (new ones with `mode`, default 0o777 less the umask). */
export function mkdirs(base: Base | string, dir: string, show?: string, mode?: number): string {
  const real = guard(base, dir, show);
  const missing: string[] = [];
  for (let d = real; ; d = dirname(d)) {
    // (a missing one is the common case on a first write: lstat answers undefined, no exception is made)
    let st;
    try {
      st = lstatSync(d, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (st === undefined) {
      missing.unshift(d);
      if (dirname(d) === d) break;
      continue;
    }
    if (!st.isDirectory())
      throw new HcpxError({
        code: "not_a_directory",
        message: `${display(d)} is not a directory`,
        file: show ?? display(dir),
        hint: "move that file away; hcpx does not replace files it does not own",
      });
    break;
  }
  for (const d of missing) {
    try {
      mkdirSync(d, mode);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      if (!lstatSync(d).isDirectory())
        throw new HcpxError({
          code: "not_a_directory",
          message: `${display(d)} is not a directory`,
          file: show ?? display(dir),
          hint: "move that file away",
        });
    }
  }
  return real;
}

export interface WriteOpts {
  /** how the file is named in a refusal */
  show?: string;
  /**
   * The last component is replaced, never followed: a symlink there is
   * replaced by the file (caches: a planted link is rewritten, not written through).
   */
  replaceLink?: boolean;
  /** the file's mode, also when it exists (caches: 0o600) */
  mode?: number;
  /** a batch's memo of guarded directories (dirMemo): each directory walked once per batch */
  dirs?: DirMemo;
}

/** Write one file atomically below `base` (its directories made as needed). */
export function writeFile(base: Base | string, abs: string, data: FileData, opts: WriteOpts = {}): void {
  if (opts.dirs && !opts.replaceLink) {
    const { real, found } = memoGuard(base, opts.dirs, abs, opts.show);
    atomicWrite(real, data, opts.mode, found);
    return;
  }
  const real = opts.replaceLink ? guardParent(base, abs, opts.show) : guard(base, abs, opts.show);
  mkdirs(base, dirname(real), opts.show);
  atomicWrite(real, data, opts.mode);
}

/**
 * The directories one batch of writes below one base has guarded (and made):
 * absolute path as named → real path. A batch of thousands of files (generate's
 * out dir) walks each directory once instead of once per file; the file's own
 * component is looked at on every write, and anything but a plain directory or
 * an absent one on the way (a link, a file) takes the full walk of guard/mkdirs.
 */
export type DirMemo = Map<string, string>;

export function dirMemo(): DirMemo {
  return new Map();
}

/**
 * guard(base, abs) with the directories made (mkdirs), through the batch's memo; `found` when the
 * file's own lstat saw it absent or a regular file (its mode), so the write need not look again.
 */
function memoGuard(base: Base | string, memo: DirMemo, abs: string, show?: string): { real: string; found?: Found } {
  const realDir = memoDir(base, memo, dirname(abs), show ?? display(abs));
  const real = join(realDir, basename(abs));
  let st;
  try {
    st = lstatSync(real, { throwIfNoEntry: false });
  } catch {
    return { real };
  }
  if (st === undefined) return { real, found: { mode: undefined } };
  if (st.isSymbolicLink()) return { real: guard(base, abs, show) };
  return st.isFile() ? { real, found: { mode: st.mode & 0o7777, links: st.nlink } } : { real };
}

function memoDir(base: Base | string, memo: DirMemo, dir: string, show: string): string {
  const known = memo.get(dir);
  if (known !== undefined) return known;
  const b = baseOf(base);
  const parent = dirname(dir);
  let real: string;
  if (dir === b.dir || parent === dir || !isInside(parent, b.dir)) real = mkdirs(base, dir, show);
  else {
    const next = join(memoDir(base, memo, parent, show), basename(dir));
    // made here (the common case of a first write: one mkdir, no lstat before it), or there already
    let made = false;
    try {
      mkdirSync(next);
      made = true;
    } catch {
      /* there already (a directory, a link, a file), or cannot: the lstat below decides */
    }
    let st;
    if (!made)
      try {
        st = lstatSync(next, { throwIfNoEntry: false });
      } catch {
        st = undefined;
      }
    if (made || st?.isDirectory()) real = next;
    else real = mkdirs(base, dir, show); // a link (may lead out), a file on the way, a race or a refusal: the full walk decides
  }
  memo.set(dir, real);
  return real;
}

export interface PlannedWrite {
  abs: string;
  data: string | Uint8Array;
  /** file mode for a new file (an existing file keeps its own) */
  mode?: number;
}

/**
 * Write several files below `base` as one change: every path is guarded and
 * every temp file written before the first rename; when a rename fails, the
 * files already renamed in are put back as they were (the old bytes, kept by a
 * hard link, or removed when new). Either all land, or none.
 */
export function writeFiles(base: Base | string, files: readonly PlannedWrite[]): void {
  const plan = files.map((f) => ({ ...f, real: guard(base, f.abs) }));
  for (const f of plan) mkdirs(base, dirname(f.real));
  const tag = () => `${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const temps: { real: string; tmp: string; backup?: string; old?: Buffer; created?: boolean }[] = [];
  try {
    for (const f of plan) {
      const tmp = join(dirname(f.real), `.${basename(f.real)}.hcpx-${tag()}.tmp`);
      temps.push({ real: f.real, tmp });
      let mode = f.mode;
      let st;
      try {
        st = lstatSync(f.real);
        mode = st.mode & 0o7777;
      } catch {
        /* new file */
      }
      refuseHardLinked(f.real, st?.isFile() ? st.nlink : undefined);
      writeFileSync(tmp, f.data, { flag: "wx", ...(mode !== undefined ? { mode } : {}) });
      writeStep();
    }
  } catch (e) {
    for (const t of temps) unlinkQuiet(t.tmp);
    throw named(e, temps[temps.length - 1]?.real);
  }
  const landed: typeof temps = [];
  try {
    for (const t of temps) {
      // keep the old bytes (a hard link) until every file landed
      const backup = join(dirname(t.real), `.${basename(t.real)}.hcpx-${tag()}.tmp`);
      try {
        linkSync(t.real, backup);
        t.backup = backup;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "ENOENT") t.created = true;
        // a file system without hard links: the old bytes are kept in memory instead
        else if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP" || code === "EMLINK")
          t.old = readBytes(t.real, display(t.real), 1024 * 1024 * 1024);
        else throw e;
      }
      renameSync(t.tmp, t.real);
      landed.push(t);
      writeStep();
    }
  } catch (e) {
    for (const t of landed.reverse()) {
      try {
        if (t.backup) renameSync(t.backup, t.real);
        else if (t.old) atomicWrite(t.real, t.old);
        else if (t.created) unlinkSync(t.real);
      } catch {
        /* best effort: the error below names the file */
      }
    }
    for (const t of temps) {
      unlinkQuiet(t.tmp);
      if (t.backup) unlinkQuiet(t.backup);
    }
    throw named(e, temps[landed.length]?.real);
  }
  for (const t of temps) if (t.backup) unlinkQuiet(t.backup);
}

export interface AppendOpts {
  show?: string;
  /** the file's mode when new; an existing file is made this mode too (a log: 0o600) */
  mode?: number;
  /** the mode of directories made on the way (a log's: 0o700) */
  dirMode?: number;
}

/**
 * Append `data` (one whole record, e.g. a JSON line) to the file `abs` below
 * `base`: the path guarded like every write, the last component never a link
 * (O_NOFOLLOW), the file this user's own (foreign_file otherwise) and one
 * write() with O_APPEND, so records appended by several processes at once
 * never interleave. Returns the file's size after the write.
 */
export function appendRecord(
  base: Base | string,
  abs: string,
  data: string | Uint8Array,
  opts: AppendOpts = {},
): number {
  const { fd } = openAppend(base, abs, opts);
  try {
    writeWhole(fd, data, abs, opts);
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

/** The guarded open of appendRecord: the file as it is now, this user's own regular file, in `opts.mode`. */
function openAppend(
  base: Base | string,
  abs: string,
  opts: AppendOpts,
): { fd: number; dev: number; ino: number; size: number } {
  const real = guardParent(base, abs, opts.show);
  mkdirs(base, dirname(real), opts.show, opts.dirMode);
  let fd: number;
  try {
    fd = openSync(
      real,
      constants.O_WRONLY |
        constants.O_APPEND |
        constants.O_CREAT |
        (constants.O_NOFOLLOW ?? 0) |
        (constants.O_NONBLOCK ?? 0),
      opts.mode ?? 0o600,
    );
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ELOOP")
      throw new HcpxError({
        code: "symlink_refused",
        message: "is a symbolic link, expected the log file itself",
        file: opts.show ?? display(abs),
        hint: "remove the link; hcpx appends only to its own file",
      });
    throw named(e, abs);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile())
      throw new HcpxError({
        code: "not_a_file",
        message: "is not a regular file",
        file: opts.show ?? display(abs),
        hint: "move it away; hcpx appends only to its own file",
      });
    if (typeof process.getuid === "function" && st.uid !== process.getuid())
      throw new HcpxError({
        code: "foreign_file",
        message: "is not this user's own file",
        file: opts.show ?? display(abs),
        hint: "hcpx appends only to a file it made: move it away",
      });
    if (opts.mode !== undefined && (st.mode & 0o7777) !== opts.mode) fchmodSync(fd, opts.mode);
    return { fd, dev: st.dev, ino: st.ino, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** One write() of the whole record: a regular file's write is whole or fails (a full disk); a short one is reported, never continued by a second write that another process's record could split. */
function writeWhole(fd: number, data: string | Uint8Array, abs: string, opts: AppendOpts): number {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const n = writeSync(fd, bytes, 0, bytes.length);
  if (n !== bytes.length)
    throw new HcpxError({
      code: "io_error",
      message: `wrote ${n} of ${bytes.length} bytes (disk full?)`,
      file: opts.show ?? display(abs),
    });
  return n;
}

/**
 * appendRecord for a long-lived writer (hcpx mcp: one audit record per
 * call): the file is opened through the same guard once and kept open; each
 * record first checks, with one lstat of the path, that the path still names
 * that very file (device and inode). When it does not — rotated aside by any
 * writer, removed, replaced, or a component of the path changed — the file is
 * opened again through the whole guard (a link there is refused as by
 * appendRecord). A record therefore lands in the file the path names at the
 * check, or (renamed in between, as with appendRecord's open) in the file
 * just renamed aside. Returns the file's size after the write (at least).
 */
export class HeldAppend {
  private held: { fd: number; dev: number; ino: number } | undefined;
  constructor(
    private readonly base: Base | string,
    private readonly abs: string,
    private readonly opts: AppendOpts = {},
  ) {}

  /** Open the file now (the guarded open append would do), unless it is open already. */
  open(): void {
    if (!this.held) this.openHeld();
  }

  /** The guarded open, kept; the file's size now. */
  private openHeld(): number {
    const o = openAppend(this.base, this.abs, this.opts);
    this.held = { fd: o.fd, dev: o.dev, ino: o.ino };
    return o.size;
  }

  append(data: string | Uint8Array): number {
    let size: number | undefined;
    if (this.held) {
      let st;
      try {
        st = lstatSync(this.abs);
      } catch {
        st = undefined;
      }
      if (st && st.dev === this.held.dev && st.ino === this.held.ino && st.isFile()) size = st.size;
      else this.close();
    }
    if (!this.held) size = this.openHeld();
    try {
      return size! + writeWhole(this.held!.fd, data, this.abs, this.opts);
    } catch (e) {
      this.close();
      throw e;
    }
  }

  close(): void {
    if (!this.held) return;
    const fd = this.held.fd;
    this.held = undefined;
    try {
      closeSync(fd);
    } catch {
      /* closed already */
    }
  }
}

/** Rename the file `abs` below `base` to `to` in the same directory (a log's rotation); false when `abs` is gone already. */
export function renameAside(base: Base | string, abs: string, to: string): boolean {
  if (dirname(to) !== dirname(abs)) throw new Error(`renameAside: ${to} is not in the directory of ${abs}`);
  const from = guardParent(base, abs);
  try {
    renameSync(from, join(dirname(from), basename(to)));
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw named(e, abs);
  }
}

/** Write a new file in a folder hcpx just made (staging): refused when anything is at the path. */
export function writeNewFile(base: Base | string, abs: string, data: Uint8Array | string, mode: number): void {
  const real = guard(base, abs);
  mkdirs(base, dirname(real));
  try {
    writeFileSync(real, data, { flag: "wx", mode });
  } catch (e) {
    throw named(e, abs);
  }
}

/**
 * Remove one file below `base` (gone already is fine); a symlink is removed
 * itself, never what it points at. A link leading out of the base is refused
 * unless `linkItself` (caches: a planted link is simply removed).
 */
export function removeFile(base: Base | string, abs: string, show?: string, linkItself = false): void {
  if (!linkItself) guard(base, abs, show);
  unlinkQuiet(guardParent(base, abs, show), true);
}

/** Remove a directory when empty; true when this call removed it (false: not empty, or gone already). */
export function removeEmptyDir(base: Base | string, dir: string): boolean {
  try {
    rmdirSync(guard(base, dir));
    return true;
  } catch {
    return false;
  }
}

/**
 * Remove the tree at `abs` below `base`: refused when a component of its path
 * (the tree itself included) is a link leading outside, or when it is the base
 * itself. A link inside the tree is removed, never followed; so is the tree's
 * own name when it is a link that stays inside (the link goes, not the folder
 * of the project it points at).
 */
export function removeTree(base: Base | string, abs: string, show?: string): void {
  const b = baseOf(base);
  if (guard(b, abs, show) === guard(b, b.dir))
    throw new HcpxError({
      code: "outside_base",
      message: "is the base directory itself, not a folder below it",
      file: show ?? display(abs),
      hint: "hcpx removes only folders it made below the project",
    });
  // guard() followed the last component: the name itself is what goes
  const at = guardParent(b, abs, show);
  let st;
  try {
    st = lstatSync(at);
  } catch {
    return;
  }
  if (st.isSymbolicLink()) unlinkSync(at);
  else rmSync(at, { recursive: true, force: true });
}

/** A new, empty staging folder in `parent` (below `base`): same file system as the target, so a rename swaps it in. */
export function stagingDir(base: Base | string, parent: string, prefix = ".staging-"): string {
  const realParent = mkdirs(base, parent);
  const dir = join(realParent, `${prefix}${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(dir);
  return dir;
}

/**
 * Replace the folder `target` with `staging` (both below `base`): the old one
 * is renamed aside (to `staging` + `aside`), the new one renamed in, then the old one removed; when the
 * second rename fails, the old folder is put back.
 */
export function swapDir(base: Base | string, staging: string, target: string, show?: string, aside?: string): void {
  const old = swapDirKeep(base, staging, target, show, aside);
  if (old) removeTree(base, old);
}

/**
 * swapDir that keeps the old folder aside (its path is returned; undefined when there was none) until
 * the whole change succeeded: then removeTree it, or swapBack to undo the swap. `aside`: the suffix of
 * its name there (src/app/vendor-files.ts asideName: `.kept` for a folder that may be the person's).
 * When it cannot be put back either, the error is the first one, saying where it is (parked).
 */
export function swapDirKeep(
  base: Base | string,
  staging: string,
  target: string,
  show?: string,
  aside = ".old",
): string | undefined {
  // the names themselves are renamed, never what a link there points at
  const realStaging = guardParent(base, staging);
  const realTarget = guardParent(base, target, show);
  guard(base, target, show); // the folder itself may not be a link leading out
  let st;
  try {
    st = lstatSync(realTarget);
  } catch {
    st = undefined;
  }
  let old: string | undefined;
  if (st) {
    old = `${realStaging}${aside}`;
    renameSync(realTarget, old);
    writeStep();
  }
  try {
    renameSync(realStaging, realTarget);
  } catch (e) {
    if (old)
      try {
        renameSync(old, realTarget);
      } catch (again) {
        // the first error is the one reported, with where the old folder now is
        throw parked(e, old, target, again);
      }
    throw e;
  }
  writeStep();
  return old;
}

/** Undo swapDirKeep: the folder swapped in at `target` removed, and the old one (if there was one) renamed back. */
export function swapBack(base: Base | string, old: string | undefined, target: string, show?: string): void {
  try {
    removeTree(base, target, show);
    if (old) renameSync(guardParent(base, old), guardParent(base, target, show));
  } catch (e) {
    throw old ? parked(e, old, target) : e;
  }
}

/**
 * `first` (what made the swap or its undo fail; its code kept) told with where the old folder of
 * `target` was left (`old`), why it could not be put back (`again`, when that was a second failure)
 * and how to move it back by hand (src/util/ioerror.ts toldWithLeft).
 */
function parked(first: unknown, old: string, target: string, again?: unknown): unknown {
  const why = again === undefined ? "" : ` (${errorLine(again)})`;
  const at = `the folder that was at ${display(target)} is left at ${display(old)}: it could not be put back${why}`;
  const todo =
    `move it back by hand: move away what is at ${display(target)} now (if anything), ` +
    `then rename ${display(old)} to ${display(target)}`;
  return toldWithLeft(first, at, todo);
}

/** A fresh private scratch folder under the OS temp dir (a fetch's download); remove it with removeScratch. */
export function scratchDir(prefix: string): string {
  const { tmpdir } = process.getBuiltinModule("node:os") as typeof import("node:os");
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Remove a folder made by scratchDir (its own base: nothing outside it is touched). */
export function removeScratch(dir: string): void {
  const { tmpdir } = process.getBuiltinModule("node:os") as typeof import("node:os");
  if (dirname(dir) !== tmpdir() || !basename(dir).startsWith("hcpx-"))
    throw new Error(`removeScratch: ${dir} is not a scratch folder made by scratchDir`);
  rmSync(dir, { recursive: true, force: true });
}

function unlinkQuiet(file: string, rethrow = false): void {
  try {
    unlinkSync(file);
  } catch (e) {
    if (rethrow && (e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

/** Name the file being written on an errno error (a temp file's name means nothing to a user): src/util/ioerror.ts reports it. */
function named(e: unknown, file: string | undefined): unknown {
  if (file && e && typeof e === "object" && typeof (e as NodeJS.ErrnoException).code === "string")
    (e as NodeJS.ErrnoException).path = file;
  return e;
}

/**
 * The base for a folder the person named (`pack new --dir`, `--out`, a pack to
 * edit): the working directory when the folder is below it (so a link on the
 * way out of it is refused), else the folder itself (nothing in it may lead out).
 */
export function baseForDir(dir: string, cwd = process.cwd()): Base {
  const rel = relative(cwd, dir);
  const below = rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
  return below ? { dir: cwd, label: "the working directory" } : { dir, label: "the pack directory" };
}

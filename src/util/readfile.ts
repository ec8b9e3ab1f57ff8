// Reading a file hcpx was told to read (a pack's surface.json, policy.json or
// SKILL.md, a config): only a regular file, only up to a size cap, and never a
// blocking open. A FIFO, a device, a socket or a directory where such a file
// should be is a clear error naming it, not a hang (`readFileSync` on a FIFO
// blocks the whole process, `hcpx mcp` included) or a multi-GB read
// (/dev/zero). The open is O_NONBLOCK, so opening a FIFO returns at once; the
// fstat of the open descriptor then decides (no race between a stat and the
// open). On the exec path: node:fs only.
import { isUtf8 } from "node:buffer";
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  type BigIntStats,
  type Stats,
} from "node:fs";
import { HcpxError } from "./errors";
import { walkInside } from "./walk";
import { resolved } from "./paths";

/** Size caps (bytes) of what hcpx reads; the README's "Security model" lists them. */
export const CAPS = {
  /** surface.json, policy.json */
  pack: 4 * 1024 * 1024,
  /** hcp.config.json5 (project and user) */
  config: 1024 * 1024,
  /** SKILL.md */
  skill: 1024 * 1024,
  /** .hcp/adopted.json and the user's adopted.json (the adopt ledger) */
  ledger: 4 * 1024 * 1024,
  /** an OpenAPI document given to `pack from-openapi` */
  openapi: 32 * 1024 * 1024,
  /** a host's config file (adopt, import), hcp.lock, a manifest */
  host: 16 * 1024 * 1024,
  /** a lock file (adopt.lock, a config's .lock): a pid, a nonce and a short journal */
  lockFile: 1024 * 1024,
  /** a cache entry (V8 code cache, validation cache) */
  cache: 64 * 1024 * 1024,
} as const;

const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

function kindOf(st: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  return "not a regular file";
}

/** What an errno means for a file we meant to read, in words. */
export function errnoWords(code: string | undefined): string {
  switch (code) {
    case "ENOENT":
      return "file not found";
    case "EISDIR":
      return "is a directory, expected a file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ENXIO":
      return "is a socket or a device without a reader, expected a file";
    case "ELOOP":
      return "is a symbolic link loop";
    case "ENOTDIR":
      return "a parent of this path is not a directory";
    case "EIO":
      return "input/output error";
    default:
      return `cannot read (${code ?? "unknown error"})`;
  }
}

export interface ReadOpts {
  /** also the open file's identity (device, inode, size, mtime and ctime in ns) */
  identity?: { id?: string };
  /** also the open file's fstat, as taken for the checks (the bigint one with `identity`), before the read */
  opened?: { st?: Stats | BigIntStats };
  /**
   * The symlink policy of the file's base: every component of the path, the
   * last one included, must stay inside realpath(base) (src/util/walk.ts);
   * `symlink_refused` / `outside_base` / `not_a_directory` otherwise.
   */
  base?: string;
  /** how the base is named in a refusal ("the project", "the cache") */
  baseLabel?: string;
  /** the last component may not be a symlink at all (O_NOFOLLOW): caches */
  noFollow?: boolean;
  /** the file must be this user's own and writable by no one else (caches): `foreign_file` otherwise */
  ownerOnly?: boolean;
}

/**
 * The text of `file` (UTF-8), or an HcpxError naming `shown`: code
 * `missing_file` (ENOENT), `not_a_file` (FIFO, device, socket, directory),
 * `file_too_large` (over `maxBytes`) or `unreadable_file`. With `identity`, also
 * the open file's identity (device, inode, size, mtime and ctime in ns), which
 * changes whenever its content does: the kernel sets ctime on every write, and
 * nobody can set it back (src/pack/validcache.ts keys on it).
 */
export function readTextFile(
  file: string,
  shown: string,
  maxBytes: number,
  identity?: { id?: string },
  opts?: ReadOpts,
): string {
  // decoded at once from the reader's one reused buffer (a new buffer per file was ~1% of generate at 5,000 packs)
  return readBytes(file, shown, maxBytes, identity ? { ...opts, identity } : opts, true).toString("utf8");
}

/**
 * A file read from disk, as the validation cache keys it (src/pack/validcache.ts; Json5Doc.id): its
 * absolute path, then the identity readTextFile gave (or one stat took) when it was read.
 */
export function fileId(file: string, identity: string): string {
  return `${resolved(file)}\0${identity}`;
}

/**
 * A file's identity from a bigint stat: device, inode, size, mtime and ctime in ns (a write on a local disk
 * changes the ctime, which no one can set back; not on every file system: the validation cache compares the
 * text too, src/pack/validcache.ts). readTextFile's `identity` gives this form. (src/util/stamp.ts identityOf
 * is the ms form of a plain stat, for the answers kept only once a file has settled.)
 */
function nsIdentity(b: BigIntStats): string {
  return `${b.dev}:${b.ino}:${b.size}:${b.mtimeNs}:${b.ctimeNs}`;
}

/**
 * The byte offset of the first byte of `buf` that is not UTF-8, or -1 when it all is. A U+FFFD written
 * as its own three bytes is text, not an invalid byte.
 */
export function invalidUtf8Offset(buf: Buffer): number {
  if (isUtf8(buf)) return -1;
  const loose = buf.toString("utf8");
  let offset = 0;
  for (let i = loose.indexOf("\ufffd"); i >= 0; i = loose.indexOf("\ufffd", i + 1)) {
    offset = Buffer.byteLength(loose.slice(0, i));
    if (!(buf[offset] === 0xef && buf[offset + 1] === 0xbf && buf[offset + 2] === 0xbd)) break;
  }
  return offset;
}

/**
 * readTextFile for a file the command writes back (a config edit, pack add-verb, pack sync): text that is
 * not UTF-8 is `not_utf8`, never decoded lossily (the write would replace its bytes with U+FFFD).
 */
export function readTextToEdit(file: string, shown: string, maxBytes: number): string {
  const buf = readBytes(file, shown, maxBytes);
  const offset = invalidUtf8Offset(buf);
  if (offset >= 0)
    throw new HcpxError({
      code: "not_utf8",
      message: `is not UTF-8 text (invalid byte at offset ${offset}); left untouched`,
      file: shown,
      hint: "hcpx edits UTF-8 text only: convert the file to UTF-8, then run the command again",
    });
  return buf.toString("utf8");
}

/** readTextFile, undefined when the file does not exist (any other problem is still an error). */
export function readTextIfExists(file: string, shown: string, maxBytes: number, opts?: ReadOpts): string | undefined {
  try {
    return readTextFile(file, shown, maxBytes, undefined, opts);
  } catch (e) {
    if (e instanceof HcpxError && e.problems[0]?.code === "missing_file") return undefined;
    throw e;
  }
}

/**
 * The bytes of a regular file, bounded: the one reader behind readTextFile (see there). `scratch`: they may be
 * a view of the one buffer the next read reuses (readTextFile decodes them at once).
 */
export function readBytes(file: string, shown: string, maxBytes: number, opts?: ReadOpts, scratch = false): Buffer {
  if (opts?.base !== undefined) {
    const w = walkInside(file, opts.base, opts.baseLabel);
    if (!("real" in w)) throw new HcpxError({ ...w.problem, file: shown });
  }
  const fd = openToRead(file, shown, opts?.noFollow === true);
  try {
    // one fstat: with `identity`, the bigint one (its ns times) serves the checks too
    const b = opts?.identity ? fstatSync(fd, { bigint: true }) : undefined;
    const st = b ?? fstatSync(fd);
    checkOpened(st, shown, maxBytes, opts);
    if (opts?.opened) opts.opened.st = st;
    if (b && opts?.identity) {
      // taken before the read: a write during the read changes the file's ctime, so the text
      // read is never filed under an identity the file has after it
      opts.identity.id = nsIdentity(b);
    }
    return readToEnd(fd, Number(st.size), shown, maxBytes, scratch);
  } finally {
    closeSync(fd);
  }
}

/** open(2) for reading, never blocking on a FIFO; with noFollow a link is refused. */
function openToRead(file: string, shown: string, noFollow: boolean): number {
  try {
    return openSync(file, constants.O_RDONLY | O_NONBLOCK | (noFollow ? O_NOFOLLOW : 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP" && noFollow)
      throw new HcpxError({
        code: "symlink_refused",
        message: "is a symbolic link, expected a regular file",
        file: shown,
        hint: "hcpx does not read this file through a link: remove the link",
      });
    if (code === "ENOENT" && isSymlink(file))
      throw new HcpxError({
        code: "missing_file",
        message: "is a symbolic link whose target does not exist",
        file: shown,
        hint: "point the link at the file, or replace it with the file itself",
      });
    throw new HcpxError({
      code: code === "ENOENT" ? "missing_file" : code === "ENXIO" ? "not_a_file" : "unreadable_file",
      message: errnoWords(code),
      file: shown,
      ...(code === "ELOOP"
        ? { hint: "the link leads back to itself: point it at the file, or replace it with the file" }
        : {}),
    });
  }
}

/** Whether `path` itself is a symbolic link (one that leads nowhere included: existsSync says false for it). */
function isSymlink(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
}

/** Whether something is at `path` for the reader to open: a file, or a link even when it leads nowhere (the read then says why). */
export function isThere(path: string): boolean {
  return existsSync(path) || isSymlink(path);
}

/** What was opened is a regular file of bounded size (and, ownerOnly, this user's own and not writable by others). */
function checkOpened(st: Stats | BigIntStats, shown: string, maxBytes: number, opts: ReadOpts | undefined): void {
  if (!st.isFile())
    throw new HcpxError({
      code: "not_a_file",
      message: `is ${kindOf(st)}, expected a regular file`,
      file: shown,
      hint: "replace it with the file itself",
    });
  if (
    opts?.ownerOnly &&
    ((typeof process.getuid === "function" && Number(st.uid) !== process.getuid()) || (Number(st.mode) & 0o022) !== 0)
  ) {
    throw new HcpxError({
      code: "foreign_file",
      message: "is not this user's own file (another owner, or writable by others)",
      file: shown,
      hint: "hcpx trusts a cache only when it wrote it: delete the file",
    });
  }
  if (Number(st.size) > maxBytes)
    throw new HcpxError({
      code: "file_too_large",
      message: `is ${st.size} bytes, more than the ${maxBytes} bytes hcpx reads from such a file`,
      file: shown,
      hint: "this is not a file hcpx wrote or expects; check what is at this path",
    });
}

/**
 * Read until EOF, but never more than the cap + 1 (a file that grows while being read is still bounded).
 * A file of `size` bytes (its fstat) is read into one buffer of `size` + 1 bytes (the cap bounds it): a
 * regular file that answers exactly `size` bytes to that is at its end, usually after one read(2) (one
 * that grew fills the extra byte and the buffer grows; any other short read is read on too, until
 * read(2) answers 0). One buffer, not 1 MB chunks joined after: `hcpx mcp` reads its ~4 MB code cache
 * and ~1.3 MB bundle without copying them again (Buffer.concat was ~2.4 ms of its start, cpu-prof).
 */
function readToEnd(fd: number, size: number, shown: string, maxBytes: number, scratch = false): Buffer {
  const want = Math.min(Math.max(size, 0), maxBytes) + 1;
  let buf = scratch && want <= SCRATCH_MAX ? scratchOf(want) : Buffer.allocUnsafe(want);
  let n = 0;
  for (;;) {
    if (n === buf.length) {
      // more than fstat said: the file grew while read (or its size was not its length); read on in
      // up to 1 MiB more at a time, never past the cap + 1
      if (n > maxBytes)
        throw new HcpxError({
          code: "file_too_large",
          message: `is more than the ${maxBytes} bytes hcpx reads from such a file`,
          file: shown,
          hint: "this is not a file hcpx wrote or expects; check what is at this path",
        });
      const more = Buffer.allocUnsafe(Math.min(maxBytes + 1, n + 1024 * 1024));
      buf.copy(more, 0, 0, n);
      buf = more;
    }
    const got = readChunk(fd, buf, n, buf.length - n, null, shown);
    if (got === 0) break;
    n += got;
    if (n === size && n < buf.length) break;
  }
  return buf.subarray(0, n);
}

/** The reused read buffer (up to SCRATCH_MAX: a larger file gets a buffer of its own), `n` bytes of it. */
const SCRATCH_MAX = 256 * 1024;
let scratchBuf = Buffer.allocUnsafeSlow(0);
const scratchOf = (n: number): Buffer =>
  (scratchBuf = scratchBuf.length < n ? Buffer.allocUnsafeSlow(Math.max(8192, 2 * n)) : scratchBuf).subarray(0, n);

/** How much of a file readLines holds at a time (besides the line being gathered). */
const LINE_CHUNK = 64 * 1024;

/**
 * The lines of a regular file (the same open and checks as readBytes, no size cap), read in LINE_CHUNK pieces up
 * to the size it had when opened, so memory stays bounded however large the file: `onLine` gets each line ending
 * in a newline (UTF-8, without it), or undefined for one longer than `maxLine` bytes (never held whole). Answers
 * whether the file ends in a part without a newline (a line still being written, or torn).
 */
export function readLines(
  file: string,
  shown: string,
  maxLine: number,
  onLine: (line: string | undefined) => void,
  opts?: ReadOpts,
): { torn: boolean } {
  if (opts?.base !== undefined) {
    const w = walkInside(file, opts.base, opts.baseLabel);
    if (!("real" in w)) throw new HcpxError({ ...w.problem, file: shown });
  }
  const fd = openToRead(file, shown, opts?.noFollow === true);
  try {
    const st = fstatSync(fd);
    checkOpened(st, shown, Infinity, opts);
    const buf = Buffer.allocUnsafe(LINE_CHUNK);
    let parts: Buffer[] = [];
    let held = 0;
    let over = false;
    const take = (piece: Buffer) => {
      if (over || piece.length === 0) return;
      if (held + piece.length > maxLine) {
        [over, parts, held] = [true, [], 0];
        return;
      }
      parts.push(Buffer.from(piece)); // a copy: buf is read into again
      held += piece.length;
    };
    for (let pos = 0; pos < st.size;) {
      const got = readChunk(fd, buf, 0, Math.min(LINE_CHUNK, st.size - pos), pos, shown);
      if (got === 0) break;
      pos += got;
      const chunk = buf.subarray(0, got);
      let start = 0;
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
        take(chunk.subarray(start, nl));
        onLine(over ? undefined : Buffer.concat(parts, held).toString("utf8"));
        [over, parts, held, start] = [false, [], 0, nl + 1];
      }
      take(chunk.subarray(start));
    }
    return { torn: over || held > 0 };
  } finally {
    closeSync(fd);
  }
}

/** readSync into `buf` at `offset` (`position` null: from the file's offset), its error said as `unreadable_file`. */
function readChunk(
  fd: number,
  buf: Buffer,
  offset: number,
  length: number,
  position: number | null,
  shown: string,
): number {
  try {
    return readSync(fd, buf, offset, length, position);
  } catch (e) {
    throw new HcpxError({
      code: "unreadable_file",
      message: errnoWords((e as NodeJS.ErrnoException).code),
      file: shown,
    });
  }
}

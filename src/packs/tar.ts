// Reading a tar archive we did not make (an npm tarball, `git archive`):
// what is in it is untrusted. Only regular files and directories are taken;
// a symlink, hard link, device or FIFO refuses the whole archive, as does a
// path that is absolute, has `..`, a backslash, a NUL or a control character,
// or names one file twice. Sizes are capped before anything is written, and
// files are created with O_EXCL under a fresh directory, so nothing lands
// outside it. Nor is a `.git` at any depth taken (a shell prompt's or an editor's
// git run in the vendored folder would read its config: core.fsmonitor, hooks).
// npm tarballs wrap their files in one top-level folder
// (`package/`): `stripTop` removes it.
import { gunzipSync } from "node:zlib";
import { entriesOf } from "../util/dirents";
import { writeNewFile } from "../util/door";
import { join } from "node:path";
import { HcpxError } from "../util/errors";

export const LIMITS = {
  /** a compressed archive */
  archiveBytes: 32 * 1024 * 1024,
  /** all files together, uncompressed */
  totalBytes: 64 * 1024 * 1024,
  /** one file */
  fileBytes: 16 * 1024 * 1024,
  files: 5000,
  /** files and folders together, as a vendored pack's folder is read (namesWithin) */
  entries: 10000,
};

/**
 * The names in `dir`, sorted, each taken from `left.entries` (past it, `over`): a
 * folder is read entry by entry, so one far larger than a pack is not listed whole (hashTree, pathFetch).
 */
export function namesWithin(dir: string, left: { entries: number }, over: () => never): string[] {
  const names: string[] = [];
  for (const e of entriesOf(dir)) {
    if (--left.entries < 0) over();
    names.push(e.name);
  }
  return names.sort();
}

export interface TarEntry {
  path: string;
  data: Buffer;
  executable: boolean;
}

const bad = (message: string, hint = "the pack's archive is refused whole; nothing was written"): never => {
  throw new HcpxError({ code: "unsafe_archive", message, hint });
};

function cstr(b: Buffer, start: number, len: number): string {
  const s = b.subarray(start, start + len);
  const nul = s.indexOf(0);
  return s.subarray(0, nul < 0 ? s.length : nul).toString("utf8");
}

function octal(b: Buffer, start: number, len: number, what: string): number {
  if (b[start]! & 0x80) bad(`a tar header's ${what} uses base-256 (a file over 8 GiB)`);
  const s = cstr(b, start, len).trim();
  if (s === "") return 0;
  if (!/^[0-7]+$/.test(s)) bad(`a tar header's ${what} is not octal: ${JSON.stringify(s)}`);
  return parseInt(s, 8);
}

/** A relative path that stays where it is put: no absolute, `..`, `.`, backslash, NUL or control characters. */
export function safeRelPath(p: string): string | undefined {
  if (p.length === 0 || p.length > 1024) return undefined;
  if (/[\u0000-\u001f\u007f\\]/.test(p)) return undefined;
  if (p.startsWith("/") || /^[A-Za-z]:/.test(p)) return undefined;
  const parts = p.split("/").filter((x, i, a) => !(x === "" && i === a.length - 1));
  if (parts.some((x) => x === "" || x === "." || x === "..")) return undefined;
  return parts.join("/");
}

function paxRecords(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < data.length) {
    const sp = data.indexOf(0x20, i);
    if (sp < 0) break;
    const len = Number(data.subarray(i, sp).toString("ascii"));
    if (!Number.isInteger(len) || len <= 0 || i + len > data.length) bad("a pax header record is malformed");
    const rec = data.subarray(sp + 1, i + len - 1).toString("utf8");
    const eq = rec.indexOf("=");
    if (eq > 0) out[rec.slice(0, eq)] = rec.slice(eq + 1);
    i += len;
  }
  return out;
}

/** Parse a tar (gzip-compressed when `gzip`) into its regular files; refuses anything unsafe. */
export function readTar(archive: Buffer, opts: { gzip: boolean; label: string }): TarEntry[] {
  if (archive.length > LIMITS.archiveBytes)
    bad(`${opts.label} is ${archive.length} bytes, over the ${LIMITS.archiveBytes}-byte limit`);
  let tar: Buffer = archive;
  if (opts.gzip) {
    try {
      tar = gunzipSync(archive, { maxOutputLength: LIMITS.totalBytes + LIMITS.files * 1024 + 1024 * 1024 });
    } catch (e) {
      bad(
        `${opts.label} does not gunzip (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): corrupt, or larger than ${LIMITS.totalBytes} bytes unpacked`,
      );
    }
  }
  const entries: TarEntry[] = [];
  const seen = new Set<string>();
  let total = 0;
  let off = 0;
  let longName: string | undefined;
  let pax: Record<string, string> = {};
  while (off + 512 <= tar.length) {
    const h = tar.subarray(off, off + 512);
    if (h.every((x) => x === 0)) break;
    // header checksum: the sum of its bytes, the checksum field counted as spaces
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!;
    if (octal(h, 148, 8, "checksum") !== sum) bad(`${opts.label}: a tar header's checksum is wrong (corrupt archive)`);
    const size = octal(h, 124, 12, "size");
    const type = String.fromCharCode(h[156]!);
    const dataStart = off + 512;
    const dataEnd = dataStart + size;
    if (dataEnd > tar.length) bad(`${opts.label} ends inside a file (truncated archive)`);
    const data = tar.subarray(dataStart, dataEnd);
    off = dataStart + Math.ceil(size / 512) * 512;
    if (type === "x") {
      pax = paxRecords(data);
      continue;
    }
    if (type === "g") continue;
    if (type === "L") {
      longName = cstr(data, 0, data.length);
      continue;
    }
    const magic = cstr(h, 257, 6);
    const prefix = magic.startsWith("ustar") ? cstr(h, 345, 155) : "";
    let name = pax.path ?? longName ?? (prefix ? `${prefix}/${cstr(h, 0, 100)}` : cstr(h, 0, 100));
    if (type === "K" || pax.linkpath !== undefined) bad(`${opts.label}: '${name}' is a link`);
    pax = {};
    longName = undefined;
    if (type === "5") continue; // directories are made as files need them
    if (type !== "0" && type !== "\0" && type !== "7") {
      const what =
        type === "2"
          ? "a symbolic link"
          : type === "1"
            ? "a hard link"
            : type === "3" || type === "4"
              ? "a device"
              : type === "6"
                ? "a FIFO"
                : `an entry of type '${type}'`;
      bad(`${opts.label}: '${name}' is ${what}; a pack from elsewhere may hold regular files only`);
    }
    const safe = safeRelPath(name);
    if (!safe) bad(`${opts.label}: the path ${JSON.stringify(name)} is unsafe (absolute, '..', or odd characters)`);
    name = safe!;
    if (seen.has(name)) bad(`${opts.label}: '${name}' appears twice`);
    seen.add(name);
    if (size > LIMITS.fileBytes)
      bad(`${opts.label}: '${name}' is ${size} bytes, over the ${LIMITS.fileBytes}-byte limit for one file`);
    total += size;
    if (total > LIMITS.totalBytes) bad(`${opts.label} unpacks to more than ${LIMITS.totalBytes} bytes`);
    if (entries.length >= LIMITS.files) bad(`${opts.label} has more than ${LIMITS.files} files`);
    const mode = octal(h, 100, 8, "mode");
    entries.push({ path: name, data: Buffer.from(data), executable: (mode & 0o111) !== 0 });
  }
  return entries;
}

/** Drop the one top-level folder every entry is in (npm's `package/`). */
export function stripTop(entries: TarEntry[], label: string): TarEntry[] {
  if (entries.length === 0) return entries;
  const tops = new Set(entries.map((e) => (e.path.includes("/") ? e.path.slice(0, e.path.indexOf("/")) : "")));
  if (tops.size !== 1 || tops.has(""))
    bad(`${label}: the files are not all in one top-level folder, as in an npm tarball`);
  return entries.map((e) => ({ ...e, path: e.path.slice(e.path.indexOf("/") + 1) }));
}

/**
 * Write entries under `dir` (which must be new and empty): O_EXCL, no links, parents made as needed. The tree
 * they make, its folders counted, is at most what namesWithin reads of a vendored pack (LIMITS.entries), so
 * every pack hcpx vendors can be hashed against hcp.lock again (src/packs/lock.ts hashTree).
 */
export function writeEntries(dir: string, entries: readonly TarEntry[]): void {
  const folders = new Set<string>();
  for (const e of entries)
    for (let i = e.path.indexOf("/"); i !== -1; i = e.path.indexOf("/", i + 1)) folders.add(e.path.slice(0, i));
  if (entries.length + folders.size > LIMITS.entries)
    bad(`the pack holds more than ${LIMITS.entries} entries (${entries.length} files in ${folders.size} folders)`);
  const git = entries.find((e) => e.path.split("/").some((part) => part.toLowerCase() === ".git"));
  if (git)
    bad(
      `the pack holds '${git.path}': a git directory (or a .git file naming one), whose config and hooks any git command started in the vendored folder would run`,
      "a pack from elsewhere may not hold a .git; nothing was written",
    );
  for (const e of entries) {
    const safe = safeRelPath(e.path);
    if (!safe) bad(`unsafe path ${JSON.stringify(e.path)}`);
    const file = join(dir, ...safe!.split("/"));
    try {
      // the one write door, with the staging folder as its base
      writeNewFile({ dir, label: "the staging folder" }, file, e.data, e.executable ? 0o755 : 0o644);
    } catch (err) {
      bad(
        `cannot write '${safe}' (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): a file and a folder of the same name, or a name given twice`,
      );
    }
  }
}

// hcp.lock: what `hcpx pack add` vendored, so that `hcpx pack install`
// restores exactly that. One entry per pack id: the source (npm spec and the
// version and tarball integrity it resolved to, git URL and the commit, or a
// path), and the sha256 of every file of the vendored pack. The lock is read
// back as untrusted input: a strict schema (an unknown key is an error), ids
// that are pack ids, file paths that stay inside the pack's folder under the
// packs dir.
import { createHash } from "node:crypto";
import { existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { guard, writeFile } from "../util/door";
import { readBytes } from "../util/readfile";
import { HcpxError } from "../util/errors";
import { display } from "../util/paths";
import { PACK_ID_RE } from "../pack/schema";
import { validate } from "../pack/validate";
import { readJson5 } from "../pack/json5";
import { acquireLock } from "../util/fsio";
import { hold, isHeld } from "../util/held";
import { LIMITS, namesWithin, safeRelPath } from "./tar";

export const LOCK_NAME = "hcp.lock";
/** Where vendored packs live, relative to the project root: `.hcp/packs/<id>`. */
export const PACKS_DIR = ".hcp/packs";

const Hash = z.string().check(z.regex(/^sha256-[A-Za-z0-9+/]{43}=$/, "a file hash is sha256-<base64>"));
const SourceSchema = z.union([
  z.strictObject({
    type: z.literal("npm"),
    /** what was asked for: a registry spec (`@scope/name@^1`) or a tarball path relative to the project */
    spec: z.string().check(z.minLength(1)),
    /** registry: `name@version`, what install fetches; tarball: the same path as spec */
    resolved: z.string().check(z.minLength(1)),
    version: z.string().check(z.minLength(1)),
    /** the tarball's integrity as npm computes it (sha512-…) */
    integrity: z.string().check(z.regex(/^sha512-[A-Za-z0-9+/]+={0,2}$/, "an npm integrity is sha512-<base64>")),
  }),
  z.strictObject({
    type: z.literal("git"),
    url: z.string().check(z.minLength(1)),
    ref: z.optional(z.string().check(z.minLength(1))),
    commit: z.string().check(z.regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "a commit is 40 (or 64) hex digits")),
  }),
  z.strictObject({
    type: z.literal("path"),
    /** relative to the project root (or absolute) */
    path: z.string().check(z.minLength(1)),
  }),
]);
export type Source = z.infer<typeof SourceSchema>;

const EntrySchema = z.strictObject({
  source: SourceSchema,
  /** the pack's own version (surface.json) */
  version: z.string(),
  files: z.record(z.string(), Hash),
});
export type LockEntry = z.infer<typeof EntrySchema>;

const LockSchema = z.strictObject({
  lockfileVersion: z.literal(1),
  packs: z.record(z.string(), EntrySchema),
});
export type Lock = z.infer<typeof LockSchema>;

export function lockFile(root: string): string {
  return join(root, LOCK_NAME);
}

export function packDir(root: string, id: string): string {
  if (!PACK_ID_RE.test(id))
    throw new HcpxError({
      code: "bad_lock",
      message: `'${id}' is not a pack id`,
      file: LOCK_NAME,
      hint: "a pack id matches ^[a-z][a-z0-9-]{0,31}$",
    });
  return join(packsRoot(root, display(join(root, ...PACKS_DIR.split("/"), id))), id);
}

/**
 * `.hcp/packs` under `root`, refused (`symlink_refused`, naming `show`) when it or `.hcp` is a link: the folder is
 * hcpx's own (everything in it is replaced from hcp.lock), so a link there, even one that stays inside the project
 * (`.hcp/packs -> ..`), would make a folder of the project's a vendored pack's, replaced by `pack install`.
 */
export function packsRoot(root: string, show?: string): string {
  let dir = root;
  for (const part of PACKS_DIR.split("/")) {
    dir = join(dir, part);
    if (lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink())
      throw new HcpxError({
        code: "symlink_refused",
        message: `${display(dir)} is a symbolic link; the folder of vendored packs is hcpx's own`,
        file: show ?? display(dir),
        hint: "remove the link: `hcpx pack install` fetches what hcp.lock records into a folder of its own",
      });
  }
  return dir;
}

/** Read and check hcp.lock (an empty lock when there is none). */
export function readLock(root: string): Lock {
  const file = lockFile(root);
  // a planted hcp.lock that is a link leading out of the project is refused, not read
  guard({ dir: root }, file, display(file));
  if (!existsSync(file)) return { lockfileVersion: 1, packs: {} };
  const doc = readJson5(file, display(file));
  const v = validate(LockSchema, doc.value, doc.file, doc.text);
  // zod/mini strictObject: unknown keys are already errors here (validate reports them as such for the lock)
  const bad = v.warnings;
  if (bad.length)
    throw new HcpxError(
      bad.map((p) => ({
        ...p,
        severity: "error" as const,
        hint: "hcp.lock is written by hcpx; an unknown key means it was edited or is from a newer hcpx",
      })),
    );
  for (const [id, e] of Object.entries(v.data.packs)) {
    if (!PACK_ID_RE.test(id))
      throw new HcpxError({
        code: "bad_lock",
        message: `'${id}' is not a pack id`,
        file: doc.file,
        path: `packs.${id}`,
        hint: "a pack id matches ^[a-z][a-z0-9-]{0,31}$; hcp.lock is written by hcpx",
      });
    for (const f of Object.keys(e.files)) {
      if (safeRelPath(f) !== f)
        throw new HcpxError({
          code: "bad_lock",
          message: `file path ${JSON.stringify(f)} of pack '${id}' would leave the pack's folder`,
          file: doc.file,
          path: `packs.${id}.files`,
          hint: "hcp.lock lists paths inside .hcp/packs/<id> only; restore it from version control",
        });
    }
  }
  return v.data;
}

/**
 * Read hcp.lock to change it: its read-modify-write is serialised by a lock file next to it
 * (`.hcp.lock.lock`), taken here and held until the command is done (src/util/held.ts), as a
 * config edit's is (src/config/file.ts), so two vendoring commands racing never lose an entry.
 * Take it before the config's edit lock (one order, so two commands never wait on each other's).
 */
export function openLock(root: string): Lock {
  const file = lockFile(root);
  const key = `hcp-lock:${file}`;
  if (!isHeld(key)) {
    const lock = join(root, `.${LOCK_NAME}.lock`);
    hold(key, acquireLock(lock, display(lock), "hcpx command changing hcp.lock (pack add, install, update, remove)"));
  }
  return readLock(root);
}

export function writeLock(root: string, lock: Lock): void {
  const packs: Record<string, LockEntry> = {};
  for (const id of Object.keys(lock.packs).sort()) {
    const e = lock.packs[id]!;
    const files: Record<string, string> = {};
    for (const f of Object.keys(e.files).sort()) files[f] = e.files[f]!;
    packs[id] = { source: e.source, version: e.version, files };
  }
  writeFile({ dir: root }, lockFile(root), JSON.stringify({ lockfileVersion: 1, packs }, null, 2) + "\n");
}

export function hashBytes(b: Buffer): string {
  return `sha256-${createHash("sha256").update(b).digest("base64")}`;
}

/**
 * sha256 of every regular file under `dir`; a link or special file is an error (vendored packs hold files only),
 * and so is a tree larger than a fetch may bring (LIMITS: files, bytes): no copy hcpx made is, and a folder in
 * a repository may hold anything. A folder is read entry by entry, so a huge one is not listed whole.
 */
export function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const left = { entries: LIMITS.entries, files: LIMITS.files, bytes: LIMITS.totalBytes };
  const over = (what: string): never => {
    throw new HcpxError({
      code: "unsafe_file",
      message: `it holds more than ${what}, more than a pack hcpx fetches may`,
      file: display(dir),
      hint: "a vendored pack is what `hcpx pack install` fetched; run it to restore the locked files",
    });
  };
  const walk = (abs: string, rel: string) => {
    for (const name of namesWithin(abs, left, () => over(`${LIMITS.entries} entries`))) {
      const a = join(abs, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(a);
      if (st.isDirectory()) walk(a, r);
      else if (st.isFile()) {
        if (--left.files < 0) over(`${LIMITS.files} files`);
        if ((left.bytes -= st.size) < 0) over(`${LIMITS.totalBytes} bytes`);
        out[r] = hashBytes(readBytes(a, display(a), LIMITS.fileBytes, { noFollow: true }));
      } else
        throw new HcpxError({
          code: "unsafe_file",
          message: `'${r}' is not a regular file (a link or a special file)`,
          file: display(a),
          hint: "a vendored pack holds regular files only; run `hcpx pack install` to restore it",
        });
    }
  };
  walk(dir, "");
  return out;
}

/** The files whose hashes differ, are missing or are extra, as `path (why)`. */
export function diffHashes(want: Record<string, string>, got: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [f, h] of Object.entries(want)) {
    if (!Object.hasOwn(got, f)) out.push(`${f} (missing)`);
    else if (got[f] !== h) out.push(`${f} (changed)`);
  }
  for (const f of Object.keys(got)) if (!Object.hasOwn(want, f)) out.push(`${f} (not in the lock)`);
  return out;
}

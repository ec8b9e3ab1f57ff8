// What findPack (src/pack/load.ts) learned about the other packs of a call:
// for one called id and one list of activated pack directories, the identity
// (device, inode, size, mtime and ctime) each other pack's surface.json had
// when its text was found not to declare the id. The next `hcpx exec` of that
// id in that project then takes one stat per other pack instead of an open,
// fstat, read and close and a search of its bytes.
//
// One entry per (build, id, pack list) in `surface-ids/<slot>.json`, next to
// the validation cache's `validated/` (src/pack/validcache.ts: the same switch
// and racy rule; keyed on the command bundle's build hash too, since the
// answer is this build's text check's, not its schemas') and read and written as it is
// (src/util/cache.ts: framed, kept twice, this user's own regular file, never
// a link). `{ key, skip, names }`: `key` names the build, the id and every pack
// directory in order, and must equal the key looked for; `skip[i]` is
// [dev, ino, size, mtimeMs, ctimeMs] of packDirs[i]'s surface.json when its
// text, read through the descriptor those came from, was found not to declare
// the id, else null; `names[i]` the Binding names that same text reads
// (binding-names.ts), whose values exec hides as the called pack's (an entry
// without them, or with a remembered file's missing, is a miss). An answer is used only while a stat of the file (a link
// followed, as the read follows it) gives exactly those five numbers, and
// only a file that had settled when it was read is remembered (RACY_MS,
// src/util/stamp.ts: two same-size writes within one clock tick leave every
// field as it was; any later change, a replacement or a link put there
// included, gives the file at that path another inode or a ctime at least a
// second later than the one kept, and no one can set a ctime back). A miss of
// any kind (no entry, another key, another number) is the full check, and a
// file whose text may declare the id is never remembered: it is parsed, and
// loaded when it declares the id, on every call. The plain stat's numbers and
// not the ns identity of the validation cache: a bigint stat costs exec twice
// as much (~65 K instructions against ~30 K), and ms times are precise enough
// where only a settled time is kept (the same stamp as src/util/stamp.ts).
import { statSync, type Stats } from "node:fs";
import { cacheRoot, readCache, writeCache } from "../util/cache";
import { joinIn } from "../util/paths";
import { CAPS } from "../util/readfile";
import { identityOf, sameIdentity, settled, type Identity } from "../util/stamp";
import { SCHEMA_HASH } from "../util/build-info";
import { cacheDir, prune, schemaPrefix, slotOf } from "./validcache";

const NO_THROW = { throwIfNoEntry: false } as const;

/** The entry's record of `dirs` for `id`, and what this call learned (save() writes it when it changed). */
export interface Undeclared {
  /** The Binding names of packDirs[i]'s surface.json (`file`) when it is, by one stat, the file found not to declare the id; else undefined. */
  known(i: number, file: string): readonly string[] | undefined;
  /** packDirs[i]'s surface.json, read at `readAt` through a descriptor whose fstat was `st`, does not declare the id (or, st undefined, may), and reads the Binding `names`. */
  note(i: number, st: Stats | undefined, readAt: number, names: readonly string[]): void;
  /** Write the entry when this call learned something (best effort). */
  save(): void;
}

/**
 * The build hash of the command bundle running (src/cli/load-command.ts sets it for exec and mcp):
 * what decided an answer (mayDeclareText, the JSON5 reader) is that build's code, not only its schemas.
 */
function bundleHash(): string | undefined {
  const g = globalThis as Record<symbol, unknown>;
  const h = g[Symbol.for("hcpx.bundleHash.exec")] ?? g[Symbol.for("hcpx.bundleHash.mcp")];
  return typeof h === "string" ? h : undefined;
}

/** The entry for `id` over `dirs`, or undefined when the validation cache is off or no bundle's build hash is known. */
export function undeclaredFor(id: string, dirs: readonly string[]): Undeclared | undefined {
  const built = bundleHash();
  if (cacheDir() === undefined || built === undefined) return undefined;
  const dir = joinIn(cacheRoot(), "surface-ids");
  const key = `${SCHEMA_HASH}\0${built}\0surface-ids\0${id}\0${dirs.join("\0")}`;
  const file = joinIn(dir, `${slotOf(slotText(built, id, dirs), schemaPrefix())}.json`);
  const { skip, names } = readEntry(file, key, dirs.length) ?? {
    skip: dirs.map(() => null),
    names: dirs.map(() => []),
  };
  let changed = false;
  return {
    known(i, surface) {
      const was = skip[i];
      if (!was) return undefined;
      const st = statSync(surface, NO_THROW);
      return st !== undefined && st.isFile() && sameIdentity(was, 0, st) ? names[i] : undefined;
    },
    note(i, st, readAt, held) {
      const now: Identity | null = st && settled(st, readAt) ? identityOf(st) : null;
      const was = skip[i];
      const kept = now ? [...held] : [];
      if ((was === now || (was && now && was.every((x, k) => x === now[k]))) && sameNames(names[i]!, kept)) return;
      skip[i] = now;
      names[i] = kept;
      changed = true;
    },
    save() {
      if (!changed) return;
      try {
        writeCache(file, Buffer.from(JSON.stringify({ key, skip, names })));
        prune(dir);
      } catch {
        // a cache that cannot be written is a miss next time; the door leaves no temp file
      }
    },
  };
}

/**
 * What names an entry's file: the build, the id, the number of pack directories and the first and the
 * last (a project's own paths), not every directory. Hashing the whole list cost exec ~18 K instructions
 * a pack (its JavaScript hash, char by char). A project whose list changed in between shares the slot
 * and rewrites the entry: the key in it, compared whole, names every directory.
 */
function slotText(built: string, id: string, dirs: readonly string[]): string {
  return `${built}\0surface-ids\0${id}\0${dirs.length}\0${dirs[0] ?? ""}\0${dirs[dirs.length - 1] ?? ""}`;
}

const sameNames = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, k) => x === b[k]);

interface Entry {
  skip: (Identity | null)[];
  names: string[][];
}

/** The entry's stamps and names when it is this key's and well formed (names for every remembered file), else undefined. */
function readEntry(file: string, key: string, n: number): Entry | undefined {
  try {
    const bytes = readCache(file, CAPS.cache);
    if (bytes === undefined) return undefined;
    const e = JSON.parse(bytes.toString("utf8")) as { key?: unknown; skip?: unknown; names?: unknown };
    if (e === null || typeof e !== "object" || e.key !== key) return undefined;
    const { skip, names } = e;
    if (!Array.isArray(skip) || skip.length !== n || !Array.isArray(names) || names.length !== n) return undefined;
    const ok = (s: unknown, i: number) =>
      s === null ||
      (Array.isArray(s) &&
        s.length === 5 &&
        s.every((x) => typeof x === "number") &&
        Array.isArray(names[i]) &&
        (names[i] as unknown[]).every((x) => typeof x === "string"));
    return skip.every(ok) ? { skip, names: names.map((x) => (Array.isArray(x) ? x : [])) } : undefined;
  } catch {
    return undefined;
  }
}

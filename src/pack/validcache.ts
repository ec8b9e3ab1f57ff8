// A cache of the parsed, validated values of the files that validated clean
// (no error, no warning): `hcpx exec` then takes the value as it is and runs
// neither the JSON5 parser nor the schemas (a SKILL.md: its frontmatter's value,
// without the YAML reader or the schemas; src/pack/skill.ts). A file's key is the
// build's hash of the sources and the lock (fixed at build time: the readers and
// the schemas, scripts/tree-hash.mjs SCHEMA_INPUTS), the kind of file, its absolute path and
// its identity (device, inode, size, mtime and ctime in ns: src/util/readfile.ts),
// from the fstat of the read. The entry also holds the text its value came from,
// and a hit is only a hit when the file's bytes, read now, are that text's: an
// identity alone does not vouch for a file's content everywhere (on sshfs the
// ctime is the mtime, which `touch -d` sets back; an NFS client's stat answers
// from its attribute cache for up to a minute, where an open asks the server; a
// write through a shared mapping changes no time after the page's first write
// fault; all reproduced in review, stop 63). So a hit costs a read of the file
// and a comparison of bytes, not the JSON5 parser and the schemas; no content hash
// is needed, and node:crypto (~17 M instructions to load) stays off exec's start path.
//
// One small file per source file, `validated/<slot>.json` under
// `$XDG_CACHE_HOME/hcpx/` (default `~/.cache/hcpx/`): `{ key, value }`, the
// slot a hash of (schemas, kind, path), so an edit replaces its file's entry
// and the directory holds one entry per file read (pruned to
// MAX_ENTRIES, oldest first). A hit reads that one file with JSON.parse; the
// key in it must equal the key looked for (a hash collision or a stale entry
// is a miss). Only values that JSON keeps exactly are stored (no NaN,
// Infinity or -0). Best effort: any I/O problem just means reading and
// validating. An entry is read and written as the V8 code cache is
// (src/util/cache.ts): framed with its length and kept twice, this user's own
// regular file, never a link: a corrupt, foreign or linked entry is a miss
// and is written over, so it can never change a result. Used (useValidationCache()) by
// `hcpx exec` (once per agent tool call), `hcpx mcp` and the library; `hcpx adopt` (run
// again by a host's hook, CI's --check) takes what they remembered and writes none; lint,
// status, doctor and generate, which show packs to a person, validate afresh. Off when
// running from source (no build hash) and with HCPX_NO_CACHE=1.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { joinIn } from "../util/paths";
import { fileId, readBytes } from "../util/readfile";
import { cacheRoot, readCache, removeCache, writeCache } from "../util/cache";
import { SCHEMA_HASH } from "../util/build-info";
import { settled } from "../util/stamp";

const NUL = Buffer.from([0]);

/** entries kept (one per source file read by exec) */
export const MAX_ENTRIES = 1024;

let enabled = false;
let writes = false;

/**
 * Turn the cache on for this process: values are taken from it, and (unless `readOnly`) remembered in
 * it. `hcpx adopt` only reads it: it writes nothing in $HOME it did not plan (docs/design.md).
 */
export function useValidationCache(opts: { readOnly?: boolean } = {}): void {
  enabled = true;
  if (!opts.readOnly) writes = true;
}

/**
 * Turn the cache off again for this process (`hcpx mcp` at a project of more packs than it keeps: the
 * config was read through the cache, the packs' files are not).
 */
export function stopValidationCache(): void {
  enabled = false;
  writes = false;
}

/** The cache directory, or undefined when the cache is off. */
export function cacheDir(): string | undefined {
  if (!enabled || !SCHEMA_HASH || process.env.HCPX_NO_CACHE) return undefined;
  return joinIn(cacheRoot(), "validated");
}

/** The two 32-bit lanes of slotOf's hash: after a prefix, to go on from (the same hash as of the whole text). */
export type Lanes = readonly [number, number];
const START: Lanes = [0x811c9dc5, 0x050c5d1f];

/** The lanes after `s`, from `from` (a prefix's lanes: a prefix every key shares is hashed once). */
export function lanesOf(s: string, from: Lanes = START): Lanes {
  let [a, b] = from;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return [a, b];
}

/**
 * 64-bit FNV-1a (two 32-bit lanes) of a string, as 16 hex digits: a slot name, not a check (the key is
 * compared). `from`: the lanes of a prefix (lanesOf), the slot then that of the prefix and `s` together.
 */
export function slotOf(s: string, from?: Lanes): string {
  const [a, b] = lanesOf(s, from);
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

let schemaLanes: Lanes | undefined;
/** The lanes of `${SCHEMA_HASH}\0`, the prefix of every slot of this cache and of surface-ids (undeclared.ts). */
export function schemaPrefix(): Lanes {
  return (schemaLanes ??= lanesOf(`${SCHEMA_HASH}\0`));
}

export interface CacheKey {
  /** the entry's file name (from schemas, kind and path) */
  slot: string;
  /** what must match: schemas, kind, path and identity */
  key: string;
}

/** The key of `id` (Json5Doc.id: absolute path \0 identity) for `kind`; undefined when the cache is off or id unknown. */
export function keyOf(kind: string, id: string | undefined): CacheKey | undefined {
  if (id === undefined || cacheDir() === undefined) return undefined;
  const path = id.slice(0, id.indexOf("\0"));
  return { slot: slotOf(`${kind}\0${path}`, schemaPrefix()), key: `${SCHEMA_HASH}\0${kind}\0${id}` };
}

/** cachedValue's read of a file: a hit (its value; `text()` decodes the bytes read), or a miss with what it read. */
export type CacheRead =
  { hit: true; value: unknown; text(): string } | { hit: false; text: string; id: string; readAt: number };

/**
 * `file` read now (bounded, as readTextFile reads it) for `kind`: its cached value when its bytes are the ones
 * it validated clean with before, else the text, identity (its id: path \0 identity) and time of that read,
 * for the caller to parse and validate without reading it again. Undefined when the cache is off or the file
 * cannot be read (the caller's own read then says why).
 */
export function cachedValue(kind: string, file: string, maxBytes: number): CacheRead | undefined {
  const dir = cacheDir();
  if (dir === undefined) return undefined;
  const identity: { id?: string } = {};
  const readAt = Date.now(); // before the read: what the racy rule measures from (settledAt)
  let bytes: Buffer;
  try {
    bytes = readBytes(file, file, maxBytes, { identity });
  } catch {
    return undefined;
  }
  const id = fileId(file, identity.id!);
  // the text as the JSON5 reader keeps it (json5.ts parseJson5): a byte order mark is not the text's
  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  const hit = lookup(dir, kind, id, maxBytes, body);
  return hit
    ? { hit: true, value: hit.value, text: () => body.toString("utf8") }
    : { hit: false, text: bytes.toString("utf8"), id, readAt };
}

/**
 * The cached value for `kind` of the file `id` (path \0 identity, as taken when it was read: Json5Doc.id,
 * readTextFile's `identity`) whose value comes from `text` (read then), when that text validated clean before;
 * undefined on any miss.
 */
export function cachedValueOf(
  kind: string,
  id: string,
  maxBytes: number,
  text: string,
): { value: unknown } | undefined {
  const dir = cacheDir();
  return dir === undefined ? undefined : lookup(dir, kind, id, maxBytes, Buffer.from(text, "utf8"));
}

/**
 * An entry is `{ key, value }` as JSON, a NUL (never in JSON's text: it escapes control characters) and the
 * bytes the value came from (markValidated): those are compared, natively, before the JSON is parsed.
 */
function lookup(dir: string, kind: string, id: string, maxBytes: number, from: Buffer): { value: unknown } | undefined {
  const k = keyOf(kind, id)!;
  try {
    // the value (about twice the text's JSON at most) and the text itself
    const bytes = readCache(joinIn(dir, `${k.slot}.json`), maxBytes * 3 + 4096);
    if (bytes === undefined) return undefined;
    const nul = bytes.indexOf(0);
    if (nul < 0 || !bytes.subarray(nul + 1).equals(from)) return undefined;
    const e = JSON.parse(bytes.toString("utf8", 0, nul)) as { key?: unknown; value?: unknown };
    return e !== null && typeof e === "object" && e.key === k.key && "value" in e ? { value: e.value } : undefined;
  } catch {
    return undefined;
  }
}

/** JSON gives this value back exactly (no NaN, ±Infinity, -0, undefined, or non-plain object). */
function jsonExact(v: unknown): boolean {
  const stack = [v];
  while (stack.length) {
    const x = stack.pop();
    if (x === null || typeof x === "string" || typeof x === "boolean") continue;
    if (typeof x === "number") {
      if (!Number.isFinite(x) || Object.is(x, -0)) return false;
      continue;
    }
    if (typeof x !== "object") return false;
    if (Array.isArray(x)) stack.push(...(x as unknown[]));
    else if (Object.getPrototypeOf(x) === Object.prototype) stack.push(...Object.values(x as object));
    else return false;
  }
  return true;
}

/**
 * Whether the identity in `id` (…:mtimeNs:ctimeNs) can vouch for the text read at `readAt`: the file
 * was last changed at least RACY_MS before (src/util/stamp.ts, git's "racy" rule). A file's times come
 * from a coarse clock (a kernel tick; up to 2 s on some file systems): a second same-size write within
 * the tick of the first leaves every field of the identity as it was, and an entry remembered between
 * the two would hand back the first text's value for the second.
 */
export function settledAt(id: string, readAt: number): boolean {
  const times = id.slice(id.lastIndexOf("\0") + 1).split(":");
  return settled(
    { ctimeMs: Number(times[times.length - 1]) / 1e6, mtimeMs: Number(times[times.length - 2]) / 1e6 },
    readAt,
  );
}

/**
 * Remember that the file `id`, read at `readAt`, validated clean for `kind`, with its value and the `text` it
 * came from (not when it changed too recently: settledAt).
 */
export function markValidated(
  kind: string,
  id: string | undefined,
  value: unknown,
  readAt: number,
  text: string,
): void {
  if (!writes) return;
  const dir = cacheDir();
  const k = keyOf(kind, id);
  if (!dir || !k || !settledAt(id!, readAt) || !jsonExact(value)) return;
  const file = joinIn(dir, `${k.slot}.json`);
  try {
    writeCache(
      file,
      Buffer.concat([Buffer.from(JSON.stringify({ key: k.key, value })), NUL, Buffer.from(text, "utf8")]),
    );
    prune(dir);
  } catch {
    // a cache that cannot be written (read-only, full disk) is a cache miss next time; the door leaves no temp file
  }
}

/** Keep at most `max` entries in `dir`: the least recently written go (only after a miss, so rarely). */
export function prune(dir: string, max = MAX_ENTRIES): void {
  const names = readdirSync(dir).filter((f) => f.endsWith(".json"));
  if (names.length <= max) return;
  const aged = names.map((f) => {
    try {
      return { f, t: statSync(join(dir, f)).mtimeMs };
    } catch {
      return { f, t: 0 };
    }
  });
  aged.sort((x, y) => x.t - y.t);
  for (const { f } of aged.slice(0, names.length - max)) {
    try {
      removeCache(join(dir, f));
    } catch {
      /* gone already */
    }
  }
}

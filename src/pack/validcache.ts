// A cache of the files that validated clean (no error, no warning): `hcpx
// exec` then uses the parsed value as it is and never builds the schemas. A
// key is the schema sources' hash (fixed at build time), the kind of file, its
// absolute path and its identity when it was read (device, inode, size, mtime
// and ctime in ns: src/util/readfile.ts). Any write to the file changes its
// ctime, which no one can set back, so an edited file, or another hcpx build,
// is validated again. No content hash is needed, and node:crypto (~17 M
// instructions to load) stays off exec's start path. Best effort: any I/O
// problem just means validating. Used by `hcpx exec` only
// (useValidationCache()), the command that runs once per agent tool call; off
// when running from source (no build hash) and with HCPX_NO_CACHE=1.
import { mkdirSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { CAPS, readTextFile } from "../util/readfile";
import { dirname, isAbsolute, join } from "node:path";
import { home } from "../util/paths";

declare const HCPX_SCHEMA_HASH: string;
const SCHEMA_HASH = typeof HCPX_SCHEMA_HASH === "string" ? HCPX_SCHEMA_HASH : undefined;
/** keys kept, newest last (~100 characters each) */
const MAX_KEYS = 1024;

let enabled = false;
let keys: string[] | undefined;
let known: Set<string> | undefined;

/** Turn the cache on for this process (hcpx exec). */
export function useValidationCache(): void {
  enabled = true;
}

export function cacheFile(): string | undefined {
  if (!enabled || !SCHEMA_HASH || process.env.HCPX_NO_CACHE) return undefined;
  const xdg = process.env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(home(), ".cache"), "hcpx", "validated.json");
}

function keyOf(kind: string, id: string): string {
  return `${SCHEMA_HASH}\0${kind}\0${id}`;
}

function load(file: string): Set<string> {
  if (known) return known;
  try {
    const v = JSON.parse(readTextFile(file, file, CAPS.cache)) as { keys?: unknown };
    keys = Array.isArray(v.keys) ? v.keys.filter((k): k is string => typeof k === "string") : [];
  } catch {
    keys = [];
  }
  return (known = new Set(keys));
}

/** `id`: the file's path and identity as read (Json5Doc.id); undefined (a text not read from a file) is never cached. */
export function isValidated(kind: string, id: string | undefined): boolean {
  const file = id === undefined ? undefined : cacheFile();
  return file !== undefined && load(file).has(keyOf(kind, id!));
}

export function markValidated(kind: string, id: string | undefined): void {
  const file = id === undefined ? undefined : cacheFile();
  if (!file) return;
  const set = load(file);
  const key = keyOf(kind, id!);
  if (set.has(key)) return;
  set.add(key);
  keys!.push(key);
  if (keys!.length > MAX_KEYS) keys = keys!.slice(-MAX_KEYS);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(tmp, JSON.stringify({ keys }) + "\n");
    renameSync(tmp, file);
  } catch {
    // a cache that cannot be written (read-only, full disk) is a cache miss next time; no temp file stays
    try {
      unlinkSync(tmp);
    } catch {
      /* never made */
    }
  }
}

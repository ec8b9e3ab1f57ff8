// A cache of file texts that validated clean (no error, no warning): `hcpx
// exec` then uses the parsed value as it is and never builds the schemas. The
// key hashes the schema sources (fixed at build time), the kind of file and
// its exact text, so an edited file, or another hcpx build, is validated
// again. Best effort: any I/O problem just means validating. Used by `hcpx
// exec` only (useValidationCache()), the command that runs once per agent tool
// call; off when running from source (no build hash) and with HCPX_NO_CACHE=1.
import { createHash } from "node:crypto";
import { mkdirSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { CAPS, readTextFile } from "../util/readfile";
import { dirname, isAbsolute, join } from "node:path";
import { home } from "../util/paths";

declare const HCPX_SCHEMA_HASH: string;
const SCHEMA_HASH = typeof HCPX_SCHEMA_HASH === "string" ? HCPX_SCHEMA_HASH : undefined;
/** keys kept, newest last */
const MAX_KEYS = 4096;

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

function keyOf(kind: string, text: string): string {
  return createHash("sha256").update(`${SCHEMA_HASH}\0${kind}\0${text}`).digest("hex").slice(0, 40);
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

export function isValidated(kind: string, text: string): boolean {
  const file = cacheFile();
  return file !== undefined && load(file).has(keyOf(kind, text));
}

export function markValidated(kind: string, text: string): void {
  const file = cacheFile();
  if (!file) return;
  const set = load(file);
  const key = keyOf(kind, text);
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

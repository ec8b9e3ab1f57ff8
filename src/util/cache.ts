// hcpx's caches ($XDG_CACHE_HOME/hcpx, default ~/.cache/hcpx): the V8 code
// cache of exec's and mcp's bundles (src/cli/load-command.ts) and the
// validation cache (src/pack/validcache.ts). A cache may only ever save work,
// never change a result, so every entry is:
// - read through the one bounded reader (src/util/readfile.ts): a regular
//   file, not a link (O_NOFOLLOW), this user's own and writable by no one
//   else, size-capped;
// - framed: an 8-byte magic, the payload's length and its CRC-32, verified
//   before the bytes go anywhere (V8 checks a code cache's length and flags,
//   not its content: a corrupted one crashes the process);
// - written through the one write door (src/util/door.ts), mode 0600,
//   replacing (never following) whatever is at its name.
// A corrupt, foreign or linked entry reads as a miss, and the caller writes a
// good one over it. node:zlib is loaded for crc32 only when an entry is read
// or written. A CRC-32 of our own (a 256-entry table, one byte a step) was
// measured instead and does not pay: over exec's ~300 KB code cache it runs
// in V8's interpreter before any JIT tier, ~33 M instructions (callgrind)
// against ~3.7 M for loading node:zlib and its native crc32.
import { existsSync } from "node:fs";
import { isAbsolute } from "node:path";
import { home, joinIn } from "./paths";
import { CAPS, readBytes } from "./readfile";
import { removeFile, writeFile, type Base } from "./door";

const MAGIC = Buffer.from("hcpxC01\n", "latin1");
const HEAD = MAGIC.length + 8;

/** $XDG_CACHE_HOME/hcpx, or ~/.cache/hcpx. */
export function cacheRoot(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  return joinIn(xdg && isAbsolute(xdg) ? xdg : joinIn(home(), ".cache"), "hcpx");
}

function base(): Base {
  return { dir: cacheRoot(), label: "the cache" };
}

function crc32(b: Uint8Array): number | undefined {
  const z = process.getBuiltinModule("node:zlib") as typeof import("node:zlib") & { crc32?: (d: Uint8Array) => number };
  return typeof z.crc32 === "function" ? z.crc32(b) >>> 0 : undefined;
}

/**
 * The payload of the cache entry `file`, or undefined: missing, corrupt, foreign, a link, or not framed by this hcpx.
 * `shipped`: a cache built with hcpx and installed beside its bundle (dist/cache/, scripts/build.mjs): as
 * trusted as the bundle it belongs to, which hcpx runs from the same directory, so any owner is accepted
 * (a global install is root's); it is still framed, CRC-checked and never read through a link.
 */
export function readCache(file: string, maxBytes: number = CAPS.cache, shipped = false): Buffer | undefined {
  // A miss is the usual case (exec's start when no cache of this user's exists, every entry of a
  // first call): existsSync answers it without an exception; the failed open's error and the
  // HcpxError built around it cost ~2.3 M instructions (callgrind, exec's start). A link found here
  // is still refused by the O_NOFOLLOW open below.
  if (!existsSync(file)) return undefined;
  let buf: Buffer;
  try {
    // no walk of the path's directories: a file this user owns, writable by no one else, cannot be
    // planted through a linked directory by anyone but this user
    buf = readBytes(file, file, maxBytes + HEAD, { noFollow: true, ownerOnly: !shipped });
  } catch {
    return undefined;
  }
  if (buf.length < HEAD || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const len = buf.readUInt32LE(MAGIC.length);
  const sum = buf.readUInt32LE(MAGIC.length + 4);
  const payload = buf.subarray(HEAD);
  if (payload.length !== len) return undefined;
  const got = crc32(payload);
  return got !== undefined && got === sum ? payload : undefined;
}

/** Write the cache entry `file` (below the cache root); throws on any I/O problem (callers treat that as "no cache"). */
export function writeCache(file: string, payload: Uint8Array): void {
  const sum = crc32(payload);
  if (sum === undefined) return;
  const head = Buffer.alloc(HEAD);
  MAGIC.copy(head);
  head.writeUInt32LE(payload.length, MAGIC.length);
  head.writeUInt32LE(sum, MAGIC.length + 4);
  writeFile(base(), file, Buffer.concat([head, payload]), { replaceLink: true, mode: 0o600 });
}

/** Remove a cache entry (an earlier build's, a pruned one); a link is removed itself. */
export function removeCache(file: string): void {
  removeFile(base(), file, undefined, true);
}

// hcpx's caches ($XDG_CACHE_HOME/hcpx, default ~/.cache/hcpx): the V8 code
// cache of exec's and mcp's bundles (src/cli/load-command.ts) and the
// validation cache (src/pack/validcache.ts). A cache may only ever save work,
// never change a result, so every entry is:
// - read through the one bounded reader (src/util/readfile.ts): a regular
//   file, not a link (O_NOFOLLOW), this user's own and writable by no one
//   else, size-capped;
// - framed: an 8-byte magic, the payload's length, the payload and a second
//   copy of it, compared before the bytes go anywhere (V8 checks a code
//   cache's length and flags, not its content: a corrupted one crashes the
//   process). A damaged file (a flipped bit, a torn or truncated write, a
//   block of another file) has two copies that differ;
// - written through the one write door (src/util/door.ts), mode 0600,
//   replacing (never following) whatever is at its name.
// A corrupt, foreign or linked entry reads as a miss, and the caller writes a
// good one over it.
// Why a second copy and not a checksum: comparing two copies is one native
// memcmp (Buffer.equals), on the bytes read anyway. A CRC-32 meant loading
// node:zlib on exec's start path, where nothing else needs it: ~3.4 M
// instructions of a warm exec (callgrind: the module, ~63 KB of young
// objects, and its crc32 over the ~290 KB code cache); a CRC-32 in JS runs in
// V8's interpreter (~110 instructions a byte), and over the validation cache's
// few KB it was optimized by TurboFan mid-loop, which cost more than zlib. The
// price is disk: each entry takes twice its size (exec's code cache ~580 KB).
import { existsSync } from "node:fs";
import { isAbsolute } from "node:path";
import { home, joinIn } from "./paths";
import { CAPS, readBytes } from "./readfile";
import { removeFile, writeFile, type Base } from "./door";

const MAGIC = Buffer.from("hcpxC02\n", "latin1");
const HEAD = MAGIC.length + 4;

/** $XDG_CACHE_HOME/hcpx, or ~/.cache/hcpx. */
export function cacheRoot(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  return joinIn(xdg && isAbsolute(xdg) ? xdg : joinIn(home(), ".cache"), "hcpx");
}

function base(): Base {
  return { dir: cacheRoot(), label: "the cache" };
}

/**
 * The payload of the cache entry `file`, or undefined: missing, corrupt, foreign, a link, or not framed by this hcpx.
 * `shipped`: a cache built with hcpx and installed beside its bundle (dist/cache/, scripts/build.mjs): as
 * trusted as the bundle it belongs to, which hcpx runs from the same directory, so any owner is accepted
 * (a global install is root's); it is still framed, its copies compared, and never read through a link.
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
    buf = readBytes(file, file, 2 * maxBytes + HEAD, { noFollow: true, ownerOnly: !shipped });
  } catch {
    return undefined;
  }
  if (buf.length < HEAD || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const len = buf.readUInt32LE(MAGIC.length);
  if (buf.length !== HEAD + 2 * len) return undefined;
  const payload = buf.subarray(HEAD, HEAD + len);
  return payload.equals(buf.subarray(HEAD + len)) ? payload : undefined;
}

/** Write the cache entry `file` (below the cache root); throws on any I/O problem (callers treat that as "no cache"). */
export function writeCache(file: string, payload: Uint8Array): void {
  const head = Buffer.alloc(HEAD);
  MAGIC.copy(head);
  head.writeUInt32LE(payload.length, MAGIC.length);
  writeFile(base(), file, Buffer.concat([head, payload, payload]), { replaceLink: true, mode: 0o600 });
}

/** Remove a cache entry (an earlier build's, a pruned one); a link is removed itself. */
export function removeCache(file: string): void {
  removeFile(base(), file, undefined, true);
}

// A call's validated args as one hash: canonical JSON (object keys sorted,
// undefined left out) → sha256 hex. What a confirm's requestState binds
// (src/mcp/confirm-state.ts), computed where the args are validated, and the
// audit record's args_sha256 (src/runtime/audit.ts), written on every
// `hcpx exec`.
// SHA-256 itself, not a cheaper hash: a requestState binds the args by it, so
// it must stay collision-resistant. It comes from @noble/hashes (audited, no
// dependencies; the digest is the same as node:crypto's, checked in
// test/runtime/argshash.test.ts), not node:crypto: loading node:crypto pulls ~15
// of Node's internal modules (pbkdf2, scrypt, keygen, x509 …) and cost
// `hcpx exec` ~10 M instructions (callgrind) on every call, for one hash of a
// few bytes; noble's sha256 of that is a few thousand. The bytes in and the
// hex out are Buffer's (native): noble's own bytesToHex needs a table of 256
// strings its module builds when loaded, which the bundle then leaves out.
// A text past NATIVE_FROM characters is hashed by node:crypto instead: noble is JS, ~19 ns a byte (a
// 1.25 MB prompt block, generate at 5,000 packs: ~15 ms a hash against node:crypto's ~2), and past a
// few hundred KB that is more than node:crypto's load.
import { sha256 } from "@noble/hashes/sha2.js";
import { sha256 as nativeSha256 } from "./text";

const NATIVE_FROM = 256 * 1024;

/** sha256 (hex) of `text`'s UTF-8: noble's for a short text (no node:crypto loaded), node:crypto's past NATIVE_FROM. */
export function sha256Hex(text: string): string {
  if (text.length > NATIVE_FROM) return nativeSha256(text);
  return Buffer.from(sha256(Buffer.from(text, "utf8"))).toString("hex");
}

export function argsHash(args: unknown): string {
  return sha256Hex(canonical(args));
}

/** The canonical JSON the hash is taken of (exported for the digest test, which hashes it with node:crypto). */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

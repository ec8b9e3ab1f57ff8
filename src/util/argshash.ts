// A call's validated args as one hash: canonical JSON (object keys sorted,
// undefined left out) → sha256 hex. What a confirm's requestState binds
// (src/mcp/confirm-state.ts), computed where the args are validated.
// The digest is src/util/sha256.ts, not node:crypto: loading node:crypto costs
// `hcpx exec` ~10–12 M instructions (callgrind), and every exec hashes its args
// for the audit record.
import { sha256Hex } from "./sha256";

export function argsHash(args: unknown): string {
  return sha256Hex(canonical(args));
}

function canonical(v: unknown): string {
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

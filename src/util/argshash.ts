// A call's validated args as one hash: canonical JSON (object keys sorted,
// undefined left out) → sha256 hex. What a confirm's requestState binds
// (src/mcp/confirm-state.ts), computed where the args are validated.
// node:crypto is taken when a hash is asked (a gated call's question), not at
// load: loading it costs `hcpx exec` ~10 M instructions (callgrind) on every call.

export function argsHash(args: unknown): string {
  const { createHash } = process.getBuiltinModule("node:crypto") as typeof import("node:crypto");
  return createHash("sha256").update(canonical(args)).digest("hex");
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

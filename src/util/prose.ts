// Short texts drawn from documents hcpx imports (OpenAPI operations, MCP tools):
// one line, bounded, for summaries and descriptions.

/** `s` on one line (white space folded), cut to `max` characters with a trailing "…"; undefined when empty or not a string. */
export function oneLine(s: unknown, max = 200): string | undefined {
  if (typeof s !== "string") return undefined;
  const t = s.replace(/\s+/g, " ").trim();
  if (!t) return undefined;
  return t.length > max ? t.slice(0, max - 1).trimEnd() + "…" : t;
}

/** The first sentence of `s` (looked for in its first `scan` characters), at most 120 characters. */
export function firstSentence(s: unknown, scan = 1000): string | undefined {
  const t = oneLine(s, scan);
  if (!t) return undefined;
  const m = /^(.+?[.!?])(\s|$)/.exec(t);
  return oneLine(m ? m[1] : t, 120);
}

// Short texts drawn from documents hcpx imports (OpenAPI operations, MCP tools):
// one line, bounded, for summaries and descriptions.

/**
 * What src/pack/hosttext.ts refuses in a pack's text, as characters: controls, bidi marks and controls, the
 * line and paragraph separators, zero-width characters, word joiner and invisible operators, BOM, tag characters.
 */
const UNSAFE =
  /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g;

/**
 * `s` on one line (white space folded), cut to `max` characters with a trailing "…"; undefined when empty or
 * not a string. What a drafted pack may not hold in host text (src/pack/hosttext.ts) is taken out: control,
 * bidi and invisible characters dropped, an hcp block marker broken (`<!- -`), an `@path` import directive
 * made plain text (`@ path`), so a pack drafted from a server's or a document's words loads.
 */
export function oneLine(s: unknown, max = 200): string | undefined {
  if (typeof s !== "string") return undefined;
  const t = s
    .replace(UNSAFE, "")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/<!--/g, "<!- -")
    .replace(/(^|\s)@(?=[~/.\\\p{L}\p{N}_])/gu, "$1@ ");
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

// Short texts drawn from documents hcpx imports (OpenAPI operations, MCP tools):
// one line, bounded, for summaries and descriptions.

/**
 * What src/pack/hosttext.ts refuses in a pack's text that is not white space, as a pattern's source (one
 * definition for the check and for the drafting below): controls, bidi marks and controls, zero-width
 * characters, word joiner and invisible operators, BOM, tag characters. The check adds the white space it
 * refuses (VT, FF, a lone CR, U+2028/9), which oneLine folds instead.
 */
export const UNSAFE_CHARS =
  "[\\u0000-\\u0008\\u000e-\\u001f\\u007f-\\u009f\\u061c\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff]|\\udb40[\\udc00-\\udc7f]";
/** What may follow the `@` of an import directive (`@~/…`, `@/…`, `@docs/x.md`): a path's start, as a character class. */
export const IMPORT_PATH_START = "[~/.\\\\\\p{L}\\p{N}_]";

const UNSAFE = new RegExp(UNSAFE_CHARS, "g");
let importAt: RegExp | undefined;

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
    // made on first use: a \p{…} class is built from ICU's tables when the RegExp is (test/arch/regexp-load.test.ts)
    .replace((importAt ??= new RegExp(`(^|\\s)@(?=${IMPORT_PATH_START})`, "gu")), "$1@ ");
  if (!t) return undefined;
  return t.length > max ? t.slice(0, max - 1).trimEnd() + "…" : t;
}

/** `s` as one inline code span of drafted text: oneLine, its backticks made `'` (one would end the span). */
export function codeSpan(s: unknown, max = 200): string {
  return "`" + (oneLine(s, max) ?? "").replace(/`/g, "'") + "`";
}

/** The first sentence of `s` (looked for in its first `scan` characters), at most 120 characters. */
export function firstSentence(s: unknown, scan = 1000): string | undefined {
  const t = oneLine(s, scan);
  if (!t) return undefined;
  const m = /^(.+?[.!?])(\s|$)/.exec(t);
  return oneLine(m ? m[1] : t, 120);
}

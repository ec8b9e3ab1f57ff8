// Words by which a command says it destroys something. The importers draft such a command write + confirm
// (still inferred: a person reviews the row) even where its HTTP method (`pack from-openapi`: GET, HEAD) or
// its server's annotation (`pack from-mcp`: readOnlyHint) says read: an unreviewed guess must not let a
// delete run unasked.

/**
 * delete, wipe, destroy, purge, drop, reset, remove: whole words, case-insensitive, in the forms that say what
 * the call does (delete, deletes, deleting), not the past participle that names what it lists ("deleted items").
 */
export const DESTRUCTIVE_RE =
  /\b(delet(?:e|es|ing)|wip(?:e|es|ing)|destroy(?:s|ing)?|purg(?:e|es|ing)|drop(?:s|ping)?|reset(?:s|ting)?|remov(?:e|es|ing))\b/gi;

/**
 * The destructive words (DESTRUCTIVE_RE) in `texts` (at most 4, lower-cased, in order), or undefined. Names are
 * read as words: `wipeCache`, `purge_all`, `reset-db` and `/cache/reset` each say one.
 */
export function destructiveWords(texts: readonly unknown[]): string[] | undefined {
  const words = (t: string) =>
    t
      .slice(0, 4000)
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .replace(/[_./-]+/g, " ");
  const text = texts.map((t) => (typeof t === "string" ? words(t) : "")).join("\n");
  const found = [...new Set([...text.matchAll(DESTRUCTIVE_RE)].map((m) => m[1]!.toLowerCase()))];
  return found.length ? found.slice(0, 4) : undefined;
}

// Words by which a command says it destroys something. The importers draft such a command write + confirm
// (still inferred: a person reviews the row) even where its HTTP method (`pack from-openapi`: GET, HEAD) or
// its server's annotation (`pack from-mcp`: readOnlyHint) says read: an unreviewed guess must not let a
// delete run unasked.

/**
 * delete, wipe, destroy, purge, drop, reset, remove: whole words, case-insensitive, in the forms that say what
 * the call does (delete, deletes, deleting), not the past participle that names what it lists ("deleted items").
 */
const DESTRUCTIVE_RE =
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

/**
 * Verbs by which a tool's name says it changes something: base forms, whole words (`write_file`, `sendEmail`,
 * `git_commit`). Read from the name only (a description that mentions writing is no sign: "Reads what
 * write_file wrote").
 */
const WRITE_WORDS = new Set(
  (
    "write create update upsert insert set put post send edit modify move rename copy upload publish push commit " +
    "merge execute exec run eval evaluate kill terminate install uninstall save store submit transfer pay deploy " +
    "overwrite append patch replace add restart shutdown start stop approve revoke grant cancel invite assign " +
    "archive import apply close enable disable click fill chmod chown mkdir touch rm mv cp unlink truncate"
  ).split(" "),
);
/** Verbs by which a name says it reads: a write word right after one names what is read (`get_commit`, `list_run_logs`). */
const READ_WORDS = new Set(
  "get list read search find show view describe fetch query lookup count inspect check preview browse".split(" "),
);

/**
 * The write verbs (WRITE_WORDS) in a tool's `name` (at most 4, lower-cased, in order), or undefined. A write
 * word after a read verb is the read's object (`get_commit`), unless a conjunction comes between
 * (`get_or_create_user`, `fetch_and_store`).
 */
export function writeNameWords(name: unknown): string[] | undefined {
  if (typeof name !== "string") return undefined;
  const words = name
    .slice(0, 400)
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const found: string[] = [];
  let object = false;
  for (const w of words) {
    if (READ_WORDS.has(w)) object = true;
    else if (w === "and" || w === "or" || w === "then") object = false;
    else if (WRITE_WORDS.has(w) && !object && !found.includes(w)) found.push(w);
  }
  return found.length ? found.slice(0, 4) : undefined;
}

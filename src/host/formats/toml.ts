// format "toml": the MCP entry as the table at `key` (Codex's [mcp_servers.hcp]) and
// its sub-tables. A new entry is serialized here from the descriptor's `entry` and
// placed by src/host/tomledit.ts (every other table stays byte for byte); one already
// there is edited in place by src/host/tomlentry.ts (the person's comments and keys in
// it stay too).
import { HcpxError } from "../../util/errors";
import { isObj } from "../../util/is";
import { eolOf, sha256, tomlString, tomlValue } from "../../util/text";
import { parseTomlFor, removeToml, setToml, tomlValueAt, type TomlSetResult } from "../tomledit";
import { patchTomlEntry, tomlEntryHasComment } from "../tomlentry";
import { scanToml } from "../tomlscan";
import { planKeyedEntry, removeKeyedEntry } from "./keyed";
import type { FormatHandler, KeyedFormat } from "./types";
import { isDeepStrictEqual } from "node:util";

type Doc = Record<string, unknown>;

const startsWith = (a: string[], b: string[]) => a.length >= b.length && b.every((k, j) => a[j] === k);
/** a value as JSON reads it (a TOML date as its string), key order aside in the comparisons */
const norm = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null));

const bare = (k: string) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k));

/** `[a.b]` and one `key = value` line per field (a nested object as an inline table). */
export function tomlTable(key: string[], value: Record<string, unknown>): string {
  return (
    `[${key.map(bare).join(".")}]\n` +
    Object.entries(value)
      .map(([k, v]) => `${bare(k)} = ${tomlValue(v)}\n`)
      .join("")
  );
}

/** `doc` without the entry at `key`, and without the tables above it that held nothing else. */
function outside(doc: Doc, key: string[]): Doc {
  const cut = (o: Doc, i: number): Doc | undefined => {
    const rest = { ...o };
    const k = key[i]!;
    if (i === key.length - 1) delete rest[k];
    else if (isObj(rest[k]) && !(rest[k] instanceof Date)) {
      const inner = cut(rest[k] as Doc, i + 1);
      if (inner === undefined) delete rest[k];
      else rest[k] = inner;
    }
    return Object.keys(rest).length ? rest : undefined;
  };
  return cut(doc, 0) ?? {};
}

/**
 * The text edit read back: refused unless everything but hcpx's entry is as it was in
 * `before` (the edits are textual; a misread layout must not cost the person a table).
 */
export function checkRest(before: Doc, afterText: string, key: string[], file: string, what: string): Doc {
  const refuse = (why: string) =>
    new HcpxError({
      code: "toml_unsupported",
      message: `${what} [${key.join(".")}] would ${why}; nothing was written`,
      file,
      hint: `edit the [${key.join(".")}] table by hand, and report the file's layout as an hcpx bug`,
    });
  let after: Doc;
  try {
    after = parseTomlFor(afterText, file);
  } catch (e) {
    if (e instanceof HcpxError) throw refuse(`leave a file that does not parse (${e.problems[0]?.message})`);
    throw e;
  }
  if (!isDeepStrictEqual(outside(before, key), outside(after, key)))
    throw refuse("change other tables or keys of this file too");
  return after;
}

/**
 * The text with the entry at `key` made `value`: one already written as tables is edited in place
 * (src/host/tomlentry.ts), unless `whole` (--force); else, or when the edit in place does not read
 * back as `value`, the tables are written whole (setToml), but only where no comment of the person's
 * is in them: then it is refused, nothing written.
 */
function placeEntry(
  text: string,
  doc: Doc,
  key: string[],
  value: unknown,
  file: string,
  whole?: boolean,
): TomlSetResult {
  const have = tomlValueAt(doc, key);
  const items = isObj(have) && isObj(value) && !whole ? scanToml(text, file) : [];
  if (!items.some((it) => it.kind === "header" && startsWith(it.path, key)))
    return setToml(text, doc, key, tomlTable(key, value as Record<string, unknown>), file);
  const out = patchTomlEntry(text, items, key, have as Doc, value as Doc, file, eolOf(text));
  try {
    if (
      out !== undefined &&
      isDeepStrictEqual(norm(tomlValueAt(checkRest(doc, out, key, file, "writing"), key)), norm(value))
    )
      return { text: out };
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
  }
  if (!tomlEntryHasComment(text, items, key))
    return setToml(text, doc, key, tomlTable(key, value as Record<string, unknown>), file);
  throw new HcpxError({
    code: "toml_unsupported",
    message: `cannot set hcpx's keys of [${key.join(".")}] in place and keep the comments in its tables; nothing was written`,
    file,
    line: items.find((it) => it.kind === "header" && startsWith(it.path, key))?.line,
    hint: "rerun with --force to write hcpx's table whole (the comments and keys of yours in it go), or edit the table by hand",
  });
}

export const tomlDoc: KeyedFormat<Doc> = {
  kind: "toml",
  showKey: (key) => `[${key.join(".")}]`,
  initialText: () => "",
  read: (text, file) => parseTomlFor(text, file),
  get: tomlValueAt,
  where: () => ({}),
  set(text, doc, key, value, f, _t, _host, opts) {
    const r = placeEntry(text, doc, key, value, f.show, opts?.whole);
    if (!isDeepStrictEqual(norm(tomlValueAt(checkRest(doc, r.text, key, f.show, "writing"), key)), norm(value))) {
      throw new HcpxError({
        code: "toml_unsupported",
        message: `cannot place [${key.join(".")}] in this file without changing other tables`,
        file: f.show,
        hint: "move the existing entry to its own table at the end of the file",
      });
    }
    return { text: r.text, undo: { prefix: r.prefix } };
  },
  carry: (prev) => (prev ? { created: prev.created, prefix: prev.prefix } : {}),
  readBack: parseTomlFor,
  remove(text, doc, e, f) {
    const next = removeToml(text, e.key!, f.show, e.prefix);
    if (tomlValueAt(checkRest(doc, next, e.key!, f.show, "removing"), e.key!) !== undefined) {
      throw new HcpxError({
        code: "toml_unsupported",
        message: `cannot find where [${e.key!.join(".")}] is written in this file to take it out; nothing was written`,
        file: f.show,
        hint: `delete the [${e.key!.join(".")}] table by hand`,
      });
    }
    return e.created && next.trim() === "" ? null : next;
  },
  hash: (v) => sha256(JSON.stringify(v)),
};

export const tomlFormat: FormatHandler = {
  doc: tomlDoc,
  kinds: ["toml"],
  fits: (e, t, paths) => e.kind === "toml" && paths.includes(e.path) && isDeepStrictEqual(e.key, t.key),
  async plan(t, abs, ctx) {
    return [planKeyedEntry(tomlDoc, t, abs, ctx)];
  },
  remove: (e, f, text, ctx) => removeKeyedEntry(tomlDoc, e, f, text, ctx),
};

// hcpx's [mcp_servers.<name>] table in a TOML file set again with the fewest edits (a
// re-adopt): a key whose value is as it should be is not touched; a value that differs is
// replaced where it is written (after `key = `; a list holding comments item by item:
// src/host/listedit.ts), whether in hcpx's table, in a sub-table such as
// [mcp_servers.hcp.tools.<tool>] or under a dotted key; hcpx's keys that go are taken
// out with their lines; new ones are added where their neighbours are written (after the
// last key of their table, as a dotted key beside the others, or as a table of their own
// after the last of their sub-tables). So the person's comments, their keys and their own
// tables (an [mcp_servers.hcp.env] further down the file) stay where they are, byte for
// byte. A comment on a line taken out stays, on a line of its own where that line was
// (listedit.ts's rule, the same in all three formats). The caller parses the result and
// compares it (tomledit.ts checkRest).
import { isObj } from "../util/is";
import { tomlString, tomlValue } from "../util/text";
import {
  applySplices,
  hashComments,
  hashCommentSyntax,
  keptComments,
  listSplices,
  NotInPlace,
  sameJson,
  type ListSyntax,
  type Splice,
} from "./listedit";
import { tomlList, type TomlItem } from "./tomlscan";

const bare = (k: string) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k));
const under = (a: string[], b: string[]) => a.length >= b.length && b.every((x, i) => a[i] === x);
const same = (a: string[], b: string[]) => a.length === b.length && under(a, b);
const fullPath = (it: TomlItem) => (it.kind === "keyval" ? it.table.concat(it.path) : it.path);
const isTable = (v: unknown): v is Record<string, unknown> => isObj(v) && !(v instanceof Date);

interface Ctx {
  text: string;
  items: TomlItem[];
  /** the key/value items by their full path (joined by NUL): one look-up per key hcpx sets */
  keyvals: Map<string, TomlItem>;
  file: string;
  eol: string;
  splices: Splice[];
}

const SYNTAX = (eol: string): ListSyntax => hashCommentSyntax((v) => tomlValue(v), eol);

/** The end of the last key/value line of the table `header` (its own keys, not its sub-tables'). */
function tableEnd(c: Ctx, header: TomlItem): number {
  let at = header.end;
  for (let i = c.items.indexOf(header) + 1; i < c.items.length && c.items[i]!.kind !== "header"; i++)
    if (c.items[i]!.kind === "keyval") at = c.items[i]!.end;
  return at;
}

/** Lines put in at `at` (after a line break: one is added when `at` follows none). */
function putLines(c: Ctx, at: number, lines: string[]): void {
  const lead = at > 0 && c.text[at - 1] !== "\n" ? c.eol : "";
  c.splices.push([at, at, lead + lines.map((l) => l + c.eol).join("")]);
}

/** A blank line (or the end of the text) at `i`. */
const blankAt = (t: string, i: number) => i >= t.length || t[i] === "\n" || t.startsWith("\r\n", i);

/** The lines [from, to) taken out: the comments in them stay, on lines of their own (listedit.ts keptComments). */
function cut(c: Ctx, from: number, to: number): string {
  return keptComments(c.text, hashComments(c.text, from, to), c.eol, to);
}

/**
 * Take out every line that defines `F` or something under it: its key/value lines and its tables, the
 * comments in them kept (cut). A table that holds none goes with the blank lines right above it when a
 * blank line or the file's end follows it: the blank line that set it apart, not left beside the next one.
 */
function takeOut(c: Ctx, F: string[]): void {
  c.items.forEach((it, i) => {
    // (a key of a table that goes goes with its table)
    if (it.kind === "keyval" && under(fullPath(it), F) && !under(it.table, F))
      c.splices.push([it.start, it.end, cut(c, it.start, it.end)]);
    else if (it.kind === "header" && under(it.path, F)) {
      const to = tableEnd(c, it);
      const kept = cut(c, it.start, to);
      let j = i;
      if (!kept && blankAt(c.text, to)) while (j > 0 && c.items[j - 1]!.kind === "blank") j--;
      c.splices.push([c.items[j]!.start, to, kept]);
    }
  });
}

/** Put `F = n` in where its parent table is written. */
function putIn(c: Ctx, F: string[], n: unknown): void {
  const parent = F.slice(0, -1);
  const k = bare(F[F.length - 1]!);
  const header = c.items.find((it) => it.kind === "header" && !it.array && same(it.path, parent));
  if (header) return putLines(c, tableEnd(c, header), [`${k} = ${tomlValue(n)}`]);
  // the parent written with dotted keys (`tools.a.approval_mode = …` in a table above it): one more beside them
  const dotted = c.items.filter(
    (it) => it.kind === "keyval" && it.table.length < parent.length && under(fullPath(it), parent),
  );
  const last = dotted[dotted.length - 1];
  if (last) {
    const prefix = parent.slice(last.table.length).map(bare).join(".");
    return putLines(c, last.end, [`${prefix}.${k} = ${tomlValue(n)}`]);
  }
  // the parent written only as sub-tables ([…tools.<tool>]): a table of its own after the last of them
  const subs = c.items.filter((it) => it.kind === "header" && under(it.path, parent));
  const after = subs.length ? Math.max(...subs.map((it) => tableEnd(c, it))) : c.text.length;
  const name = (p: string[]) => `[${p.map(bare).join(".")}]`;
  if (isTable(n)) putLines(c, after, [name(F), ...Object.entries(n).map(([x, v]) => `${bare(x)} = ${tomlValue(v)}`)]);
  else putLines(c, after, [name(parent), `${k} = ${tomlValue(n)}`]);
}

function patchAt(c: Ctx, F: string[], h: unknown, n: unknown): void {
  if (sameJson(h, n)) return;
  const kv = c.keyvals.get(F.join("\0"));
  if (kv) {
    if (n === undefined) c.splices.push([kv.start, kv.end, cut(c, kv.start, kv.end)]);
    else if (Array.isArray(h) && Array.isArray(n) && c.text[kv.valueStart] === "[") {
      const l = tomlList(c.text, kv.valueStart, c.file);
      if (l.comment) c.splices.push(...listSplices(c.text, l, h, n, SYNTAX(c.eol)));
      else c.splices.push([kv.valueStart, kv.valueEnd, tomlValue(n)]);
    } else c.splices.push([kv.valueStart, kv.valueEnd, tomlValue(n)]);
    return;
  }
  // (a table left empty is written again as one: taking its members out would take it out too)
  if (isTable(h) && isTable(n) && (Object.keys(n).length > 0 || Object.keys(h).length === 0)) {
    for (const k of Object.keys(h)) if (!Object.hasOwn(n, k)) patchAt(c, [...F, k], h[k], undefined);
    for (const [k, v] of Object.entries(n)) patchAt(c, [...F, k], Object.hasOwn(h, k) ? h[k] : undefined, v);
    return;
  }
  if (h !== undefined) takeOut(c, F);
  if (n !== undefined) putIn(c, F, n);
}

/**
 * The text with the table at `key` (it holds `have`) made `next`, edited in place; undefined where a
 * comment would go with what is edited (listedit.ts NotInPlace).
 */
export function patchTomlEntry(
  text: string,
  items: TomlItem[],
  key: string[],
  have: Record<string, unknown>,
  next: Record<string, unknown>,
  file: string,
  eol: string,
): string | undefined {
  const keyvals = new Map(items.filter((it) => it.kind === "keyval").map((it) => [fullPath(it).join("\0"), it]));
  const c: Ctx = { text, items, keyvals, file, eol, splices: [] };
  try {
    patchAt(c, key, have, next);
  } catch (e) {
    if (e instanceof NotInPlace) return undefined;
    throw e;
  }
  return applySplices(text, c.splices);
}

/** A comment inside the tables at `key` (on a line of their own, after a key or a header, in a list). */
export function tomlEntryHasComment(text: string, items: TomlItem[], key: string[]): boolean {
  return items.some(
    (it) =>
      (it.kind === "comment" && under(it.table, key)) ||
      (it.kind !== "blank" &&
        it.kind !== "comment" &&
        under(fullPath(it), key) &&
        /#/.test(text.slice(it.valueEnd, it.end))) ||
      (it.kind === "keyval" &&
        under(fullPath(it), key) &&
        text[it.valueStart] === "[" &&
        tomlList(text, it.valueStart, "").comment),
  );
}

// hcpx's MCP entry in a YAML file set again with the fewest edits (a re-adopt), as
// tomlentry.ts and jsonentry.ts do: a key whose value is as it should be is not touched;
// a scalar that differs is replaced where it is written (its quoting chosen again, the
// comment after it kept); a map is edited key by key (hcpx's keys that go are taken out
// with their lines; those a list item starts with, `- key: …`, by moving the first key it
// keeps up to the `- ` line; new ones added after its last key, at its column); a block
// list item by item (in listedit.ts's runs: the items both lists keep stay, in each run
// between them items are replaced one for one, the rest taken out or put in as `- item`
// lines), a flow list holding comments with src/host/listedit.ts. So the person's comments
// and keys in the entry stay where they wrote them, byte for byte; one on a line taken out
// stays, on a line of its own where that line was (listedit.ts's rule, the same in all three
// formats). What this cannot do exactly (an anchor, alias, tag, merge key `<<`, block scalar
// or explicit `? key` in the entry, found with the `yaml` package's lexer; a value whose
// shape changes where a comment is; a key not on a line of its own) is left to the caller
// (yamledit.ts replaceEntry), which also parses the result and compares it.
import {
  Lexer,
  isMap,
  isPair,
  isScalar,
  isSeq,
  stringify,
  type Node as YNode,
  type Pair,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";
import { isObj } from "../util/is";
import {
  applySplices,
  hunks,
  hashCommentSyntax,
  keptComments,
  listSplices,
  NotInPlace,
  sameJson,
  type Spans,
  type Splice,
} from "./listedit";
import { column, contentEnd, render } from "./yamlread";

/** Thrown where the entry cannot be edited exactly in place (caught in patchYamlEntry): listedit.ts's NotInPlace. */
const no = (): never => {
  throw new NotInPlace("not in place");
};

interface Ctx {
  text: string;
  eol: string;
  /** the file's indentation step */
  ind: number;
  /** where the file's comments start */
  comments: number[];
  splices: Splice[];
}

/** The lexer's markers, which are not in the text. */
const MARKERS = new Set(["\x02", "\x18", "\x1f"]);

export interface YamlMarks {
  /** where each comment starts */
  comments: number[];
  /** where each anchor, alias, tag, block scalar, explicit key or merge key starts */
  special: number[];
  /** the tokens cover the text exactly (else nothing is edited in place) */
  covered: boolean;
}

/** The comments and the constructs hcpx does not edit in place, by offset (the `yaml` package's lexer). */
export function yamlMarks(text: string): YamlMarks {
  const comments: number[] = [];
  const special: number[] = [];
  let at = 0;
  for (const tok of new Lexer().lex(text)) {
    if (MARKERS.has(tok)) continue;
    if (tok[0] === "#") comments.push(at);
    else if ("&*!|>?".includes(tok[0] ?? " ") || tok === "<<") special.push(at);
    at += tok.length;
  }
  return { comments, special, covered: at === text.length };
}

export const within = (xs: number[], s: number, e: number): boolean => xs.some((x) => x >= s && x < e);

/** The comments in text[s, e) (the lexer's), each to the end of its line. */
function commentsIn(c: Ctx, s: number, e: number): Spans {
  return c.comments
    .filter((x) => x >= s && x < e)
    .map((x): [number, number] => {
      const n = c.text.indexOf("\n", x);
      const end = n < 0 ? c.text.length : n;
      return [x, c.text[end - 1] === "\r" ? end - 1 : end];
    });
}

/** The lines [s, e) taken out, the comments in them kept on lines of their own (listedit.ts keptComments). */
function cutLines(c: Ctx, s: number, e: number): Splice {
  return [s, e, keptComments(c.text, commentsIn(c, s, e), c.eol, e)];
}

const lineStart = (t: string, i: number) => t.lastIndexOf("\n", i - 1) + 1;
const keyStart = (p: Pair) => (p.key as YNode).range![0];
const isColl = (v: unknown) => typeof v === "object" && v !== null;

/** A scalar as written after `key: ` (block context): the `yaml` package's quoting, on one line. */
function inline(v: unknown): string {
  const s = stringify(v, { lineWidth: 0 }).replace(/\r?\n$/, "");
  return s.includes("\n") ? JSON.stringify(v) : s;
}

/** A value as written inside `[…]` or `{…}`, on one line (as JSON, which YAML reads, where the package's would not be). */
function flow(v: unknown): string {
  const s = stringify([v], { collectionStyle: "flow", lineWidth: 0, flowCollectionPadding: false }).replace(
    /\r?\n$/,
    "",
  );
  return s.includes("\n") || !s.startsWith("[") || !s.endsWith("]") ? JSON.stringify(v) : s.slice(1, -1);
}

/** Lines put in at `at` (`block` ends with a line break; when `at` follows none, the break goes first). */
function putLines(c: Ctx, at: number, block: string): void {
  if (at > 0 && c.text[at - 1] !== "\n") c.splices.push([at, at, c.eol + block.replace(/\r?\n$/, "")]);
  else c.splices.push([at, at, block]);
}

/** [start, end) of the lines of `node` whose first line starts with `prefix` (spaces, or spaces and a `-`). */
function linesOf(c: Ctx, start: number, node: YNode | Pair, prefix: RegExp): [number, number] {
  const ls = lineStart(c.text, start);
  if (!prefix.test(c.text.slice(ls, start))) no();
  return [ls, contentEnd(c.text, node)];
}

/**
 * The lines [s, e) of a value that cannot be edited (its shape changes) written again as `block`, as hcpx
 * writes it, when no comment is in them; else, a scalar made a map or list, in flow style where the
 * scalar is (the comment after it kept).
 */
function again(c: Ctx, [s, e]: [number, number], block: string, v: YNode | null, n: unknown): void {
  if (!within(c.comments, s, e))
    return void c.splices.push([s, e, c.text.slice(s, e).endsWith("\n") ? block : block.replace(/\r?\n$/, "")]);
  if (!oneLineScalar(c, v)) no();
  c.splices.push([v!.range![0], v!.range![1], flow(n)]);
}

/**
 * The pair `p` made `k: n` where its value cannot be edited: a block map or list made a scalar or an empty
 * one is written after `k:` (the comment on that line kept; the collection's lines go, as listedit.ts
 * takes out a list made empty whole); anything else as again() does.
 */
function pairAgain(c: Ctx, p: Pair, k: string, n: unknown, col: number): void {
  const v = p.value as YNode | null;
  const lines = linesOf(c, keyStart(p), p, /^ *$/);
  if (v?.range && (isMap(v) || isSeq(v)) && !v.flow && !(isColl(n) && Object.keys(n as object).length)) {
    const keyEnd = (p.key as YNode).range![1];
    const colon = /^[ \t]*:/.exec(c.text.slice(keyEnd));
    const nl = c.text.indexOf("\n", keyEnd);
    if (colon && nl >= 0 && nl < v.range[0]) {
      const at = keyEnd + colon[0].length;
      c.splices.push([at, at, " " + (isColl(n) ? flow(n) : inline(n))], cutLines(c, nl + 1, lines[1]));
      return;
    }
  }
  again(c, lines, render([k], n, col, c.eol, c.ind), v, n);
}

/** `v` is a plain or quoted scalar written on one line (its range is what replaces it). */
function oneLineScalar(c: Ctx, v: YNode | null): boolean {
  if (!isScalar(v) || !v.range) return false;
  const [a, b] = v.range;
  return (
    b > a && !c.text.slice(a, b).includes("\n") && ["PLAIN", "QUOTE_DOUBLE", "QUOTE_SINGLE"].includes(v.type ?? "")
  );
}

/** The text that replaces the value node `v` where it is written; undefined when it cannot be. */
function replacement(c: Ctx, v: YNode | null, n: unknown, inFlow: boolean): string | undefined {
  if (!v?.range) return undefined;
  const [a, b] = v.range;
  if (isScalar(v)) {
    if (!oneLineScalar(c, v)) return undefined;
    if (inFlow) return flow(n);
    return isColl(n) ? undefined : inline(n);
  }
  if ((isMap(v) || isSeq(v)) && v.flow && !within(c.comments, a, b)) return isColl(n) || inFlow ? flow(n) : inline(n);
  return undefined;
}

/** `v` (holding `h`) made `n`; `whole` writes its lines again where it cannot be edited. */
function patchValue(c: Ctx, v: YNode | null, h: unknown, n: unknown, inFlow: boolean, whole: () => void): void {
  if (sameJson(h, n)) return;
  if (isMap(v) && isObj(h) && isObj(n) && Object.keys(n).length) return patchMap(c, v, h, n);
  if (isSeq(v) && Array.isArray(h) && Array.isArray(n) && (n.length || v.flow))
    return v.flow ? patchFlowSeq(c, v, h, n) : patchSeq(c, v, h, n);
  const put = replacement(c, v, n, inFlow);
  if (put === undefined) return whole();
  c.splices.push([v!.range![0], v!.range![1], put]);
}

/**
 * The keys a list item starts with (`- key: …`) taken out: the first key it keeps moves up to the `- `
 * line (its column is theirs), the comments on the lines taken out kept above that line (cutLines). The
 * pairs so taken out.
 */
function dashKeysOut(c: Ctx, map: YAMLMap, gone: Pair[]): Pair[] {
  const first = map.items[0]!;
  const ls = lineStart(c.text, keyStart(first));
  const dash = c.text.slice(ls, keyStart(first));
  if (!gone.includes(first) || !/^ *- +$/.test(dash)) return [];
  const stay = map.items.find((p) => !gone.includes(p)) ?? no();
  const at = keyStart(stay);
  if (!/^ *$/.test(c.text.slice(lineStart(c.text, at), at))) no();
  const kept = keptComments(c.text, commentsIn(c, ls, at), c.eol, lineStart(c.text, at));
  c.splices.push([ls, at, kept + dash]);
  return map.items.slice(0, map.items.indexOf(stay));
}

function patchMap(c: Ctx, map: YAMLMap, h: Record<string, unknown>, n: Record<string, unknown>): void {
  const pairs = new Map<string, Pair>();
  for (const p of map.items) {
    if (!isScalar(p.key) || typeof p.key.value !== "string" || !p.key.range) no();
    pairs.set((p.key as { value: string }).value, p);
  }
  if (map.flow) return patchFlowMap(c, map, pairs, h, n);
  const col = column(c.text, keyStart(map.items[0]!));
  for (const [k, v] of Object.entries(n)) {
    const p = pairs.get(k);
    if (p) patchValue(c, p.value as YNode | null, h[k], v, false, () => pairAgain(c, p, k, v, col));
  }
  const gone = [...pairs].filter(([k]) => !Object.hasOwn(n, k)).map(([, p]) => p);
  const moved = dashKeysOut(c, map, gone);
  for (const p of gone) if (!moved.includes(p)) c.splices.push(cutLines(c, ...linesOf(c, keyStart(p), p, /^ *$/)));
  const added = Object.entries(n).filter(([k]) => !pairs.has(k));
  if (added.length)
    putLines(c, contentEnd(c.text, map.items.at(-1)!), render([], Object.fromEntries(added), col, c.eol, c.ind));
}

/** A `{…}` map: written again when no comment is in it, else its values replaced where the keys stay the same. */
function patchFlowMap(
  c: Ctx,
  map: YAMLMap,
  pairs: Map<string, Pair>,
  h: Record<string, unknown>,
  n: Record<string, unknown>,
): void {
  const [a, b] = map.range!;
  if (!within(c.comments, a, b)) return void c.splices.push([a, b, flow(n)]);
  const keys = Object.keys(n);
  if (keys.length !== pairs.size || !keys.every((k) => pairs.has(k))) no();
  for (const k of keys) patchValue(c, pairs.get(k)!.value as YNode | null, h[k], n[k], true, no);
}

/** `[…]`: written again when no comment is in it, else item by item (listedit.ts). */
function patchFlowSeq(c: Ctx, seq: YAMLSeq, h: unknown[], n: unknown[]): void {
  const [a, b] = seq.range!;
  if (!within(c.comments, a, b)) return void c.splices.push([a, b, flow(n)]);
  if (c.text[a] !== "[" || c.text[b - 1] !== "]") no();
  const items = seq.items.map((it): [number, number] => {
    if (isPair(it) || !(it as YNode | null)?.range) no();
    const r = (it as YNode).range!;
    return [r[0], r[1]];
  });
  const syntax = hashCommentSyntax(
    (v) => flow(v),
    c.eol,
    (_t, f, t) => commentsIn(c, f, t),
  );
  c.splices.push(...listSplices(c.text, { open: a, close: b - 1, items }, h, n, syntax));
}

/** The start of the comment lines right above the line at `ls` (a comment line belongs to the item below it). */
function aboveComments(text: string, ls: number): number {
  while (ls > 0) {
    const ps = text.lastIndexOf("\n", ls - 2) + 1;
    if (!/^[ \t]*#/.test(text.slice(ps, ls))) break;
    ls = ps;
  }
  return ls;
}

/** A block list (`- item` lines) made `n` item by item. */
function patchSeq(c: Ctx, seq: YAMLSeq, h: unknown[], n: unknown[]): void {
  const items = seq.items.map((it) => {
    if (isPair(it) || !(it as YNode | null)?.range) no();
    return it as YNode;
  });
  const lines = items.map((it) => linesOf(c, it.range![0], it, /^ *- +$/));
  const dash = /^ */.exec(c.text.slice(lines[0]![0]))![0].length;
  for (const { i0, i1, j0, j1 } of hunks(h, n, sameJson)) {
    const m = Math.min(i1 - i0, j1 - j0);
    for (let k = 0; k < m; k++) {
      const [i, v] = [i0 + k, n[j0 + k]];
      patchValue(c, items[i]!, h[i], v, false, () =>
        again(c, lines[i]!, render([], [v], dash, c.eol, c.ind), items[i]!, v),
      );
    }
    if (i1 - i0 > m) c.splices.push(cutLines(c, lines[i0 + m]![0], lines[i1 - 1]![1]));
    else if (j1 - j0 > m) {
      const block = render([], n.slice(j0 + m, j1), dash, c.eol, c.ind);
      putLines(c, i0 + m > 0 ? lines[i0 + m - 1]![1] : aboveComments(c.text, lines[0]![0]), block);
    }
  }
}

/**
 * The text with the entry (the map `entry` on the lines [s, e), holding `have`) made `next`, edited
 * in place; undefined when it cannot be exactly (the caller then writes it whole, or refuses).
 */
export function patchYamlEntry(
  text: string,
  entry: YNode | null,
  [s, e]: [number, number],
  have: unknown,
  next: unknown,
  eol: string,
  ind: number,
): string | undefined {
  if (!isObj(have) || !isObj(next) || !isMap(entry) || !Object.keys(next).length) return undefined;
  const marks = yamlMarks(text);
  if (!marks.covered || within(marks.special, s, e)) return undefined;
  const c: Ctx = { text, eol, ind, comments: marks.comments, splices: [] };
  try {
    patchMap(c, entry, have, next);
  } catch (err) {
    if (err instanceof NotInPlace) return undefined;
    throw err;
  }
  if (c.splices.some(([a, b]) => a < s || b > e)) return undefined;
  return applySplices(text, c.splices);
}

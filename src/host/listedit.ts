// A list (a JSON/JSONC or TOML array, a YAML flow list; yamlentry.ts's block lists by the same
// runs) that holds comments, made another list with the fewest text edits: the items both
// lists keep (their longest common subsequence) stay as they are; in each run between them,
// items are replaced one for one and what is left over is taken out or put in on lines of
// its own. The format gives its syntax (how a comment is skipped, where its comments are,
// how a value is written); the caller parses the result again and compares it.
//
// The person's comments are never lost, the rule for all three formats (tomlentry.ts,
// jsonentry.ts, yamlentry.ts use keptComments for the keys and tables they take out): a
// comment belongs to the item on its line, or, on a line of its own, to the item below it.
// It stays with that item while the item is kept, whatever goes or comes around it (an item
// put in before the first goes above the first's comment lines); an item replaced in its
// run keeps the comment on its line, as a key whose value changes does; one on a line
// hcpx takes out (an item, a key, a table that goes) stays on a line of its own where that
// line was, at that line's indentation (hcpx writes no comment of its own, so every one is
// the person's). What cannot be taken out so (an item sharing its line with others, with a
// comment or line break in what would go) is not edited in place (NotInPlace): the caller
// then refuses, nothing written, or writes the entry whole where it holds no comment.
import { isDeepStrictEqual } from "node:util";

export interface ListShape {
  /** offset of `[` */
  open: number;
  /** offset of `]` */
  close: number;
  /** [start, end) of each item */
  items: [number, number][];
}

export interface ListSyntax {
  /** past whitespace, line breaks and comments from `i` */
  skipTrivia(text: string, i: number): number;
  /** a line comment starts at `i` (it runs to the end of its line) */
  lineComment(text: string, i: number): boolean;
  /** [start, end) of each comment in text[from, to) */
  comments(text: string, from: number, to: number): Spans;
  /** an item, written at `indent` (the indentation of its line) */
  render(value: unknown, indent: string): string;
  eol: string;
  /** the reader takes a comma after the last item */
  trailingCommas: boolean;
}

/** [start, end) of a run of text: here, of each comment. */
export type Spans = [number, number][];

/** Thrown where a list or an entry cannot be edited in place without losing a comment (the caller refuses). */
export class NotInPlace extends Error {}

const lineStart = (t: string, i: number) => t.lastIndexOf("\n", i - 1) + 1;
const indentAt = (t: string, i: number) => /^[ \t]*/.exec(t.slice(lineStart(t, i)))![0];

/** The end of the line at `i`, before its line break. */
const lineEnd = (t: string, i: number) => {
  const n = t.indexOf("\n", i);
  return n < 0 ? t.length : t[n - 1] === "\r" ? n - 1 : n;
};

/** The `#` comments of text[from, to), past the strings in it ("…", '…', TOML's """…""" and '''…'''). */
export function hashComments(t: string, from: number, to: number): Spans {
  const out: Spans = [];
  for (let i = from; i < to; i++) {
    const q = t[i]!;
    if (q === "#") {
      const e = lineEnd(t, i);
      out.push([i, e]);
      i = e;
    } else if (q === '"' || q === "'") {
      const close = t.startsWith(q.repeat(3), i) ? q.repeat(3) : q;
      let j = i + close.length;
      while (j < to && !t.startsWith(close, j) && (close.length > 1 || t[j] !== "\n"))
        j += q === '"' && t[j] === "\\" ? 2 : 1;
      i = j + close.length - 1;
    }
  }
  return out;
}

/**
 * The comments `spans` of the lines text[…, to) taken out, on lines of their own, each at the indentation
 * of the line it was on ("" for none); without a last line break where those lines had none (the file's end).
 */
export function keptComments(text: string, spans: Spans, eol: string, to: number): string {
  const out = spans.map(([s, e]) => indentAt(text, s) + text.slice(s, e) + eol).join("");
  return to > 0 && text[to - 1] !== "\n" ? out.slice(0, out.length - eol.length) : out;
}

/** The list syntax of a format whose comments run from `#` to the end of the line (TOML, YAML's flow lists). */
export function hashCommentSyntax(
  render: (value: unknown) => string,
  eol: string,
  comments: (text: string, from: number, to: number) => Spans = hashComments,
): ListSyntax {
  return {
    comments,
    skipTrivia(t, i) {
      for (;;) {
        while (i < t.length && /\s/.test(t[i]!)) i++;
        if (t[i] !== "#") return i;
        while (i < t.length && t[i] !== "\n") i++;
      }
    },
    lineComment: (t, i) => t[i] === "#",
    render,
    eol,
    trailingCommas: true,
  };
}

type Splice = [from: number, to: number, text: string];

/** Two values read from files, compared as JSON (key order aside). */
export function sameJson(a: unknown, b: unknown): boolean {
  if ((a === undefined) !== (b === undefined)) return false;
  return (
    isDeepStrictEqual(a, b) ||
    isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)))
  );
}

const startsLine = (t: string, i: number) => t.slice(lineStart(t, i), i).trim() === "";

/** The offset of the comma after the item ending at `e` (comments between), or -1. */
function commaAfter(text: string, e: number, syn: ListSyntax): number {
  const i = syn.skipTrivia(text, e);
  return text[i] === "," ? i : -1;
}

/** From `i`, past spaces and a line comment, to the line break (not past it); -1 when something else follows. */
function lineEndAfter(text: string, i: number, syn: ListSyntax): number {
  let j = i;
  while (text[j] === " " || text[j] === "\t") j++;
  if (syn.lineComment(text, j)) while (j < text.length && text[j] !== "\n") j++;
  if (text[j] === "\n" && text[j - 1] === "\r") return j - 1;
  if (text[j] === "\r" && text[j + 1] === "\n") return j;
  return text[j] === "\n" || j >= text.length ? j : -1;
}

/**
 * Take out the items a..b (all of them: the list's text is left holding only its comments, when it
 * has any). Exported for the members of a JSON object (jsonentry.ts), which go by the same rule.
 */
export function cutRun(text: string, l: ListShape, a: number, b: number, syn: ListSyntax): Splice[] {
  const it = l.items;
  const last = it.length - 1;
  const cb = commaAfter(text, it[b]![1], syn);
  // each on a line of its own: their lines go, the comments in them (one ending the last) kept on lines of their own
  if (startsLine(text, it[a]![0])) {
    const x = cb >= 0 ? cb + 1 : it[b]![1];
    const eol = lineEndAfter(text, x, syn);
    if (eol >= 0) {
      const from = lineStart(text, it[a]![0]);
      const to = Math.min(text[eol] === "\r" ? eol + 2 : eol + 1, text.length);
      const out: Splice[] = [[from, to, keptComments(text, syn.comments(text, from, to), syn.eol, to)]];
      // the new last item must not keep a comma the reader refuses
      if (b === last && cb < 0 && a > 0 && !syn.trailingCommas) {
        const c = commaAfter(text, it[a - 1]![1], syn);
        if (c >= 0) out.push([c, c + 1, ""]);
      }
      return out;
    }
  }
  // on a line with others: with the comma before them (or after them), where no comment is in what goes (and
  // no line break, when there is a choice: lines joined would put an item beside another's comment)
  const tries: [number, number][] = [];
  if (a > 0) tries.push([it[a - 1]![1], it[b]![1]]);
  if (b < last) tries.push([it[a]![0], it[b + 1]![0]]);
  const clean = tries.filter(([f, t]) => syn.comments(text, f, t).length === 0);
  const cut = clean.find(([f, t]) => !/[\r\n]/.test(text.slice(f, t))) ?? clean[0];
  if (cut) return [[cut[0], cut[1], ""]];
  throw new NotInPlace("a comment would go with the items taken out");
}

/** Put `values` in after item j (-1: before the first). */
function putIn(text: string, l: ListShape, j: number, values: unknown[], syn: ListSyntax): Splice[] {
  const it = l.items;
  const inline = (v: unknown) => syn.render(v, "");
  if (it.length === 0) return [[l.open + 1, l.open + 1, values.map(inline).join(", ")]];
  if (j < 0) {
    const s = it[0]![0];
    if (!startsLine(text, s)) return [[s, s, values.map((v) => inline(v) + ", ").join("")]];
    const ind = indentAt(text, s);
    // above the comment lines right above the first item: they are its
    let at = lineStart(text, s);
    for (let ps = lineStart(text, at - 1); at > 0 && ps > l.open; ps = lineStart(text, at - 1)) {
      const line = text.slice(ps, at);
      if (line.trim() === "" || syn.skipTrivia(text, ps) < at) break;
      at = ps;
    }
    return [[at, at, values.map((v) => ind + syn.render(v, ind) + "," + syn.eol).join("")]];
  }
  const e = it[j]![1];
  const last = j === it.length - 1;
  const c = commaAfter(text, e, syn);
  const upTo = last ? l.close : it[j + 1]![0];
  if (!text.slice(e, upTo).includes("\n")) {
    // on one line: `, v` after the item (before its comma when one follows)
    return [[e, e, values.map((v) => ", " + inline(v)).join("")]];
  }
  const ind = indentAt(text, it[j]![0]);
  const from = c >= 0 ? c + 1 : e;
  const end = lineEndAfter(text, from, syn);
  const at = end < 0 ? from : end;
  const lines = values.map((v) => syn.eol + ind + syn.render(v, ind));
  if (last && c < 0)
    return [
      [e, e, ","],
      [at, at, lines.join(",")],
    ];
  return [[at, at, lines.map((s) => s + ",").join("")]];
}

/** The text with the list `l` (holding `have`) made `next`; every comment outside a replaced or removed item stays. */
export function patchList(text: string, l: ListShape, have: unknown[], next: unknown[], syn: ListSyntax): string {
  return applySplices(text, listSplices(text, l, have, next, syn));
}

/** How many items two lists share at their start (`p`) and, after those, at their end (`s`): kept as they are. */
export function commonEnds(
  have: readonly unknown[],
  next: readonly unknown[],
  same: (a: unknown, b: unknown) => boolean,
): { p: number; s: number } {
  const H = have.length;
  const N = next.length;
  let p = 0;
  while (p < H && p < N && same(have[p], next[p])) p++;
  let s = 0;
  while (s < H - p && s < N - p && same(have[H - 1 - s], next[N - 1 - s])) s++;
  return { p, s };
}

/** A run of items that changes: have[i0, i1) become next[j0, j1) (the items between two runs are kept). */
export interface Hunk {
  i0: number;
  i1: number;
  j0: number;
  j1: number;
}

/** LCS tables past this many cells are not built: the middle is then one run (as it was before runs). */
const MAX_CELLS = 4_000_000;

/**
 * Where two lists differ: the items both keep (the longest common subsequence, after the ends they share)
 * stay, each with its comments, whatever changes around it; the runs between them change.
 */
export function hunks(
  have: readonly unknown[],
  next: readonly unknown[],
  same: (a: unknown, b: unknown) => boolean,
): Hunk[] {
  const { p, s } = commonEnds(have, next, same);
  const H = have.length - p - s;
  const N = next.length - p - s;
  if (H === 0 && N === 0) return [];
  if (H === 0 || N === 0 || (H + 1) * (N + 1) > MAX_CELLS) return [{ i0: p, i1: p + H, j0: p, j1: p + N }];
  // L[i][j]: the LCS of have[p+i..] and next[p+j..]
  const W = N + 1;
  const L = new Uint32Array((H + 1) * W);
  for (let i = H - 1; i >= 0; i--)
    for (let j = N - 1; j >= 0; j--)
      L[i * W + j] = same(have[p + i], next[p + j])
        ? L[(i + 1) * W + j + 1]! + 1
        : Math.max(L[(i + 1) * W + j]!, L[i * W + j + 1]!);
  const out: Hunk[] = [];
  let [i, j, i0, j0] = [0, 0, 0, 0];
  const close = () => {
    if (i > i0 || j > j0) out.push({ i0: p + i0, i1: p + i, j0: p + j0, j1: p + j });
  };
  while (i < H && j < N) {
    if (same(have[p + i], next[p + j]) && L[i * W + j] === L[(i + 1) * W + j + 1]! + 1) {
      close();
      [i0, j0] = [++i, ++j];
    } else if (L[(i + 1) * W + j]! >= L[i * W + j + 1]!) i++;
    else j++;
  }
  [i, j] = [H, N];
  close();
  return out;
}

/**
 * patchList's edits, to make with others (applySplices): in each run that changes (hunks), its items
 * replaced one for one (a comment on the line of one stays with its place), what is left over taken
 * out (cutRun) or put in after them.
 */
export function listSplices(text: string, l: ListShape, have: unknown[], next: unknown[], syn: ListSyntax): Splice[] {
  if (next.length === 0 && have.length > 0 && syn.comments(text, l.open, l.close).length === 0)
    return [[l.open, l.close + 1, "[]"]];
  const splices: Splice[] = [];
  for (const { i0, i1, j0, j1 } of hunks(have, next, isDeepStrictEqual)) {
    const m = Math.min(i1 - i0, j1 - j0);
    for (let k = 0; k < m; k++) {
      const [a, b] = l.items[i0 + k]!;
      if (syn.comments(text, a, b).length) throw new NotInPlace("a comment inside an item that changes");
      splices.push([a, b, syn.render(next[j0 + k], indentAt(text, a))]);
    }
    if (i1 - i0 > m) splices.push(...cutRun(text, l, i0 + m, i1 - 1, syn));
    else if (j1 - j0 > m) splices.push(...putIn(text, l, i0 + m - 1, next.slice(j0 + m, j1), syn));
  }
  return splices;
}

/** `text` with the splices made (by offset; at one offset, in the order given). */
export function applySplices(text: string, splices: Splice[]): string {
  const order = splices.map((sp, i) => [sp, i] as const).sort((x, y) => x[0][0] - y[0][0] || x[1] - y[1]);
  let out = "";
  let pos = 0;
  for (const [[from, to, put]] of order) {
    out += text.slice(pos, Math.max(pos, from)) + put;
    pos = Math.max(pos, to);
  }
  return out + text.slice(pos);
}

export type { Splice };

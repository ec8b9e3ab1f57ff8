// A list (a JSON/JSONC or TOML array) that holds comments, made another list with the fewest
// text edits: the items both lists begin and end with stay as they are, the ones between
// are replaced one for one, and what is left over is taken out or put in on lines of its
// own. A comment stays where the person wrote it (next to the item it was next to), unless
// it was on the line of an item that goes. The format gives its syntax (how a comment is
// skipped, how a value is written); the caller parses the result again and compares it.
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
  /** an item, written at `indent` (the indentation of its line) */
  render(value: unknown, indent: string): string;
  eol: string;
  /** the reader takes a comma after the last item */
  trailingCommas: boolean;
}

/** The list syntax of a format whose comments run from `#` to the end of the line (TOML, YAML's flow lists). */
export function hashCommentSyntax(render: (value: unknown) => string, eol: string): ListSyntax {
  return {
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

const lineStart = (t: string, i: number) => t.lastIndexOf("\n", i - 1) + 1;
const indentAt = (t: string, i: number) => /^[ \t]*/.exec(t.slice(lineStart(t, i)))![0];
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

/** Take out the items a..b (the list keeps at least one other). */
function cutRun(text: string, l: ListShape, a: number, b: number, syn: ListSyntax): Splice[] {
  const it = l.items;
  const last = it.length - 1;
  const cb = commaAfter(text, it[b]![1], syn);
  // each on a line of its own: their lines go (with a comment that ends the last one)
  if (startsLine(text, it[a]![0])) {
    const x = cb >= 0 ? cb + 1 : it[b]![1];
    const eol = lineEndAfter(text, x, syn);
    if (eol >= 0) {
      const to = text[eol] === "\r" ? eol + 2 : eol + 1;
      const out: Splice[] = [[lineStart(text, it[a]![0]), Math.min(to, text.length), ""]];
      // the new last item must not keep a comma the reader refuses
      if (b === last && cb < 0 && a > 0 && !syn.trailingCommas) {
        const c = commaAfter(text, it[a - 1]![1], syn);
        if (c >= 0) out.push([c, c + 1, ""]);
      }
      return out;
    }
  }
  if (a > 0) return [[it[a - 1]![1], it[b]![1], ""]];
  return [[it[a]![0], it[b + 1]![0], ""]];
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
    return [
      [lineStart(text, s), lineStart(text, s), values.map((v) => ind + syn.render(v, ind) + "," + syn.eol).join("")],
    ];
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

/** patchList's edits, to make with others (applySplices). */
export function listSplices(text: string, l: ListShape, have: unknown[], next: unknown[], syn: ListSyntax): Splice[] {
  const H = have.length;
  const N = next.length;
  const { p, s } = commonEnds(have, next, isDeepStrictEqual);
  const oldMid = H - s - p;
  const newMid = N - s - p;
  const m = Math.min(oldMid, newMid);
  const splices: Splice[] = [];
  for (let i = p; i < p + m; i++) {
    const [a, b] = l.items[i]!;
    splices.push([a, b, syn.render(next[i], indentAt(text, a))]);
  }
  if (oldMid > m) {
    if (N === 0) return [[l.open, l.close + 1, "[]"]];
    splices.push(...cutRun(text, l, p + m, H - s - 1, syn));
  } else if (newMid > m) splices.push(...putIn(text, l, p + m - 1, next.slice(p + m, p + newMid), syn));
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

// In-place edits of hcpx's items in a JSON(C) list the person shares with hcpx
// (a host's allow-list): ours are appended after the last item, in the list's
// own layout, and taken out again with the comma and line break that came with
// them. The person's items, comments and whitespace stay byte for byte, and a
// removal is the exact inverse of an append.
import { createScanner, parse, type Node, type ParseError } from "jsonc-parser/lib/esm/main.js"; // the ESM build (see jsonedit.ts)
import { isDeepStrictEqual } from "node:util";
import { HcpxError } from "../util/errors";
import { lineCol } from "../util/text";
import { detectStyle, indentAt, lineStart, nodeAt, removeJson, serialize, setJson, skipTrivia } from "./jsonedit";

const end = (n: Node) => n.offset + n.length;

/** True when text[from, to) (a range that starts between tokens) holds a comment, or text that is not JSON. */
export function hasComment(text: string, from = 0, to = text.length): boolean {
  // jsonc-parser's SyntaxKind (a const enum): 12 line comment, 13 block comment, 16 unknown, 17 EOF
  const sc = createScanner(text.slice(from, to), false);
  for (let k: number = sc.scan(); k !== 17; k = sc.scan()) if (k === 12 || k === 13 || k === 16) return true;
  return false;
}

/** [start, end) of each line and block comment in text[from, to). */
export function jsonComments(text: string, from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  const sc = createScanner(text.slice(from, to), false);
  for (let k: number = sc.scan(); k !== 17; k = sc.scan()) {
    if (k !== 12 && k !== 13) continue;
    const s = from + sc.getTokenOffset();
    let e = s + sc.getTokenLength();
    if (text[e - 1] === "\r") e--;
    out.push([s, e]);
  }
  return out;
}

/** `values` appended to the list node `list` of `text`, after its last item (none: after `[`, before any comment in it). */
export function appendItems(text: string, list: Node, values: unknown[]): string {
  if (values.length === 0) return text;
  const kids = list.children ?? [];
  const close = end(list) - 1;
  const inline = values.map((v) => JSON.stringify(v));
  if (kids.length === 0) {
    const at = list.offset + 1;
    return text.slice(0, at) + inline.join(", ") + text.slice(at);
  }
  const lastEnd = end(kids[kids.length - 1]!);
  const after = skipTrivia(text, lastEnd);
  // a trailing comma after the last item (JSONC): ours go after it, each with one of its own
  const trailing = text[after] === ",";
  if (!text.slice(lastEnd, close).includes("\n")) {
    if (trailing) return text.slice(0, after + 1) + inline.map((s) => ` ${s},`).join("") + text.slice(after + 1);
    return text.slice(0, lastEnd) + inline.map((s) => `, ${s}`).join("") + text.slice(lastEnd);
  }
  // one item a line: ours on lines of their own, after the last item (and its comma), or after the
  // comment that ends its line
  const style = detectStyle(text);
  const indent = indentAt(text, kids[kids.length - 1]!.offset);
  const from = trailing ? after + 1 : lastEnd;
  let eolAt = text.indexOf("\n", from);
  if (eolAt < 0 || eolAt > close) eolAt = close;
  else if (text[eolAt - 1] === "\r") eolAt--;
  const at = hasComment(text, from, eolAt) ? eolAt : from;
  const lines = values.map((v) => style.eol + indent + serialize(v, style, indent));
  const ours = trailing ? lines.map((s) => s + ",").join("") : lines.join(",");
  const head = trailing ? text.slice(0, at) : text.slice(0, lastEnd) + "," + text.slice(lastEnd, at);
  return head + ours + text.slice(at);
}

/** The offset of the comma after node `n` (comments and whitespace between), or -1. */
function commaAfter(text: string, n: Node): number {
  const i = skipTrivia(text, end(n));
  return text[i] === "," ? i : -1;
}

/** The start of the line break before offset `i` when only spaces or tabs are between (else `i`). */
function breakBefore(text: string, i: number): number {
  const ls = lineStart(text, i);
  if (ls === 0 || text.slice(ls, i).trim() !== "") return i;
  return text[ls - 2] === "\r" ? ls - 2 : ls - 1;
}

/**
 * What to cut for the items a..b of `kids` (all of them going), as [from, to) ranges. Between the
 * person's items and ours, or ours, with no comment: the comma and whitespace go with the item (the
 * inverse of appendItems). Where a comment of theirs is in the way, each item goes with one comma
 * (the one after it at the list's start or before a trailing comma; else the one before it);
 * `fine` also takes the line break before an item alone on its line (what appendItems put there
 * after a line comment), which removeItems checks: a line comment must not take in what follows.
 */
function runCuts(text: string, kids: Node[], a: number, b: number, fine: boolean): [number, number][] {
  const n = kids.length;
  const trailingAt = commaAfter(text, kids[n - 1]!);
  // what appendItems put there, when no comment is in it: after a trailing comma (or after the line
  // comment that follows it), up to ours; else the comma and whitespace before each of ours
  const clean: [number, number][] = [];
  if (a > 0 && b === n - 1 && trailingAt >= 0) {
    clean.push([commaAfter(text, kids[a - 1]!) + 1, trailingAt + 1]);
    if (fine) clean.push([breakBefore(text, kids[a]!.offset), trailingAt + 1]);
  }
  if (a > 0) clean.push([end(kids[a - 1]!), end(kids[b]!)]);
  else if (b < n - 1) clean.push([kids[a]!.offset, kids[b + 1]!.offset]);
  else clean.push([kids[0]!.offset, trailingAt >= 0 ? trailingAt + 1 : end(kids[n - 1]!)]);
  const whole = clean.find(([x, y]) => x < y && !hasComment(text, x, y));
  if (whole) return [whole];
  const withNext = a === 0 || (b === n - 1 && trailingAt >= 0);
  const cuts: [number, number][] = [];
  for (let i = a; i <= b; i++) {
    const k = kids[i]!;
    const c = withNext ? commaAfter(text, k) : commaAfter(text, kids[i - 1]!);
    if (fine && !withNext) {
      const gap: [number, number] = [end(kids[i - 1]!), end(k)];
      if (!hasComment(text, gap[0], gap[1])) cuts.push(gap);
      else cuts.push([c, c + 1], [breakBefore(text, k.offset), end(k)]);
      continue;
    }
    cuts.push([k.offset, end(k)]);
    if (c >= 0) cuts.push([c, c + 1]);
  }
  return cuts;
}

/** The comments of a JSONC text, in order, with their offsets. */
function commentsOf(text: string): { at: number; text: string }[] {
  const sc = createScanner(text, false);
  const out: { at: number; text: string }[] = [];
  for (let k: number = sc.scan(); k !== 17; k = sc.scan())
    if (k === 12 || k === 13)
      out.push({ at: sc.getTokenOffset(), text: text.substr(sc.getTokenOffset(), sc.getTokenLength()) });
  return out;
}

/** `text` without the ranges `cuts`, in one pass (a list of ~50,000 rules is not copied once per item). */
function cut(text: string, cuts: [number, number][]): string {
  cuts.sort((x, y) => x[0] - y[0]);
  const parts: string[] = [];
  let at = 0;
  for (const [from, to] of cuts) {
    if (to <= at) continue;
    parts.push(text.slice(at, Math.max(at, from)));
    at = to;
  }
  parts.push(text.slice(at));
  return parts.join("");
}

/**
 * `text` without the items at `drop` (indexes into the list node `list`); the other items and every
 * comment outside them stay, which is checked before the text is returned (else bad_json: nothing written).
 */
export function removeItems(text: string, list: Node, drop: number[], show: string): string {
  const kids = list.children ?? [];
  const dropped = new Set(drop);
  const gone = kids.filter((_, i) => dropped.has(i));
  const at = list.offset;
  const listText = text.slice(at, end(list));
  const was = parse(listText, [], { allowTrailingComma: true }) as unknown[];
  const want = was.filter((_, i) => !dropped.has(i));
  const comments = commentsOf(listText)
    .filter((c) => !gone.some((k) => c.at + at >= k.offset && c.at + at < end(k)))
    .map((c) => c.text);
  for (const fine of [true, false]) {
    const cuts: [number, number][] = [];
    for (let a = 0; a < kids.length; a++) {
      if (!dropped.has(a)) continue;
      let b = a;
      while (dropped.has(b + 1)) b++;
      cuts.push(...runCuts(text, kids, a, b, fine));
      a = b;
    }
    const out = cut(text, cuts);
    // the list left holds the person's items and their comments, and nothing else changed
    const left = out.slice(at, end(list) - (text.length - out.length));
    const errors: ParseError[] = [];
    const v: unknown = parse(left, errors, { allowTrailingComma: true });
    const same = isDeepStrictEqual(
      commentsOf(left).map((c) => c.text),
      comments,
    );
    if (errors.length === 0 && same && isDeepStrictEqual(JSON.stringify(v), JSON.stringify(want))) return out;
  }
  throw new HcpxError({
    code: "bad_json",
    message: "cannot take hcpx's items out of this list and leave the rest of it as it is",
    file: show,
    ...lineCol(text, at),
    hint: "take hcpx's items out of the list by hand (`hcpx adopt --check` names the file), then run the command again",
  });
}

/**
 * `text` with the object at `key` (in the tree `parse` reads) made `next` one member at a time:
 * members not in `next` taken out, the others set where they differ, so that the person's
 * comments and layout in that object stay (a whole object written again would lose them).
 */
export function editMembers(
  text: string,
  key: string[],
  have: Record<string, unknown>,
  next: Record<string, unknown>,
  parse: (text: string) => Node | undefined,
  show: string,
): string {
  let out = text;
  for (const k of Object.keys(have)) if (!(k in next)) out = removeJson(out, parse(out), [...key, k]);
  for (const [k, v] of Object.entries(next))
    if (!(k in have) || !isDeepStrictEqual(have[k], v)) out = setJson(out, parse(out), [...key, k], v, show).text;
  return out;
}

/** A rules merge's result: the value, hcpx's keys in it, and for a list the indexes of hcpx's items that go and the items appended. */
export interface Merged {
  next: unknown;
  ours: string[];
  drop?: number[];
  add?: unknown[];
}

/**
 * The text with the rules at `keyPath` made `m.next`. A list that is there is edited in place: hcpx's
 * stale items taken out, its new ones appended after the person's last, every other byte kept
 * (comments too); an object holding comments has its members set one by one. Else (none there, an
 * empty list of whitespace, an object without comments) the whole value is written.
 */
export function editRules(
  text: string,
  tree: Node | undefined,
  keyPath: string[],
  have: unknown,
  m: Merged,
  parse: (text: string) => Node | undefined,
  show: string,
): string {
  const n = nodeAt(tree, keyPath);
  const within = n ? hasComment(text, n.offset, end(n)) : false;
  if (n?.type === "array" && m.drop && m.add && ((n.children ?? []).length > 0 || within)) {
    const out = m.drop.length ? removeItems(text, n, m.drop, show) : text;
    return appendItems(out, m.drop.length ? nodeAt(parse(out), keyPath)! : n, m.add);
  }
  if (n?.type === "object" && within)
    return editMembers(text, keyPath, have as Record<string, unknown>, m.next as Record<string, unknown>, parse, show);
  return setJson(text, tree, keyPath, m.next, show).text;
}

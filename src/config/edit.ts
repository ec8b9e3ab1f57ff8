// Comment-preserving edits of a JSON5 document (hcp.config.json5). jsonc-parser
// cannot read JSON5 (unquoted keys, single quotes), so the edits are made on
// the tree of src/pack/json5.ts's reader (the one JSON5 reader: it parses,
// locates and gives the positions edited here): find the container at a key
// path and splice one element or member in or out, leaving every other byte as
// it was (comments, key quoting, indentation, trailing-comma style).
import { bidiEscaped } from "../util/bidi";
import { parseJson5, readTree, type Json5Node, type Seg } from "../pack/json5";

/** A value in the document, with its items and positions (src/pack/json5.ts). */
export type Node = Json5Node;

export interface Style {
  quote: '"' | "'";
  unquotedKeys: boolean;
  /** one indentation step, e.g. two spaces */
  indentUnit: string;
  /** the line end a new line gets: CRLF in a document whose lines end so */
  eol: "\n" | "\r\n";
}

export interface Cst {
  text: string;
  root: Node;
  style: Style;
}

export function parseCst(text: string): Cst {
  const t = readTree(text);
  if (!t) {
    parseJson5(text, "the document"); // throws what is wrong, with line and column
    throw new Error("the document nests too deeply to be edited");
  }
  const m = /\n([ \t]+)\S/.exec(text);
  return {
    text,
    root: t.root,
    style: {
      quote: t.singleQuotes > t.doubleQuotes ? "'" : '"',
      unquotedKeys: t.unquotedKeys >= t.quotedKeys,
      indentUnit: m ? m[1]! : "  ",
      eol: text.split("\r\n").length * 2 > text.split("\n").length + 1 ? "\r\n" : "\n",
    },
  };
}

const IDENT_RE = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function renderString(s: string, style: Pick<Style, "quote">): string {
  // a bidi control as an escape: the one JSON5 reader refuses one written as it is (src/util/bidi.ts)
  const json = bidiEscaped(JSON.stringify(s));
  if (style.quote === '"') return json;
  return "'" + json.slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'") + "'";
}

export function renderKey(k: string, style: Style): string {
  return style.unquotedKeys && IDENT_RE.test(k) ? k : renderString(k, style);
}

/** Inline JSON5 rendering of a value in the document's style. */
export function renderValue(v: unknown, style: Style): string {
  if (typeof v === "string") return renderString(v, style);
  if (Array.isArray(v)) return `[${v.map((x) => renderValue(x, style)).join(", ")}]`;
  if (v && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>);
    return entries.length
      ? `{ ${entries.map(([k, x]) => `${renderKey(k, style)}: ${renderValue(x, style)}`).join(", ")} }`
      : "{}";
  }
  return JSON.stringify(v);
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}
function lineEnd(text: string, at: number): number {
  const e = text.indexOf("\n", at);
  return e < 0 ? text.length : e;
}
/** Where a line's end starts: before the CR of a CRLF. */
function beforeEol(text: string, le: number): number {
  return le > 0 && text[le - 1] === "\r" && text[le] === "\n" ? le - 1 : le;
}
function indentOf(text: string, at: number): string {
  const ls = lineStart(text, at);
  return /^[ \t]*/.exec(text.slice(ls))![0];
}
/** Only whitespace and a comment from `from` to the end of its line? */
function restIsTrivia(text: string, from: number): boolean {
  const rest = text.slice(from, beforeEol(text, lineEnd(text, from)));
  return /^\s*(\/\/.*|\/\*.*?\*\/\s*)?$/.test(rest);
}
function onlyWsBefore(text: string, at: number): boolean {
  return /^[ \t]*$/.test(text.slice(lineStart(text, at), at));
}

function find(root: Node, path: readonly Seg[]): { node?: Node; parent?: Node; missing: Seg[]; depth: number } {
  let node = root;
  for (let d = 0; d < path.length; d++) {
    const seg = path[d]!;
    let next: Node | undefined;
    if (node.kind === "object" && typeof seg === "string")
      next = [...node.items].reverse().find((it) => it.key === seg)?.value;
    else if (node.kind === "array" && typeof seg === "number") next = node.items[seg]?.value;
    if (!next) return { parent: node, missing: path.slice(d), depth: d };
    node = next;
  }
  return { node, missing: [], depth: path.length };
}

/** Insert one item (`key: value` or a value) text at the end of a container. */
function insertItem(text: string, c: Node, itemText: string, style: Style): string {
  const close = c.end - 1;
  const items = c.items;
  if (items.length === 0) {
    const inner = text.slice(c.start + 1, close);
    if (/^\s*$/.test(inner)) {
      if (inner.includes("\n")) {
        const ind = indentOf(text, close);
        const nl = style.eol;
        return text.slice(0, c.start + 1) + nl + ind + style.indentUnit + itemText + "," + nl + ind + text.slice(close);
      }
      const pad = c.kind === "object" ? " " : "";
      return text.slice(0, c.start + 1) + pad + itemText + pad + text.slice(close);
    }
    // only comments inside: put the item on its own line before the closing bracket
    const ind = indentOf(text, close);
    if (onlyWsBefore(text, close)) {
      const ls = lineStart(text, close);
      return text.slice(0, ls) + ind + style.indentUnit + itemText + "," + style.eol + text.slice(ls);
    }
    return text.slice(0, close) + " " + itemText + " " + text.slice(close);
  }
  const last = items[items.length - 1]!;
  const prev = items.length > 1 ? items[items.length - 2]! : undefined;
  const trailingComma = last.comma !== undefined;
  const afterLast = last.comma !== undefined ? last.comma + 1 : last.end;
  // The last item is on a line of its own (no sibling or opening bracket before it)?
  const ownLine =
    onlyWsBefore(text, last.start) && (!prev || lineStart(text, prev.start) !== lineStart(text, last.start));
  if (ownLine && restIsTrivia(text, afterLast)) {
    // new line after the last item's line, same indentation, same comma style
    const ind = indentOf(text, last.start);
    const le = beforeEol(text, lineEnd(text, afterLast));
    let out = text;
    let shift = 0;
    if (!trailingComma) {
      out = out.slice(0, last.end) + "," + out.slice(last.end);
      shift = 1;
    }
    const at = le + shift;
    return out.slice(0, at) + style.eol + ind + itemText + (trailingComma ? "," : "") + out.slice(at);
  }
  if (ownLine) {
    // e.g. `  "b"]` — the closing bracket follows on the same line
    const ind = indentOf(text, last.start);
    if (trailingComma) return text.slice(0, afterLast) + style.eol + ind + itemText + "," + text.slice(afterLast);
    return text.slice(0, last.end) + "," + style.eol + ind + itemText + text.slice(last.end);
  }
  // inline: `["a", "b"]` → `["a", "b", "c"]`
  if (trailingComma) return text.slice(0, afterLast) + " " + itemText + "," + text.slice(afterLast);
  return text.slice(0, last.end) + ", " + itemText + text.slice(last.end);
}

/** Remove item `k` of a container. */
function removeItem(text: string, c: Node, k: number): string {
  const items = c.items;
  const it = items[k]!;
  const isLast = k === items.length - 1;
  const prev = k > 0 ? items[k - 1]! : undefined;
  const next = isLast ? undefined : items[k + 1]!;
  const afterIt = it.comma !== undefined ? it.comma + 1 : it.end;
  const ownLine =
    onlyWsBefore(text, it.start) &&
    restIsTrivia(text, afterIt) &&
    (!next || lineStart(text, next.start) !== lineStart(text, it.start));
  if (ownLine) {
    // drop the whole line (with a comment on it); fix the comma of the new last item
    const ls = lineStart(text, it.start);
    const le = lineEnd(text, afterIt);
    let out = text.slice(0, ls) + text.slice(Math.min(le + 1, text.length));
    if (isLast && it.comma === undefined && prev && prev.comma !== undefined)
      out = out.slice(0, prev.comma) + out.slice(prev.comma + 1);
    return out;
  }
  if (!isLast) {
    // remove `item,` and the spaces up to the next item (when on the same line)
    let to = afterIt;
    while (to < next!.start && (text[to] === " " || text[to] === "\t")) to++;
    return text.slice(0, it.start) + text.slice(to);
  }
  if (prev) {
    // last of several inline: remove from the previous item's end
    const from = prev.end;
    const to = it.comma !== undefined ? it.comma + 1 : it.end;
    const keepComma = it.comma !== undefined;
    return text.slice(0, from) + (keepComma ? "," : "") + text.slice(to);
  }
  // the only item
  return text.slice(0, it.start) + text.slice(afterIt).replace(/^[ \t]+/, "");
}

function nested(missing: readonly Seg[], leaf: unknown): unknown {
  let v = leaf;
  for (let d = missing.length - 1; d >= 0; d--) v = { [missing[d] as string]: v };
  return v;
}

/** Insert `value` into the array at `path` (created, with missing parents, when absent). */
export function arrayAppend(text: string, path: readonly string[], value: unknown): string {
  const cst = parseCst(text);
  const f = find(cst.root, path);
  if (f.node) {
    if (f.node.kind !== "array") throw new Error(`${path.join(".")} is not an array`);
    return insertItem(text, f.node, renderValue(value, cst.style), cst.style);
  }
  const parent = f.parent!;
  if (parent.kind !== "object") throw new Error(`${path.slice(0, f.depth).join(".")} is not an object`);
  const [k, ...rest] = f.missing as string[];
  return insertItem(
    text,
    parent,
    `${renderKey(k!, cst.style)}: ${renderValue(nested(rest, [value]), cst.style)}`,
    cst.style,
  );
}

/** Remove every element of the array at `path` equal to `value`. */
export function arrayRemove(text: string, path: readonly string[], value: unknown): string {
  for (;;) {
    const cst = parseCst(text);
    const f = find(cst.root, path);
    if (!f.node || f.node.kind !== "array") return text;
    const want = JSON.stringify(value);
    const idx = f.node.items.findIndex((it) => JSON.stringify(it.value.value) === want);
    if (idx < 0) return text;
    text = removeItem(text, f.node, idx);
  }
}

/** Set `key` of the object at `path` to `value` (replacing the value, or adding the member). */
export function objectSet(text: string, path: readonly string[], key: string, value: unknown): string {
  const cst = parseCst(text);
  const f = find(cst.root, path);
  if (f.node) {
    if (f.node.kind !== "object") throw new Error(`${path.join(".")} is not an object`);
    const it = [...f.node.items].reverse().find((x) => x.key === key);
    if (it) return text.slice(0, it.value.start) + renderValue(value, cst.style) + text.slice(it.value.end);
    return insertItem(text, f.node, `${renderKey(key, cst.style)}: ${renderValue(value, cst.style)}`, cst.style);
  }
  const parent = f.parent!;
  if (parent.kind !== "object") throw new Error(`${path.slice(0, f.depth).join(".")} is not an object`);
  const [k, ...rest] = f.missing as string[];
  return insertItem(
    text,
    parent,
    `${renderKey(k!, cst.style)}: ${renderValue(nested([...rest, key], value), cst.style)}`,
    cst.style,
  );
}

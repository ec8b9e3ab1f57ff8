// In-place edits of one entry in a JSON / JSONC file, done textually on the
// parse tree of `jsonc-parser` so that everything outside our entry — other
// servers, other keys, comments, key order, indentation, EOL — stays byte for
// byte. An insertion is the exact inverse of a removal, so `adopt --remove`
// restores the file as it was before `adopt --write`.
import { parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser/lib/esm/main.js"; // the ESM build: the UMD one require()s its parts at run time, which a bundle cannot resolve
import { HcpxError } from "../util/errors";
import { checkNesting, parsingDeep } from "../util/nesting";
import { lineCol } from "../util/text";

export interface JsonStyle {
  /** one indentation unit, e.g. "  " or "\t" */
  unit: string;
  eol: string;
}

export interface JsonRules {
  /** comments may appear in the file (JSONC) */
  comments: boolean;
  /** trailing commas are accepted by the host */
  trailingCommas: boolean;
}

/** What an insertion did, recorded in the ledger so a removal can undo it exactly. */
export interface JsonInsertInfo {
  /** The property path we inserted (our key, or the highest ancestor we had to create). */
  insertedAt: string[];
  /** Inner text of the object we inserted into when it had no members (e.g. "" for `{}`). */
  emptyInner?: string;
}

export function detectStyle(text: string): JsonStyle {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const m = /\n([ \t]+)\S/.exec(text);
  let unit = "  ";
  if (m) unit = m[1]!.startsWith("\t") ? "\t" : m[1]!.length >= 2 && m[1]!.length <= 8 ? m[1]! : "  ";
  return { unit, eol };
}

/** Parse strictly enough for the host; throws a HcpxError with line/column. */
export function parseJsonFor(text: string, file: string, rules: JsonRules, hostName: string): Node | undefined {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === "") return undefined;
  checkNesting(text, file);
  const errors: ParseError[] = [];
  // a UTF-8 BOM parses as a space (same offsets; the BOM itself is kept on write)
  const tree = parsingDeep(file, () =>
    parseTree(unBom(text), errors, {
      allowTrailingComma: rules.trailingCommas,
      disallowComments: !rules.comments,
      allowEmptyContent: true,
    }),
  );
  if (errors.length) {
    const e = errors[0]!;
    const { line, column } = lineCol(text, e.offset);
    const code = printParseErrorCode(e.error);
    let message = `cannot parse JSON: ${code}`;
    let hint = "fix the syntax at that position; hcpx leaves a file it cannot parse untouched";
    if (code === "InvalidCommentToken") {
      message = `comments are not allowed in this file (${hostName} reads it as strict JSON)`;
      hint = "remove the comment; hcpx will not write a file the host cannot read";
    } else if (code === "PropertyNameExpected" || code === "ValueExpected") {
      if (
        !rules.trailingCommas &&
        /,\s*(\/\/[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*[}\]]/.test(text.slice(Math.max(0, e.offset - 200), e.offset + 1))
      ) {
        message = `trailing comma (${hostName} refuses a file with a trailing comma)`;
        hint = "remove the comma before the closing bracket";
      }
    }
    throw new HcpxError({ code: "bad_json", message, file, line, column, hint });
  }
  registerTree(tree, text, file);
  if (tree && tree.type !== "object") {
    throw new HcpxError({
      code: "bad_json",
      message: `the top level is ${tree.type === "array" ? "an array" : `a ${tree.type}`}, expected an object`,
      file,
      ...lineCol(text, tree.offset),
      hint: "this file must hold a JSON object",
    });
  }
  return tree;
}

/**
 * parseJsonFor's refusal of a text hcpx is about to write (the host must be able to read it), without
 * its tree: a text JSON.parse takes, with an object at the top, is one every reader of this file takes
 * (JSON is the strictest of them: no comments, no trailing comma, only JSON's whitespace); anything else
 * is parsed as parseJsonFor does, which refuses it with its line and column (or takes a JSONC file's
 * comments). A rules list at 5,000 packs is ~2.5 MB: JSON.parse reads it in a few ms, the parse tree
 * took ~100 ms.
 */
export function checkJsonFor(text: string, file: string, rules: JsonRules, hostName: string): void {
  try {
    const v: unknown = JSON.parse(text);
    if (v !== null && typeof v === "object" && !Array.isArray(v)) return;
  } catch {
    /* not plain JSON: the reader below says why, or takes what the format allows */
  }
  parseJsonFor(text, file, rules, hostName);
}

/** `text` with a leading BOM replaced by a space: jsonc-parser rejects a BOM, offsets stay the same. */
export function unBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? " " + text.slice(1) : text;
}

export function lineStart(text: string, offset: number): number {
  const i = text.lastIndexOf("\n", offset - 1);
  return i + 1;
}
export function indentAt(text: string, offset: number): string {
  const s = lineStart(text, offset);
  return /^[ \t]*/.exec(text.slice(s))![0];
}

// Every line after the first indented by `baseIndent`, lines joined by the file's EOL: printed JSON holds
// no raw line feed but its own (a string's is escaped), so one replace does it (a split and join per
// line was ~100,000 strings for a rules list at 5,000 packs).
export function serialize(value: unknown, style: JsonStyle, baseIndent: string): string {
  const s = JSON.stringify(value, null, style.unit);
  return baseIndent === "" && style.eol === "\n" ? s : s.replaceAll("\n", style.eol + baseIndent);
}

// ---- one value per key: what the host reads ----
// A host reads JSON with JSON.parse (or a reader like it): of a key written
// twice in one object, the LAST copy wins, while a tree walk finds the first.
// So on every path hcpx reads or edits (the entry's key path and everything
// inside the entry or list), a key twice is refused with the file and line:
// hcpx never judges, compares or edits one copy while the host runs the other.

/** The text and file of each parsed tree (for a duplicate's file:line). */
const sources = new WeakMap<Node, { text: string; file: string }>();

/** Record where `tree` was parsed from (parseJsonFor does; other readers of host JSON must). */
export function registerTree(tree: Node | undefined, text: string, file: string): void {
  if (tree) sources.set(tree, { text, file });
}

function rootOf(n: Node): Node {
  while (n.parent) n = n.parent;
  return n;
}

function duplicateKey(first: Node, second: Node, path: string[]): HcpxError {
  const src = sources.get(rootOf(second));
  const at: { line?: number; column?: number } = src ? lineCol(src.text, second.offset) : {};
  const firstLine = src ? lineCol(src.text, first.offset).line : undefined;
  return new HcpxError({
    code: "duplicate_key",
    message: `\`${path.join(".")}\` appears twice${firstLine !== undefined ? ` (lines ${firstLine} and ${at.line})` : ""}: the host reads the last copy, so hcpx neither judges nor edits either`,
    ...(src ? { file: src.file } : {}),
    ...at,
    hint: "keep the copy you mean and delete the other, then run the command again",
  });
}

/** The member `key` of object `obj` (undefined when absent); a key twice throws duplicate_key. */
function member(obj: Node, key: string, path: string[]): Node | undefined {
  let found: Node | undefined;
  for (const p of obj.children ?? []) {
    if (p.children?.[0]?.value !== key) continue;
    if (found) throw duplicateKey(found, p, path);
    found = p;
  }
  return found;
}

/** Every object inside `n` has each key once (iterative: a deep value cannot overflow the stack). */
function assertUnique(n: Node, path: string[]): void {
  const stack: [Node, string[]][] = [[n, path]];
  while (stack.length) {
    const [x, at] = stack.pop()!;
    if (x.type === "object") {
      const seen = new Map<string, Node>();
      for (const p of x.children ?? []) {
        const k = String(p.children?.[0]?.value);
        const prev = seen.get(k);
        if (prev) throw duplicateKey(prev, p, [...at, k]);
        seen.set(k, p);
        if (p.children?.[1]) stack.push([p.children[1], [...at, k]]);
      }
    } else if (x.type === "array") (x.children ?? []).forEach((c, i) => stack.push([c, [...at, String(i)]]));
  }
}

/** Value node at `path`, if present: each key on the path, and inside the value, once (else duplicate_key). */
export function nodeAt(tree: Node | undefined, path: string[]): Node | undefined {
  if (!tree) return undefined;
  let n: Node = tree;
  for (let i = 0; i < path.length; i++) {
    if (n.type !== "object") return undefined;
    const p = member(n, path[i]!, path.slice(0, i + 1));
    if (!p?.children?.[1]) return undefined;
    n = p.children[1];
  }
  assertUnique(n, path);
  return n;
}

export function valueAt(tree: Node | undefined, path: string[]): unknown {
  const n = nodeAt(tree, path);
  return n ? nodeValue(n) : undefined;
}

function nodeValue(n: Node): unknown {
  switch (n.type) {
    case "object":
      return Object.fromEntries(
        (n.children ?? []).map((p) => [p.children![0]!.value as string, nodeValue(p.children![1]!)]),
      );
    case "array":
      return (n.children ?? []).map(nodeValue);
    default:
      return n.value;
  }
}

/** Skip whitespace and comments forward from i. */
export function skipTrivia(text: string, i: number): number {
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text.startsWith("//", i)) {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (text.startsWith("/*", i)) {
      const e = text.indexOf("*/", i + 2);
      i = e < 0 ? text.length : e + 2;
    } else return i;
  }
}

/**
 * Set `path` to `value`. Ancestors that are missing are created. Returns the new
 * text and, for an insertion, how to undo it. Throws when an ancestor is not an object.
 * `style`: the file's, when `text` is a part of it.
 */
export function setJson(
  text: string,
  tree: Node | undefined,
  path: string[],
  value: unknown,
  file: string,
  style: JsonStyle = detectStyle(text),
): { text: string; insert?: JsonInsertInfo } {
  if (!tree) {
    // Empty or absent file: a fresh object.
    let v: unknown = value;
    for (let i = path.length - 1; i >= 0; i--) v = { [path[i]!]: v };
    const lead = text.charCodeAt(0) === 0xfeff ? "\ufeff" : "";
    return { text: lead + serialize(v, style, "") + style.eol, insert: { insertedAt: [path[0]!] } };
  }
  // Deepest existing object along the path.
  let obj = tree;
  let depth = 0;
  for (; depth < path.length; depth++) {
    const prop = member(obj, path[depth]!, path.slice(0, depth + 1));
    if (!prop) break;
    const child = prop.children![1]!;
    if (depth === path.length - 1) {
      // Replace the existing value in place.
      const base = indentAt(text, prop.offset);
      const s = serialize(value, style, base);
      return { text: text.slice(0, child.offset) + s + text.slice(child.offset + child.length) };
    }
    if (child.type !== "object") {
      throw new HcpxError({
        code: "bad_json_shape",
        message: `\`${path.slice(0, depth + 1).join(".")}\` is ${child.type === "array" ? "an array" : `a ${child.type}`}, expected an object`,
        file,
        ...lineCol(text, child.offset),
        hint: "fix that key by hand; hcpx does not replace values it does not own",
      });
    }
    obj = child;
  }
  return insertMember(text, obj, path, depth, value, style);
}

/** Insert property path[depth] (with the missing levels below it) into `obj`, in the file's own style. */
function insertMember(
  text: string,
  obj: Node,
  path: string[],
  depth: number,
  value: unknown,
  style: ReturnType<typeof detectStyle>,
): { text: string; insert?: JsonInsertInfo } {
  const key = path[depth]!;
  let v: unknown = value;
  for (let i = path.length - 1; i > depth; i--) v = { [path[i]!]: v };
  const insertedAt = path.slice(0, depth + 1);
  const members = obj.children ?? [];
  const objIndent = indentAt(text, obj.offset);
  const open = obj.offset + 1;
  const close = obj.offset + obj.length - 1;
  if (members.length === 0) {
    const inner = text.slice(open, close);
    if (inner.trim() !== "") {
      // only comments inside: keep them, put ours after them
      const childIndent = objIndent + style.unit;
      const trimmed = inner.replace(/\s*$/, "");
      const s = `${style.eol}${childIndent}${JSON.stringify(key)}: ${serialize(v, style, childIndent)}${style.eol}${objIndent}`;
      return { text: text.slice(0, open) + trimmed + s + text.slice(close), insert: { insertedAt, emptyInner: inner } };
    }
    const childIndent = objIndent + style.unit;
    const s = `${style.eol}${childIndent}${JSON.stringify(key)}: ${serialize(v, style, childIndent)}${style.eol}${objIndent}`;
    return { text: text.slice(0, open) + s + text.slice(close), insert: { insertedAt, emptyInner: inner } };
  }
  const last = members[members.length - 1]!;
  const lastEnd = last.offset + last.length;
  // A trailing comma after the last member (JSONC): insert after it, no new comma.
  const afterLast = skipTrivia(text, lastEnd);
  const hasTrailingComma = text[afterLast] === ",";
  const closeSameLine = !text.slice(lastEnd, close).includes("\n");
  if (closeSameLine) {
    // `{ "a": 1 }` — keep it on one line.
    const s = `${hasTrailingComma ? "" : ","} ${JSON.stringify(key)}: ${JSON.stringify(v)}${hasTrailingComma ? "," : ""}`;
    const at = hasTrailingComma ? afterLast + 1 : lastEnd;
    return { text: text.slice(0, at) + s + text.slice(at), insert: { insertedAt } };
  }
  const childIndent = indentAt(text, last.offset);
  // End of the line holding the last member (after any trailing comment).
  const from = hasTrailingComma ? afterLast + 1 : lastEnd;
  let eolAt = text.indexOf("\n", from);
  if (eolAt < 0 || eolAt > close) eolAt = close;
  else if (text[eolAt - 1] === "\r") eolAt--;
  // In a file that uses trailing commas, ours gets one too (so a removal is the exact inverse).
  const propText = `${style.eol}${childIndent}${JSON.stringify(key)}: ${serialize(v, style, childIndent)}${hasTrailingComma ? "," : ""}`;
  const before = hasTrailingComma ? text.slice(0, eolAt) : text.slice(0, lastEnd) + "," + text.slice(lastEnd, eolAt);
  return { text: before + propText + text.slice(eolAt), insert: { insertedAt } };
}

/**
 * Remove the property at `path`. `emptyInner` restores an object that had no
 * members before we inserted into it. Returns the text unchanged when absent.
 */
export function removeJson(text: string, tree: Node | undefined, path: string[], emptyInner?: string): string {
  if (!tree) return text;
  const parentPath = path.slice(0, -1);
  const parent = parentPath.length ? nodeAt(tree, parentPath) : tree;
  if (!parent || parent.type !== "object") return text;
  const members = parent.children ?? [];
  const prop = member(parent, path[path.length - 1]!, path);
  if (!prop) return text;
  const idx = members.indexOf(prop);
  const propEnd = prop.offset + prop.length;
  const open = parent.offset + 1;
  const close = parent.offset + parent.length - 1;
  if (members.length === 1) {
    return text.slice(0, open) + (emptyInner ?? "") + text.slice(close);
  }
  if (idx > 0) {
    const prev = members[idx - 1]!;
    const prevEnd = prev.offset + prev.length;
    const between = text.slice(prevEnd, prop.offset);
    // After our property: a trailing comma of ours (when the object had one) stays with the previous member.
    const commaAfter = skipTrivia(text, propEnd);
    const ownComma = text[commaAfter] === "," && idx === members.length - 1;
    if (!between.includes("\n")) {
      // inline: `, "hcp": …`
      const end = ownComma ? commaAfter + 1 : propEnd;
      const keepComma = ownComma ? "," : "";
      return text.slice(0, prevEnd) + keepComma + text.slice(end);
    }
    // multi-line, a member after ours: our own lines go with our own comma (the previous
    // member's comma may sit before a `// comment` of the person's, which would then swallow ours)
    const own = lineStart(text, prop.offset);
    if (idx < members.length - 1 && text.slice(own, prop.offset).trim() === "") {
      const c = skipTrivia(text, propEnd);
      if (text[c] === "," && !text.slice(propEnd, c).includes("//") && !text.slice(propEnd, c).includes("/*")) {
        let end = c + 1;
        const nl = text.indexOf("\n", end);
        if (nl >= 0 && text.slice(end, nl).trim() === "") end = nl + 1;
        return text.slice(0, own) + text.slice(end);
      }
    }
    // multi-line: remove the comma right after the previous member (if there is one
    // there) and everything from the line break before our property to its end.
    const commaIdx = prevEnd + between.indexOf(",");
    let cut = lineStart(text, prop.offset) - 1;
    if (text[cut - 1] === "\r") cut--;
    const end = ownComma ? commaAfter + 1 : propEnd;
    if (ownComma) {
      // the object had a trailing comma after its last member: keep one after prev
      return text.slice(0, cut) + text.slice(end);
    }
    if (commaIdx >= prevEnd && commaIdx < cut)
      return text.slice(0, commaIdx) + text.slice(commaIdx + 1, cut) + text.slice(end);
    return text.slice(0, cut) + text.slice(end);
  }
  // first of several: remove up to the next member's start
  const next = members[1]!;
  return text.slice(0, prop.offset) + text.slice(next.offset);
}

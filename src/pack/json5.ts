// The one JSON5 document reader. A hand-written recursive-descent reader
// (`scan`) reads the JSON5 that packs and configs are written in, as a value
// (`parseJson5`, `fastJson5`) or as a tree of positioned nodes (`readTree`):
// `locate` maps a JSON path back to a line and column on that tree so that
// schema errors can point at the text, and src/config/edit.ts edits a
// document in place on it. The `json5` library is loaded only when the value
// reader declines (any syntax error, or a rare construct such as a non-ASCII
// identifier), so that error messages, lines and columns are the library's.
//
// Why not `import JSON5 from "json5"`: the library (its unicode tables above
// all) costs start-up even when never called; `hcpx exec` reads a config and a
// surface on every agent tool call. A bare `require()` keeps it synchronous:
// esbuild bundles it as a lazily evaluated module, vitest provides `require`.
import { HcpxError } from "../util/errors";
import { CAPS, fileId, readTextFile } from "../util/readfile";
import { BIDI_RAW } from "../util/bidi";

/** One step of a path into a document: a member name or an item index (what locate() takes, a lint finding's place, a config edit's key path). */
export type Seg = string | number;

export interface Json5Doc {
  file: string;
  text: string;
  value: unknown;
  /** read from disk: the absolute path and the file's identity when it was read (readTextFile) */
  id?: string;
}

interface Json5Lib {
  parse(text: string): unknown;
}

let lib: Json5Lib | undefined;
function json5Lib(): Json5Lib {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  lib ??= require("json5") as Json5Lib;
  return lib;
}

/**
 * Nesting deeper than this in a file hcpx reads (a pack, a config, a host
 * descriptor) is refused: none needs more than ~8 levels, and a value nested
 * thousands deep would overflow the stack of whatever walks it next
 * (validation, `locate`, JSON.stringify).
 */
export const MAX_NESTING = 64;

/** The depth of a JSON-like value (a scalar is 0), counted without recursion; stops counting past `limit`. */
export function nestingDepth(value: unknown, limit = Infinity): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (d + 1 > max) {
      max = d + 1;
      if (max > limit) return max;
    }
    for (const x of Array.isArray(v) ? v : Object.values(v))
      if (x !== null && typeof x === "object") stack.push([x, d + 1]);
  }
  return max;
}

function tooDeep(file: string): HcpxError {
  return new HcpxError({
    code: "too_deep",
    message: `nested deeper than ${MAX_NESTING} levels`,
    file,
    hint: "this is not a file hcpx expects: packs and configs nest a few levels",
  });
}

/**
 * A bidi control written as it is anywhere in a document, comments included (src/util/bidi.ts): an editor or
 * a review would show the text in another order than it parses (found in review: a config whose grants read
 * `allow: ["gitx.status"]` on screen granted "*"). What decides what may run must read as it parses. Written
 * as an escape in a string (`\u202e`) it shows as the escape, and the readers of pack text refuse it there.
 */
function bidiControl(body: string, file: string, at: number): HcpxError {
  const cp = body.charCodeAt(at).toString(16).toUpperCase().padStart(4, "0");
  return new HcpxError({
    code: "bidi_control",
    message: `holds the bidi control U+${cp} as it is: the file would read in another order than hcpx reads it`,
    file,
    ...placeOf(body, at),
    hint: "remove it (or write it as an escape, \\u" + cp.toLowerCase() + ", where a string needs it)",
  });
}

/**
 * A key written twice in one object: the last copy is the value, while a
 * reader of the text (a person, a reviewer, an editor that walks to the first)
 * sees the first. What decides what may run must not be ambiguous: refused.
 */
class DuplicateKey {
  constructor(
    readonly key: string,
    readonly at: number,
  ) {}
}

/** The 1-based line and column of offset `at` (util/text.ts lineCol's, without its module's node:crypto on exec's path). */
function placeOf(text: string, at: number): { line: number; column: number } {
  const before = text.slice(0, at);
  return { line: before.split("\n").length, column: at - before.lastIndexOf("\n") };
}

function duplicateKey(text: string, file: string, d: DuplicateKey): HcpxError {
  return new HcpxError({
    code: "duplicate_key",
    message: `the key '${d.key}' appears twice in one object; its last copy would be the value, so it is refused`,
    file,
    ...placeOf(text, d.at),
    hint: "keep the copy you mean and delete the other",
  });
}

/**
 * The keys of a parsed JSON value, counted without recursion; -1 when it is nested deeper than `limit`
 * (nestingDepth's rule). One walk for both: the depth and the count were two walks of every pack file.
 */
function keysWithin(value: unknown, limit: number): number {
  let n = 0;
  // each container with its depth, side by side (no pair per container)
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length) {
    const v = values.pop();
    const d = depths.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (d + 1 > limit) return -1;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (x !== null && typeof x === "object") {
          values.push(x);
          depths.push(d + 1);
        }
      }
      continue;
    }
    const ks = Object.keys(v);
    n += ks.length;
    for (const k of ks) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== null && typeof x === "object") {
        values.push(x);
        depths.push(d + 1);
      }
    }
  }
  return n;
}

/** Member keys written in JSON text: strings followed by `:` (no JSON.parse duplicate is silent past this). */
function keysInText(src: string): number {
  let n = 0;
  let i = 0;
  for (;;) {
    const q = src.indexOf('"', i);
    if (q < 0) return n;
    let j = q + 1;
    for (;;) {
      const e = src.indexOf('"', j);
      if (e < 0) return n;
      let b = e - 1;
      while (src.charCodeAt(b) === 0x5c) b--;
      j = e + 1;
      if ((e - 1 - b) % 2 === 0) break;
    }
    i = j;
    while (i < src.length && (src[i] === " " || src[i] === "\n" || src[i] === "\r" || src[i] === "\t")) i++;
    if (src.charCodeAt(i) === 0x3a) n++;
  }
}

/**
 * A string value of its own. A slice of the file's text keeps the whole text alive for as long as
 * the value lives (V8 shares the text's bytes for a slice of 13 characters or more): 5,000 loaded
 * packs held every surface.json that way (34 MB at 5,000 packs). A property key is a flat,
 * interned copy (and one copy for values repeated across packs).
 */
function own(s: string): string {
  return s.length >= 13 ? Object.keys({ [s]: 0 })[0]! : s;
}

export function parseJson5(text: string, file: string): Json5Doc {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const bidi = BIDI_RAW.exec(body);
  if (bidi) throw bidiControl(body, file, bidi.index);
  try {
    return parseJson5Unique(body, file);
  } catch (e) {
    if (e instanceof DuplicateKey) throw duplicateKey(body, file, e);
    throw e;
  }
}

function parseJson5Unique(body: string, file: string): Json5Doc {
  const strict = strictJson(body);
  if (strict !== DECLINE) {
    const keys = keysWithin(strict, MAX_NESTING);
    if (keys < 0) throw tooDeep(file);
    // JSON.parse keeps the last of two copies silently: more keys written than read is a duplicate,
    // which the scanning reader (below) then locates
    if (keysInText(body) === keys) return { file, text: body, value: strict };
  }
  const fast = fastJson5(body);
  if (fast !== DECLINE) {
    if (nestingDepth(fast, MAX_NESTING) > MAX_NESTING) throw tooDeep(file);
    return { file, text: body, value: fast };
  }
  let value: unknown;
  try {
    value = json5Lib().parse(body);
  } catch (e) {
    const err = e as Error & { lineNumber?: number; columnNumber?: number };
    const msg = String(err.message)
      .replace(/^JSON5: /, "")
      .replace(/ at \d+:\d+$/, "");
    throw new HcpxError({
      code: "bad_json5",
      message: `cannot parse: ${msg}`,
      file,
      line: err.lineNumber,
      column: err.columnNumber,
      hint: "fix the syntax at that position (JSON5: comments, trailing commas and unquoted keys are allowed)",
    });
  }
  if (nestingDepth(value, MAX_NESTING) > MAX_NESTING) throw tooDeep(file);
  // what the library took (a rare construct): the lenient tree reader finds a key written twice
  scan(body, { doubleQuotes: 0, singleQuotes: 0, quotedKeys: 0, unquotedKeys: 0 });
  return { file, text: body, value };
}

/**
 * Pack files are usually plain JSON (after a leading comment, at most): the
 * engine's JSON.parse reads them several times faster than fastJson5, large or
 * small (a 1.5 MB surface.json imported from an OpenAPI document ~10×; 5,000
 * surfaces of 7 KB ~2×, in ~30 MB less heap: its strings are flat copies). JSON
 * is a subset of JSON5 with the same values (`__proto__` an own property, the
 * last of duplicate keys wins), so the result is the same; anything else
 * declines, and fastJson5 reads it.
 */
function strictJson(src: string): unknown {
  let i = 0;
  for (;;) {
    while (i < src.length && (src[i] === " " || src[i] === "\n" || src[i] === "\r" || src[i] === "\t")) i++;
    if (src.startsWith("//", i)) {
      const e = src.indexOf("\n", i);
      i = e < 0 ? src.length : e + 1;
    } else break;
  }
  if (src[i] !== "{" && src[i] !== "[") return DECLINE;
  try {
    return JSON.parse(i === 0 ? src : src.slice(i));
  } catch {
    return DECLINE;
  }
}

/** Returned by `fastJson5` when it does not take the text (syntax error or a rare construct). */
export const DECLINE: unique symbol = Symbol("json5.decline");

// Nesting deeper than this goes to the library (iterative, no stack limit).
const MAX_DEPTH = 1000;

class Decline {}
const declined = new Decline();

/**
 * JSON5 parse by recursive descent over char codes. Gives exactly what
 * `JSON5.parse` (json5 2.x) gives, or DECLINE on any syntax error and on what it
 * leaves to the library: identifiers with `\u` escapes or non-ASCII characters,
 * raw U+2028/U+2029 inside strings (the library warns about those), and
 * nesting deeper than MAX_DEPTH.
 */
export function fastJson5(src: string): unknown {
  return scan(src, undefined);
}

/** One member of an object (key … value) or element of an array, with its positions in the text. */
export interface Json5Item {
  /** where the item starts: its key for a member, its value for an element */
  start: number;
  /** end (exclusive) of its value */
  end: number;
  key?: string;
  keyQuoted?: boolean;
  value: Json5Node;
  /** index of the comma after it, if any */
  comma?: number;
}

/** A value in the text: where it starts and ends (exclusive), its items (containers), and its parsed value. */
export interface Json5Node {
  kind: "object" | "array" | "atom";
  start: number;
  end: number;
  items: Json5Item[];
  value: unknown;
}

/** How a document is written: counted while reading its tree (src/config/edit.ts writes in the same style). */
export interface Json5Counts {
  doubleQuotes: number;
  singleQuotes: number;
  quotedKeys: number;
  unquotedKeys: number;
}

// Identifier characters beyond ASCII, and \u escapes, in a key: the tree reader
// takes them (the value reader leaves them to the library). Made on first use:
// a \p{…} class is built from ICU's tables when the RegExp is created, ~3 M
// instructions (callgrind) that every `hcpx exec` paid at load for keys it
// almost never meets.
let wideKeyRe: RegExp | undefined;
const WIDE_KEY = (): RegExp => (wideKeyRe ??= /(?:[\p{ID_Continue}$\u200c\u200d]|\\u[0-9a-fA-F]{4})+/uy);

/**
 * The one JSON5 reader: the value (tree undefined), or also every value's
 * positions (tree given; then the reader is lenient where the value reader
 * declines for the library's sake: non-ASCII identifiers, \u escapes in keys,
 * raw U+2028/U+2029 in strings). `parseJson5` and `fastJson5` read values,
 * `locate` and `readTree` (hence src/config/edit.ts) read trees.
 */
function scan(src: string, tree: (Json5Counts & { root?: Json5Node }) | undefined): unknown {
  const n = src.length;
  let i = 0;
  let node: Json5Node | undefined; // the node of the value just read (tree mode)

  const fail = (): never => {
    throw declined;
  };

  // Non-ASCII JSON5 whitespace (none of these can continue an identifier).
  const isWideSpace = (c: number): boolean =>
    c === 0xa0 ||
    c === 0xfeff ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000;
  // Skips whitespace and comments (JSON5 whitespace: ASCII, NBSP, BOM, line
  // and paragraph separators and the Unicode Space_Separator set).
  const skip = (): void => {
    while (i < n) {
      const c = src.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0b || c === 0x0c) i++;
      else if (c === 0x2f) {
        const d = src.charCodeAt(i + 1);
        if (d === 0x2f) {
          i += 2;
          while (i < n) {
            const e = src.charCodeAt(i);
            if (e === 0x0a || e === 0x0d || e === 0x2028 || e === 0x2029) break;
            i++;
          }
        } else if (d === 0x2a) {
          const e = src.indexOf("*/", i + 2);
          if (e < 0) fail();
          i = e + 2;
        } else fail();
      } else if (c < 0x80) return;
      else if (isWideSpace(c)) i++;
      else return;
    }
  };

  const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
  const hexVal = (c: number): number =>
    c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : fail();

  const string = (q: number): string => {
    if (tree) {
      if (q === 0x22) tree.doubleQuotes++;
      else tree.singleQuotes++;
    }
    i++; // opening quote
    let out = "";
    let run = i;
    for (;;) {
      if (i >= n) fail();
      const c = src.charCodeAt(i);
      if (c === q) {
        out += src.slice(run, i);
        i++;
        return own(out);
      }
      if (c === 0x5c) {
        out += src.slice(run, i);
        i++;
        if (i >= n) fail();
        const e = src.charCodeAt(i++);
        switch (e) {
          case 0x62:
            out += "\b";
            break;
          case 0x66:
            out += "\f";
            break;
          case 0x6e:
            out += "\n";
            break;
          case 0x72:
            out += "\r";
            break;
          case 0x74:
            out += "\t";
            break;
          case 0x76:
            out += "\v";
            break;
          case 0x30:
            if (isDigit(src.charCodeAt(i))) fail();
            out += "\0";
            break;
          case 0x78: {
            const v = hexVal(src.charCodeAt(i)) * 16 + hexVal(src.charCodeAt(i + 1));
            i += 2;
            out += String.fromCharCode(v);
            break;
          }
          case 0x75: {
            const v =
              hexVal(src.charCodeAt(i)) * 4096 +
              hexVal(src.charCodeAt(i + 1)) * 256 +
              hexVal(src.charCodeAt(i + 2)) * 16 +
              hexVal(src.charCodeAt(i + 3));
            i += 4;
            out += String.fromCharCode(v);
            break;
          }
          case 0x0a:
          case 0x2028:
          case 0x2029:
            break; // line continuation
          case 0x0d:
            if (src.charCodeAt(i) === 0x0a) i++;
            break;
          default:
            if (e >= 0x31 && e <= 0x39) fail();
            out += src[i - 1]; // any other escaped char stands for itself (a surrogate pair's low half follows as a plain char)
        }
        run = i;
        continue;
      }
      if (c === 0x0a || c === 0x0d || ((c === 0x2028 || c === 0x2029) && !tree)) fail();
      i++;
    }
  };

  const literal = (word: string): void => {
    if (!src.startsWith(word, i)) fail();
    i += word.length;
  };

  const number = (): number => {
    let sign = 1;
    let c = src.charCodeAt(i);
    if (c === 0x2d || c === 0x2b) {
      if (c === 0x2d) sign = -1;
      c = src.charCodeAt(++i);
    }
    if (c === 0x49) {
      literal("Infinity");
      return sign * Infinity;
    }
    if (c === 0x4e) {
      literal("NaN");
      return NaN;
    }
    const start = i;
    if (c === 0x30 && (src.charCodeAt(i + 1) | 0x20) === 0x78) {
      i += 2;
      if (!(hexVal(src.charCodeAt(i)) >= 0)) fail();
      i++;
      for (;;) {
        const h = src.charCodeAt(i);
        if ((h >= 0x30 && h <= 0x39) || (h >= 0x61 && h <= 0x66) || (h >= 0x41 && h <= 0x46)) i++;
        else break;
      }
      return sign * Number(src.slice(start, i));
    }
    let intDigits = 0;
    if (c === 0x30) {
      i++;
      intDigits = 1; // a leading zero stands alone: "01" is an error (caught by the caller's next-token check)
    } else {
      while (isDigit(src.charCodeAt(i))) {
        i++;
        intDigits++;
      }
    }
    let fracDigits = 0;
    if (src.charCodeAt(i) === 0x2e) {
      i++;
      while (isDigit(src.charCodeAt(i))) {
        i++;
        fracDigits++;
      }
    }
    if (intDigits === 0 && fracDigits === 0) fail();
    if ((src.charCodeAt(i) | 0x20) === 0x65) {
      i++;
      const s = src.charCodeAt(i);
      if (s === 0x2b || s === 0x2d) i++;
      if (!isDigit(src.charCodeAt(i))) fail();
      while (isDigit(src.charCodeAt(i))) i++;
    }
    return sign * Number(src.slice(start, i));
  };

  const key = (): string => {
    const c = src.charCodeAt(i);
    if (c === 0x22 || c === 0x27) {
      if (tree) tree.quotedKeys++;
      return string(c);
    }
    if (tree) tree.unquotedKeys++;
    const start = i;
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x24 || c === 0x5f)) {
      if (tree && (c === 0x5c || (c >= 0x80 && !isWideSpace(c)))) return wideKey(start);
      fail();
    }
    i++;
    for (;;) {
      const d = src.charCodeAt(i);
      if ((d >= 0x61 && d <= 0x7a) || (d >= 0x41 && d <= 0x5a) || (d >= 0x30 && d <= 0x39) || d === 0x24 || d === 0x5f)
        i++;
      else if (d === 0x5c || (d >= 0x80 && !isWideSpace(d))) {
        // unicode identifier chars and \u escapes: the library's, but the tree reader takes them
        if (tree) return wideKey(start);
        fail();
      } else break;
    }
    return src.slice(start, i);
  };
  const wideKey = (start: number): string => {
    const re = WIDE_KEY();
    re.lastIndex = start;
    const m = re.exec(src);
    if (!m) return fail();
    i = start + m[0].length;
    return m[0].replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  };

  const value = (depth: number): unknown => {
    const c = src.charCodeAt(i);
    switch (c) {
      case 0x7b: {
        // {
        if (depth >= MAX_DEPTH) fail();
        const start = i;
        i++;
        const obj: Record<string, unknown> = {};
        const items: Json5Item[] | undefined = tree ? [] : undefined;
        const done = () => {
          if (items) node = { kind: "object", start, end: i, items, value: obj };
          return obj;
        };
        skip();
        if (src.charCodeAt(i) === 0x7d) {
          i++;
          return done();
        }
        for (;;) {
          const keyAt = i;
          const quoted = src.charCodeAt(i) === 0x22 || src.charCodeAt(i) === 0x27;
          const k = key();
          skip();
          if (src.charCodeAt(i) !== 0x3a) fail();
          i++;
          skip();
          const v = tree ? atom(depth + 1) : value(depth + 1);
          // json5 defines properties (no __proto__ setter): own property, last one wins —
          // which hcpx refuses: a key twice is ambiguous to whoever reads the text
          if (Object.hasOwn(obj, k)) throw new DuplicateKey(k, keyAt);
          if (k === "__proto__")
            Object.defineProperty(obj, k, { value: v, writable: true, enumerable: true, configurable: true });
          else obj[k] = v;
          skip();
          let item: Json5Item | undefined;
          if (items) items.push((item = { start: keyAt, end: node!.end, key: k, keyQuoted: quoted, value: node! }));
          const d = src.charCodeAt(i++);
          if (d === 0x7d) return done();
          if (d !== 0x2c) fail();
          if (item) item.comma = i - 1;
          skip();
          if (src.charCodeAt(i) === 0x7d) {
            i++;
            return done();
          }
        }
      }
      case 0x5b: {
        // [
        if (depth >= MAX_DEPTH) fail();
        const start = i;
        i++;
        const arr: unknown[] = [];
        const items: Json5Item[] | undefined = tree ? [] : undefined;
        const done = () => {
          if (items) node = { kind: "array", start, end: i, items, value: arr };
          return arr;
        };
        skip();
        if (src.charCodeAt(i) === 0x5d) {
          i++;
          return done();
        }
        for (;;) {
          const at = i;
          arr.push(tree ? atom(depth + 1) : value(depth + 1));
          skip();
          let item: Json5Item | undefined;
          if (items) items.push((item = { start: at, end: node!.end, value: node! }));
          const d = src.charCodeAt(i++);
          if (d === 0x5d) return done();
          if (d !== 0x2c) fail();
          if (item) item.comma = i - 1;
          skip();
          if (src.charCodeAt(i) === 0x5d) {
            i++;
            return done();
          }
        }
      }
      case 0x22:
      case 0x27:
        return string(c);
      case 0x6e:
        literal("null");
        return null;
      case 0x74:
        literal("true");
        return true;
      case 0x66:
        literal("false");
        return false;
      default:
        if (isDigit(c) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x49 || c === 0x4e) return number();
        return fail();
    }
  };

  // an atom's node (tree mode): containers make their own
  const atom = (depth: number): unknown => {
    const c = src.charCodeAt(i);
    if (c === 0x7b || c === 0x5b || !tree) return value(depth);
    const start = i;
    const v = value(depth);
    node = { kind: "atom", start, end: i, items: [], value: v };
    return v;
  };

  try {
    skip();
    if (i >= n) return DECLINE;
    const v = atom(0);
    skip();
    if (i < n) return DECLINE;
    if (tree) tree.root = node;
    return v;
  } catch (e) {
    if (e === declined || e instanceof RangeError) return DECLINE; // RangeError: stack exhausted by a deep caller
    throw e;
  }
}

/** Read and parse a JSON5 file: a regular file of at most `maxBytes` (src/util/readfile.ts), nested at most MAX_NESTING deep. */
export function readJson5(file: string, display = file, maxBytes: number = CAPS.pack): Json5Doc {
  const identity: { id?: string } = {};
  const doc = parseJson5(readTextFile(file, display, maxBytes, identity), display);
  return { ...doc, id: fileId(file, identity.id!) };
}

/** A document read as a tree: its root node, and how it is written. */
export interface Json5Tree extends Json5Counts {
  text: string;
  root: Json5Node;
}

/**
 * Read `text` as a tree of positioned nodes (the one reader, in tree mode).
 * Undefined when it is not JSON5 this reader takes (a syntax error, or nesting
 * deeper than 1,000): parseJson5 then says what is wrong.
 */
export function readTree(text: string): Json5Tree | undefined {
  const t: Json5Counts & { root?: Json5Node } = { doubleQuotes: 0, singleQuotes: 0, quotedKeys: 0, unquotedKeys: 0 };
  try {
    if (scan(text, t) === DECLINE || !t.root) return undefined;
  } catch (e) {
    if (e instanceof DuplicateKey) return undefined; // parseJson5 says where
    throw e;
  }
  return {
    text,
    root: t.root,
    doubleQuotes: t.doubleQuotes,
    singleQuotes: t.singleQuotes,
    quotedKeys: t.quotedKeys,
    unquotedKeys: t.unquotedKeys,
  };
}

/**
 * Line/column (1-based) of the value at `path` in JSON5 text — of a member's
 * key, of an element's value — or of the deepest ancestor found (the first
 * member of a key written twice). Undefined when the text does not read.
 */
export function locate(text: string, path: readonly (string | number)[]): { line: number; column: number } | undefined {
  const memo = memoFor(text);
  if (!memo) return undefined;
  let node = memo.tree.root;
  let at = node.start;
  for (const seg of path) {
    let item: Json5Item | undefined;
    if (node.kind === "object" && typeof seg === "string") {
      let index = memo.keys.get(node);
      if (!index) {
        index = new Map();
        for (const it of node.items) if (!index.has(it.key!)) index.set(it.key!, it);
        memo.keys.set(node, index);
      }
      item = index.get(seg);
    } else if (node.kind === "array" && typeof seg === "number") item = node.items[seg];
    if (!item) break;
    at = item.start;
    node = item.value;
  }
  const ls = memo.lineStarts;
  let lo = 0;
  let hi = ls.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ls[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: at - ls[lo]! + 1 };
}

// Trees kept per text (the last few): lint locates one problem per command of
// a 1,000-command surface, each a walk down the tree after the first.
interface LocateMemo {
  tree: Json5Tree;
  lineStarts: number[];
  /** per object node, its members by key (the first of a key written twice) */
  keys: WeakMap<Json5Node, Map<string, Json5Item>>;
}
const memos = new Map<string, LocateMemo | null>();
function memoFor(text: string): LocateMemo | undefined {
  const m = memos.get(text);
  if (m !== undefined) return m ?? undefined;
  const tree = readTree(text);
  let made: LocateMemo | null = null;
  if (tree) {
    const lineStarts = [0];
    for (let k = text.indexOf("\n"); k >= 0; k = text.indexOf("\n", k + 1)) lineStarts.push(k + 1);
    made = { tree, lineStarts, keys: new WeakMap() };
  }
  if (memos.size >= 4) memos.delete(memos.keys().next().value!);
  memos.set(text, made);
  return made ?? undefined;
}

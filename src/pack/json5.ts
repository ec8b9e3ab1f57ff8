// JSON5 reading with positions. A hand-written parser (`fastJson5`) reads the
// JSON5 that packs and configs are written in; the `json5` library is loaded
// only when it declines (any syntax error, or a rare construct such as a
// non-ASCII identifier), so that error messages, lines and columns are the
// library's. `locate` maps a JSON path back to a line and column so that schema
// errors can point at the text.
//
// Why not `import JSON5 from "json5"`: the library (its unicode tables above
// all) costs start-up even when never called; `hcpx exec` reads a config and a
// surface on every agent tool call. A bare `require()` keeps it synchronous:
// esbuild bundles it as a lazily evaluated module, vitest provides `require`.
import { HcpxError } from "../util/errors";
import { resolve } from "node:path";
import { CAPS, readTextFile } from "../util/readfile";

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
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (x !== null && typeof x === "object") stack.push([x, d + 1]);
  }
  return max;
}

function tooDeep(file: string): HcpxError {
  return new HcpxError({ code: "too_deep", message: `nested deeper than ${MAX_NESTING} levels`, file, hint: "this is not a file hcpx expects: packs and configs nest a few levels" });
}

export function parseJson5(text: string, file: string): Json5Doc {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const strict = body.length >= STRICT_JSON_MIN ? strictJson(body) : DECLINE;
  if (strict !== DECLINE) {
    if (nestingDepth(strict, MAX_NESTING) > MAX_NESTING) throw tooDeep(file);
    return { file, text: body, value: strict };
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
    const msg = String(err.message).replace(/^JSON5: /, "").replace(/ at \d+:\d+$/, "");
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
  return { file, text: body, value };
}

/**
 * Large files (a pack imported from a 1,000-operation OpenAPI document has a
 * 1.5 MB surface.json) are usually plain JSON after a leading comment: the
 * engine's JSON.parse reads them ~10× faster than fastJson5. JSON is a subset
 * of JSON5 with the same values (`__proto__` an own property, the last of
 * duplicate keys wins), so the result is the same; anything else declines.
 */
const STRICT_JSON_MIN = 64 * 1024;
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
  const n = src.length;
  let i = 0;

  const fail = (): never => {
    throw declined;
  };

  // Non-ASCII JSON5 whitespace (none of these can continue an identifier).
  const isWideSpace = (c: number): boolean =>
    c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x202f || c === 0x205f || c === 0x3000;
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
    i++; // opening quote
    let out = "";
    let run = i;
    for (;;) {
      if (i >= n) fail();
      const c = src.charCodeAt(i);
      if (c === q) {
        out += src.slice(run, i);
        i++;
        return out;
      }
      if (c === 0x5c) {
        out += src.slice(run, i);
        i++;
        if (i >= n) fail();
        const e = src.charCodeAt(i++);
        switch (e) {
          case 0x62: out += "\b"; break;
          case 0x66: out += "\f"; break;
          case 0x6e: out += "\n"; break;
          case 0x72: out += "\r"; break;
          case 0x74: out += "\t"; break;
          case 0x76: out += "\v"; break;
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
            const v = hexVal(src.charCodeAt(i)) * 4096 + hexVal(src.charCodeAt(i + 1)) * 256 + hexVal(src.charCodeAt(i + 2)) * 16 + hexVal(src.charCodeAt(i + 3));
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
      if (c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029) fail();
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
    if (c === 0x22 || c === 0x27) return string(c);
    const start = i;
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x24 || c === 0x5f)) fail();
    i++;
    for (;;) {
      const d = src.charCodeAt(i);
      if ((d >= 0x61 && d <= 0x7a) || (d >= 0x41 && d <= 0x5a) || (d >= 0x30 && d <= 0x39) || d === 0x24 || d === 0x5f) i++;
      else if (d === 0x5c || (d >= 0x80 && !isWideSpace(d))) fail(); // unicode identifier chars and \u escapes: the library's
      else break;
    }
    return src.slice(start, i);
  };

  const value = (depth: number): unknown => {
    const c = src.charCodeAt(i);
    switch (c) {
      case 0x7b: {
        // {
        if (depth >= MAX_DEPTH) fail();
        i++;
        const obj: Record<string, unknown> = {};
        skip();
        if (src.charCodeAt(i) === 0x7d) {
          i++;
          return obj;
        }
        for (;;) {
          const k = key();
          skip();
          if (src.charCodeAt(i) !== 0x3a) fail();
          i++;
          skip();
          const v = value(depth + 1);
          // json5 defines properties (no __proto__ setter): own property, last one wins.
          if (k === "__proto__") Object.defineProperty(obj, k, { value: v, writable: true, enumerable: true, configurable: true });
          else obj[k] = v;
          skip();
          const d = src.charCodeAt(i++);
          if (d === 0x7d) return obj;
          if (d !== 0x2c) fail();
          skip();
          if (src.charCodeAt(i) === 0x7d) {
            i++;
            return obj;
          }
        }
      }
      case 0x5b: {
        // [
        if (depth >= MAX_DEPTH) fail();
        i++;
        const arr: unknown[] = [];
        skip();
        if (src.charCodeAt(i) === 0x5d) {
          i++;
          return arr;
        }
        for (;;) {
          arr.push(value(depth + 1));
          skip();
          const d = src.charCodeAt(i++);
          if (d === 0x5d) return arr;
          if (d !== 0x2c) fail();
          skip();
          if (src.charCodeAt(i) === 0x5d) {
            i++;
            return arr;
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

  try {
    skip();
    if (i >= n) return DECLINE;
    const v = value(0);
    skip();
    return i < n ? DECLINE : v;
  } catch (e) {
    if (e === declined || e instanceof RangeError) return DECLINE; // RangeError: stack exhausted by a deep caller
    throw e;
  }
}

/** Read and parse a JSON5 file: a regular file of at most `maxBytes` (src/util/readfile.ts), nested at most MAX_NESTING deep. */
export function readJson5(file: string, display = file, maxBytes: number = CAPS.pack): Json5Doc {
  const identity: { id?: string } = {};
  const doc = parseJson5(readTextFile(file, display, maxBytes, identity), display);
  return { ...doc, id: `${resolve(file)}\0${identity.id}` };
}

/**
 * Line/column (1-based) of the value at `path` in JSON5 text, or of the
 * deepest ancestor found. Lenient: the text is assumed to have parsed already.
 */
export function locate(text: string, path: readonly (string | number)[]): { line: number; column: number } | undefined {
  let i = 0;
  const n = text.length;
  const skipWs = () => {
    for (;;) {
      while (i < n && /[\s\u2028\u2029\ufeff]/.test(text[i]!)) i++;
      if (text.startsWith("//", i)) {
        while (i < n && text[i] !== "\n") i++;
      } else if (text.startsWith("/*", i)) {
        const e = text.indexOf("*/", i + 2);
        i = e < 0 ? n : e + 2;
      } else return;
    }
  };
  const readString = (): string => {
    const q = text[i++];
    let s = "";
    while (i < n && text[i] !== q) {
      if (text[i] === "\\") {
        const c = text[i + 1];
        s += c === "n" ? "\n" : c === "t" ? "\t" : (c ?? "");
        i += 2;
      } else s += text[i++];
    }
    i++;
    return s;
  };
  const readKey = (): string => {
    if (text[i] === '"' || text[i] === "'") return readString();
    const m = /^[^\s:]+/.exec(text.slice(i, i + 256));
    i += m ? m[0].length : 1;
    return m ? m[0] : "";
  };
  const skipValue = (): void => {
    skipWs();
    const c = text[i];
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      i++;
      for (;;) {
        skipWs();
        if (i >= n || text[i] === close) {
          i++;
          return;
        }
        if (c === "{") {
          readKey();
          skipWs();
          i++; // ':'
        }
        skipValue();
        skipWs();
        if (text[i] === ",") i++;
      }
    } else if (c === '"' || c === "'") readString();
    else while (i < n && !/[,\]}\s/]/.test(text[i]!)) i++;
  };
  // positions of every member seen on the way, kept per text: lint locates one
  // problem per command of a 1,000-command surface, each in O(log n) after the first
  const memo = memoFor(text);
  const pos = (at: number) => {
    const ls = memo.lineStarts;
    let lo = 0;
    let hi = ls.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (ls[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: at - ls[lo]! + 1 };
  };
  skipWs();
  let found = pos(i);
  let prefix = "";
  for (const seg of path) {
    const key = `${prefix}\u0000${typeof seg === "number" ? `#${seg}` : seg}`;
    const known = memo.members.get(key);
    if (known) {
      found = pos(known.at);
      i = known.value;
      prefix = key;
      continue;
    }
    if (memo.scanned.has(prefix)) return found; // the container was read whole: no such member
    skipWs();
    const c = text[i];
    let hit = false;
    if (c === "{" && typeof seg === "string") {
      i++;
      for (;;) {
        skipWs();
        if (i >= n || text[i] === "}") break;
        const keyAt = i;
        const k = readKey();
        skipWs();
        i++; // ':'
        skipWs();
        const valueAt = i;
        const mk = `${prefix}\u0000${k}`;
        if (!memo.members.has(mk)) memo.members.set(mk, { at: keyAt, value: valueAt });
        if (k === seg) {
          found = pos(keyAt);
          hit = true;
          break;
        }
        skipValue();
        skipWs();
        if (text[i] === ",") i++;
      }
    } else if (c === "[" && typeof seg === "number") {
      i++;
      for (let k = 0; ; k++) {
        skipWs();
        if (i >= n || text[i] === "]") break;
        memo.members.set(`${prefix}\u0000#${k}`, { at: i, value: i });
        if (k === seg) {
          found = pos(i);
          hit = true;
          break;
        }
        skipValue();
        skipWs();
        if (text[i] === ",") i++;
      }
    }
    if (!hit) {
      if (c === "{" || c === "[") memo.scanned.add(prefix);
      return found;
    }
    prefix = key;
  }
  return found;
}

interface LocateMemo {
  lineStarts: number[];
  /** path key → where the member's key (or element) starts, and where its value starts */
  members: Map<string, { at: number; value: number }>;
  /** containers read to their end */
  scanned: Set<string>;
}
const memos = new Map<string, LocateMemo>();
function memoFor(text: string): LocateMemo {
  let m = memos.get(text);
  if (m) return m;
  const lineStarts = [0];
  for (let k = text.indexOf("\n"); k >= 0; k = text.indexOf("\n", k + 1)) lineStarts.push(k + 1);
  m = { lineStarts, members: new Map(), scanned: new Set() };
  if (memos.size >= 4) memos.delete(memos.keys().next().value!);
  memos.set(text, m);
  return m;
}

// How deep a host's config file nests, checked before a parser recurses into it. The parsers
// (jsonc-parser, yaml) and the walks over what they return recurse once a level: ~1,500 levels
// overflow the stack, which was an internal error naming no file.
import { HcpxError } from "./errors";
import { lineCol } from "./text";

/** How deep a host's config file may nest its brackets: theirs nest a few levels; the parsers recurse. */
export const MAX_HOST_NESTING = 256;

/** How far in a YAML line's block content may start (indentation and `- `/`? ` indicators): each level is one or two columns. */
const MAX_YAML_COLUMN = 2 * MAX_HOST_NESTING;

function tooDeep(file: string, text: string, at: number, what: string): HcpxError {
  return new HcpxError({
    code: "too_deep",
    message: what,
    file,
    ...lineCol(text, at),
    hint: "this is not a file a host writes: fix or move it, then run the command again",
  });
}

function bracketsTooDeep(file: string, text: string, at: number): HcpxError {
  return tooDeep(file, text, at, `nested deeper than ${MAX_HOST_NESTING} levels`);
}

/**
 * Refuse a JSON or JSONC text whose [ and { nest deeper than MAX_HOST_NESTING. Outside strings
 * (double-quoted; jsonc-parser ends one at a line break too) and comments (`//`, `/* *\/`) every
 * bracket counts, as it does for the parser.
 */
function checkJson(text: string, file: string): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34 || d === 10 || d === 13) break;
      }
    } else if (c === 47 && text.charCodeAt(i + 1) === 47) {
      while (i < text.length && text.charCodeAt(i) !== 10) i++;
    } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === 91 || c === 123) {
      if (++depth > MAX_HOST_NESTING) throw bracketsTooDeep(file, text, i);
    } else if (c === 93 || c === 125) depth = Math.max(0, depth - 1);
  }
}

/** YAML scanning state that lasts from one line to the next. */
interface YamlScan {
  depth: number; // flow brackets open
  quote: number; // 0, or the quote (34 " or 39 ') of a scalar still open
  block: number; // -1, or the column a block scalar's lines must pass to belong to it
  dashes: number; // block indicators (`- `, `? `) on this line: each nests one level
}

const SCALAR_START = new Set([58, 45, 63, 44, 91, 123]); // : - ? , [ {

/** Scan one YAML line from `start` to `end`, updating `s`; returns where a comment starts (or `end`). */
function scanYamlLine(text: string, start: number, end: number, s: YamlScan, file: string): number {
  let prev = -1; // the last character that is not a space, on this line
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (s.quote === 34) {
      if (c === 92) i++;
      else if (c === 34) s.quote = 0;
      continue;
    }
    if (s.quote === 39) {
      if (c === 39 && text.charCodeAt(i + 1) === 39) i++;
      else if (c === 39) s.quote = 0;
      continue;
    }
    const spaceBefore = i === start || text.charCodeAt(i - 1) === 32 || text.charCodeAt(i - 1) === 9;
    if (c === 35 && spaceBefore) return i;
    if ((c === 45 || c === 63) && spaceBefore && s.depth === 0 && /^[ \t\r]?$/.test(text[i + 1] ?? "")) s.dashes++;
    if ((c === 34 || c === 39) && (prev < 0 || (SCALAR_START.has(prev) && (spaceBefore || s.depth > 0)))) s.quote = c;
    else if (c === 91 || c === 123) {
      if (++s.depth > MAX_HOST_NESTING) throw bracketsTooDeep(file, text, i);
    } else if (c === 93 || c === 125) s.depth = Math.max(0, s.depth - 1);
    if (c !== 32 && c !== 9) prev = c;
  }
  return end;
}

/**
 * Refuse a YAML text nested deeper than the parser and the walks after it can follow: flow [ and {
 * (outside quoted scalars, comments and block scalars) beyond MAX_HOST_NESTING, or a line whose
 * block content starts past MAX_YAML_COLUMN (each block level is one more column of indentation
 * or one more `- `).
 */
function checkYaml(text: string, file: string): void {
  const s: YamlScan = { depth: 0, quote: 0, block: -1, dashes: 0 };
  for (let start = 0; start < text.length;) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    let col = start;
    while (col < end && (text.charCodeAt(col) === 32 || text.charCodeAt(col) === 9)) col++;
    const blank = col === end || text.charCodeAt(col) === 13;
    if (s.block >= 0 && (blank || col - start > s.block)) {
      start = end + 1; // a line of a block scalar (| or >): text, not structure
      continue;
    }
    s.block = -1;
    let content = col;
    let node = col; // where the node a block scalar on this line belongs to starts
    if (s.quote === 0 && s.depth === 0) {
      // the node after `- ` / `? ` indicators is where a block scalar's lines are measured from
      while (/[-?]/.test(text[content] ?? "") && /[ \t]/.test(text[content + 1] ?? "")) {
        node = content;
        content += 2;
        while (text.charCodeAt(content) === 32 || text.charCodeAt(content) === 9) content++;
      }
    }
    s.dashes = 0;
    const bodyEnd = scanYamlLine(text, col, end, s, file);
    // `- - - a` nests a sequence per `- `, as indentation does per column
    if (col - start + 2 * s.dashes > MAX_YAML_COLUMN)
      throw tooDeep(file, text, col, `nested deeper than ${MAX_YAML_COLUMN} columns of indentation and \`- \``);
    // a value that is `|` or `>` (with its indicators) starts a block scalar: the lines indented past its node's column
    const rest = text.slice(content, bodyEnd);
    if (s.quote === 0 && s.depth === 0 && /(^|[ \t])[|>][-+0-9]*[ \t\r]*$/.test(rest))
      s.block = (/^[|>]/.test(rest) ? node : content) - start;
    start = end + 1;
  }
}

/**
 * Refuse a JSON, JSONC or YAML text nested deeper than MAX_HOST_NESTING levels before a parser recurses
 * into it: `too_deep`, with the file and the line where the limit is passed.
 */
export function checkNesting(text: string, file: string, syntax: "json" | "yaml" = "json"): void {
  if (syntax === "yaml") checkYaml(text, file);
  else checkJson(text, file);
}

/** `e` is V8's stack overflow (a recursive parser or walk ran out of stack). */
export function outOfStack(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

/**
 * Run a parser (or a walk over what it returned) on a host's file, and report a stack overflow in it
 * as `too_deep` naming the file: the last guard behind checkNesting, never an internal error.
 */
export function parsingDeep<T>(file: string, run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (outOfStack(e))
      throw new HcpxError({
        code: "too_deep",
        message: "nested too deep to read (the parser ran out of stack)",
        file,
        hint: "this is not a file a host writes: fix or move it, then run the command again",
      });
    throw e;
  }
}

/**
 * Whether a value (a tool call's input, as parsed) nests its arrays and objects deeper than `max` levels,
 * found without recursion: the walks over such a value (the args hash, the redaction, the validation)
 * recurse once a level, and a deep one would overflow the stack.
 */
export function nestedDeeper(v: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (x === null || typeof x !== "object") continue;
    if (d >= max) return true;
    for (const y of Array.isArray(x) ? x : Object.values(x))
      if (y !== null && typeof y === "object") stack.push([y, d + 1]);
  }
  return false;
}

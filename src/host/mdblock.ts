// Markdown files shared with the user (CLAUDE.md, AGENTS.md, GEMINI.md, …): we
// own only the text between `<!-- hcp:begin -->` and `<!-- hcp:end -->`, each
// on a line of its own; every byte outside it stays, CRLF included. A user's
// line that mentions the marker text is the user's text, and so is a marker
// line inside a fenced code block (an example of hcpx's block, say).
import { HcpxError } from "../util/errors";
import { eolOf, lineCol, withEol } from "../util/text";

export const BEGIN = "<!-- hcp:begin -->";
export const END = "<!-- hcp:end -->";

export interface BlockSpan {
  start: number;
  /** offset just after END */
  end: number;
  /** the text between the markers, without the line breaks next to them */
  inner: string;
}

/** A fenced code block: [start, end) of its lines, opening and closing fence included. */
export interface Fence {
  start: number;
  end: number;
  /** false: never closed, so it runs to the end of the text */
  closed: boolean;
}

// CommonMark: up to 3 spaces, then 3 or more backticks or tildes, then the info string
const FENCE = / {0,3}(`{3,}|~{3,})([^\n]*)/y;

/**
 * The fenced code blocks of `text` (CommonMark, at the top level): a line of 3 or more
 * backticks or tildes, indented up to 3 spaces, opens one (a backtick fence's info
 * string holds no backtick); a line of the same character, at least as many, with only
 * spaces or tabs after them, closes it; one never closed runs to the end of the text.
 */
export function fences(text: string): Fence[] {
  const out: Fence[] = [];
  let open: { start: number; ch: string; len: number } | undefined;
  for (let at = 0; at < text.length;) {
    const nl = text.indexOf("\n", at);
    const next = nl < 0 ? text.length : nl + 1;
    FENCE.lastIndex = at;
    const m = FENCE.exec(text);
    if (m) {
      const run = m[1]!;
      const rest = m[2]!.replace(/\r$/, "");
      if (!open) {
        if (!(run[0] === "`" && rest.includes("`"))) open = { start: at, ch: run[0]!, len: run.length };
      } else if (run[0] === open.ch && run.length >= open.len && /^[ \t]*$/.test(rest)) {
        out.push({ start: open.start, end: next, closed: true });
        open = undefined;
      }
    }
    at = next;
  }
  if (open) out.push({ start: open.start, end: text.length, closed: false });
  return out;
}

/**
 * Offsets of the lines that are exactly `marker` (a line break, `\r\n` or
 * `\n`, or the file's start/end around it). A marker mentioned inside a line
 * of the user's — `see <!-- hcp:begin --> below` — is not one: it is text.
 * With `code` (the text's fences), a marker line inside a fence is text too.
 */
export function markerLines(text: string, marker: string, code: Fence[] = []): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + 1)) {
    const before = i === 0 || text[i - 1] === "\n";
    const j = i + marker.length;
    const after = j === text.length || text[j] === "\n" || (text[j] === "\r" && text[j + 1] === "\n");
    if (before && after && !code.some((f) => i >= f.start && i < f.end)) out.push(i);
  }
  return out;
}

/** True when `content` has a line that is a marker (a block holding it could not be found again). */
export function hasMarkerLine(content: string): boolean {
  return markerLines(content, BEGIN).length > 0 || markerLines(content, END).length > 0;
}

/** hcpx's block in `text` (its markers outside fenced code), or undefined; broken markers throw bad_markers. */
export function findBlock(text: string, file: string): BlockSpan | undefined {
  const code = fences(text);
  const bs = markerLines(text, BEGIN, code);
  const es = markerLines(text, END, code);
  if (bs.length === 0 && es.length === 0) return undefined;
  const b = bs[0] ?? -1;
  const e = es[0] ?? -1;
  if (b < 0 || e < 0 || e < b) {
    const endFirst = b < 0 || (e >= 0 && e < b);
    throw new HcpxError({
      code: "bad_markers",
      message: `unbalanced hcp markers: found ${endFirst ? END : BEGIN} without its ${endFirst ? BEGIN : END}`,
      file,
      ...lineCol(text, endFirst ? e : b),
      hint: `restore the pair ${BEGIN} … ${END} (each on a line of its own), or delete the one left`,
    });
  }
  if (bs.length > 1 || es.length > 1) {
    throw new HcpxError({
      code: "bad_markers",
      message: "more than one hcp block in this file",
      file,
      ...lineCol(text, bs.length > 1 ? bs[1]! : es[1]!),
      hint: "keep one <!-- hcp:begin --> … <!-- hcp:end --> block",
    });
  }
  const inner = text
    .slice(b + BEGIN.length, e)
    .replace(/^\r?\n/, "")
    .replace(/\r?\n$/, "");
  return { start: b, end: e + END.length, inner };
}

export function renderBlock(content: string, eol: string): string {
  const body = withEol(content, eol).replace(/(\r?\n)+$/, "");
  return `${BEGIN}${eol}${body}${eol}${END}`;
}

/** The block's content normalised for hashing and comparing. */
export function blockContent(content: string): string {
  return content.replace(/\r\n/g, "\n").replace(/\n+$/, "");
}

/** Where findBlock finds the block in `text` (undefined: none, or broken markers). */
function foundAt(text: string, file: string): number | undefined {
  try {
    return findBlock(text, file)?.start;
  } catch {
    return undefined;
  }
}

export function setBlock(text: string | undefined, content: string, file: string): { text: string; prefix?: string } {
  // the block's own text must not hold a marker line: the block could not be found (or removed) again
  if (hasMarkerLine(withEol(content, "\n")))
    throw new HcpxError({
      code: "bad_markers",
      message: `the hcp block to write holds a line ${BEGIN} or ${END}; nothing written`,
      file,
      hint: "a pack's lead, description or Skill text carries the marker: remove it there (hcpx lint names it)",
    });
  const eol = eolOf(text);
  const block = renderBlock(content, eol);
  let out: { text: string; prefix?: string; at: number };
  if (text === undefined || text === "") out = { text: block + eol, prefix: "", at: 0 };
  else {
    const span = findBlock(text, file);
    if (span) out = { text: text.slice(0, span.start) + block + text.slice(span.end), at: span.start };
    else {
      const open = fences(text).find((f) => !f.closed);
      if (open)
        throw new HcpxError({
          code: "bad_markers",
          message: "ends inside a code fence that is never closed: the hcp block added after it would be code",
          file,
          ...lineCol(text, open.start),
          hint: "close that fence (a line of the same backticks or tildes), then adopt again",
        });
      const prefix = text.endsWith("\n") ? eol : eol + eol;
      out = { text: text + prefix + block + eol, prefix, at: text.length + prefix.length };
    }
  }
  // what is written must be found again as this block, or a re-run would add a second one
  if (foundAt(out.text, file) !== out.at)
    throw new HcpxError({
      code: "bad_markers",
      message: "the hcp block to write opens or closes a code fence, so it could not be found again; nothing written",
      file,
      hint: "a pack's lead, description or Skill text holds an unbalanced ``` or ~~~ fence: balance it there",
    });
  return out.prefix === undefined ? { text: out.text } : { text: out.text, prefix: out.prefix };
}

export function removeBlock(text: string, file: string, prefix?: string): string {
  const span = findBlock(text, file);
  if (!span) return text;
  let before = text.slice(0, span.start);
  let after = text.slice(span.end);
  if (after.startsWith("\r\n")) after = after.slice(2);
  else if (after.startsWith("\n")) after = after.slice(1);
  if (prefix && after === "" && before.endsWith(prefix)) before = before.slice(0, before.length - prefix.length);
  return before + after;
}

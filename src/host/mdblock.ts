// Markdown files shared with the user (CLAUDE.md, AGENTS.md, GEMINI.md, …): we
// own only the text between `<!-- hcp:begin -->` and `<!-- hcp:end -->`, each
// on a line of its own; every byte outside it stays, CRLF included. A user's
// line that mentions the marker text is the user's text.
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

/**
 * Offsets of the lines that are exactly `marker` (a line break, `\r\n` or
 * `\n`, or the file's start/end around it). A marker mentioned inside a line
 * of the user's — `see <!-- hcp:begin --> below` — is not one: it is text.
 */
export function markerLines(text: string, marker: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + 1)) {
    const before = i === 0 || text[i - 1] === "\n";
    const j = i + marker.length;
    const after = j === text.length || text[j] === "\n" || (text[j] === "\r" && text[j + 1] === "\n");
    if (before && after) out.push(i);
  }
  return out;
}

/** True when `content` has a line that is a marker (a block holding it could not be found again). */
export function hasMarkerLine(content: string): boolean {
  return markerLines(content, BEGIN).length > 0 || markerLines(content, END).length > 0;
}

export function findBlock(text: string, file: string): BlockSpan | undefined {
  const bs = markerLines(text, BEGIN);
  const es = markerLines(text, END);
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
  if (text === undefined || text === "") return { text: block + eol, prefix: "" };
  const span = findBlock(text, file);
  if (span) return { text: text.slice(0, span.start) + block + text.slice(span.end) };
  const prefix = text.endsWith("\n") ? eol : eol + eol;
  return { text: text + prefix + block + eol, prefix };
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

// Markdown files shared with the user (CLAUDE.md, AGENTS.md, GEMINI.md, …): we
// own only the text between `<!-- hcp:begin -->` and `<!-- hcp:end -->`; every
// byte outside it stays, CRLF included.
import { HcpxError } from "../util/errors";
import { eolOf, lineCol, withEol } from "./text";

export const BEGIN = "<!-- hcp:begin -->";
export const END = "<!-- hcp:end -->";

export interface BlockSpan {
  start: number;
  /** offset just after END */
  end: number;
  /** the text between the markers, without the line breaks next to them */
  inner: string;
}

export function findBlock(text: string, file: string): BlockSpan | undefined {
  const b = text.indexOf(BEGIN);
  const e = text.indexOf(END);
  if (b < 0 && e < 0) return undefined;
  if (b < 0 || e < 0 || e < b) {
    const at = b < 0 ? e : b;
    throw new HcpxError({ code: "bad_markers", message: `unbalanced hcp markers: found ${b < 0 ? END : BEGIN} without its ${b < 0 ? BEGIN : END}`, file, ...lineCol(text, at), hint: `restore the pair ${BEGIN} … ${END}, or delete the one left` });
  }
  if (text.indexOf(BEGIN, b + 1) >= 0 || text.indexOf(END, e + 1) >= 0) {
    throw new HcpxError({ code: "bad_markers", message: "more than one hcp block in this file", file, ...lineCol(text, text.indexOf(BEGIN, b + 1) >= 0 ? text.indexOf(BEGIN, b + 1) : text.indexOf(END, e + 1)), hint: "keep one <!-- hcp:begin --> … <!-- hcp:end --> block" });
  }
  const inner = text.slice(b + BEGIN.length, e).replace(/^\r?\n/, "").replace(/\r?\n$/, "");
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

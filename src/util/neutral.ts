// The one neutraliser: text from outside (a pack's fields, a server's name,
// version and tool names, a host file's contents, a bin's or a server's
// output) made safe for a terminal. The CLI's exit (src/cli/output.ts) passes
// every byte of readable output through neutralise(), so no feature can print
// outside text raw; a one-line field (a name, an argv element, a version) is
// neutralised with neutralLine() where it is put into a line, so that a newline
// in it cannot forge a line of what a person reads before saying yes.

/**
 * What a terminal acts on, or what reorders or hides what it shows: C0
 * controls (ESC, BEL, backspace, CR, …; tab and newline are text here), DEL,
 * the C1 range (U+0080–U+009F, e.g. the one-byte CSI U+009B), the bidi marks,
 * embeddings, overrides and isolates (U+061C, U+200E/F, U+202A–U+202E,
 * U+2066–U+2069), the line and paragraph separators (U+2028/9) and the
 * interlinear annotation marks (U+FFF9–U+FFFB).
 */
const BLOCK = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufff9-\ufffb]/g;
/** In one line, also tab, newline and CR, and what is invisible (zero-width spaces and joiners, word joiner, BOM, the tag characters). */
const LINE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

function shown(ch: string): string {
  if (ch.length === 2) return `\\u{${ch.codePointAt(0)!.toString(16)}}`;
  const n = ch.charCodeAt(0);
  return n <= 0xff ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u${n.toString(16).padStart(4, "0")}`;
}

/**
 * Text (many lines) made safe for a terminal: each character of BLOCK becomes
 * a visible escape (`\x1b`, `\u202e`), so an ESC, CSI or OSC sequence prints
 * as text instead of moving the cursor, clearing the screen, setting the
 * title, writing the clipboard or reordering the line. A CR right before a
 * newline (CRLF output) stays. Idempotent: its result has nothing left to
 * escape.
 */
export function neutralise(s: string): string {
  BLOCK.lastIndex = 0;
  if (!BLOCK.test(s)) return s;
  return s.replace(BLOCK, (ch, at: number) => (ch === "\r" && s[at + 1] === "\n" ? ch : shown(ch)));
}

/** A one-line field (a name, a version, an argv element) made safe and kept on one line: newline, tab and CR become escapes too. */
export function neutralLine(s: string): string {
  LINE.lastIndex = 0;
  if (!LINE.test(s)) return s;
  return s.replace(LINE, shown);
}

/** JSON made safe to print: what JSON.stringify leaves raw (DEL, C1, bidi, separators) as \u escapes; the same value when parsed. */
export function neutralJson(json: string): string {
  BLOCK.lastIndex = 0;
  if (!BLOCK.test(json)) return json;
  return json.replace(BLOCK, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

// ---- colour ----
// The only terminal control that reaches a terminal is colour, and only from
// paint(): it marks the text with private-use characters around a token drawn
// per process, which no outside text can hold (it is never printed). The exit
// (src/cli/output.ts) neutralises first, then turns the marks into SGR
// sequences with colours().

const TOKEN = `\ue000${Math.random().toString(36).slice(2, 10)}${Date.now().toString(36)}`;
const MARK = new RegExp(`${TOKEN}(\\d{1,2})\ue001`, "g");

/** `s` in SGR colour `open` (reset by `close`) when `on`; marks, made SGR at the exit. */
export function paint(on: boolean, open: number, close: number, s: string): string {
  return on ? `${TOKEN}${open}\ue001${s}${TOKEN}${close}\ue001` : s;
}

/** The marks of paint() as SGR sequences: only for text that neutralise() has passed. */
export function colours(neutralised: string): string {
  return neutralised.includes(TOKEN) ? neutralised.replace(MARK, "\u001b[$1m") : neutralised;
}

/** Text without the marks of paint() (its width as shown). */
export function unpainted(s: string): string {
  return s.includes(TOKEN) ? s.replace(MARK, "") : s;
}

// The bidi controls (marks, embeddings, overrides, isolates: the set src/pack/hosttext.ts refuses in
// pack text) as they are in a file's text make an editor or a review show it in another order than it
// parses ("Trojan Source"). The one JSON5 reader (src/pack/json5.ts) refuses a file that holds one; what
// hcpx writes into such a file (an imported server's or document's text, a scaffold's names) holds each
// as an escape instead (bidiEscaped).

/** One of the bidi controls as it is (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069). */
export const BIDI_RAW = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const BIDI_ALL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON or JSON5 text with each bidi control written as its escape (`\u202e`). In a string the escape means
 * the same character; in a comment it is text that shows as written. Text without one is returned as it is.
 */
export function bidiEscaped(text: string): string {
  return BIDI_RAW.test(text)
    ? text.replace(BIDI_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
    : text;
}

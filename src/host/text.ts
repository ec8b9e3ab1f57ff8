// Small text helpers shared by the file-format handlers.
import { createHash } from "node:crypto";

/** 1-based line and column of a character offset. */
export function lineCol(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      last = i;
    }
  }
  return { line, column: offset - last };
}

export function sha256(s: string): string {
  return createHash("sha256").update(s, "utf8").digest("hex");
}

export function eolOf(text: string | undefined): string {
  return text && text.includes("\r\n") ? "\r\n" : "\n";
}

/** Convert every line break of `s` to `eol`. */
export function withEol(s: string, eol: string): string {
  const n = s.replace(/\r\n/g, "\n");
  return eol === "\n" ? n : n.replace(/\n/g, eol);
}

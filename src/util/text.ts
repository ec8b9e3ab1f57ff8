// Small text helpers shared by the file-format handlers.
import { HcpxError } from "./errors";
import { nodeCrypto } from "./builtins";

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
  return nodeCrypto().createHash("sha256").update(s, "utf8").digest("hex");
}

export function eolOf(text: string | undefined): string {
  return text && text.includes("\r\n") ? "\r\n" : "\n";
}

/** Convert every line break of `s` to `eol`. */
export function withEol(s: string, eol: string): string {
  const n = s.replace(/\r\n/g, "\n");
  return eol === "\n" ? n : n.replace(/\n/g, eol);
}

/**
 * A TOML basic string (TOML 1.0 §String): `"` and `\` escaped, and every
 * control character the spec forbids unescaped — U+0000–U+001F and U+007F (DEL)
 * — as `\b \t \n \f \r` or `\uXXXX`. A lone surrogate has no UTF-8 form (TOML
 * is UTF-8) and is refused. For plain text the result is JSON.stringify's.
 */
export function tomlString(s: string): string {
  if (/\p{Cs}/u.test(s.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ""))) {
    throw new HcpxError({
      code: "bad_toml_value",
      message: `cannot write ${JSON.stringify(s)} as TOML: it holds a lone UTF-16 surrogate, which has no UTF-8 form`,
      hint: "pass --command with a command line in valid Unicode",
    });
  }
  const short: Record<string, string> = {
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
  };
  return (
    '"' +
    s.replace(
      /[\u0000-\u001f\u007f"\\]/g,
      (c) => short[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`,
    ) +
    '"'
  );
}

/** A TOML value (a template's `{{{toml x}}}`, a field of the MCP entry): a string, a number, a boolean, an array of them, or an inline table (`{ key = value, … }`, a key quoted unless it is a bare key). */
export function tomlValue(v: unknown): string {
  if (typeof v === "string") return tomlString(v);
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    const kv = Object.entries(v as Record<string, unknown>).map(
      ([k, x]) => `${/^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k)} = ${tomlValue(x)}`,
    );
    return kv.length ? `{ ${kv.join(", ")} }` : "{}";
  }
  if (typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v))) return String(v);
  if (Array.isArray(v)) return "[" + v.map(tomlValue).join(",") + "]";
  throw new HcpxError({
    code: "bad_template",
    message: `cannot write ${JSON.stringify(v)} as a TOML value`,
    hint: "a TOML value (a template's {{{toml x}}}, a field of a host's MCP entry) is a string, a number, a boolean, or a list or table of them",
  });
}

// Codex's config.toml: change only the `[mcp_servers.<name>]` table (and its
// sub-tables such as `[mcp_servers.<name>.env]`) as text; every other byte of
// the file stays as it was. The result is re-parsed with smol-toml.
import { parse as parseToml, TomlError } from "smol-toml";
import { HcpxError } from "../util/errors";
import { eolOf, withEol } from "../util/text";
import { scanToml, type TomlItem } from "./tomlscan";

const TOML_11 = /(newlines|trailing commas) are not allowed in inline tables|inline tables cannot contain comments/;

export function parseTomlFor(text: string, file: string): Record<string, unknown> {
  try {
    // a UTF-8 BOM is not TOML; it is kept on write
    return parseToml(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof TomlError) {
      const err = e as TomlError & { line?: number; column?: number };
      const first = String(err.message).split("\n")[0]!;
      // a table or key defined twice (TOML forbids it; a reader might keep either copy)
      if (/redefine an already defined/.test(first))
        throw new HcpxError({
          code: "duplicate_key",
          message: `a table or key is defined twice (${first.replace(/^Invalid TOML document: /, "")})`,
          file,
          line: err.line,
          column: err.column,
          hint: "keep the copy you mean and delete the other, then run the command again",
        });
      // TOML 1.1's inline tables (over several lines, a comma after the last key, comments in them): Codex
      // reads them (its `toml` crate is 0.9.11+spec-1.1.0), smol-toml 1.4 reads TOML 1.0; never guessed at
      const v11 = TOML_11.test(first);
      throw new HcpxError({
        code: "bad_toml",
        message: `cannot parse TOML: ${first}${v11 ? " (TOML 1.1 allows it; hcpx reads TOML 1.0 and writes no file it cannot read)" : ""}`,
        file,
        line: err.line,
        column: err.column,
        hint: v11
          ? "write that inline table on one line, without a comma after its last key or comments (or as a [table] with its keys on the lines below), then run the command again; nothing was written"
          : "fix the syntax at that position; hcpx leaves a file it cannot parse untouched",
      });
    }
    throw e;
  }
}

function get(obj: unknown, path: string[]): unknown {
  let v = obj;
  for (const k of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}
export const tomlValueAt = get;

/**
 * [start, end) spans of the tables at `path` and below (src/host/tomlscan.ts reads the
 * headers as TOML does: none inside a string or a comment). A span ends after its
 * table's last key/value line: comment and blank lines after it stay, as they mostly
 * head the next table (hcpx writes none of its own).
 */
function spans(items: TomlItem[], path: string[]): [number, number][] {
  const res: [number, number][] = [];
  let cur: [number, number] | undefined;
  for (const it of items) {
    if (it.kind === "header") {
      const ours = it.path.length >= path.length && path.every((p, j) => it.path[j] === p);
      cur = ours ? [it.start, it.end] : undefined;
      if (cur) res.push(cur);
    } else if (it.kind === "keyval" && cur) cur[1] = it.end;
  }
  return res;
}

const startsWith = (a: string[], b: string[]) => a.length >= b.length && b.every((k, j) => a[j] === k);

/**
 * A table above `path` that is written in a form hcpx cannot add a [table] to: a value
 * (`mcp_servers = { other = {…} }`, an inline table) or an array of tables
 * (`[[mcp_servers]]`). Appending [mcp_servers.hcp] would define it twice; refused here,
 * at the person's line, before anything is edited.
 */
function refuseValueAbove(items: TomlItem[], parsed: Record<string, unknown>, path: string[], file: string): void {
  for (const it of items) {
    const at = it.kind === "keyval" ? it.table.concat(it.path) : it.kind === "header" && it.array ? it.path : [];
    if (at.length === 0 || at.length >= path.length || !startsWith(path, at)) continue;
    const name = at.join(".");
    const inner = get(parsed, at);
    const table = inner !== null && typeof inner === "object" && !Array.isArray(inner) && !(inner instanceof Date);
    const other = table ? Object.keys(inner)[0] : undefined;
    const example = `[${name}.${other ?? "<name>"}]`;
    throw new HcpxError({
      code: "toml_unsupported",
      message:
        it.kind === "keyval"
          ? `\`${name}\` is written as a value (\`${it.path.join(".")} = …\`${table ? ", an inline table" : ""}), which hcpx does not add [${path.join(".")}] to; nothing was written`
          : `\`${name}\` is an array of tables ([[${name}]]), which hcpx does not add [${path.join(".")}] to; nothing was written`,
      file,
      line: it.line,
      hint: table
        ? `rewrite each entry of it as a table of its own (${example} with its keys on the lines below), then run the command again`
        : `make it a table: each entry as ${example} with its keys on the lines below, then run the command again`,
    });
  }
}

export interface TomlSetResult {
  text: string;
  /** text we put before our table when appending it (so removal can take it back) */
  prefix?: string;
}

/**
 * Replace (or append) the tables at `path` with `snippet` (TOML text that
 * declares exactly those tables). Throws when the entry exists in a form we
 * cannot edit textually (inline table, dotted keys).
 */
export function setToml(
  text: string,
  parsed: Record<string, unknown>,
  path: string[],
  snippet: string,
  file: string,
): TomlSetResult {
  const eol = eolOf(text || undefined);
  let block = withEol(snippet, eol).replace(/(\r?\n)+$/, "") + eol;
  const items = scanToml(text, file);
  refuseValueAbove(items, parsed, path, file);
  const sp = spans(items, path);
  if (sp.length === 0) {
    if (get(parsed, path) !== undefined) {
      const at = items.find((it) => it.kind === "keyval" && startsWith(it.table.concat(it.path), path));
      throw new HcpxError({
        code: "toml_unsupported",
        message: `\`${path.join(".")}\` is defined inline or with dotted keys, which hcpx does not edit; nothing was written`,
        file,
        line: at?.line,
        hint: `move it to its own [${path.join(".")}] table, or remove it`,
      });
    }
    if (text === "") return { text: block, prefix: "" };
    const prefix = text.endsWith("\n") ? eol : eol + eol;
    return { text: text + prefix + block, prefix };
  }
  // the first span is replaced, the others (sub-tables) removed
  let out = "";
  let pos = 0;
  sp.forEach(([s, e], i) => {
    out += text.slice(pos, s);
    if (i === 0) {
      // keep the original trailing line break state of the span
      if (!text.slice(s, e).endsWith("\n")) block = block.replace(/\r?\n$/, "");
      out += block;
    }
    pos = e;
  });
  out += text.slice(pos);
  return { text: out };
}

export function removeToml(text: string, path: string[], file: string, prefix?: string): string {
  const sp = spans(scanToml(text, file), path);
  if (sp.length === 0) return text;
  let out = "";
  let pos = 0;
  for (const [s, e] of sp) {
    out += text.slice(pos, s);
    pos = e;
  }
  const rest = text.slice(pos);
  // the line break(s) hcpx put before its table go with it, unless the text after the
  // table would then run on from the line before it (the person's own lines follow
  // without a blank line of theirs)
  if (prefix && (rest === "" || /^\r?\n/.test(rest)) && out.endsWith(prefix))
    out = out.slice(0, out.length - prefix.length);
  return out + rest;
}

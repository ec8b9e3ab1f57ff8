// format "toml": the MCP entry as the table at `key` (Codex's [mcp_servers.hcp]) and
// its sub-tables. The entry is serialized here from the descriptor's `entry`; the
// text edits are src/host/tomledit.ts's (every other table stays byte for byte).
import { HcpxError } from "../../util/errors";
import { sha256, tomlString, tomlValue } from "../../util/text";
import { parseTomlFor, removeToml, setToml, tomlValueAt } from "../tomledit";
import { planKeyedEntry, removeKeyedEntry } from "./keyed";
import type { FormatHandler, KeyedFormat } from "./types";
import { isDeepStrictEqual } from "node:util";

type Doc = Record<string, unknown>;

const bare = (k: string) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k));

/** `[a.b]` and one `key = value` line per field (a nested object as an inline table). */
export function tomlTable(key: string[], value: Record<string, unknown>): string {
  return (
    `[${key.map(bare).join(".")}]\n` +
    Object.entries(value)
      .map(([k, v]) => `${bare(k)} = ${tomlValue(v)}\n`)
      .join("")
  );
}

export const tomlDoc: KeyedFormat<Doc> = {
  kind: "toml",
  showKey: (key) => `[${key.join(".")}]`,
  initialText: () => "",
  read: (text, file) => parseTomlFor(text, file),
  get: tomlValueAt,
  where: () => ({}),
  set(text, doc, key, value, f) {
    const r = setToml(text, doc, key, tomlTable(key, value as Record<string, unknown>), f.show);
    if (JSON.stringify(tomlValueAt(parseTomlFor(r.text, f.show), key)) !== JSON.stringify(value)) {
      throw new HcpxError({
        code: "toml_unsupported",
        message: `cannot place [${key.join(".")}] in this file without changing other tables`,
        file: f.show,
        hint: "move the existing entry to its own table at the end of the file",
      });
    }
    return { text: r.text, undo: { prefix: r.prefix } };
  },
  carry: (prev) => (prev ? { created: prev.created, prefix: prev.prefix } : {}),
  readBack: parseTomlFor,
  remove(text, _doc, e, f) {
    const next = removeToml(text, e.key!, e.prefix);
    parseTomlFor(next, f.show);
    return e.created && next.trim() === "" ? null : next;
  },
  hash: (v) => sha256(JSON.stringify(v)),
};

export const tomlFormat: FormatHandler = {
  doc: tomlDoc,
  kinds: ["toml"],
  fits: (e, t, paths) => e.kind === "toml" && paths.includes(e.path) && isDeepStrictEqual(e.key, t.key),
  async plan(t, abs, ctx) {
    return [planKeyedEntry(tomlDoc, t, abs, ctx)];
  },
  remove: (e, f, text, ctx) => removeKeyedEntry(tomlDoc, e, f, text, ctx),
};

// SKILL.md frontmatter as it is almost always written — top-level `key: value`
// lines and `key:` followed by `- item` lines, with plain, 'single' or "double"
// quoted scalars — read without the YAML library: at 100 packs the library was
// ~30% of `hcpx mcp`'s start and ~15% of `generate` (~2 ms per Skill, cold).
// Anything outside that subset (comments, anchors, flow collections, block
// scalars, multi-line or typed scalars, odd keys, duplicates, tabs) returns
// undefined, and the caller parses with the library, so both give one value
// for one text (property-tested against the library in test/pack/).
const KEY = /^([A-Za-z][A-Za-z0-9_-]*):(?: +(.*))?$/;
const ITEM = /^( *)- +(.*)$/;
/** Plain scalars we read as strings: they start with a letter and hold nothing YAML could read otherwise. */
const PLAIN =
  /^[A-Za-z](?:[^#:\s\x00-\x1f\x7f-\x9f\ufeff\ufffe\uffff]|:(?=[^\s\x00-\x1f\x7f-\x9f])|[ ]+(?=[^#\s\x00-\x1f\x7f-\x9f]))*$/;
/** Plain words the YAML core schema reads as booleans, null, or numbers (`.inf`, `0x…` start with no letter). */
const TYPED = /^(?:true|True|TRUE|false|False|FALSE|null|Null|NULL)$/;
const DOUBLE = /^"(?:[^"\\\x00-\x1f\x7f-\x9f\ufeff\ufffe\uffff]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"$/;
const SINGLE = /^'(?:[^'\x00-\x1f\x7f-\x9f\ufeff\ufffe\uffff]|'')*'$/;
/** Surrogate code units (paired or not): left to the library. */
const SURROGATE = /[\ud800-\udfff]/;

function scalar(raw: string): string | undefined {
  const s = raw.replace(/ +$/, "");
  if (SURROGATE.test(s)) return undefined;
  if (DOUBLE.test(s)) {
    const v = JSON.parse(s) as string;
    return SURROGATE.test(v) || /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufeff\ufffe\uffff]/.test(v) ? undefined : v;
  }
  if (SINGLE.test(s)) return s.slice(1, -1).replace(/''/g, "'");
  if (PLAIN.test(s) && !TYPED.test(s)) return s;
  return undefined;
}

/** The frontmatter's value when it is in the simple subset, else undefined. */
export function simpleFrontmatter(text: string): Record<string, string | string[]> | undefined {
  if (text.includes("\t") || text.includes("\r")) return undefined;
  const lines = text.split("\n");
  const out: Record<string, string | string[]> = {};
  let list: string[] | undefined;
  let listIndent = -1;
  for (const line of lines) {
    if (line.trim() === "") {
      if (line !== "") return undefined;
      continue;
    }
    const item = list ? ITEM.exec(line) : null;
    if (item) {
      if (listIndent < 0) listIndent = item[1]!.length;
      else if (item[1]!.length !== listIndent) return undefined;
      const v = scalar(item[2]!);
      if (v === undefined) return undefined;
      list!.push(v);
      continue;
    }
    if (list && list.length === 0) return undefined; // `key:` with no items is null in YAML
    list = undefined;
    const m = KEY.exec(line);
    if (!m || Object.hasOwn(out, m[1]!) || m[1] === "__proto__") return undefined;
    if (m[2] === undefined || /^ *$/.test(m[2])) {
      list = [];
      listIndent = -1;
      out[m[1]!] = list;
      continue;
    }
    const v = scalar(m[2]);
    if (v === undefined) return undefined;
    out[m[1]!] = v;
  }
  if ((list && list.length === 0) || Object.keys(out).length === 0) return undefined;
  return out;
}

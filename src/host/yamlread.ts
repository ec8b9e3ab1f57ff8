// Reading a YAML config file for hcpx's entry (src/host/yamledit.ts, yamlentry.ts): the
// one parse every edit starts from (a file the `yaml` package reports any error for, a
// key twice, several documents are refused, naming file and line), where the entry is
// (a map key path, or the item of a list whose `named` field is the last segment), the
// lines it covers and how the file is indented.
import {
  parseDocument,
  stringify,
  isMap,
  isSeq,
  isScalar,
  type Document,
  type Node as YNode,
  type Pair,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";
import { HcpxError } from "../util/errors";
import { checkNesting, parsingDeep } from "../util/nesting";
import { lineCol, withEol } from "../util/text";

export interface YamlKey {
  /** map keys down to the entry; with `named`, the last segment is the item's name */
  path: string[];
  /** the entry is the item of the list at path[..-1] whose field `named` equals the last segment */
  named?: string;
}

export const MAX_ALIASES = 100;

/** Parse one YAML document; a file the `yaml` package reports any error for is refused (file, line, column). */
export function parseYamlFor(text: string, file: string): Document.Parsed {
  checkNesting(text, file, "yaml");
  const doc = parsingDeep(file, () =>
    parseDocument(text, { keepSourceTokens: false, prettyErrors: false, uniqueKeys: true }),
  );
  const err = doc.errors[0];
  if (err) {
    const at = lineCol(text, err.pos[0]);
    // a key twice: the host reads one copy, a reader of the text may see the other (issue 22 §6)
    if (err.code === "DUPLICATE_KEY")
      throw new HcpxError({
        code: "duplicate_key",
        message: `a key appears twice in one map (${err.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "")}): which copy the host reads is not hcpx's to guess`,
        file,
        ...at,
        hint: "keep the copy you mean and delete the other, then run the command again",
      });
    throw new HcpxError({
      code: "bad_yaml",
      message: `cannot parse YAML: ${err.message.split("\n")[0]}`,
      file,
      ...at,
      hint: "fix the syntax at that position; hcpx leaves a file it cannot parse untouched",
    });
  }
  if (doc.contents !== null && !isMap(doc.contents) && !(isScalar(doc.contents) && doc.contents.value === null)) {
    throw new HcpxError({
      code: "yaml_unsupported",
      message: "the YAML document is not a map of keys",
      file,
      ...lineCol(text, doc.contents.range?.[0] ?? 0),
      hint: "the host reads a map at the top of this file: fix the file, or move it away",
    });
  }
  return doc;
}

export function toJs(doc: Document.Parsed, node: YNode, file: string): unknown {
  return readable(file, () => node.toJS(doc, { maxAliasCount: MAX_ALIASES }));
}

export function docJs(doc: Document.Parsed, file: string): unknown {
  return readable(file, () => doc.toJS({ maxAliasCount: MAX_ALIASES }));
}

/** `read()`'s value, or bad_yaml for `file` when the library cannot give it (an alias bomb, a cycle). */
function readable(file: string, read: () => unknown): unknown {
  try {
    return read();
  } catch (e) {
    throw new HcpxError({
      code: "bad_yaml",
      message: `cannot read YAML: ${(e as Error).message}`,
      file,
      hint: "hcpx leaves a file it cannot read untouched",
    });
  }
}

export function pairsOf(map: YAMLMap, key: string): Pair[] {
  return map.items.filter((p) => isScalar(p.key) && p.key.value === key);
}

export interface YamlFound {
  /** the deepest collection found along the path and how many segments it covers */
  depth: number;
  /** the map or list at `depth` (undefined: the document is empty) */
  coll?: YAMLMap | YAMLSeq;
  /** the entry: a map pair (map path) or a list item (named) */
  pair?: Pair;
  item?: YAMLMap;
  /** the pair holding each collection of the path (index i: the pair of path[i]) */
  chain: Pair[];
}

export function locate(doc: Document.Parsed, key: YamlKey, text: string, file: string): YamlFound {
  const where = (n: { range?: [number, number, number] | null } | null | undefined) =>
    lineCol(text, n?.range?.[0] ?? 0);
  const root = doc.contents;
  if (!isMap(root)) return { depth: 0, chain: [] };
  const maps = key.named ? key.path.length - 1 : key.path.length;
  let coll: YAMLMap | YAMLSeq = root;
  const chain: Pair[] = [];
  for (let i = 0; i < maps; i++) {
    const m = coll as YAMLMap;
    const seg = key.path[i]!;
    const hits = pairsOf(m, seg);
    if (hits.length === 0) return { depth: i, coll: m, chain };
    const p = hits[0]!;
    const last = i === maps - 1;
    if (last && !key.named) return { depth: i, coll: m, pair: p, chain };
    const v = p.value;
    const want = last ? "list" : "map";
    if (last ? !isSeq(v) : !isMap(v)) {
      throw new HcpxError({
        code: "yaml_unsupported",
        message: `\`${key.path.slice(0, i + 1).join(".")}\` is not a ${want}; hcpx puts its entry in that ${want}`,
        file,
        ...where((v as YNode | null) ?? (p.key as YNode)),
        hint: `make it a ${want} (the host's format), or remove it`,
      });
    }
    chain.push(p);
    coll = v as YAMLMap | YAMLSeq;
  }
  // a named item of the list
  const seq = coll as YAMLSeq;
  const name = key.path[key.path.length - 1]!;
  const items = seq.items.filter(
    (it): it is YAMLMap =>
      isMap(it) && pairsOf(it, key.named!).some((p) => isScalar(p.value) && p.value.value === name),
  );
  if (items.length > 1) {
    throw new HcpxError({
      code: "yaml_ambiguous",
      message: `\`${key.path.slice(0, -1).join(".")}\` holds ${items.length} items with ${key.named}: ${name}`,
      file,
      ...where(items[1]),
      hint: `keep one of them (hcpx owns the item named ${name})`,
    });
  }
  return { depth: maps, coll: seq, item: items[0], chain };
}

/** The JS value of the entry, or undefined when the file has none. */
export function yamlValueAt(doc: Document.Parsed, key: YamlKey, text: string, file: string): unknown {
  const f = locate(doc, key, text, file);
  if (f.item) return toJs(doc, f.item, file);
  if (f.pair) return f.pair.value === null ? null : toJs(doc, f.pair.value as YNode, file);
  return undefined;
}

/** Offset of the start of the line holding `at`; refused when anything but spaces (and, for a list item, its `-`) precedes it there. */
export function lineStartOf(text: string, at: number, dash: boolean, file: string, what: string): number {
  let s = at;
  while (s > 0 && text[s - 1] !== "\n") s--;
  const before = text.slice(s, at);
  if (!(dash ? /^ *- +$/ : /^ *$/).test(before)) {
    throw new HcpxError({
      code: "yaml_unsupported",
      message: `${what} is not in block style on lines of its own (flow style or a complex key), which hcpx does not edit`,
      file,
      ...lineCol(text, at),
      hint: "write that part in block style (one key per line), or remove it",
    });
  }
  return s;
}

/** End of the line after the last content of a node (its trailing comment on that line included, comment lines after it not). */
export function contentEnd(text: string, n: YNode | Pair): number {
  const node = "range" in n ? (n as YNode) : (((n as Pair).value as YNode | null) ?? ((n as Pair).key as YNode));
  let e = node.range![1];
  while (e > 0 && (text[e - 1] === " " || text[e - 1] === "\t")) e--;
  if (e > 0 && text[e - 1] === "\n") return e;
  const nl = text.indexOf("\n", e);
  return nl === -1 ? text.length : nl + 1;
}

/** The [start, end) of the entry's lines. */
export function span(text: string, f: YamlFound, file: string, key: YamlKey): [number, number] {
  if (f.item) {
    const s = lineStartOf(text, f.item.range![0], true, file, `the item ${key.named}: ${key.path.at(-1)}`);
    return [s, contentEnd(text, f.item)];
  }
  const p = f.pair!;
  const s = lineStartOf(text, (p.key as YNode).range![0], false, file, `\`${key.path.join(".")}\``);
  return [s, contentEnd(text, p)];
}

export function column(text: string, at: number): number {
  let s = at;
  while (s > 0 && text[s - 1] !== "\n") s--;
  return at - s;
}

/** The file's indentation step: how far the first nested block map is indented under its key (2 when there is none). */
export function indentOf(text: string, doc: Document.Parsed): number {
  const walk = (m: unknown): number | undefined => {
    if (!isMap(m) || m.flow) return undefined;
    for (const p of m.items) {
      const v = p.value;
      if (isMap(v) && !v.flow && v.items[0]?.key && (p.key as YNode | null)?.range) {
        const step = column(text, (v.items[0].key as YNode).range![0]) - column(text, (p.key as YNode).range![0]);
        if (step >= 2 && step <= 8) return step;
      }
      const deeper = walk(v);
      if (deeper !== undefined) return deeper;
    }
    return undefined;
  };
  return walk(doc.contents) ?? 2;
}

/** Block YAML for `value` under the keys `rest`, indented by `col`, nested by `indent`. */
export function render(rest: string[], value: unknown, col: number, eol: string, indent: number): string {
  let v: unknown = value;
  for (let i = rest.length - 1; i >= 0; i--) v = { [rest[i]!]: v };
  const body = stringify(v, {
    lineWidth: 0,
    minContentWidth: 0,
    indent,
    indentSeq: true,
    aliasDuplicateObjects: false,
  });
  const pad = " ".repeat(col);
  return withEol(
    body
      .replace(/\n$/, "")
      .split("\n")
      .map((l) => (l === "" ? l : pad + l))
      .join("\n") + "\n",
    eol,
  );
}

/** the column of the `-` of the list item whose line starts at `lineStart` */
export function itemDashCol(text: string, lineStart: number): number {
  return text.slice(lineStart).match(/^ */)![0].length;
}

// size: one YAML text editor; locate, set, remove and verify share the Document positions and the round-trip check, 55 lines over
// YAML config files (Goose's config.yaml, Continue's config.yaml): change only
// hcpx's entry, as text, at the positions the `yaml` package's Document API
// reports; every other byte of the file (comments, quoting, indentation, other
// entries) stays as it was, and a removal takes out exactly the lines an
// insertion put in. Two entry shapes:
//   - a map key path: `extensions.hcp` (Goose);
//   - a named item of a list: `mcpServers` is a list of `{name, command, …}` and
//     hcpx owns the item whose `name` is `hcp` (Continue) — `named: "name"`.
// Every result is parsed again and compared with the file before: anything but
// our entry changed, or a file the host could not read, is refused, never written.
// Loaded lazily by the engine (only a plan that involves a YAML file pays for it).
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
import { isDeepStrictEqual } from "node:util";
import { HcpxError } from "../util/errors";
import { checkNesting, parsingDeep } from "../util/nesting";
import { eolOf, lineCol, withEol } from "../util/text";

export interface YamlKey {
  /** map keys down to the entry; with `named`, the last segment is the item's name */
  path: string[];
  /** the entry is the item of the list at path[..-1] whose field `named` equals the last segment */
  named?: string;
}

export interface YamlSetResult {
  text: string;
  /** the line break put before our text (the file did not end with one) */
  prefix?: string;
  /** the highest part of the key path this insertion created (what a removal may take out again) */
  insertedAt?: string[];
}

const MAX_ALIASES = 100;

/** The text of a YAML file hcpx creates: the host's own skeleton (descriptor `initial`), or nothing. */
export function initialYaml(initial: Record<string, unknown> | undefined): string {
  return initial ? stringify(initial, { lineWidth: 0 }) : "";
}

/** The plain value of a whole YAML text (for comparing what a removal leaves with the skeleton). */
export function yamlDocValue(text: string, file: string): unknown {
  return docJs(parseYamlFor(text, file), file);
}

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

function toJs(doc: Document.Parsed, node: YNode, file: string): unknown {
  try {
    return node.toJS(doc, { maxAliasCount: MAX_ALIASES });
  } catch (e) {
    throw new HcpxError({
      code: "bad_yaml",
      message: `cannot read YAML: ${(e as Error).message}`,
      file,
      hint: "hcpx leaves a file it cannot read untouched",
    });
  }
}

function docJs(doc: Document.Parsed, file: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (e) {
    throw new HcpxError({
      code: "bad_yaml",
      message: `cannot read YAML: ${(e as Error).message}`,
      file,
      hint: "hcpx leaves a file it cannot read untouched",
    });
  }
}

function pairsOf(map: YAMLMap, key: string): Pair[] {
  return map.items.filter((p) => isScalar(p.key) && p.key.value === key);
}

interface Found {
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

function locate(doc: Document.Parsed, key: YamlKey, text: string, file: string): Found {
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
function lineStartOf(text: string, at: number, dash: boolean, file: string, what: string): number {
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
function contentEnd(text: string, n: YNode | Pair): number {
  const node = "range" in n ? (n as YNode) : (((n as Pair).value as YNode | null) ?? ((n as Pair).key as YNode));
  let e = node.range![1];
  while (e > 0 && (text[e - 1] === " " || text[e - 1] === "\t")) e--;
  if (e > 0 && text[e - 1] === "\n") return e;
  const nl = text.indexOf("\n", e);
  return nl === -1 ? text.length : nl + 1;
}

/** The [start, end) of the entry's lines. */
function span(text: string, f: Found, file: string, key: YamlKey): [number, number] {
  if (f.item) {
    const s = lineStartOf(text, f.item.range![0], true, file, `the item ${key.named}: ${key.path.at(-1)}`);
    return [s, contentEnd(text, f.item)];
  }
  const p = f.pair!;
  const s = lineStartOf(text, (p.key as YNode).range![0], false, file, `\`${key.path.join(".")}\``);
  return [s, contentEnd(text, p)];
}

function column(text: string, at: number): number {
  let s = at;
  while (s > 0 && text[s - 1] !== "\n") s--;
  return at - s;
}

/** The file's indentation step: how far the first nested block map is indented under its key (2 when there is none). */
function indentOf(text: string, doc: Document.Parsed): number {
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
function render(rest: string[], value: unknown, col: number, eol: string, indent: number): string {
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

/**
 * Put `value` at `key` (replacing hcpx's entry, or adding it after the last entry of
 * its map or list, creating the keys it needs). The caller parsed `text` already.
 */
export function setYaml(text: string, key: YamlKey, value: unknown, file: string): YamlSetResult {
  const eol = eolOf(text || undefined);
  const doc = parseYamlFor(text, file);
  const f = locate(doc, key, text, file);
  const named = key.named !== undefined;
  const ind = indentOf(text, doc);
  let out: YamlSetResult;
  if (f.item || f.pair) {
    const [s, e] = span(text, f, file, key);
    const block = f.item
      ? render([], [value], itemDashCol(text, s), eol, ind)
      : render([key.path.at(-1)!], value, column(text, (f.pair!.key as YNode).range![0]), eol, ind);
    // keep the original line break state of the span's end
    const b = text.slice(s, e).endsWith("\n") ? block : block.replace(/\r?\n$/, "");
    out = { text: text.slice(0, s) + b + text.slice(e) };
  } else {
    // add: the keys from f.depth on (and the list item) are new
    const rest = key.path.slice(f.depth, named ? -1 : undefined);
    const inner: unknown = named ? [value] : value;
    let pos: number;
    let col: number;
    const coll = f.coll;
    if (!coll || f.depth === 0) {
      // the top level: at the end of the file
      pos = text.length;
      col = 0;
    } else {
      if (coll.flow) {
        throw new HcpxError({
          code: "yaml_unsupported",
          message: `\`${key.path.slice(0, f.depth).join(".")}\` is written in flow style ({…} or […]), which hcpx does not edit`,
          file,
          ...lineCol(text, coll.range![0]),
          hint: "write it in block style (one entry per line), or remove it",
        });
      }
      const lastItem = coll.items.at(-1) as YNode | Pair | undefined;
      if (!lastItem) {
        throw new HcpxError({
          code: "yaml_unsupported",
          message: `\`${key.path.slice(0, f.depth).join(".")}\` is empty`,
          file,
          ...lineCol(text, coll.range![0]),
          hint: "remove the empty key, or give it an entry",
        });
      }
      pos = contentEnd(text, lastItem);
      if (isSeq(coll))
        col = itemDashCol(
          text,
          lineStartOf(
            text,
            (coll.items[0] as YNode).range![0],
            true,
            file,
            `the list \`${key.path.slice(0, -1).join(".")}\``,
          ),
        );
      else col = column(text, (coll.items[0]!.key as YNode).range![0]);
    }
    const block = render(rest, inner, col, eol, ind);
    const prefix = pos > 0 && text[pos - 1] !== "\n" ? eol : undefined;
    out = {
      text: text.slice(0, pos) + (prefix ?? "") + block + text.slice(pos),
      ...(prefix ? { prefix } : {}),
      insertedAt: key.path.slice(0, Math.min(f.depth + 1, key.path.length)),
    };
  }
  verify(text, out.text, key, value, file);
  return out;
}

/** the column of the `-` of the list item whose line starts at `lineStart` */
function itemDashCol(text: string, lineStart: number): number {
  return text.slice(lineStart).match(/^ */)![0].length;
}

/** The file without hcpx's entry (and the keys its insertion created, when they hold nothing else). */
export function removeYaml(
  text: string,
  key: YamlKey,
  file: string,
  opts: { insertedAt?: string[]; prefix?: string } = {},
): string {
  const doc = parseYamlFor(text, file);
  const f = locate(doc, key, text, file);
  if (!f.item && !f.pair) return text;
  let [s, e] = span(text, f, file, key);
  // ancestors created by the insertion that hold only our entry go with it
  const at = opts.insertedAt ?? key.path;
  const mapsCreated = key.path.length - at.length; // how many levels above the entry hcpx created
  for (let lvl = 0; lvl < mapsCreated; lvl++) {
    const i = f.chain.length - 1 - lvl;
    const holder = f.chain[i];
    const coll = holder?.value as YAMLMap | YAMLSeq | undefined;
    if (!holder || !coll || coll.items.length !== 1) break;
    s = lineStartOf(text, (holder.key as YNode).range![0], false, file, `\`${key.path.slice(0, i + 1).join(".")}\``);
    e = contentEnd(text, holder);
    // the holder's own map must hold only it to climb further
    const up = i > 0 ? (f.chain[i - 1]!.value as YAMLMap) : undefined;
    if (!up || up.items.length !== 1) break;
  }
  let out = text.slice(0, s) + text.slice(e);
  if (opts.prefix && e === text.length && out.endsWith(opts.prefix))
    out = out.slice(0, out.length - opts.prefix.length);
  verify(text, out, key, undefined, file);
  return out;
}

/** The edit changed our entry only, and the host can read the result. */
function verify(before: string, after: string, key: YamlKey, want: unknown, file: string): void {
  const a = parseYamlFor(before, file);
  let got: unknown;
  let afterJs: unknown;
  try {
    const b = parseYamlFor(after, file);
    got = yamlValueAt(b, key, after, file);
    afterJs = docJs(b, file);
  } catch {
    throw new HcpxError({
      code: "yaml_unsupported",
      message:
        "hcpx's edit would leave YAML the host cannot read (an anchor or alias on the entry, say); nothing written",
      file,
      hint: "write the map or list hcpx edits in plain block style, without anchors or aliases",
    });
  }
  const same = isDeepStrictEqual(strip(docJs(a, file), key), strip(afterJs, key));
  if (
    !same ||
    (want === undefined
      ? got !== undefined
      : !isDeepStrictEqual(JSON.parse(JSON.stringify(got ?? null)), JSON.parse(JSON.stringify(want))))
  ) {
    throw new HcpxError({
      code: "yaml_unsupported",
      message: `cannot place \`${key.path.join(".")}\` in this file without changing other entries; nothing written`,
      file,
      hint: "write the map or list hcpx edits in plain block style, without anchors or aliases",
    });
  }
}

/** The document's value without the entry, and without the empty keys around it. */
function strip(js: unknown, key: YamlKey): unknown {
  const copy = JSON.parse(JSON.stringify(js ?? {})) as Record<string, unknown>;
  const holders: Record<string, unknown>[] = [copy];
  let cur: unknown = copy;
  for (let i = 0; i < key.path.length - 1; i++) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return copy;
    cur = (cur as Record<string, unknown>)[key.path[i]!];
    holders.push(cur as Record<string, unknown>);
  }
  const last = key.path.at(-1)!;
  if (key.named) {
    const parent = holders.at(-2) as Record<string, unknown> | undefined;
    if (Array.isArray(cur) && parent) {
      const rest = (cur as unknown[]).filter(
        (x) => !(x && typeof x === "object" && (x as Record<string, unknown>)[key.named!] === last),
      );
      parent[key.path.at(-2)!] = rest;
    }
  } else if (cur && typeof cur === "object" && !Array.isArray(cur)) delete (cur as Record<string, unknown>)[last];
  // empty maps and lists along the path count as absent (created or taken out with our entry)
  for (let i = key.path.length - 2; i >= 0; i--) {
    let o: unknown = copy;
    for (let j = 0; j < i; j++) o = (o as Record<string, unknown> | undefined)?.[key.path[j]!];
    if (o === null || typeof o !== "object" || Array.isArray(o)) break;
    const v = (o as Record<string, unknown>)[key.path[i]!];
    if (
      v !== undefined &&
      typeof v === "object" &&
      v !== null &&
      (Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0)
    )
      delete (o as Record<string, unknown>)[key.path[i]!];
  }
  return copy;
}

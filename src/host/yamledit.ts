// YAML config files (Goose's config.yaml, Continue's config.yaml): change only
// hcpx's entry, as text, at the positions the `yaml` package's Document API
// reports; every other byte of the file (comments, quoting, indentation, other
// entries) stays as it was, and a removal takes out exactly the lines an
// insertion put in. Two entry shapes:
//   - a map key path: `extensions.hcp` (Goose);
//   - a named item of a list: `mcpServers` is a list of `{name, command, …}` and
//     hcpx owns the item whose `name` is `hcp` (Continue) — `named: "name"`.
// An entry already there is edited in place (src/host/yamlentry.ts): the person's
// comments and keys in it stay. Every result is parsed again and compared with the
// file before: anything but our entry changed, or a file the host could not read,
// is refused, never written. Reading and locating: src/host/yamlread.ts.
// Loaded lazily by the engine (only a plan that involves a YAML file pays for it).
import { isSeq, stringify, type Document, type Node as YNode, type Pair, type YAMLMap, type YAMLSeq } from "yaml";
import { isDeepStrictEqual } from "node:util";
import { HcpxError } from "../util/errors";
import { eolOf, lineCol } from "../util/text";
import {
  column,
  contentEnd,
  docJs,
  indentOf,
  itemDashCol,
  lineStartOf,
  locate,
  parseYamlFor,
  render,
  span,
  yamlValueAt,
  type YamlFound,
  type YamlKey,
} from "./yamlread";
import { patchYamlEntry, within, yamlMarks } from "./yamlentry";

export { parseYamlFor, yamlValueAt, type YamlKey } from "./yamlread";

export interface YamlSetResult {
  text: string;
  /** the line break put before our text (the file did not end with one) */
  prefix?: string;
  /** the highest part of the key path this insertion created (what a removal may take out again) */
  insertedAt?: string[];
}

/** The text of a YAML file hcpx creates: the host's own skeleton (descriptor `initial`), or nothing. */
export function initialYaml(initial: Record<string, unknown> | undefined): string {
  return initial ? stringify(initial, { lineWidth: 0 }) : "";
}

/** The plain value of a whole YAML text (for comparing what a removal leaves with the skeleton). */
export function yamlDocValue(text: string, file: string): unknown {
  return docJs(parseYamlFor(text, file), file);
}

/**
 * hcpx's entry (found at `f`) made `value`: edited in place (src/host/yamlentry.ts), unless `whole`
 * (--force); an entry that cannot be edited exactly is written whole when no comment is in its lines,
 * else refused, nothing written. `verified`: the text is an in-place edit verify() already passed.
 */
function replaceEntry(
  text: string,
  doc: Document.Parsed,
  f: YamlFound,
  key: YamlKey,
  value: unknown,
  file: string,
  opts: SetOpts,
): { text: string; verified: boolean } {
  const [s, e] = span(text, f, file, key);
  const at = f.item ? f.item.range![0] : (f.pair!.key as YNode).range![0];
  if (!opts.whole) {
    const node = f.item ?? (f.pair!.value as YNode | null);
    const have = yamlValueAt(doc, key, text, file);
    const patched = patchYamlEntry(text, node, [s, e], have, value, opts.eol, opts.ind);
    if (patched !== undefined) {
      try {
        verify(doc, patched, key, value, file);
        return { text: patched, verified: true };
      } catch (err) {
        if (!(err instanceof HcpxError)) throw err;
      }
    }
    if (within(yamlMarks(text).comments, s, e))
      throw new HcpxError({
        code: "yaml_unsupported",
        message: `cannot set hcpx's fields of \`${key.path.join(".")}\` in place and keep the comments in it; nothing was written`,
        file,
        ...lineCol(text, at),
        hint: "rerun with --force to write hcpx's entry whole (the comments and fields of yours in it go), or edit the entry by hand",
      });
  }
  const block = f.item
    ? render([], [value], itemDashCol(text, s), opts.eol, opts.ind)
    : render([key.path.at(-1)!], value, column(text, at), opts.eol, opts.ind);
  // keep the original line break state of the span's end
  const b = text.slice(s, e).endsWith("\n") ? block : block.replace(/\r?\n$/, "");
  return { text: text.slice(0, s) + b + text.slice(e), verified: false };
}

interface SetOpts {
  eol: string;
  ind: number;
  /** write an entry already there whole (--force), not in place */
  whole?: boolean;
}

/**
 * Put `value` at `key` (hcpx's entry edited, or written whole with `whole`: replaceEntry; or
 * added after the last entry of its map or list, creating the keys it needs). `parsed`: `text`
 * as parseYamlFor read it (the plan's read), not parsed again; nothing here changes it.
 */
export function setYaml(
  text: string,
  key: YamlKey,
  value: unknown,
  file: string,
  whole = false,
  parsed?: Document.Parsed,
): YamlSetResult {
  const eol = eolOf(text || undefined);
  const doc = parsed ?? parseYamlFor(text, file);
  const f = locate(doc, key, text, file);
  const named = key.named !== undefined;
  const ind = indentOf(text, doc);
  let out: YamlSetResult;
  if (f.item || f.pair) {
    const r = replaceEntry(text, doc, f, key, value, file, { eol, ind, whole });
    out = { text: r.text };
    // an in-place edit replaceEntry verified is not parsed and compared a second time
    if (r.verified) return out;
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
  verify(doc, out.text, key, value, file);
  return out;
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
  verify(doc, out, key, undefined, file);
  return out;
}

/** The edit changed our entry only, and the host can read the result (`a`: the text before, parsed). */
function verify(a: Document.Parsed, after: string, key: YamlKey, want: unknown, file: string): void {
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

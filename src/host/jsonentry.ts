// hcpx's MCP entry in a JSON/JSONC file set again with the fewest edits (a re-adopt): a
// member whose value is as it should be is not touched, a member that differs has its
// value replaced where it is (an object member by member, a list holding comments item
// by item: src/host/listedit.ts), hcpx's members that go are taken out and its new ones
// added at the end. So the person's comments and members in the entry stay where they
// wrote them, byte for byte; one on a line taken out stays, on a line of its own where that
// line was (listedit.ts's rule, the same in all three formats). The edits are made on the
// entry's own text (a file with a list of ~50,000 rules is not parsed again for each of
// them) and the result is checked: it must read as `next`, and nothing outside the entry
// may have changed.
import type { Node } from "jsonc-parser/lib/esm/main.js"; // the ESM build (see jsonedit.ts)
import { HcpxError } from "../util/errors";
import { isObj } from "../util/is";
import { lineCol } from "../util/text";
import {
  detectStyle,
  lineStart,
  nodeAt,
  serialize,
  setJson,
  skipTrivia,
  unBom,
  valueAt,
  type JsonInsertInfo,
  type JsonStyle,
} from "./jsonedit";
import { hasComment, jsonComments } from "./jsonlist";
import { applySplices, cutRun, NotInPlace, patchList, sameJson, type ListSyntax } from "./listedit";

interface Env {
  style: JsonStyle;
  show: string;
  /** the file's lenient reader (src/host/formats/json.ts lenientJson), here of the entry's text alone */
  parse: (text: string) => Node | undefined;
}

const end = (n: Node) => n.offset + n.length;

function listSyntax(env: Env): ListSyntax {
  return {
    skipTrivia,
    lineComment: (t, i) => t.startsWith("//", i),
    comments: jsonComments,
    render: (v, indent) => serialize(v, env.style, indent),
    eol: env.style.eol,
    // the caller checks the result as strictly as the host reads the file
    trailingCommas: false,
  };
}

/**
 * `s` without the member at `path`, by listedit.ts's rule: on a line of its own, its lines go, and the
 * comments in them (one ending its line) stay on lines of their own; else it goes with a comma, where
 * no comment would go with it (then NotInPlace).
 */
function dropMember(s: string, path: string[], env: Env): string {
  const obj = nodeAt(env.parse(s), path.slice(0, -1))!;
  const props = obj.children ?? [];
  const k = props.findIndex((p) => p.children?.[0]?.value === path.at(-1));
  const items = props.map((p): [number, number] => [p.offset, end(p)]);
  return applySplices(s, cutRun(s, { open: obj.offset, close: end(obj) - 1, items }, k, k, listSyntax(env)));
}

/** `s` (the entry's text) with the value at `path` in it made `n` (it is `h`). */
function patchAt(s: string, path: string[], h: unknown, n: unknown, env: Env): string {
  if (sameJson(h, n)) return s;
  if (isObj(h) && isObj(n)) {
    // new members first, then the ones that go: the object is never empty on the way (what an empty
    // object holds, a comment of the person's, would go with it)
    for (const [k, v] of Object.entries(n)) {
      if (Object.hasOwn(h, k)) s = patchAt(s, [...path, k], h[k], v, env);
      else s = setJson(s, env.parse(s), [...path, k], v, env.show, env.style).text;
    }
    for (const k of Object.keys(h)) if (!Object.hasOwn(n, k)) s = dropMember(s, [...path, k], env);
    return s;
  }
  if (Array.isArray(h) && Array.isArray(n)) {
    const node = nodeAt(env.parse(s), path);
    if (node?.type === "array" && hasComment(s, node.offset, end(node))) {
      const items = (node.children ?? []).map((c): [number, number] => [c.offset, end(c)]);
      return patchList(s, { open: node.offset, close: end(node) - 1, items }, h, n, listSyntax(env));
    }
  }
  return setJson(s, env.parse(s), path, n, env.show, env.style).text;
}

/**
 * The text with the entry at `key` (an object in `tree`) made `next`, in place; undefined when the
 * result would not read as `next` or would change the text outside the entry (the caller then
 * refuses, or writes the entry whole where nothing of the person's would be lost).
 */
export function patchJsonEntry(
  text: string,
  tree: Node | undefined,
  key: string[],
  next: Record<string, unknown>,
  show: string,
  parse: (text: string) => Node | undefined,
): string | undefined {
  const node = nodeAt(tree, key);
  const have = valueAt(tree, key);
  if (!node || !isObj(have)) return undefined;
  // the entry's text, at the columns it has in the file: its first line's indentation kept and the
  // text before it on that line (`"hcp": `, 4 characters at least) made a comment, so that what is
  // added is indented as its neighbours are
  const ls = lineStart(text, node.offset);
  const before = unBom(text.slice(0, node.offset)).slice(ls);
  const lead = /^[ \t]*/.exec(before)![0];
  const width = before.length - lead.length;
  const pad = lead + (width >= 4 ? "/*" + " ".repeat(width - 4) + "*/" : " ".repeat(width));
  const env: Env = { style: detectStyle(text), show, parse };
  let out: string;
  try {
    out = patchAt(pad + text.slice(node.offset, end(node)), [], have, next, env);
  } catch (e) {
    if (e instanceof NotInPlace) return undefined;
    throw e;
  }
  if (!out.startsWith(pad)) return undefined;
  const result = text.slice(0, node.offset) + out.slice(pad.length) + text.slice(end(node));
  try {
    const after = parse(result);
    const n2 = nodeAt(after, key);
    if (!n2 || n2.offset !== node.offset || result.slice(end(n2)) !== text.slice(end(node))) return undefined;
    return sameJson(valueAt(after, key), next) ? result : undefined;
  } catch {
    return undefined;
  }
}

/**
 * setJson for hcpx's MCP entry: one already there is edited in place (patchJsonEntry), unless `whole`
 * (--force). An entry that cannot be edited in place is written whole when it holds no comment (nothing
 * of the person's is lost: their fields are in `value`), else refused with nothing written.
 */
export function setJsonEntry(
  text: string,
  tree: Node | undefined,
  key: string[],
  value: unknown,
  show: string,
  parse: (text: string) => Node | undefined,
  whole = false,
): { text: string; insert?: JsonInsertInfo } {
  const node = nodeAt(tree, key);
  if (whole || node?.type !== "object" || !isObj(value)) return setJson(text, tree, key, value, show);
  const patched = patchJsonEntry(text, tree, key, value, show, parse);
  if (patched !== undefined) return { text: patched };
  if (!hasComment(text, node.offset, end(node))) return setJson(text, tree, key, value, show);
  throw new HcpxError({
    code: "bad_json",
    message: `cannot set hcpx's fields of \`${key.join(".")}\` in place and keep the comments in it; nothing was written`,
    file: show,
    ...lineCol(text, node.offset),
    hint: "rerun with --force to write hcpx's entry whole (the comments and fields of yours in it go), or edit the entry by hand",
  });
}

// formats "json" and "jsonc": the MCP entry at `key` (./keyed.ts), or hcpx's permission
// rules in a list (`items`) or object (`members`) at `key`. The text edits are
// src/host/jsonedit.ts's: every byte outside hcpx's part stays.
import { getNodeValue, parseTree, type Node, type ParseError } from "jsonc-parser/lib/esm/main.js"; // the ESM build: the UMD one require()s its parts at run time, which a bundle cannot resolve
import { isDeepStrictEqual } from "node:util";
import { HcpxError } from "../../util/errors";
import type { Target } from "../descriptor";
import {
  checkJsonFor,
  nodeAt,
  parseJsonFor,
  registerTree,
  removeJson,
  setJson,
  unBom,
  valueAt,
  type JsonRules,
} from "../jsonedit";
import { setJsonEntry } from "../jsonentry";
import { editMembers, editRules, hasComment, removeItems, type Merged } from "../jsonlist";
import type { LedgerEntry } from "../ledger";
import { checkNesting, parsingDeep } from "../../util/nesting";
import { lineCol, sha256 } from "../../util/text";
import { planKeyedEntry, removeKeyedEntry } from "./keyed";
import { expandItems, fill, isOurs, itemKey, widening, afterLists } from "./rules";
import type { CommandClass, FormatHandler, KeyedFormat, RemoveContext, TargetContext, VFile } from "./types";

type Doc = Node | undefined;

const rulesOf = (t: Target): JsonRules => ({
  comments: t.format === "jsonc",
  trailingCommas: t.format === "jsonc" && t.trailingCommas !== false,
});
const initialText = (t: Target) => (t.initial ? JSON.stringify(t.initial, null, 2) + "\n" : "");

/** Parse what is on disk for a removal: comments and trailing commas accepted (hcpx only takes its part out). */
export function lenientJson(text: string, show: string): Doc {
  if (text.trim() === "") return undefined;
  checkNesting(text, show);
  const errors: ParseError[] = [];
  const tree = parsingDeep(show, () =>
    parseTree(unBom(text), errors, { allowTrailingComma: true, allowEmptyContent: true }),
  );
  if (errors.length)
    throw new HcpxError({
      code: "bad_json",
      message: "cannot parse JSON",
      file: show,
      ...lineCol(text, errors[0]!.offset),
      hint: "fix the syntax; hcpx leaves a file it cannot parse untouched",
    });
  registerTree(tree, text, show);
  return tree;
}

/** True when the object `n` holds nothing but the chain `rest` (e.g. {hcp: …}). */
function onlyChain(n: Node | undefined, rest: string[]): boolean {
  if (!n || n.type !== "object") return false;
  const kids = n.children ?? [];
  if (kids.length !== 1 || kids[0]!.children![0]!.value !== rest[0]) return false;
  return rest.length === 1 ? true : onlyChain(kids[0]!.children![1], rest.slice(1));
}

/**
 * The value of what a removal left: JSON.parse's when it takes the text (a plain JSON file; the 3 MB
 * .mcp.json of test/hostile/files/shapes.test.ts: ~60 ms, its parse tree ~360 ms), else the tree's
 * (comments, trailing commas), which refuses a text that does not parse.
 */
function leftValue(next: string, show: string): unknown {
  try {
    return JSON.parse(next.replace(/^\ufeff/, "")) as unknown;
  } catch {
    const t = lenientJson(next, show);
    return t === undefined ? undefined : getNodeValue(t);
  }
}

/** What a json file is after hcpx's part is taken out: gone (only `{}` or the host's skeleton left in a file hcpx created), the whitespace it had before, or the text. */
function jsonLeft(next: string, e: LedgerEntry, f: VFile, ctx: RemoveContext): string | null {
  const after = leftValue(next, f.show);
  const emptied = next.replace(/^\ufeff/, "").trim() === "{}";
  // only the host's skeleton left (ours, or the host added it to the file we created); getNodeValue makes null-prototype objects
  const initial = ctx.initialOf(e.path);
  const skeleton =
    !emptied &&
    e.created &&
    initial !== undefined &&
    after !== undefined &&
    isDeepStrictEqual(JSON.parse(JSON.stringify(after)), initial);
  return (emptied || skeleton) && e.created ? null : emptied && e.blank !== undefined ? e.blank : next;
}

export const jsonDoc: KeyedFormat<Doc> = {
  kind: "json",
  showKey: (key) => `\`${key.join(".")}\``,
  initialText,
  read: (text, file, t, hostName) => parseJsonFor(text, file, rulesOf(t), hostName),
  get: valueAt,
  where(doc, key, text) {
    const n = nodeAt(doc, key);
    return n ? lineCol(text, n.offset) : {};
  },
  set(text, doc, key, value, f, t, hostName, opts) {
    const r = setJsonEntry(text, doc, key, value, f.show, (x) => lenientJson(x, f.show), opts?.whole);
    // the host must be able to read what we write
    checkJsonFor(r.text, f.show, rulesOf(t), hostName);
    const blank = f.orig.kind === "file" && !doc ? text : undefined;
    return {
      text: r.text,
      undo: {
        ...(blank !== undefined ? { blank } : {}),
        insertedAt: r.insert?.insertedAt ?? key,
        emptyInner: r.insert?.emptyInner,
      },
    };
  },
  carry: (prev, key) =>
    prev
      ? { created: prev.created, blank: prev.blank, insertedAt: prev.insertedAt, emptyInner: prev.emptyInner }
      : { insertedAt: key },
  readBack: lenientJson,
  remove(text, tree, e, f, ctx) {
    // comments the ledger says were in the object before: restored only when they are in the file now
    if (e.emptyInner?.trim() && !text.includes(e.emptyInner.trim())) {
      ctx.conflicts.push({
        code: "changed_since_adopt",
        message: `the entry \`${e.key!.join(".")}\`: the comments hcpx recorded around it are not in the file; left in place`,
        file: f.show,
        hint: "remove the entry by hand",
        severity: "warning",
      });
      return "kept";
    }
    const at = e.insertedAt ?? e.key!;
    let next: string;
    if (at.length < e.key!.length && onlyChain(nodeAt(tree, at), e.key!.slice(at.length)))
      next = removeJson(text, tree, at, e.emptyInner);
    else next = removeJson(text, tree, e.key!, at.length === e.key!.length ? e.emptyInner : undefined);
    return jsonLeft(next, e, f, ctx);
  },
  hash: (v) => sha256(JSON.stringify(v)),
};

// ---- permission rules (`items`, `members`) ----
// (the rules themselves, strings or objects, and the reading back of the person's: ./rules.ts)

function expandMembers(spec: NonNullable<Target["members"]>, classes: CommandClass[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (spec.read !== undefined) for (const a of spec.always ?? []) out[a] = spec.read;
  for (const c of classes) {
    const v = spec[c.cls];
    if (v !== undefined) out[fill(spec.pattern, c.vars)] = v;
  }
  return out;
}

/** The highest ancestor of `keyPath` that the file did not have before this run (what a removal may take out again). */
function highestMissing(f: VFile, keyPath: string[]): string[] {
  const orig = f.orig.kind === "file" ? lenientJson(f.orig.text, f.show) : undefined;
  for (let i = 1; i <= keyPath.length; i++)
    if (valueAt(orig, keyPath.slice(0, i)) === undefined) return keyPath.slice(0, i);
  return keyPath;
}

/** Where a rules merge happens, for its errors. */
interface RulesAt {
  keyPath: string[];
  show: string;
  where: () => { line?: number; column?: number };
  /** the keys hcpx recorded last time (what is ours) */
  before: Set<string>;
  /** the host's name, for hints */
  host: string;
}

/** hcpx's rules into the person's list: theirs stay where they are, ours follow (`items`). */
function mergeItems(items: NonNullable<Target["items"]>, have: unknown, at: RulesAt, ctx: TargetContext): Merged {
  if (have !== undefined && !Array.isArray(have))
    throw new HcpxError({
      code: "not_a_list",
      message: `\`${at.keyPath.join(".")}\` is not a list; hcpx adds its permission rules to that list`,
      file: at.show,
      ...at.where(),
      hint: `make it a list (${at.host}'s format), or leave this host out`,
    });
  // rules are strings or objects: compared by itemKey (an object rule by its canonical JSON)
  const want = expandItems(items, ctx.classes);
  // no list there yet: ours are the list, as they come (expandItems gives each key once)
  if (have === undefined) return { next: want, ours: want.map((w) => itemKey(w)!), drop: [], add: want };
  const current = have as unknown[];
  const theirs = new Set(
    current
      .filter((x) => !isOurs(x, at.before))
      .map(itemKey)
      .filter((k): k is string => k !== undefined),
  );
  const wanted = new Set(want.map((w) => itemKey(w)!));
  // hcpx's stale items go (their indexes: taken out in place), the wanted ones missing are appended
  const kept: unknown[] = [];
  const drop: number[] = [];
  current.forEach((x, i) => (isOurs(x, at.before) && !isOurs(x, wanted) ? drop.push(i) : kept.push(x)));
  const inKept = new Set(kept.map(itemKey).filter((k): k is string => k !== undefined));
  const add: unknown[] = [];
  for (const w of want) {
    const k = itemKey(w)!;
    if (inKept.has(k)) continue;
    inKept.add(k);
    kept.push(w);
    add.push(w);
  }
  return { next: kept, ours: want.map((w) => itemKey(w)!).filter((k) => !theirs.has(k)), drop, add };
}

/** hcpx's rules into the person's object of rules (`members`); a rule of theirs that differs is refused unless --force. */
function mergeMembers(m: NonNullable<Target["members"]>, have: unknown, at: RulesAt, ctx: TargetContext): Merged {
  if (have !== undefined && (have === null || typeof have !== "object" || Array.isArray(have)))
    throw new HcpxError({
      code: "not_an_object",
      message: `\`${at.keyPath.join(".")}\` is not an object of rules; hcpx adds its permission rules there`,
      file: at.show,
      ...at.where(),
      hint: `make it an object (${at.host}'s format), or leave this host out`,
    });
  const want = expandMembers(m, ctx.classes);
  const current = { ...((have as Record<string, unknown> | undefined) ?? {}) };
  const theirs = new Set(Object.keys(current).filter((k) => !at.before.has(k)));
  for (const k of at.before) if (!(k in want) && !theirs.has(k)) delete current[k];
  for (const [k, v] of Object.entries(want)) {
    if (theirs.has(k) && current[k] !== v && !ctx.force) {
      throw new HcpxError({
        code: "not_ours",
        message: `a rule \`${at.keyPath.join(".")}.${k}\` already exists (${JSON.stringify(current[k])}) and was not written by hcpx`,
        file: at.show,
        ...at.where(),
        hint: `hcpx would set it to ${JSON.stringify(v)}: remove your rule, or rerun with --force to replace it`,
      });
    }
    current[k] = v;
  }
  return { next: current, ours: Object.keys(want).filter((k) => !theirs.has(k) || ctx.force) };
}

/**
 * A rules target: hcpx's items in the host's list (`items`: Claude Code's
 * permissions.allow) or object (`members`: opencode's permission map) at `key`.
 * What the person wrote there stays: an item already present before hcpx
 * added it is theirs and is never recorded, so `--remove` keeps it.
 */
function planRules(t: Target, abs: string, ctx: TargetContext): LedgerEntry | undefined {
  const f = ctx.file(abs);
  const keyPath = t.key!;
  const rules = rulesOf(t);
  const text = f.cur ?? initialText(t);
  const tree = parseJsonFor(text, f.show, rules, ctx.desc.name);
  const base: LedgerEntry = { path: f.show, kind: "json-items", key: keyPath, sha256: "", created: false };
  const prev = ctx.oldEntry(base);
  const before = new Set(prev?.items ?? []);
  const have = valueAt(tree, keyPath);
  // an allow-list that is not there (ifPresent): nothing to add to, none created (it would block every other server)
  // (an `approval` list is created with --approve: the person asked for it)
  if (t.ifPresent && have === undefined && !(t.approval && ctx.approve)) return undefined;
  const where = () => jsonDoc.where(tree, keyPath, text);
  const at = { keyPath, show: f.show, where, before, host: ctx.desc.name };
  const merged = t.items ? mergeItems(t.items, have, at, ctx) : mergeMembers(t.members!, have, at, ctx);
  const { next, ours } = merged;
  const entry: LedgerEntry = {
    ...base,
    sha256: sha256(JSON.stringify(ours)),
    items: ours,
    created: prev ? prev.created : f.orig.kind === "absent",
  };
  // a whitespace-only file before hcpx: a removal that empties it gives that text back
  const blank = prev
    ? prev.blank
    : f.orig.kind === "file" && f.orig.text.replace(/^\ufeff/, "").trim() === ""
      ? f.orig.text
      : undefined;
  if (blank !== undefined) entry.blank = blank;
  // the person's list as they wrote it, so that --remove gives it back byte for byte: kept when it is
  // plain JSON (what the ledger holds); one with comments is never written whole, so taking hcpx's
  // items out in place gives it back
  const n = nodeAt(tree, keyPath);
  const listText = n ? text.slice(n.offset, n.offset + n.length) : undefined;
  const original = prev ? prev.original : listText !== undefined && !hasComment(listText) ? listText : undefined;
  if (original !== undefined) entry.original = original;
  // no rule to add and no list there: nothing is written (no empty `ask: []`)
  const nothing =
    have === undefined && (Array.isArray(next) ? next.length === 0 : Object.keys(next as object).length === 0);
  // (no list there: nothing to compare, and a list of ~50,000 rules is not printed twice for it)
  if (!nothing && (have === undefined || JSON.stringify(next) !== JSON.stringify(have))) {
    const out = editRules(text, tree, keyPath, have, merged, (t) => lenientJson(t, f.show), f.show);
    checkJsonFor(out, f.show, rules, ctx.desc.name);
    f.cur = out;
    const insertedAt = prev?.insertedAt ?? (have === undefined ? highestMissing(f, keyPath) : undefined);
    if (insertedAt) entry.insertedAt = insertedAt;
  } else if (prev?.insertedAt) entry.insertedAt = prev.insertedAt;
  f.hosts.add(ctx.host);
  ctx.touched(f);
  return entry;
}

/**
 * The text without hcpx's items at e.key (undefined: none of them is there).
 * A list or object hcpx created that is left empty goes, with the ancestors it
 * created (e.insertedAt) that are left empty too.
 */
function withoutItems(text: string, tree: Doc, e: LedgerEntry, ours: Set<string>, show: string): string | undefined {
  const key = e.key!;
  const v = valueAt(tree, key);
  let rest: unknown;
  let empty: boolean;
  let drop: number[] = [];
  if (Array.isArray(v)) {
    drop = v.flatMap((x, i) => (isOurs(x, ours) ? [i] : []));
    if (drop.length === 0) return undefined;
    rest = v.filter((x) => !isOurs(x, ours));
    empty = drop.length === v.length;
  } else if (v !== null && typeof v === "object") {
    const r = Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([k]) => !ours.has(k)));
    if (Object.keys(r).length === Object.keys(v).length) return undefined;
    rest = r;
    empty = Object.keys(r).length === 0;
  } else return undefined;
  const n = nodeAt(tree, key)!;
  // (a comment the person put in since is theirs: then only hcpx's items are taken out, below)
  const commented = hasComment(text, n.offset, n.offset + n.length);
  if (e.original !== undefined && !commented) {
    // what is left is exactly what the person had: their text, byte for byte
    const was = lenientJson(e.original, show);
    if (
      was !== undefined &&
      isDeepStrictEqual(JSON.parse(JSON.stringify(getNodeValue(was))), JSON.parse(JSON.stringify(rest)))
    )
      return text.slice(0, n.offset) + e.original + text.slice(n.offset + n.length);
  }
  if (!empty || !e.insertedAt) {
    if (Array.isArray(v)) return removeItems(text, n, drop, show);
    if (commented)
      return editMembers(
        text,
        key,
        v as Record<string, unknown>,
        rest as Record<string, unknown>,
        (t) => lenientJson(t, show),
        show,
      );
    return setJson(text, tree, key, rest, show).text;
  }
  let next = removeJson(text, tree, key);
  for (let i = key.length - 1; i >= e.insertedAt.length; i--) {
    const t2 = lenientJson(next, show);
    const n = nodeAt(t2, key.slice(0, i));
    if (!n || n.type !== "object" || (n.children ?? []).length > 0) break;
    next = removeJson(next, t2, key.slice(0, i));
  }
  return next;
}

export const jsonFormat: FormatHandler = {
  doc: jsonDoc,
  kinds: ["json", "json-items"],
  fits: (e, t, paths) =>
    e.kind === (t.items || t.members ? "json-items" : "json") &&
    paths.includes(e.path) &&
    isDeepStrictEqual(e.key, t.key),
  async plan(t, abs, ctx) {
    if (!(t.items || t.members)) return [planKeyedEntry(jsonDoc, t, abs, ctx)];
    const e = planRules(t, abs, ctx);
    return e ? [e] : [];
  },
  audit(t, f, ctx) {
    if (!t.widens) return [];
    // the file as it is (doctor: what the host reads now) and as the plan leaves it (a re-adopt
    // sets an entry's own list again, and keeps every rule of the person's in a rules list)
    const texts = [f.orig.kind === "file" ? f.orig.text : null, f.cur].filter((x): x is string => x !== null);
    const seen = new Set<string>();
    const o = { file: f.show, hostName: ctx.desc.name };
    return texts
      .flatMap((text) => {
        const tree = lenientJson(text, f.show);
        return [
          ...widening(t, valueAt(tree, t.key!), ctx.classes, o),
          // the rules the host reads after these (opencode's agent.<name>.permission)
          ...afterLists(t, valueAt(tree, [])).flatMap(([at, v]) =>
            widening(t, v, ctx.classes, { ...o, where: at.join("."), theirs: true }),
          ),
        ];
      })
      .filter((p) => !seen.has(p.message) && !!seen.add(p.message));
  },
  remove(e, f, text, ctx) {
    if (e.kind === "json") return removeKeyedEntry(jsonDoc, e, f, text, ctx);
    const next = withoutItems(text, lenientJson(text, f.show), e, new Set(e.items ?? []), f.show);
    if (next === undefined) return "gone"; // none of hcpx's items is there (any more)
    f.cur = jsonLeft(next, e, f, ctx);
    return "removed";
  },
};

// A host's approval rules, as data: the items hcpx writes per granted command
// (descriptor `items`, or an MCP entry's `{ items }` field), and the reading back
// of the rules the person wrote there (descriptor `widens`): a rule of theirs that
// lets a confirm-gated write run without the host asking is reported, never changed.
// Rules are strings (`mcp__hcp__{tool}`) or objects (`{ tool, action }`); nothing
// here knows a host.
import type { Problem } from "../../util/errors";
import type { RuleClasses, RuleItem, Target, Widens } from "../descriptor";
import type { CommandClass } from "./types";
import { isObj } from "../../util/is";

/**
 * A pattern split once at its `{tool}`, `{pack}`, `{verb}`, `{server}` and `{exec}` (the shell
 * route's command before `exec`: `hcpx`, or the absolute command when hcpx is not on PATH): literal, name,
 * literal, … (a preview at 5,000 packs fills the same few patterns ~100,000 times).
 */
const PIECES = new Map<string, string[]>();
function pieces(pattern: string): string[] {
  let p = PIECES.get(pattern);
  if (p === undefined) {
    p = pattern.split(/\{(tool|pack|verb|server|exec)\}/);
    if (PIECES.size < 512) PIECES.set(pattern, p);
  }
  return p;
}

/** `{tool}`, `{pack}`, `{verb}` and `{server}` filled in a pattern. */
export const fill = (pattern: string, vars: Record<string, string>): string => {
  const p = pieces(pattern);
  let s = p[0]!;
  for (let i = 1; i < p.length; i += 2) s += vars[p[i]!]! + p[i + 1]!;
  return s;
};

/** A rule with its strings filled in (an object rule: every string in it, at any depth). */
function fillItem(item: unknown, vars: Record<string, string>): unknown {
  if (typeof item === "string") return fill(item, vars);
  if (Array.isArray(item)) return item.map((x) => fillItem(x, vars));
  if (isObj(item)) return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, fillItem(v, vars)]));
  return item;
}

/** JSON with sorted keys: two objects with the same members are one rule. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (isObj(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

/**
 * How a rule is recorded in the ledger and recognised in the file: a string rule is
 * itself; an object rule its canonical JSON (which starts with `{`: no string rule hcpx
 * writes does, and a string in a list is never taken for an object rule).
 */
export function itemKey(x: unknown): string | undefined {
  if (typeof x === "string") return x.startsWith("{") ? undefined : x;
  if (isObj(x)) return canonical(x);
  return undefined;
}

/** A list element is one of the recorded rules `ours` (by itemKey). */
export function isOurs(x: unknown, ours: Set<string>): boolean {
  const k = itemKey(x);
  return k !== undefined && ours.has(k);
}

/**
 * The rules of one spec for one list of classes, kept while both are alive: a target's rules are
 * expanded for its merge and again for its widening check (~50,000 rules each at 5,000 packs).
 */
const EXPANDED = new WeakMap<RuleClasses, WeakMap<CommandClass[], RuleItem[]>>();

/** The rules for the granted commands: `always` once, then each command's class, each rule once (a new array each call). */
export function expandItems(spec: RuleClasses, classes: CommandClass[]): RuleItem[] {
  let bySpec = EXPANDED.get(spec);
  if (bySpec === undefined) EXPANDED.set(spec, (bySpec = new WeakMap()));
  let out = bySpec.get(classes);
  if (out === undefined) bySpec.set(classes, (out = expand(spec, classes)));
  return out.slice();
}

function expand(spec: RuleClasses, classes: CommandClass[]): RuleItem[] {
  // a Set for the membership test: thousands of packs make thousands of rules (an array's includes() made this quadratic)
  const seen = new Set<string>();
  const out: RuleItem[] = [];
  const add = (s: unknown) => {
    const k = itemKey(s);
    if (k !== undefined && !seen.has(k)) {
      seen.add(k);
      out.push(s as RuleItem);
    }
  };
  for (const a of spec.always ?? []) add(a);
  for (const c of classes) for (const p of spec[c.cls] ?? []) if (fillable(p, c.vars)) add(fillItem(p, c.vars));
  return out;
}

/**
 * Every `{tool}`/`{pack}`/`{verb}`/`{server}` in a rule has a value: a tool of a remote server
 * has no local pack and verb, so a rule naming them (the `hcpx exec` shell route, which would run
 * this machine's packs) is not written for it.
 */
function fillable(item: unknown, vars: Record<string, string>): boolean {
  if (typeof item === "string") {
    const p = pieces(item);
    for (let i = 1; i < p.length; i += 2) if (vars[p[i]!] === undefined) return false;
    return true;
  }
  if (Array.isArray(item)) return item.every((x) => fillable(x, vars));
  if (isObj(item)) return Object.values(item).every((v) => fillable(v, vars));
  return true;
}

/** A rules target whose rules follow the served tools (a class list beside `always`); a remote entry without a listing keeps them as they are. */
export function followsTools(t: Target): boolean {
  if (t.entry) return false;
  const i = t.items;
  const m = t.members;
  return Boolean(
    (i && (i.read?.length || i.write?.length || i.confirm?.length)) ||
    (m && (m.read !== undefined || m.write !== undefined || m.confirm !== undefined)),
  );
}

const at = (v: unknown, path: string[]): unknown =>
  path.reduce<unknown>((x, k) => (isObj(x) && Object.hasOwn(x, k) ? x[k] : undefined), v);

/**
 * A pattern with wildcards as a regular expression: "glob" `*` (any run of characters); "wildcard"
 * opencode's and Kilo's (their Wildcard.match, seen in opencode 1.18.33's code): `*` any run, `?` one
 * character, and a pattern ending in " *" also matches without that part. Undefined: no wildcard in it.
 */
function wildcardRe(pattern: string, how: Widens["match"]): RegExp | undefined {
  if (how === "exact" || !(pattern.includes("*") || (how === "wildcard" && pattern.includes("?")))) return undefined;
  if (how === "glob")
    return new RegExp(
      `^${pattern
        .split("*")
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*")}$`,
      "su",
    );
  let re = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  if (re.endsWith(" .*")) re = `${re.slice(0, -3)}( .*)?`;
  return new RegExp(`^${re}$`, "su");
}

/**
 * The first of `rules` whose pattern matches a tool name (wildcards as `how` says: wildcardRe),
 * as a function of the name. Indexed once: a pattern without a wildcard is a map lookup, and only
 * the few with one are tried as patterns, each compiled once (a preview at 5,000 packs holds
 * ~50,000 rules and asks for ~5,000 names: a regular expression per rule per name was most of
 * `generate`'s time, and quadratic).
 */
function firstMatch<R extends { pattern: string }>(rules: R[], how: Widens["match"]): (name: string) => R | undefined {
  const exact = new Map<string, number>();
  const wild: { i: number; re: RegExp }[] = [];
  rules.forEach((r, i) => {
    const re = wildcardRe(r.pattern, how);
    if (re) wild.push({ i, re });
    else if (!exact.has(r.pattern)) exact.set(r.pattern, i);
  });
  return (name) => {
    let best = exact.get(name) ?? rules.length;
    for (const w of wild) {
      if (w.i >= best) break;
      if (w.re.test(name)) best = w.i;
    }
    return rules[best];
  };
}

/** The rules hcpx writes at this target (the ones it owns: every other rule there is the person's). */
function ownRules(t: Target, classes: CommandClass[]): Set<string> {
  const w = t.widens!;
  if (t.items) return new Set(expandItems(t.items, classes).map((x) => itemKey(x)!));
  if (t.members) {
    const out = new Set<string>();
    for (const a of t.members.always ?? []) out.add(a);
    for (const c of classes) if (t.members[c.cls] !== undefined) out.add(fill(t.members.pattern, c.vars));
    return out;
  }
  const f = t.entry!.fields[w.at![0]!] as { items: RuleClasses };
  return new Set(expandItems(f.items, classes).map((x) => itemKey(x)!));
}

/** What a warning adds of the order that makes the person's rule decide. */
const ORDER_SAID: Record<Widens["order"], string> = {
  any: "",
  first: " (it comes before hcpx's rule, and the first rule that matches decides)",
  last: " (it comes after hcpx's rule, and the last rule that matches decides)",
};

/**
 * The person's rules in `value` (what is at the target's `key`, as the file holds it after
 * the plan) that let a confirm-gated tool run without the host asking: one warning each,
 * naming the rule and the tool.
 */
export function widening(
  t: Target,
  value: unknown,
  classes: CommandClass[],
  o: { file: string; hostName: string; where?: string; theirs?: boolean },
): Problem[] {
  const w = t.widens;
  if (!w) return [];
  const rulesAt = w.at ? at(value, w.at) : value;
  // `theirs`: a list hcpx never writes (widens.after): a rule there is the person's, whatever it names
  const own = o.theirs ? new Set<string>() : ownRules(t, classes);
  // each rule: its tool pattern, whether it runs the tool without asking, whether hcpx wrote it
  type Rule = { pattern: string; allows: boolean; ours: boolean; shown: string };
  const rules: Rule[] = [];
  const allows = (d: unknown) => (w.allow ? typeof d === "string" && w.allow.includes(d) : true);
  if (Array.isArray(rulesAt)) {
    for (const x of rulesAt) {
      const pattern = w.field ? (isObj(x) ? x[w.field] : undefined) : x;
      if (typeof pattern !== "string") continue;
      rules.push({
        pattern,
        allows: allows(w.decision ? at(x, w.decision) : undefined),
        ours: isOurs(x, own),
        shown: JSON.stringify(x),
      });
    }
  } else if (t.members && (isObj(rulesAt) || typeof rulesAt === "string")) {
    // a decision for every tool (opencode's `"permission": "allow"`) is a rule for `*`
    for (const [k, d] of isObj(rulesAt) ? Object.entries(rulesAt) : [["*", rulesAt] as const])
      rules.push({
        pattern: k,
        // a member holding rules of its own (opencode's `"hcp_x": { "*": "allow" }`): it allows if one of them does
        allows: isObj(d) ? Object.values(d).some(allows) : allows(d),
        ours: own.has(k),
        shown: `${JSON.stringify(k)}: ${JSON.stringify(d)}`,
      });
  } else return [];
  const where = o.where ?? [...(t.key ?? []), ...(w.at ?? [])].join(".");
  const out: Problem[] = [];
  const said = new Set<string>();
  // "first" ("last"): the first (last) rule that matches decides; otherwise any rule of the person's that allows it
  const first =
    w.order === "first"
      ? firstMatch(rules, w.match)
      : w.order === "last"
        ? firstMatch(rules.reverse(), w.match)
        : firstMatch(
            rules.filter((r) => !r.ours && r.allows),
            w.match,
          );
  for (const c of classes) {
    if (c.cls !== "confirm") continue;
    const name = fill(w.name, c.vars);
    const hit = first(name);
    const culprit = hit && !hit.ours && hit.allows ? hit : undefined;
    if (!culprit) continue;
    const k = `${culprit.shown}\0${name}`;
    if (said.has(k)) continue;
    said.add(k);
    out.push({
      code: "policy_widened",
      severity: "warning",
      file: o.file,
      path: where,
      message: `${o.hostName}: your rule ${culprit.shown} in \`${where}\` lets ${name} run without asking, a write the Policy gates with confirm${ORDER_SAID[w.order]}`,
      hint: `narrow or remove that rule so that ${name} is asked about (hcpx never changes a rule you wrote), or revoke the grant`,
    });
  }
  return out;
}

/**
 * The rule lists a host evaluates after a target's (`widens.after`, opencode's `agent.<name>.permission`):
 * each path from the file's top with its `*` steps taken over the members that are there, as
 * [the path, the value there]. A member that is not an object has no rules below it.
 */
export function afterLists(t: Target, doc: unknown): [string[], unknown][] {
  const out: [string[], unknown][] = [];
  const walk = (v: unknown, rest: string[], done: string[]): void => {
    if (!rest.length) return void out.push([done, v]);
    if (!isObj(v)) return;
    const [k, ...more] = rest as [string, ...string[]];
    if (k === "*") for (const m of Object.keys(v)) walk(v[m], more, [...done, m]);
    else if (Object.hasOwn(v, k)) walk(v[k], more, [...done, k]);
  };
  for (const path of t.widens?.after ?? []) walk(doc, path, []);
  return out;
}

// The shapes of a host's settings files, two uses (Claude Code 2.1.332 skips a settings file with an error as a
// whole: a wrong type for a known key, a bad `enabledPlugins` value, a file that is not plain JSON):
//  - `honoured` (descriptor `gate.hooks[].plugins.enabled.honoured`): a file hcpx can confirm the host reads. hcpx
//    does not hold the host's schema; it confirms a file only when it is plain JSON (JSON.parse, as the host reads
//    it: a duplicate key's last value) whose every key is one the shape lists, of the type it gives. Any other file
//    is not confirmed, and its off-values count for nothing (src/host/plugin-hooks.ts): asked twice at worst.
//  - `skipped` (descriptor `gate.skipped`, src/host/skipped.ts): a file the host surely skips (probed, or read in the
//    host's own schema): not plain JSON, or a key the shape names (with `known`: other keys are let be) of another
//    type or failing a check inside its value (a range, a pattern, a URL). An ask rule there is no one's question. A
//    file skipped for a reason the shape does not hold is not caught.

/** A JSON scalar, for `oneOf`. */
export type Scalar = string | number | boolean | null;

/** A number's bounds (`min`, `max` inclusive; `above` exclusive; `whole`: a safe integer). */
export interface NumberBounds {
  min?: number;
  above?: number;
  max?: number;
  whole?: true;
}

/**
 * A shape: `boolean`, `string`, `url` (a string the WHATWG URL parser takes, trimmed), `number` (finite, as every
 * number here), `count` (a whole number above 0), `positive` (a number above 0), `strings` (a list of strings), `list`
 * (a list of anything), a list of shapes (any one of them), `{ keys }` (an object holding only these keys, each of
 * its shape; with `need`, these of them always there), `{ items }` (a list whose every item is of the shape), `{ known }` (an object whose keys named here, where present, are of their shape; other keys any; `need` as for `keys`),
 * `{ values }` (an object whose every value is of the shape), `{ oneOf }` (one of these values), `{ number }` (a number
 * within the bounds) or `{ pattern }` (a string the regular expression matches).
 */
export type SettingsShape =
  | "boolean"
  | "string"
  | "url"
  | "number"
  | "count"
  | "positive"
  | "strings"
  | "list"
  | SettingsShape[]
  | ({ keys: Record<string, SettingsShape>; need?: string[] } & Not<"keys">)
  | ({ known: Record<string, SettingsShape>; need?: string[] } & Not<"known">)
  | ({ values: SettingsShape } & Not<"values">)
  | ({ items: SettingsShape } & Not<"items">)
  | ({ oneOf: Scalar[] } & Not<"oneOf">)
  | ({ number: NumberBounds } & Not<"number">)
  | ({ pattern: string } & Not<"pattern">);

/** The other object shapes' keys, absent. */
type Not<K extends string> = {
  [k in Exclude<"keys" | "known" | "values" | "items" | "oneOf" | "number" | "pattern", K>]?: undefined;
};

/** The file's value as the host reads it (plain JSON, a leading BOM allowed: seen), or why it is none. */
function plainJson(text: string): { v: unknown } | { error: string } {
  try {
    return { v: JSON.parse(text.replace(/^\uFEFF/, "")) as unknown };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Does `text` hold plain JSON of the shape `s`? */
export function honours(text: string, s: SettingsShape): boolean {
  const r = plainJson(text);
  return "v" in r && misfit(r.v, s, []) === undefined;
}

/** Where `text` is not of the shape `s`: the key (a path, [] for the whole file) and why; undefined when it fits. */
export function misfitOf(text: string, s: SettingsShape): { at: string[]; why: string } | undefined {
  const r = plainJson(text);
  if (!("v" in r)) return { at: [], why: `it is not plain JSON (${r.error})` };
  const m = misfit(r.v, s, []);
  if (!m) return undefined;
  const shown = m.at.length ? m.at.join(".") : "the file";
  const value =
    typeof m.value === "number" && !Number.isFinite(m.value)
      ? String(m.value)
      : (JSON.stringify(m.value) ?? "undefined");
  const brief = value.length > 60 ? `${value.slice(0, 57)}...` : value;
  return { at: m.at, why: `${shown} is ${brief}${m.extra ? `: ${m.extra}` : ""}` };
}

interface Misfit {
  at: string[];
  value: unknown;
  extra?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Where `v` (at `at`) first does not fit `s`. */
function misfit(v: unknown, s: SettingsShape, at: string[]): Misfit | undefined {
  const here = (extra?: string): Misfit => ({ at, value: v, ...(extra === undefined ? {} : { extra }) });
  if (typeof s === "string") return scalarFits(v, s) ? undefined : here(`not ${said[s]}`);
  if (Array.isArray(s)) {
    if (s.some((one) => misfit(v, one, at) === undefined)) return undefined;
    // a value that fits none: said by the shape of its kind (an object's: the one whose fixed values it holds, a
    // hook's type), which says what is wrong inside it
    const inner = isObject(v)
      ? closest(v, s)
      : s.find(
          (one) =>
            !Array.isArray(one) &&
            typeof one === "object" &&
            (Array.isArray(v) ? one.items : (one.oneOf ?? (typeof v === "string" ? one.pattern : one.number))),
        );
    return inner !== undefined ? misfit(v, inner, at) : here("not of a type the host reads there");
  }
  if (s.oneOf !== undefined)
    return s.oneOf.some((x) => x === v)
      ? undefined
      : here(`not one of ${s.oneOf.map((x) => JSON.stringify(x)).join(", ")}`);
  if (s.number !== undefined) return numberFits(v, s.number) ? undefined : here(`not ${boundsSaid(s.number)}`);
  if (s.pattern !== undefined)
    return typeof v === "string" && patternOf(s.pattern).test(v)
      ? undefined
      : here(`not a string matching ${s.pattern}`);
  if (s.items !== undefined) {
    if (!Array.isArray(v)) return here("not a list");
    for (const [i, x] of v.entries()) {
      const m = misfit(x, s.items, [...at, String(i)]);
      if (m) return m;
    }
    return undefined;
  }
  if (!isObject(v)) return here("not an object");
  const missing = (s.keys !== undefined || s.known !== undefined ? (s.need ?? []) : []).find(
    (k) => !Object.hasOwn(v, k),
  );
  if (missing !== undefined) return here(`no ${missing}`);
  for (const [k, x] of Object.entries(v)) {
    const ks = s.keys ?? s.known;
    const one = s.values ?? (ks !== undefined && Object.hasOwn(ks, k) ? ks[k] : undefined);
    if (one === undefined) {
      if (s.keys !== undefined) return { at: [...at, k], value: x, extra: "a key not confirmed" };
      continue;
    }
    const m = misfit(x, one, [...at, k]);
    if (m) return m;
  }
  return undefined;
}

/** Of the object shapes in `shapes` (keys, known, values), the one whose fixed (`oneOf`) fields `v` holds as given, else the first. */
function closest(v: Record<string, unknown>, shapes: SettingsShape[]): SettingsShape | undefined {
  const objects = shapes.filter(
    (one) => !Array.isArray(one) && typeof one === "object" && (one.keys ?? one.known ?? one.values) !== undefined,
  );
  const fixedFit = (one: SettingsShape) =>
    Object.entries(
      (one as { keys?: Record<string, SettingsShape> }).keys ??
        (one as { known?: Record<string, SettingsShape> }).known ??
        {},
    ).every(
      ([k, x]) =>
        typeof x !== "object" ||
        Array.isArray(x) ||
        x.oneOf === undefined ||
        !Object.hasOwn(v, k) ||
        misfit(v[k], x, []) === undefined,
    );
  return objects.find(fixedFit) ?? objects[0];
}

const said = {
  boolean: "true or false",
  string: "a string",
  url: "a URL",
  number: "a number",
  count: "a whole number above 0",
  positive: "a number above 0",
  strings: "a list of strings",
  list: "a list",
} as const;

function scalarFits(v: unknown, s: keyof typeof said): boolean {
  if (s === "boolean") return typeof v === "boolean";
  if (s === "string") return typeof v === "string";
  if (s === "url") return typeof v === "string" && URL.canParse(v.trim());
  if (s === "number") return numberFits(v, {});
  if (s === "count") return numberFits(v, { above: 0, whole: true });
  if (s === "positive") return numberFits(v, { above: 0 });
  if (s === "strings") return Array.isArray(v) && v.every((x) => typeof x === "string");
  return Array.isArray(v);
}

/** A finite number (JSON's 1e999 is Infinity: Claude Code refuses it) within `b`. */
function numberFits(v: unknown, b: NumberBounds): boolean {
  if (typeof v !== "number" || !Number.isFinite(v)) return false;
  if (b.whole && !Number.isSafeInteger(v)) return false;
  return (
    (b.min === undefined || v >= b.min) && (b.above === undefined || v > b.above) && (b.max === undefined || v <= b.max)
  );
}

function boundsSaid(b: NumberBounds): string {
  const parts = [
    b.min !== undefined ? `at least ${b.min}` : "",
    b.above !== undefined ? `above ${b.above}` : "",
    b.max !== undefined ? `at most ${b.max}` : "",
  ].filter((x) => x);
  return `${b.whole ? "a whole number" : "a number"}${parts.length ? ` ${parts.join(" and ")}` : ""}`;
}

/** Each pattern compiled once (a descriptor's; its schema checks that it compiles). */
const patterns = new Map<string, RegExp>();
function patternOf(source: string): RegExp {
  let re = patterns.get(source);
  if (!re) patterns.set(source, (re = new RegExp(source)));
  return re;
}

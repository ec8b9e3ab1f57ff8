// Whether the host surely reads a settings file (descriptor `gate.hooks[].plugins.enabled.honoured`): Claude Code
// skips a settings file with an error as a whole (2.1.332: a wrong type for a known key, a bad `enabledPlugins`
// value, a file that is not plain JSON), so an off-value there turns nothing off. hcpx does not hold the host's
// schema; it confirms a file only when it is plain JSON (JSON.parse, as the host reads it: a duplicate key's last
// value) whose every key is one the shape lists, of the type it gives. Any other file is not confirmed, and its
// off-values count for nothing (src/host/plugin-hooks.ts): asked twice at worst, never not at all.

/**
 * A shape: `boolean`, `string`, `strings` (a list of strings), a list of shapes (any one of them), `{ keys }` (an
 * object holding only these keys, each of its shape) or `{ values }` (an object whose every value is of the shape).
 */
export type SettingsShape =
  | "boolean"
  | "string"
  | "strings"
  | SettingsShape[]
  | { keys: Record<string, SettingsShape>; values?: undefined }
  | { values: SettingsShape; keys?: undefined };

/** Does `text` hold plain JSON of the shape `s`? */
export function honours(text: string, s: SettingsShape): boolean {
  let v: unknown;
  try {
    v = JSON.parse(text.replace(/^\uFEFF/, "")); // a leading BOM is read (seen)
  } catch {
    return false;
  }
  return fits(v, s);
}

function fits(v: unknown, s: SettingsShape): boolean {
  if (s === "boolean") return typeof v === "boolean";
  if (s === "string") return typeof v === "string";
  if (s === "strings") return Array.isArray(v) && v.every((x) => typeof x === "string");
  if (Array.isArray(s)) return s.some((one) => fits(v, one));
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  if (s.keys !== undefined) {
    const keys = s.keys;
    return Object.keys(o).every((k) => Object.hasOwn(keys, k) && fits(o[k], keys[k]!));
  }
  return Object.values(o).every((x) => fits(x, s.values));
}

// The value at a key of a host file as the host's approval check reads it (src/host/approval.ts, the
// rules, the ask rule, the entry; src/host/hooks.ts, the hooks): json, jsonc or toml, the file that
// does not parse and a duplicate key on the way both throwing (the approval is then not in force).
import type { Target } from "./descriptor";
import { readEntry, type Entry } from "../util/fsio";
import { lenientJson } from "./formats/json";
import { nodeAt, valueAt } from "./jsonedit";
import { isObj } from "../util/is";

/** The value at `at` in a host file's text (`show`: the file as the person knows it, for the error). */
export async function hostValueAt(
  text: string,
  format: Target["format"],
  at: readonly string[],
  show: string,
): Promise<unknown> {
  if (format === "toml") {
    const { parseTomlFor } = await import("./tomledit"); // the TOML reader only when a TOML host is named
    let v: unknown = parseTomlFor(text, show);
    for (const k of at) v = isObj(v) && Object.hasOwn(v, k) ? v[k] : undefined;
    return v;
  }
  if (format !== "json" && format !== "jsonc") return undefined;
  const tree = lenientJson(text, show); // a file that does not parse throws: not in force
  nodeAt(tree, [...at]); // refuses a duplicate key on the way
  return valueAt(tree, [...at]);
}

/**
 * The first of a target's files that is there, as the host reads it (a target with alternatives:
 * opencode.json, then opencode.jsonc); undefined when none is, or the first that is there is no file
 * (a folder, a file hcpx may not read). `read`: readEntry, or one check's cache of it.
 */
export function firstFile(
  t: Target,
  abs: (p: string) => string,
  read: (file: string) => Entry = readEntry,
): { text: string; show: string } | undefined {
  for (const p of Array.isArray(t.path) ? t.path : [t.path]) {
    const e = read(abs(p));
    if (e.kind === "file") return { text: e.text, show: p };
    if (e.kind !== "absent") return undefined;
  }
  return undefined;
}

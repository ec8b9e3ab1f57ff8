// The value at a key of a host file as the host's approval check reads it (src/host/approval.ts, the
// rules, the ask rule, the entry; src/host/hooks.ts, the hooks): json, jsonc or toml, the file that
// does not parse and a duplicate key on the way both throwing (the approval is then not in force).
import type { Target } from "./descriptor";
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

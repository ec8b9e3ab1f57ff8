// How an activation's grants read (hcpx activate, pack add, import --activate): a command with its
// Policy, the writes a pattern already in the grants covers, which activate itself never grants, and
// the reads it withholds because their row is still marked inferred (a guess nobody reviewed).
import type { CommandWord } from "../app/activate";

/** `ledger.transfer (write, confirm)` */
export function commandWord(id: string, w: CommandWord): string {
  return `${id}.${w.verb} (${w.operation}${w.passThrough ? ", pass-through" : ""}${w.confirm ? ", confirm" : ""}${w.inferred ? ", inferred" : ""})`;
}

/**
 * What to do about a read withheld because its row is still marked inferred (the `--json` hint too): review the
 * rows in the pack's folder `dir`; without one, a vendored pack, whose files are its source's (hcp.lock).
 */
export function inferredHint(first: string, dir?: string): string {
  const grant = `grant one as it is: hcpx grant ${first}`;
  return dir === undefined
    ? `a vendored pack's files are its source's (hcp.lock): review the rows there and update, or ${grant}`
    : `review each row in ${dir}/policy.json (operation, land, confirm) and remove its \`inferred\` mark (and the file's top-level \`inferred: true\`), run \`hcpx pack sync ${dir}\`, then \`hcpx activate ${dir}\` grants the reviewed reads; or ${grant}`;
}

/** The lines for reads withheld because their row is still marked inferred: which, and what to do (inferredHint). */
export function inferredLines(inferred: readonly string[], words: readonly string[], dir?: string): string[] {
  if (inferred.length === 0) return [];
  return [
    `  not granted until a person reviews it (inferred: a drafted guess): ${words.slice(0, 12).join(", ")}${words.length > 12 ? `, … and ${words.length - 12} more (--json lists them all)` : ""}`,
    `  ${inferredHint(inferred[0]!, dir)}`,
  ];
}

/** `already granted by 'ledger.*': ledger.transfer (write, confirm), …`, one line per set of patterns, then how to withhold one. */
export function grantedByLines(id: string, grantedBy: readonly (CommandWord & { by: string[] })[]): string[] {
  if (grantedBy.length === 0) return [];
  const groups = new Map<string, string[]>();
  for (const g of grantedBy) {
    const by = g.by.map((p) => `'${p}'`).join(", ");
    groups.set(by, [...(groups.get(by) ?? []), commandWord(id, g)]);
  }
  return [
    ...[...groups].map(([by, cmds]) => `  already granted by ${by}: ${cmds.join(", ")}`),
    `  to withhold one: hcpx revoke --deny ${id}.${grantedBy[0]!.verb}`,
  ];
}

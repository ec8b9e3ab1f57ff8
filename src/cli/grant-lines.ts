// How an activation's grants read (hcpx activate, pack add, import --activate): a command with its
// Policy, the writes a pattern already in the grants covers, which activate itself never grants, and
// the reads it withholds because their row is still marked inferred (a guess nobody reviewed).
import type { CommandWord } from "../app/activate";

/** `ledger.transfer (write, confirm)` */
export function commandWord(id: string, w: CommandWord): string {
  return `${id}.${w.verb} (${w.operation}${w.passThrough ? ", pass-through" : ""}${w.confirm ? ", confirm" : ""}${w.inferred ? ", inferred" : ""})`;
}

/** What to do about a read withheld because its row is still marked inferred (activate's and pack add's `--json` hint too). */
export function inferredHint(dir: string, first: string): string {
  return `review each row in ${dir}/policy.json (operation, land, confirm) and remove its \`inferred\` mark (and the file's top-level \`inferred: true\`), run \`hcpx pack sync ${dir}\`, then \`hcpx activate ${dir}\` grants the reviewed reads; or grant one as it is: hcpx grant ${first}`;
}

/** The lines for reads withheld because their row is still marked inferred: which, and what to do. */
export function inferredLines(dir: string, inferred: readonly string[], words: readonly string[]): string[] {
  if (inferred.length === 0) return [];
  return [
    `  not granted until a person reviews it (inferred: a drafted guess): ${words.slice(0, 12).join(", ")}${words.length > 12 ? `, … and ${words.length - 12} more (--json lists them all)` : ""}`,
    `  ${inferredHint(dir, inferred[0]!)}`,
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

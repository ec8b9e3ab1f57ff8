// How an activation's grants read (hcpx activate, pack add, import --activate): a command with its
// Policy, and the writes a pattern already in the grants covers, which activate itself never grants.
import type { CommandWord } from "../app/activate";

/** `ledger.transfer (write, confirm)` */
export function commandWord(id: string, w: CommandWord): string {
  return `${id}.${w.verb} (${w.operation}${w.passThrough ? ", pass-through" : ""}${w.confirm ? ", confirm" : ""})`;
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

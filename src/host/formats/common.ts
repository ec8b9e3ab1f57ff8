// What several format handlers share: the checks on an owned file, drift of a
// recorded entry, and the words a ledger entry is described with.
import { HcpxError } from "../../util/errors";
import type { LedgerEntry } from "../ledger";
import type { RemoveContext, VFile } from "./types";

export function requireFileOrAbsent(f: VFile): void {
  if (f.orig.kind === "dir")
    throw new HcpxError({
      code: "not_a_file",
      message: "is a directory, expected a file",
      file: f.show,
      hint: "move the directory away; hcpx writes a file here",
    });
  if (f.orig.kind === "other")
    throw new HcpxError({ code: "not_a_file", message: "is not a regular file", file: f.show });
}

export function describe(e: LedgerEntry): string {
  if (e.kind === "file") return "this file";
  if (e.kind === "markdown-block") return "the hcp block";
  return `the entry \`${e.key!.join(".")}\``;
}

/**
 * True when what `e` recorded was changed since hcpx wrote it (its hash is now `h`)
 * and must be left in place: a conflict for --check. With --force it goes anyway, with a note.
 */
export function changedSince(e: LedgerEntry, f: VFile, h: string, ctx: RemoveContext): boolean {
  if (h === e.sha256) return false;
  if (ctx.force) {
    f.notes.push(`${describe(e)} was changed since hcpx wrote it; removed anyway (--force)`);
    return false;
  }
  ctx.conflicts.push({
    code: "changed_since_adopt",
    message: `${describe(e)} was changed since hcpx wrote it: left in place`,
    file: f.show,
    hint: "review it; rerun with --force to remove it anyway",
    severity: "warning",
  });
  return true;
}

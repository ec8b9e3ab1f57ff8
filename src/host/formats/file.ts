// format "file": a whole file hcpx owns (Cursor's .cursor/rules/hcp.mdc, a bundle's
// manifest), rendered from the target's template. Removed only while it is
// byte for byte what hcpx wrote (else left in place, a conflict; --force removes it).
import { HcpxError } from "../../util/errors";
import type { Target } from "../descriptor";
import type { LedgerEntry } from "../ledger";
import { sha256 } from "../../util/text";
import { changedSince, requireFileOrAbsent } from "./common";
import type { FormatHandler, TargetContext, VFile } from "./types";

/** Plan `content` as the whole of `f`, a file hcpx owns (also each Skill copy of dir-of-skills). */
export function ownedFile(ctx: TargetContext, f: VFile, content: string, t: Target): LedgerEntry {
  requireFileOrAbsent(f);
  if (t.maxChars !== undefined && content.length > t.maxChars) {
    throw new HcpxError({
      code: "too_large",
      message: `would be ${content.length} characters; the host ignores text beyond ${t.maxChars}`,
      file: f.show,
      hint: "activate fewer packs, or shorten their leads",
    });
  }
  const key: LedgerEntry = { path: f.show, kind: "file", sha256: sha256(content), created: true };
  const prev = ctx.oldEntry(key);
  if (f.plannedBy && f.plannedBy.text !== content) {
    throw new HcpxError({
      code: "host_conflict",
      message: `${f.plannedBy.host} and ${ctx.host} would write different content here`,
      file: f.show,
      hint: "adopt these hosts one at a time, or give them different paths",
    });
  }
  if (f.cur !== null && f.cur !== content && !f.plannedBy && !prev && !ctx.ownedBefore(key) && !ctx.force) {
    throw new HcpxError({
      code: "not_ours",
      message: "exists and was not written by hcpx",
      file: f.show,
      hint: "move it away, or rerun with --force to replace it",
    });
  }
  const created = prev ? prev.created : f.plannedBy ? true : f.orig.kind === "absent";
  // a hand edit in a file hcpx owns stays until --force (the ledger keeps hcpx's hash: --check shows it)
  if (f.cur !== null && f.cur !== content && prev && !f.plannedBy && sha256(f.cur) !== prev.sha256) {
    if (!ctx.force) {
      ctx.conflicts.push({
        code: "changed_since_adopt",
        message: "this file was edited since hcpx wrote it: kept, not replaced by the projection",
        file: f.show,
        hint: "rerun with --force to replace it (your edit is lost), or undo the edit",
        severity: "warning",
      });
      f.hosts.add(ctx.host);
      return { ...prev };
    }
    f.notes.push("was edited since hcpx wrote it; replaced by the projection (--force)");
  }
  f.cur = content;
  f.plannedBy ??= { host: ctx.host, text: content };
  f.hosts.add(ctx.host);
  ctx.touched(f);
  return { ...key, created };
}

export const fileFormat: FormatHandler = {
  kinds: ["file"],
  fits: (e, _t, paths) => e.kind === "file" && paths.includes(e.path),
  async plan(t, abs, ctx) {
    return [ownedFile(ctx, ctx.file(abs), await ctx.render(t), t)];
  },
  remove(e, f, text, ctx) {
    if (changedSince(e, f, sha256(text), ctx)) return "kept";
    f.cur = null;
    return "removed";
  },
};

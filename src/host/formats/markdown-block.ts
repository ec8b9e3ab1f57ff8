// format "markdown-block": the hcp block in a Markdown file the person shares with
// hcpx (CLAUDE.md, AGENTS.md, …): only the text between the markers is hcpx's
// (src/host/mdblock.ts does the text edits).
import { twinConflict } from "../twins";
import { HcpxError } from "../../util/errors";
import type { LedgerEntry } from "../ledger";
import { blockContent, findBlock, removeBlock, setBlock } from "../mdblock";
import { lineCol, sha256 } from "../../util/text";
import { changedSince } from "./common";
import type { FormatHandler } from "./types";

export const markdownBlockFormat: FormatHandler = {
  kinds: ["markdown-block"],
  fits: (e, _t, paths) => e.kind === "markdown-block" && paths.includes(e.path),
  async plan(t, abs, ctx) {
    const f = ctx.file(abs);
    const content = await ctx.render(t);
    if (t.maxChars !== undefined && content.length > t.maxChars) {
      throw new HcpxError({
        code: "too_large",
        message: `the hcp block would be ${content.length} characters; the host ignores text beyond ${t.maxChars}`,
        file: f.show,
        hint: "activate fewer packs, or shorten their leads",
      });
    }
    const key: LedgerEntry = {
      path: f.show,
      kind: "markdown-block",
      sha256: sha256(blockContent(content)),
      created: false,
    };
    const prev = ctx.oldEntry(key);
    const before = f.cur ?? undefined;
    const existing = before !== undefined ? findBlock(before, f.show) : undefined;
    if (f.plannedBy && existing && blockContent(existing.inner) !== blockContent(content)) {
      throw new HcpxError({
        code: "host_conflict",
        message: `${f.plannedBy.host} and ${ctx.host} would write different hcp blocks here`,
        file: f.show,
        hint: "adopt these hosts one at a time",
      });
    }
    // a block no ledger records (hcpx did not write it here) is the person's text, refused as any
    // entry hcpx did not write; one that already holds what hcpx would write is taken as hcpx's
    if (existing && !prev && !f.plannedBy && !ctx.force && blockContent(existing.inner) !== blockContent(content)) {
      // the block is another host's, reached through a symbolic link: say that, not "not written by hcpx"
      if (f.twinOf) throw new HcpxError(twinConflict(f.show, f.twinOf));
      throw new HcpxError({
        code: "not_ours",
        message: "an hcp block is already here and was not written by hcpx (the adopt ledger has no record of it)",
        file: f.show,
        ...lineCol(before!, existing.start),
        hint: "move your text out of the hcp markers (or into a code fence), or rerun with --force to replace the block",
      });
    }
    // a hand edit in hcpx's own block stays until --force (the ledger keeps hcpx's hash: --check shows it)
    if (
      prev &&
      existing &&
      !f.plannedBy &&
      !ctx.force &&
      sha256(blockContent(existing.inner)) !== prev.sha256 &&
      blockContent(existing.inner) !== blockContent(content)
    ) {
      ctx.conflicts.push({
        code: "changed_since_adopt",
        message: "the hcp block was edited since hcpx wrote it: kept, not replaced by the projection",
        file: f.show,
        hint: "move your text outside the hcp markers, or rerun with --force to replace the block",
        severity: "warning",
      });
      f.hosts.add(ctx.host);
      return [{ ...prev }];
    }
    const r = setBlock(before, content, f.show);
    if (t.maxBytes !== undefined && Buffer.byteLength(r.text) > t.maxBytes) {
      throw new HcpxError({
        code: "too_large",
        message: `would be ${Buffer.byteLength(r.text)} bytes; the host reads at most ${t.maxBytes}`,
        file: f.show,
        hint: "shorten the file, or activate fewer packs",
      });
    }
    f.cur = r.text;
    f.plannedBy ??= { host: ctx.host, text: r.text };
    f.hosts.add(ctx.host);
    ctx.touched(f);
    const sameRun = f.plannedBy.host !== ctx.host;
    if (prev && existing) return [{ ...key, created: prev.created, prefix: prev.prefix }];
    if (!sameRun) f.mdPrefix = r.prefix;
    return [{ ...key, created: f.orig.kind === "absent", prefix: sameRun ? f.mdPrefix : r.prefix }];
  },
  remove(e, f, text, ctx) {
    const span = findBlock(text, f.show);
    if (!span) return "gone";
    if (changedSince(e, f, sha256(blockContent(span.inner)), ctx)) return "kept";
    const next = removeBlock(text, f.show, e.prefix);
    f.cur = e.created && next === "" ? null : next;
    return "removed";
  },
};

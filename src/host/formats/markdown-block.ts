// format "markdown-block": the hcp block in a Markdown file the person shares with
// hcpx (CLAUDE.md, AGENTS.md, …): only the text between the markers is hcpx's
// (src/host/mdblock.ts does the text edits). Where the host reads another file
// instead in the same folder (the target's `shadowedBy`: Codex's AGENTS.override.md),
// the block goes into that one too; and it must end within the bytes the host reads
// (`maxBytes`, or the host's own setting `maxBytesFrom`, after the docs `chain` counts
// first): src/host/host-reads.ts reads what decides both.
import { dirname } from "node:path";
import { twinConflict } from "../twins";
import { HcpxError } from "../../util/errors";
import type { LedgerEntry } from "../ledger";
import { blockContent, findBlock, removeBlock, setBlock } from "../mdblock";
import { docsAbove, readLimit, shadowIn, type ReadLimit } from "../host-reads";
import { lineCol, sha256 } from "../../util/text";
import type { Target } from "../descriptor";
import { changedSince } from "./common";
import type { FormatHandler, TargetContext, VFile } from "./types";

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
    const own = planBlock(f, content, ctx);
    // the file the host reads here: this one, or one it reads instead (which then gets the block too)
    const shadow = shadowFor(t, f, ctx);
    if (shadow === "none") return [own.entry];
    if (shadow === undefined) {
      if (own.planned) checkLimit(t, f, ctx);
      return [own.entry];
    }
    const name = shadow.show.split("/").at(-1)!;
    shadow.notes.push(
      `${ctx.desc.name} reads ${name} instead of ${f.show.split("/").at(-1)} in this folder: the hcp block goes into it too`,
    );
    const other = planBlock(shadow, content, ctx);
    if (other.planned) checkLimit(t, shadow, ctx);
    return [own.entry, other.entry];
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

/**
 * The file the host reads instead of `f` in its folder (the target's `shadowedBy`), when one is
 * there with text; "none" when one is there blank and the host reads it all the same (`empty:
 * "hides"`): said with the reasons the host will not use what adopt wrote (health), never filled.
 */
function shadowFor(t: Target, f: VFile, ctx: TargetContext): VFile | "none" | undefined {
  if (!t.shadowedBy || ctx.preview) return undefined;
  const s = shadowIn(t, dirname(f.abs), (abs) => ctx.file(abs));
  // a link to this very file is this file
  if (!s || s.real === f.real) return undefined;
  if ((s.cur ?? "").trim() !== "") return s;
  if (t.shadowedBy.empty === "skipped") return undefined;
  const host = ctx.desc.name;
  const own = f.show.split("/").at(-1);
  ctx.unread.push({
    code: "block_not_read",
    severity: "error",
    file: s.show,
    message: `${host} reads ${s.show.split("/").at(-1)} instead of ${own} in this folder, and it is empty: ${host} reads no hcp block here (hcpx leaves your file as it is)`,
    hint: `delete the empty ${s.show} (${host} then reads ${f.show}), or write your own text in it and run \`hcpx adopt ${ctx.host}${f.show.startsWith("~/") ? " --scope user" : ""} --write\` again: the block then goes into it too`,
  });
  return "none";
}

/**
 * The block planned into `f`: its ledger entry, and whether hcpx's block is what `f` will hold
 * (false: a hand edit in it is kept until --force).
 */
function planBlock(f: VFile, content: string, ctx: TargetContext): { entry: LedgerEntry; planned: boolean } {
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
    return { entry: { ...prev }, planned: false };
  }
  const r = setBlock(before, content, f.show);
  f.cur = r.text;
  f.plannedBy ??= { host: ctx.host, text: r.text };
  f.hosts.add(ctx.host);
  ctx.touched(f);
  const sameRun = f.plannedBy.host !== ctx.host;
  if (prev && existing) return { entry: { ...key, created: prev.created, prefix: prev.prefix }, planned: true };
  if (!sameRun) f.mdPrefix = r.prefix;
  const prefix = sameRun ? f.mdPrefix : r.prefix;
  return { entry: { ...key, created: f.orig.kind === "absent", prefix }, planned: true };
}

/**
 * The block in `f` (the file the host reads) ends within the bytes the host reads of it: `maxBytes`,
 * or its own setting (`maxBytesFrom`), counted after the docs of the folders above (`chain`).
 */
function checkLimit(t: Target, f: VFile, ctx: TargetContext): void {
  const limit = ctx.preview ? (t.maxBytes === undefined ? undefined : { bytes: t.maxBytes }) : readLimit(t, ctx.reads);
  if (!limit || f.cur === null) return;
  const span = findBlock(f.cur, f.show);
  if (!span) return;
  const above = ctx.preview ? { bytes: 0, files: [] } : docsAbove(t, dirname(f.abs), ctx.reads);
  const end = above.bytes + Buffer.byteLength(f.cur.slice(0, span.end));
  if (end <= limit.bytes) return;
  throw new HcpxError({
    code: "too_large",
    message: tooLargeMessage(ctx.desc.name, end, above, limit, t.chain ? f.show.split("/").at(-1)! : undefined),
    file: f.show,
    ...lineCol(f.cur, span.start),
    hint: limit.from
      ? `raise ${limit.from.key} in ${limit.from.file}${limit.from.line ? ` (line ${limit.from.line})` : ""}, or shorten the text before the block, or activate fewer packs`
      : `shorten the text before the block${above.files.length ? ` (or ${above.files.join(", ")})` : ""}, or activate fewer packs${t.maxBytesFrom ? `; or raise ${t.maxBytesFrom.key.join(".")} in ${[t.maxBytesFrom.path].flat().join(" or ")} (default ${t.maxBytes})` : ""}`,
  });
}

function tooLargeMessage(
  host: string,
  end: number,
  above: { bytes: number; files: string[] },
  limit: ReadLimit,
  /** the file's name when the host counts it over the folders (`chain`) */
  chain: string | undefined,
): string {
  const set = limit.from
    ? ` (${limit.from.key} = ${limit.bytes} in ${limit.from.file}${limit.from.line ? `:${limit.from.line}` : ""})`
    : "";
  const counted = above.bytes ? ` (${above.bytes} of them in ${above.files.join(", ")}, read first)` : "";
  if (limit.bytes === 0) return `${host} reads none of it${set}: the hcp block is not read`;
  const of = chain ? ` of the ${chain} files, counted from the repository's root down` : " of it";
  return `the hcp block would end at byte ${end}${counted}; ${host} reads at most ${limit.bytes} bytes${of}${set}: the block would be cut`;
}

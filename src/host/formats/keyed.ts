// The MCP entry in a keyed format (json, jsonc, toml; yaml is one more KeyedFormat):
// planned and taken out the same way whatever the format. The entry's value comes
// from the descriptor's `entry` (TargetContext.entryValue); the format only reads
// and edits text.
import { HcpxError } from "../../util/errors";
import type { EntrySpec, Target } from "../descriptor";
import type { LedgerEntry } from "../ledger";
import { changedSince } from "./common";
import type { KeyedFormat, RemoveContext, TargetContext, VFile } from "./types";
import { isObj } from "../../util/is";

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The fields of `have` (the entry in the file) that the person added: every field
 * the descriptor's entry does not name. A re-adopt keeps them (after hcpx's own
 * fields, set again); --force replaces the entry whole.
 */
export function theirFields(have: unknown, spec: EntrySpec): Record<string, unknown> {
  if (!isObj(have)) return {};
  return Object.fromEntries(Object.entries(have).filter(([k]) => !Object.hasOwn(spec.fields, k)));
}

export function planKeyedEntry<D>(fmt: KeyedFormat<D>, t: Target, abs: string, ctx: TargetContext): LedgerEntry {
  const f = ctx.file(abs);
  const key = t.key!;
  const want = ctx.entryValue(t);
  const text = f.cur ?? fmt.initialText(t);
  const doc = fmt.read(text, f.show, t, ctx.desc.name);
  const base: LedgerEntry = { path: f.show, kind: fmt.kind, key, sha256: fmt.hash(want), created: false };
  const prev = ctx.oldEntry(base);
  const have = fmt.get(doc, key, t);
  // One entry several hosts read (Claude Code, Copilot CLI and Qoder all read .mcp.json's mcpServers.hcp):
  // a host never replaces the entry another host placed, in this run or recorded in the ledger, with a
  // different one (the other host would be out of sync, and re-adopting it would flip it back). The hosts
  // that share an entry record the same key; the first to place it decides what a removal restores.
  const slot = JSON.stringify(key);
  const placed = f.keyedPlanned?.get(slot);
  const mine = JSON.stringify(want);
  if (placed && placed.host !== ctx.host && placed.value !== mine) {
    throw new HcpxError({
      code: "host_conflict",
      message: `${placed.host} and ${ctx.host} would write different MCP entries at ${fmt.showKey(key)}, which both read`,
      file: f.show,
      hint: "adopt them with the same --command (one entry serves both), or one of them at a time",
    });
  }
  if (!placed && have !== undefined && !same(have, want)) {
    const owner = ctx.ownerOf(base, fmt.hash(have));
    if (owner) {
      throw new HcpxError({
        code: "host_conflict",
        message: `the hcp entry ${fmt.showKey(key)} here is ${owner}'s (hcpx adopt ${owner}) and ${ctx.host} would write a different one; both hosts read it`,
        file: f.show,
        ...fmt.where(doc, key, text),
        hint: `adopt them together (hcpx adopt ${owner} ${ctx.host} --write), with the same --command`,
      });
    }
  }
  const record = (entry: LedgerEntry): LedgerEntry => {
    if (!placed) (f.keyedPlanned ??= new Map()).set(slot, { host: ctx.host, entry, value: mine });
    return entry;
  };
  if (have !== undefined && !prev && !placed && !ctx.ownedBefore(base) && !same(have, want) && !ctx.force) {
    throw new HcpxError({
      code: "not_ours",
      message: `an MCP server ${fmt.showKey(key)} already exists and was not written by hcpx`,
      file: f.show,
      ...fmt.where(doc, key, text),
      hint: `remove or rename it, or rerun with --force to replace it (${ctx.desc.name})`,
    });
  }
  ctx.touched(f);
  if (ctx.machineSpecific) f.notes.push("machine-specific MCP command (absolute paths)");
  // the person's own additions to hcpx's entry stay (unless --force); the ledger keeps
  // hcpx's own value, so that --remove, too, leaves an entry they added to in place
  const theirs = ctx.force || !prev ? {} : theirFields(have, t.entry!);
  const kept = Object.keys(theirs);
  const next = kept.length ? { ...want, ...theirs } : want;
  if (have !== undefined && same(have, next)) {
    // already as projected: no edit (keeps its formatting); placed by another host earlier in this
    // run: what its entry knows (created, insertedAt…) is shared
    f.hosts.add(ctx.host);
    return record({ ...base, ...(prev || !placed ? fmt.carry(prev, key) : fmt.carry(placed.entry, key)) });
  }
  const r = fmt.set(text, doc, key, next, f, t, ctx.desc.name, { whole: ctx.force });
  if (have !== undefined && prev && fmt.hash(have) !== prev.sha256) {
    f.notes.push(
      kept.length
        ? `the hcp entry was edited since hcpx wrote it; hcpx's fields set again, yours kept (${kept.join(", ")}; --force replaces the entry)`
        : "the hcp entry was edited since hcpx wrote it; replaced",
    );
  }
  f.cur = r.text;
  f.hosts.add(ctx.host);
  if (prev && have !== undefined) return record({ ...base, ...fmt.carry(prev, key) });
  return record({ ...base, created: f.orig.kind === "absent", ...r.undo });
}

export function removeKeyedEntry<D>(
  fmt: KeyedFormat<D>,
  e: LedgerEntry,
  f: VFile,
  text: string,
  ctx: RemoveContext,
): "removed" | "kept" | "gone" {
  const t = ctx.targetOf(e);
  const doc = fmt.readBack(text, f.show, t);
  const v = fmt.get(doc, e.key!, t);
  if (v === undefined) return "gone";
  if (changedSince(e, f, fmt.hash(v), ctx)) return "kept";
  const next = fmt.remove(text, doc, e, f, ctx, t);
  if (next === "kept") return "kept";
  f.cur = next;
  return "removed";
}

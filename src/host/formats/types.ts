// The one interface every file format of a host target implements (src/host/formats/<format>.ts),
// and the context the adopt engine hands it. A handler knows its format, never a host:
// what is host-specific comes in through the descriptor's target (`key`, `entry`,
// `items`, `template`, …). The engine looks a handler up in one table (./index.ts) by
// the target's `format`, or by the `kind` of a ledger entry when it takes one out.
import type { Problem } from "../../util/errors";
import type { Descriptor, Target } from "../descriptor";
import type { Entry } from "../../util/fsio";
import type { LedgerEntry } from "../ledger";
import type { ReadsContext } from "../host-reads";

/** One file as the plan sees it: what is on disk (`orig`) and what the plan makes of it (`cur`). */
export interface VFile {
  abs: string;
  real: string;
  /** display path: relative to the project root (posix), or `~/…` */
  show: string;
  orig: Entry;
  /** current planned text; null = absent */
  cur: string | null;
  hosts: Set<string>;
  notes: string[];
  /** another host's part recorded under another path that is this file (a symbolic link): finish-plan refuses a change */
  twinOf?: { host: string; path: string };
  /** owned-file content planned in this run (to detect two hosts disagreeing) */
  plannedBy?: { host: string; text: string };
  /** markdown: the prefix the first host of this run inserted */
  mdPrefix?: string;
  /** keyed: the MCP entries placed in this run, by key path (one file several hosts read: Claude Code's .mcp.json) */
  keyedPlanned?: Map<string, { host: string; entry: LedgerEntry; value: string }>;
}

export type LedgerKind = LedgerEntry["kind"];
export type EntryKey = Pick<LedgerEntry, "path" | "kind" | "key">;

/** A granted command as a host's rules see it. */
export interface CommandClass {
  cls: "read" | "write" | "confirm";
  vars: Record<string, string>;
}

/** What a handler gets to plan one target of one host. */
export interface TargetContext {
  host: string;
  desc: Descriptor;
  /** --force: replace what is not hcpx's (or was changed since hcpx wrote it) */
  force: boolean;
  /** --approve: write the person's approval of the server (targets marked `approval`) even where they keep no list */
  approve?: boolean;
  /** what is kept because the person changed it since hcpx wrote it (a hand edit in hcpx's own block or file; --force replaces it) */
  conflicts: Problem[];
  /** the virtual file at an absolute path (read once per plan) */
  file(abs: string): VFile;
  /** the ledger entry hcpx recorded for this place (this host's, else another host's: a shared file) */
  oldEntry(e: EntryKey): LedgerEntry | undefined;
  /** some host's ledger entry names this place */
  ownedBefore(e: EntryKey): boolean;
  /** another host, not in this run, whose ledger entry at this place records exactly `sha256` (the file holds what it wrote) */
  ownerOf(e: EntryKey, sha256: string): string | undefined;
  /** the target's prose template, rendered */
  render(t: Target): Promise<string>;
  /** the MCP entry the target's `entry` describes, as a value (fields in order) */
  entryValue(t: Target): Record<string, unknown>;
  /** the granted commands (permission rules) */
  classes: CommandClass[];
  /** the Skill copies (dir-of-skills); false: leave them out of this plan */
  skills: { packId: string; content: string }[] | false;
  /** set when the MCP command holds absolute paths of this machine (noted with the entry) */
  machineSpecific?: string;
  /** a file this target plans (its missing directories go to the ledger) */
  touched(f: VFile): void;
  /** a preview (generate's host previews, bundles): every file absent, nothing of the host's own read */
  preview: boolean;
  /** what the host's own files say of what it reads (src/host/host-reads.ts) */
  reads: ReadsContext;
  /** why the host will not read what this plan writes (an empty file it reads instead): said with the health problems */
  unread: Problem[];
}

/** What a handler gets to take out what one ledger entry recorded. */
export interface RemoveContext {
  host: string;
  force: boolean;
  conflicts: Problem[];
  /** the `initial` skeleton of the host's target at this display path */
  initialOf(path: string): Record<string, unknown> | undefined;
  /** the host's target that recorded `e` (every ledger entry acted on fits one) */
  targetOf(e: LedgerEntry): Target | undefined;
}

export interface FormatHandler {
  /** keyed formats: the document format (read / get / set / remove / hash), e.g. for `hcpx import` */
  doc?: KeyedFormat<unknown>;
  /** the ledger kinds this handler records (and so takes out again) */
  kinds: readonly LedgerKind[];
  /** the ledger entry `e` is one a target of this format writes (at one of its display `paths`); anything else in a ledger is ignored */
  fits(e: LedgerEntry, t: Target, paths: string[]): boolean;
  /** plan one target at `abs`: edit the virtual files, return what the ledger records */
  plan(t: Target, abs: string, ctx: TargetContext): Promise<LedgerEntry[]>;
  /** after the plan: the person's rules at a target with `widens` that let a gated write run without asking (warnings) */
  audit?(t: Target, f: VFile, ctx: TargetContext): Problem[];
  /** plan the removal of what `e` recorded from `f` (its text: `text`); "gone": it is not there (any more), nothing to do */
  remove(e: LedgerEntry, f: VFile, text: string, ctx: RemoveContext): "removed" | "kept" | "gone";
}

/**
 * A keyed document format (json, jsonc, toml; a YAML handler is one more): one
 * value at a key path, every other byte of the file kept. A key path is a list
 * of segments; a segment is one key whatever it holds (Amp's flat
 * `"amp.mcpServers"` is one segment, not two).
 */
export interface KeyedFormat<Doc> {
  /** the ledger kind of an MCP entry in this format */
  kind: LedgerKind;
  /** a key path as messages show it: `a.b` (json), [a.b] (toml) */
  showKey(key: string[]): string;
  /** the text of a file hcpx creates, before the entry goes in */
  initialText(t: Target): string;
  /** parse as strictly as the host reads it; a parse error is an HcpxError with file and line */
  read(text: string, file: string, t: Target, hostName: string): Doc;
  /** the value at `key` (the target says more where the format needs it: a YAML list item's name field) */
  get(doc: Doc, key: string[], t?: Target): unknown;
  /** line and column of the value at `key`, for messages */
  where(doc: Doc, key: string[], text: string): { line?: number; column?: number };
  /**
   * the text with `value` at `key`; `undo`: what the ledger records so that a removal restores the file exactly.
   * An entry already there is edited in place, only where its value differs (the person's comments and
   * fields in it stay where they are); `whole` (--force): written whole, as a new one is.
   */
  set(
    text: string,
    doc: Doc,
    key: string[],
    value: unknown,
    f: VFile,
    t: Target,
    hostName: string,
    opts?: { whole?: boolean },
  ): { text: string; undo: Partial<LedgerEntry> };
  /** the ledger fields carried over when hcpx's entry is already there (so a removal still restores the file as it was) */
  carry(prev: LedgerEntry | undefined, key: string[]): Partial<LedgerEntry>;
  /** parse what is on disk for a removal (as leniently as the format allows) */
  readBack(text: string, file: string, t?: Target): Doc;
  /** the text without the entry `e` recorded (null: the file goes, it was created and holds nothing else), or "kept" (a conflict is recorded) */
  remove(text: string, doc: Doc, e: LedgerEntry, f: VFile, ctx: RemoveContext, t?: Target): string | null | "kept";
  /** the value as the ledger hashes it (drift = a different hash) */
  hash(value: unknown): string;
}

// The one plan every writer of hcpx produces and the one applier
// (./apply.ts) writes: `hcpx generate` (its out dir and .manifest.json),
// `generate --as` bundles (DIR and its .hcpx-manifest.json) and `hcpx adopt`
// (host files, the ledger, the journal). A plan is made in memory by pure
// planning code that reads the disk through a small read-only interface
// (./fs.ts); nothing is written until apply. Diff and `--check` read the same
// plan (./drift.ts).
import type { Problem } from "../util/errors";

/** A part of a file that is hcpx's: the whole file, the hcp markdown block, the value at a key of a JSON or TOML file, or hcpx's items in a list or object there. */
export interface FilePart {
  kind: "file" | "markdown-block" | "json" | "toml" | "yaml" | "json-items";
  key?: string[];
}

/** One file the plan changes: whole-file content (a Skill copy, a generated file) or a host file with hcpx's block, keys or items set in it. */
export interface FileChange {
  /** display path: relative to the base (posix), or `~/…` for user scope */
  path: string;
  /** absolute path as planned */
  abs: string;
  /** the file actually written (symlinks inside the base resolved) */
  real: string;
  kind: "create" | "update" | "delete";
  /** the text the plan read (undefined: absent) */
  old?: string;
  /** the text apply writes (undefined: deleted, or given by `chunks`) */
  new?: string;
  /** a large generated file the plan does not hold (src/projection/types.ts lazyFile): apply renders it, in pieces, to write it, and hashes what it writes for the record */
  chunks?: () => Iterable<string>;
  /** what is hcpx's in the file once the change is written (none for a deletion) */
  parts: FilePart[];
  /** the hosts whose files these are (adopt; empty elsewhere) */
  hosts: string[];
  notes: string[];
}

/**
 * How the plan records what hcpx wrote, so that the next plan can tell its own
 * files (and what a person changed) from anyone else's: generate's and a
 * bundle's manifest (path → sha256 of the bytes), or adopt's ledger with its
 * write-ahead journal. Both are read back from disk, untrusted (src/util/fsio.ts guardPath).
 */
export type PlanRecord = ManifestRecord | LedgerRecord;

export interface ManifestRecord {
  kind: "manifest";
  /** the manifest file (DIR/.manifest.json): replaced by a rename, never written through a link */
  file: string;
  /** its text as read (undefined: absent or unreadable) */
  old?: string;
  /**
   * Its new text, given the sha256 (hex) of each file apply wrote from `chunks`, by path: a lazy
   * file to be written is printed once, by the write, which hashes the bytes it writes; the plan
   * knows every other file's hash (src/plan/files.ts).
   */
  render(written: ReadonlyMap<string, string>): string;
  /** rewrite even when `old` equals the new text (the old one could not be read) */
  force: boolean;
}

export interface LedgerRecord {
  kind: "ledger";
  file: string;
  /** serialized ledger before and after (undefined = no ledger file) */
  old?: string;
  new?: string;
  /** the ledger this plan started from: `old`, or the ledger rebuilt from an interrupted run's journal */
  base?: string;
  /** the write-ahead journal of apply (`adopt.journal.json` next to the ledger) */
  journal: string;
  /** a journal left by an interrupted `adopt --write` was found (and folded into `base`) */
  journalPending: boolean;
  /** the texts the applier writes, rendered by the planner (src/host/ledger.ts ledgerRender) */
  render: LedgerRender;
}

/**
 * The ledger's and journal's texts, given the two facts only apply has: the
 * directories the adopt lock made (display paths) and which recorded
 * directories exist once the files are written.
 */
export interface LedgerRender {
  /** the write-ahead journal for these changes */
  journal(made: string[], changes: FileChange[], rmdirs: string[]): string;
  /** the ledger to leave (undefined: none) */
  ledger(made: string[], exists: (dir: string) => boolean): string | undefined;
  /** every directory adopt made for the ledger (display paths): removed when empty once no ledger is left */
  dirs(made: string[]): string[];
}

/** The adopt lock of one ledger (project: `.hcp/adopt.lock`; user: `~/.config/hcp/adopt.lock`): src/host/lock.ts. */
export interface AdoptLock {
  /** directories made for the ledger and the lock (display paths) */
  made: string[];
  /** directories to remove (when empty) once the lock is gone and no ledger is left */
  rmdirsAfter: string[];
  release(): void;
}

export interface FilePlan {
  /** the directory every path of the plan is below (project root, $HOME, the out dir, DIR) */
  base: string;
  /** what apply writes and deletes, in the order shown */
  changes: FileChange[];
  /** left alone on purpose (changed by hand since hcpx wrote it): drift for --check */
  conflicts: Problem[];
  /** what the plan did not take from the files it read back (a record entry refused, a recorded value not used): drift for --check */
  warnings: Problem[];
  /** temp files left by a killed writer, removed by apply */
  staleTemps: string[];
  /** directories to remove after writing when they are empty, deepest first */
  rmdirs: string[];
  record: PlanRecord;
}

// `.hcp/adopted.json` (user scope: `~/.config/hcp/adopted.json`): what adopt
// wrote, per host, with the sha256 of what it wrote, so a re-run can clean up
// what is no longer projected and never delete what a person changed since.
import { HcpxError } from "../util/errors";

export interface LedgerEntry {
  /** display path: relative to the project root (posix), or `~/…` */
  path: string;
  /** file: a whole file we own; json/toml: one entry at `key`; json-items: our items in the list or object at `key`; markdown-block: the hcp block */
  kind: "file" | "json" | "toml" | "markdown-block" | "json-items";
  key?: string[];
  /** sha256 of what we wrote: the file's bytes, JSON.stringify of the entry value, or the block's content */
  sha256: string;
  /** the file did not exist before adopt (a removal that leaves it empty deletes it) */
  created: boolean;
  /** json: the property we inserted (our key, or the highest ancestor we created) */
  insertedAt?: string[];
  /** json: the whitespace-only text of a file that existed before adopt (a removal restores it) */
  blank?: string;
  /** json: inner text of the object we inserted into when it was empty */
  emptyInner?: string;
  /** toml / markdown: the separator we put before our text when appending it */
  prefix?: string;
  /** json-items: the list items (or object member names) hcpx added; a rule the person wrote is never one */
  items?: string[];
  /** json-items: the list or object as it was written before hcpx added to it (its exact text): a removal that leaves that value puts this text back */
  original?: string;
}

export interface LedgerHost {
  scope: "project" | "user";
  entries: LedgerEntry[];
  /** directories adopt created (display paths) */
  dirs: string[];
  /** the MCP command line given with `--command`: later plans without it (a re-run, --check, doctor) keep it */
  command?: string[];
}

export interface Ledger {
  version: 1;
  hosts: Record<string, LedgerHost>;
  /** directories adopt created for the ledger itself (e.g. `.hcp`) */
  dirs?: string[];
}

export function emptyLedger(): Ledger {
  return { version: 1, hosts: {} };
}

export function ledgerKey(e: Pick<LedgerEntry, "path" | "kind" | "key">): string {
  return `${e.path}\u0000${e.kind}\u0000${(e.key ?? []).join("\u0001")}`;
}

export function parseLedger(text: string, file: string): Ledger {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new HcpxError({ code: "bad_ledger", message: `cannot parse the adopt ledger: ${(e as Error).message}`, file, hint: "restore it from version control, or delete it (hcpx then treats every hcp file as not written by it)" });
  }
  const l = v as Ledger;
  if (!l || typeof l !== "object" || l.version !== 1 || typeof l.hosts !== "object" || l.hosts === null) {
    throw new HcpxError({ code: "bad_ledger", message: "not an hcpx adopt ledger (version 1)", file, hint: "restore it, or delete it" });
  }
  for (const h of Object.values(l.hosts)) {
    if (!Array.isArray(h.entries)) throw new HcpxError({ code: "bad_ledger", message: "ledger host without entries", file });
    h.dirs ??= [];
    if (h.command !== undefined && !(Array.isArray(h.command) && h.command.length > 0 && h.command.every((w) => typeof w === "string"))) delete h.command;
  }
  return l;
}

export function serializeLedger(l: Ledger): string {
  const hosts = Object.fromEntries(Object.keys(l.hosts).sort().map((h) => [h, l.hosts[h]!]));
  return JSON.stringify({ version: 1, hosts, ...(l.dirs?.length ? { dirs: l.dirs } : {}) }, null, 2) + "\n";
}

/**
 * The write-ahead journal of `adopt --write` (`adopt.journal.json` next to the
 * ledger), written before the first target file and removed after the ledger:
 * the ledger before and after, and for each file changed its sha256 before and
 * after (null = absent). A run killed in between leaves it; the next run reads
 * which files hold their new bytes and rebuilds the ledger to match the disk.
 */
export interface Journal {
  version: 1;
  ledgerOld?: string;
  ledgerNew?: string;
  files: { path: string; real: string; before: string | null; after: string | null }[];
  /** directories the run meant to remove when empty (absolute) */
  rmdirs?: string[];
}

export function serializeJournal(j: Journal): string {
  return JSON.stringify(j) + "\n";
}

/** undefined when the text is not a journal (a torn one cannot exist: it is written atomically). */
export function parseJournal(text: string): Journal | undefined {
  try {
    const j = JSON.parse(text) as Journal;
    return j && j.version === 1 && Array.isArray(j.files) ? j : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The ledger that agrees with the disk after an interrupted write: entries of a
 * file still holding its old bytes come from `before`, all others from `after`;
 * directories are the union (apply drops those that do not exist).
 */
export function reconcileLedger(before: Ledger, after: Ledger, state: (path: string) => "old" | "new" | undefined): Ledger {
  const out: Ledger = { version: 1, hosts: {} };
  for (const h of [...new Set([...Object.keys(before.hosts), ...Object.keys(after.hosts)])].sort()) {
    const b = before.hosts[h];
    const a = after.hosts[h];
    const entries = [...(a?.entries ?? []).filter((e) => state(e.path) !== "old"), ...(b?.entries ?? []).filter((e) => state(e.path) === "old")];
    const dirs = [...new Set([...(b?.dirs ?? []), ...(a?.dirs ?? [])])].sort();
    const command = (b ?? a)!.command;
    if (entries.length || dirs.length) out.hosts[h] = { scope: (a ?? b)!.scope, entries, dirs, ...(command ? { command } : {}) };
  }
  const dirs = [...new Set([...(before.dirs ?? []), ...(after.dirs ?? [])])].sort();
  if (dirs.length) out.dirs = dirs;
  return out;
}

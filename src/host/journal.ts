// Reading back the write-ahead journal an interrupted `adopt --write` left
// (src/host/ledger.ts Journal) and the ledger that agrees with the disk after it.
import type { Journal, Ledger } from "./ledger";

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
export function reconcileLedger(
  before: Ledger,
  after: Ledger,
  state: (path: string) => "old" | "new" | undefined,
): Ledger {
  const out: Ledger = { version: 1, hosts: {} };
  for (const h of [...new Set([...Object.keys(before.hosts), ...Object.keys(after.hosts)])].sort()) {
    const b = before.hosts[h];
    const a = after.hosts[h];
    const entries = [
      ...(a?.entries ?? []).filter((e) => state(e.path) !== "old"),
      ...(b?.entries ?? []).filter((e) => state(e.path) === "old"),
    ];
    const dirs = [...new Set([...(b?.dirs ?? []), ...(a?.dirs ?? [])])].sort();
    const command = (b ?? a)!.command;
    const remote = (b ?? a)!.remote;
    if (entries.length || dirs.length)
      out.hosts[h] = {
        scope: (a ?? b)!.scope,
        entries,
        dirs,
        ...(command ? { command } : {}),
        ...(remote ? { remote } : {}),
      };
  }
  const dirs = [...new Set([...(before.dirs ?? []), ...(after.dirs ?? [])])].sort();
  if (dirs.length) out.dirs = dirs;
  return out;
}

// Writing an adopt plan: under the lock (taken before the plan was made, so the
// plan saw the disk as it is), a write-ahead journal, then each changed file
// atomically (temp + rename in its directory, mode kept), deletions, empty
// directories adopt created, then the ledger, then the journal goes. A run
// killed anywhere leaves every file as its old or its new bytes; the journal
// lets the next run rebuild a ledger that agrees with the disk (engine.ts).
// Nothing here decides anything: the plan did.
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { toPosix } from "../util/paths";
import { ledgerInside, type AdoptPlan, type Scope } from "./engine";
import { acquireLock, atomicWrite, deleteTarget, guardPath, missingDirs, removeFile, rmdirIfEmpty } from "./fsio";
import { parseLedger, serializeJournal, serializeLedger } from "./ledger";
import { sha256 } from "./text";

export interface ApplyResult {
  written: string[];
  deleted: string[];
}

/** The adopt lock of one ledger (project: `.hcp/adopt.lock`; user: `~/.config/hcp/adopt.lock`). */
export interface AdoptLock {
  /** directories made for the ledger and the lock (display paths) */
  made: string[];
  /** directories to remove (when empty) once the lock is gone and no ledger is left */
  rmdirsAfter: string[];
  release(): void;
}

/**
 * Take the adopt lock for the ledger `ledgerFile` (below `base`: the project
 * root or $HOME). Take it before planning: a plan made before another writer
 * finished would overwrite that writer's entries. `release()` also removes the
 * directories made for it when no ledger ended up in them (a refused plan leaves nothing).
 */
export function lockAdopt(ledgerFile: string, base: string, scope: Scope): AdoptLock {
  const show = (abs: string) => (scope === "user" ? "~/" : "") + toPosix(relative(base, abs));
  const ledgerDir = dirname(ledgerFile);
  if (scope === "project") ledgerInside(ledgerFile, base);
  const madeAbs = missingDirs(ledgerDir, base);
  mkdirSync(ledgerDir, { recursive: true });
  let unlock: () => void;
  try {
    // the lock records the directories made for it: a run killed before its
    // journal existed hands them on to the one that takes its stale lock over
    unlock = acquireLock(join(ledgerDir, "adopt.lock"), show(join(ledgerDir, "adopt.lock")), "hcpx adopt", () => JSON.stringify(madeAbs) + "\n", (stale) => {
      if (existsSync(ledgerFile)) return;
      try {
        const dirs = JSON.parse(stale.split("\n")[2] ?? "") as unknown;
        // a lock is a file on disk like the ledger: what it names passes the same guard
        if (Array.isArray(dirs)) for (const d of dirs) if (typeof d === "string" && !madeAbs.includes(d) && guardPath(d, { dir: base, prefix: scope === "user" ? "~/" : "" }, "absolute").ok) madeAbs.push(d);
      } catch {
        /* an older or torn lock: nothing to hand on */
      }
      madeAbs.sort((a, b) => a.length - b.length);
    });
  } catch (e) {
    for (const d of [...madeAbs].reverse()) rmdirIfEmpty(d);
    throw e;
  }
  const lock: AdoptLock = {
    made: madeAbs.map(show),
    rmdirsAfter: [...madeAbs],
    release() {
      unlock();
      if (!existsSync(ledgerFile)) for (const d of [...new Set(lock.rmdirsAfter)].sort((a, b) => b.length - a.length)) rmdirIfEmpty(d);
    },
  };
  return lock;
}

export function applyPlan(plan: AdoptPlan, lock: AdoptLock): ApplyResult {
  const fromShow = (s: string) => join(plan.base, s.replace(/^~\//, ""));
  const written: string[] = [];
  const deleted: string[] = [];
  let ledgerDirs = lock.made;
  if (plan.ledgerBase !== undefined) {
    try {
      ledgerDirs = [...new Set([...(parseLedger(plan.ledgerBase, plan.ledgerFile).dirs ?? []), ...lock.made])];
    } catch {
      /* the plan already refused a bad ledger */
    }
  }
  const finalLedger = (existingDirsOnly: boolean): string | undefined => {
    if (plan.ledgerNew === undefined) return undefined;
    const l = parseLedger(plan.ledgerNew, plan.ledgerFile);
    if (existingDirsOnly) for (const h of Object.values(l.hosts)) h.dirs = h.dirs.filter((d) => existsSync(fromShow(d)));
    l.dirs = ledgerDirs.length ? [...ledgerDirs].sort() : undefined;
    return serializeLedger(l);
  };
  const journal = plan.changes.length > 0;
  if (journal) {
    atomicWrite(
      plan.journalFile,
      serializeJournal({
        version: 1,
        ledgerOld: plan.ledgerBase,
        ledgerNew: finalLedger(false),
        files: plan.changes.map((c) => ({ path: c.path, real: c.real, before: c.old === undefined ? null : sha256(c.old), after: c.new === undefined ? null : sha256(c.new) })),
        rmdirs: plan.rmdirs,
      }),
    );
  }
  for (const c of plan.changes) {
    if (c.kind === "delete") {
      deleteTarget(c.real);
      deleted.push(c.path);
    } else {
      atomicWrite(c.real, c.new!);
      written.push(c.path);
    }
  }
  for (const t of plan.staleTemps) removeFile(t);
  for (const d of plan.rmdirs) rmdirIfEmpty(d);
  const ledgerNew = finalLedger(true);
  if (ledgerNew !== undefined) {
    if (ledgerNew !== plan.ledgerOld) atomicWrite(plan.ledgerFile, ledgerNew);
  } else if (plan.ledgerOld !== undefined) deleteTarget(plan.ledgerFile);
  if (journal || plan.journalPending) removeFile(plan.journalFile);
  // No ledger left: the directories adopt made for it go too, when empty (after the lock).
  if (ledgerNew === undefined) lock.rmdirsAfter.push(...ledgerDirs.map(fromShow));
  return { written, deleted };
}

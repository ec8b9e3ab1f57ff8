// The one applier: writes a FilePlan (./types.ts) of generate, a bundle or
// adopt. Nothing here decides anything: the plan did.
//
// Adopt's plan is written under the lock (taken before the plan was made, so
// the plan saw the disk as it is), behind a write-ahead journal: the journal,
// then each changed file atomically (temp + rename in its directory, mode
// kept), deletions, empty directories adopt created, then the ledger, then the
// journal goes. A run killed anywhere leaves every file as its old or its new
// bytes; the journal lets the next run rebuild a ledger that agrees with the
// disk (src/host/engine.ts). Generate's and a bundle's plan: each changed file
// atomically, stale files deleted, their directories when left empty, then the
// manifest (a rename, never written through a link).
import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { display, toPosix } from "../util/paths";
import { ledgerInside, type Scope } from "./engine";
import { acquireLock, guardPath, missingDirs, readEntry, writeStep } from "../util/fsio";
import { mkdirs, removeEmptyDir, removeFile, writeFile, type Base } from "../util/door";
import { HcpxError, type Problem } from "../util/errors";
import { parseLedger, serializeJournal, serializeLedger } from "./ledger";
import { sha256 } from "../util/text";
import type { FilePlan, LedgerRecord } from "../plan/types";

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
  const door: Base = { dir: base, label: scope === "user" ? "$HOME" : "the project" };
  mkdirs(door, ledgerDir, show(ledgerDir));
  const rmdirIfEmpty = (d: string) => removeEmptyDir(door, d);
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

/** The base of a plan's writes: every path it names is written through the one write door, below it. */
function baseOfPlan(plan: FilePlan): Base {
  return { dir: plan.base };
}

/** A planned deletion (a write step for the test hook). */
function deleteTarget(base: Base, file: string): void {
  removeFile(base, file);
  writeStep();
}

/** Write `plan`. An adopt plan (a ledger record) needs the lock it was planned under. */
export function applyPlan(plan: FilePlan, lock?: AdoptLock): ApplyResult {
  if (plan.record.kind === "ledger") {
    if (!lock) throw new Error("applyPlan: an adopt plan is written under its lock");
    return applyLedgerPlan(plan, plan.record, lock);
  }
  unchangedSincePlan(plan);
  const res = writeChanges(plan);
  const m = plan.record;
  if (m.force || m.old !== m.new) writeFile(baseOfPlan(plan), m.file, m.new, { replaceLink: true });
  return res;
}

/**
 * Every file apply is about to replace or delete still holds what the plan
 * read (and parsed): a file someone changed meanwhile is never overwritten
 * with a plan made from its old text. Checked before anything is written.
 */
function unchangedSincePlan(plan: FilePlan): void {
  const moved: Problem[] = [];
  for (const c of plan.changes) {
    const now = readEntry(c.real);
    const same = c.old === undefined ? now.kind !== "file" : now.kind === "file" && now.text === c.old;
    if (!same) moved.push({ code: "changed_during_plan", message: "changed while hcpx was planning its change; nothing written", file: plan.record.kind === "ledger" ? c.path : display(c.abs), hint: "run the command again (it plans from the file as it is now)" });
  }
  if (moved.length) throw new HcpxError(moved);
}

/** The changes, the stale temp files and the emptied directories: the part every plan shares. */
function writeChanges(plan: FilePlan): ApplyResult {
  const written: string[] = [];
  const deleted: string[] = [];
  const base = baseOfPlan(plan);
  for (const c of plan.changes) {
    if (c.kind === "delete") {
      deleteTarget(base, c.real);
      deleted.push(c.path);
    } else {
      writeFile(base, c.real, c.new!);
      written.push(c.path);
    }
  }
  for (const t of plan.staleTemps) removeFile(base, t);
  for (const d of plan.rmdirs) removeEmptyDir(base, d);
  return { written, deleted };
}

function applyLedgerPlan(plan: FilePlan, rec: LedgerRecord, lock: AdoptLock): ApplyResult {
  const fromShow = (s: string) => join(plan.base, s.replace(/^~\//, ""));
  let ledgerDirs = lock.made;
  if (rec.base !== undefined) {
    try {
      ledgerDirs = [...new Set([...(parseLedger(rec.base, rec.file).dirs ?? []), ...lock.made])];
    } catch {
      /* the plan already refused a bad ledger */
    }
  }
  const finalLedger = (existingDirsOnly: boolean): string | undefined => {
    if (rec.new === undefined) return undefined;
    const l = parseLedger(rec.new, rec.file);
    if (existingDirsOnly) for (const h of Object.values(l.hosts)) h.dirs = h.dirs.filter((d) => existsSync(fromShow(d)));
    l.dirs = ledgerDirs.length ? [...ledgerDirs].sort() : undefined;
    return serializeLedger(l);
  };
  unchangedSincePlan(plan);
  const journal = plan.changes.length > 0;
  if (journal) {
    writeFile(
      baseOfPlan(plan),
      rec.journal,
      serializeJournal({
        version: 1,
        ledgerOld: rec.base,
        ledgerNew: finalLedger(false),
        files: plan.changes.map((c) => ({ path: c.path, real: c.real, before: c.old === undefined ? null : sha256(c.old), after: c.new === undefined ? null : sha256(c.new) })),
        rmdirs: plan.rmdirs,
      }),
    );
  }
  const res = writeChanges(plan);
  const ledgerNew = finalLedger(true);
  if (ledgerNew !== undefined) {
    if (ledgerNew !== rec.old) writeFile(baseOfPlan(plan), rec.file, ledgerNew);
  } else if (rec.old !== undefined) deleteTarget(baseOfPlan(plan), rec.file);
  if (journal || rec.journalPending) removeFile(baseOfPlan(plan), rec.journal);
  // No ledger left: the directories adopt made for it go too, when empty (after the lock).
  if (ledgerNew === undefined) lock.rmdirsAfter.push(...ledgerDirs.map(fromShow));
  return res;
}

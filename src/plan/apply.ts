// The one applier: writes a FilePlan (./types.ts) of generate, a bundle or
// adopt. Nothing here decides anything: the plan did. Its records (a manifest's
// text; an adopt ledger's and journal's texts, rendered by the planner's
// `render`) are handed to it, so it knows no ledger format and imports nothing
// above src/plan/.
//
// Adopt's plan is written under the lock (taken before the plan was made, so
// the plan saw the disk as it is), behind a write-ahead journal: the journal,
// then each changed file atomically (temp + rename in its directory, mode
// kept), deletions, empty directories adopt created, then the ledger, then the
// journal goes. A run killed anywhere leaves every file as its old or its new
// bytes; the journal lets the next run rebuild a ledger that agrees with the
// disk (src/host/ledger-state.ts). Generate's and a bundle's plan: each changed file
// atomically, stale files deleted, their directories when left empty, then the
// manifest (a rename, never written through a link).
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { display } from "../util/paths";
import { readEntry, writeStep } from "../util/fsio";
import { dirMemo, hardLinked, removeEmptyDir, removeFile, writeFile, type Base } from "../util/door";
import { HcpxError, type Problem } from "../util/errors";
import type { AdoptLock, FilePlan, LedgerRecord } from "./types";

export type { AdoptLock };

export interface ApplyResult {
  written: string[];
  deleted: string[];
  /** a byte changed on disk: a file written or deleted, a stale temp or an emptied directory removed, the record (manifest, ledger, journal) written or removed */
  wrote: boolean;
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
  const written = new Map<string, string>();
  const res = writeChanges(plan, written);
  const m = plan.record;
  const text = m.render(written);
  if (m.force || m.old !== text) {
    writeFile(baseOfPlan(plan), m.file, text, { replaceLink: true });
    res.wrote = true;
  }
  return res;
}

/**
 * Every file apply is about to replace or delete still holds what the plan
 * read (and parsed): a file someone changed meanwhile is never overwritten
 * with a plan made from its old text. Checked before anything is written.
 */
function unchangedSincePlan(plan: FilePlan): void {
  const moved: Problem[] = [];
  // a file with another name (a hard link) would be refused by the door half-way: refused here, before any write
  const linked: Problem[] = [];
  for (const c of plan.changes) {
    const now = readEntry(c.real);
    const shown = plan.record.kind === "ledger" ? c.path : display(c.abs);
    const same = c.old === undefined ? now.kind !== "file" : now.kind === "file" && now.text === c.old;
    if (!same)
      moved.push({
        code: "changed_during_plan",
        message: "changed while hcpx was planning its change; nothing written",
        file: shown,
        hint: "run the command again (it plans from the file as it is now)",
      });
    const links = c.kind !== "delete" && (now.kind === "file" || now.kind === "binary") ? now.links : undefined;
    const problem = hardLinked(shown, links, "and nothing was written");
    if (problem) linked.push(problem);
  }
  if (moved.length) throw new HcpxError(moved);
  if (linked.length) throw new HcpxError(linked);
}

/**
 * The changes, the stale temp files and the emptied directories: the part every plan shares. A file
 * given in pieces is rendered once, here, and the sha256 of the bytes written is set in `hashed`
 * (by path) for the record.
 */
function writeChanges(plan: FilePlan, hashed?: Map<string, string>): ApplyResult {
  const written: string[] = [];
  const deleted: string[] = [];
  const base = baseOfPlan(plan);
  const dirs = dirMemo(); // each directory of the plan guarded (and made) once
  for (const c of plan.changes) {
    if (c.kind === "delete") {
      deleteTarget(base, c.real);
      deleted.push(c.path);
    } else if (c.new === undefined && c.chunks) {
      const h = createHash("sha256");
      writeFile(base, c.real, { chunks: c.chunks, written: (b) => h.update(b) }, { dirs });
      hashed?.set(c.path, h.digest("hex"));
      written.push(c.path);
    } else {
      writeFile(base, c.real, c.new!, { dirs });
      written.push(c.path);
    }
  }
  for (const t of plan.staleTemps) removeFile(base, t);
  // a directory counts when this run removed it (one gone already changed nothing)
  const removedDirs = plan.rmdirs.filter((d) => removeEmptyDir(base, d));
  const wrote = written.length + deleted.length + plan.staleTemps.length + removedDirs.length > 0;
  return { written, deleted, wrote };
}

function applyLedgerPlan(plan: FilePlan, rec: LedgerRecord, lock: AdoptLock): ApplyResult {
  const fromShow = (s: string) => join(plan.base, s.replace(/^~\//, ""));
  const made = lock.made;
  unchangedSincePlan(plan);
  const journal = plan.changes.length > 0;
  if (journal) writeFile(baseOfPlan(plan), rec.journal, rec.render.journal(made, plan.changes, plan.rmdirs));
  const res = writeChanges(plan);
  // the ledger keeps the directories adopt made that exist now (a fact of the disk after the writes, not a choice)
  const ledgerNew = rec.render.ledger(made, (d) => existsSync(fromShow(d)));
  if (ledgerNew !== undefined) {
    if (ledgerNew !== rec.old) writeFile(baseOfPlan(plan), rec.file, ledgerNew);
  } else if (rec.old !== undefined) deleteTarget(baseOfPlan(plan), rec.file);
  if (journal || rec.journalPending) removeFile(baseOfPlan(plan), rec.journal);
  if (journal || rec.journalPending || ledgerNew !== rec.old) res.wrote = true;
  // No ledger left: the directories adopt made for it go too, when empty (after the lock).
  if (ledgerNew === undefined) lock.rmdirsAfter.push(...rec.render.dirs(made).map(fromShow));
  return res;
}

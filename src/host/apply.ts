// Writing an adopt plan: under the lock, each changed file atomically (temp +
// rename in its directory, mode kept), deletions, empty directories adopt
// created, then the ledger. Nothing here decides anything: the plan did.
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { toPosix } from "../util/paths";
import type { AdoptPlan } from "./engine";
import { acquireLock, atomicWrite, missingDirs, removeFile, rmdirIfEmpty } from "./fsio";
import { parseLedger, serializeLedger } from "./ledger";

export interface ApplyResult {
  written: string[];
  deleted: string[];
}

export function applyPlan(plan: AdoptPlan): ApplyResult {
  const show = (abs: string) => (plan.scope === "user" ? "~/" : "") + toPosix(relative(plan.base, abs));
  const fromShow = (s: string) => join(plan.base, s.replace(/^~\//, ""));
  const ledgerDir = dirname(plan.ledgerFile);
  const lockFile = join(ledgerDir, "adopt.lock");
  // Directories made for the ledger and the lock (removed again when the ledger goes away).
  const made = missingDirs(ledgerDir, plan.base).map(show);
  mkdirSync(ledgerDir, { recursive: true });
  const release = acquireLock(lockFile, show(lockFile));
  const written: string[] = [];
  const deleted: string[] = [];
  let ledgerDirs = made;
  try {
    for (const c of plan.changes) {
      if (c.kind === "delete") {
        removeFile(c.real);
        deleted.push(c.path);
      } else {
        atomicWrite(c.real, c.new!);
        written.push(c.path);
      }
    }
    for (const d of plan.rmdirs) rmdirIfEmpty(d);
    if (plan.ledgerOld !== undefined) {
      try {
        ledgerDirs = [...new Set([...(parseLedger(plan.ledgerOld, plan.ledgerFile).dirs ?? []), ...made])];
      } catch {
        /* the plan already refused a bad ledger */
      }
    }
    let ledgerNew = plan.ledgerNew;
    if (ledgerNew !== undefined) {
      const l = parseLedger(ledgerNew, plan.ledgerFile);
      for (const h of Object.values(l.hosts)) h.dirs = h.dirs.filter((d) => existsSync(fromShow(d)));
      l.dirs = ledgerDirs.length ? [...ledgerDirs].sort() : undefined;
      ledgerNew = serializeLedger(l);
      if (ledgerNew !== plan.ledgerOld) atomicWrite(plan.ledgerFile, ledgerNew);
    } else removeFile(plan.ledgerFile);
  } finally {
    release();
  }
  if (plan.ledgerNew === undefined) {
    // No ledger left: the directories adopt made for it go too, when empty.
    for (const d of [...ledgerDirs].sort((a, b) => b.length - a.length)) rmdirIfEmpty(fromShow(d));
  }
  return { written, deleted };
}

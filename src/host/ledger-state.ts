// Where a ledger lives and what the adopt planner reads from it: the ledger
// file, and the journal an interrupted `adopt --write` left (the ledger rebuilt
// to agree with the disk), through the planner's read-only disk (src/plan/fs.ts)
// and adopt's trust rules (src/host/ledger.ts sanitizeLedger).
import { join, relative, dirname } from "node:path";
import type { Project } from "../pack/model";
import { HcpxError, type Problem } from "../util/errors";
import { toPosix, userConfigDir } from "../util/paths";
import { guardPath, type Guarded, type TrustBase } from "../util/fsio";
import type { ReadFs } from "../plan/fs";
import { sha256 } from "../util/text";
import { emptyLedger, parseLedger, sanitizeLedger, serializeLedger, type Ledger } from "./ledger";
import { parseJournal, reconcileLedger } from "./journal";
import type { LedgerState, Scope } from "./adopt-types";

export function ledgerPath(scope: Scope, project: Project): string {
  return scope === "project" ? join(project.root, ".hcp", "adopted.json") : join(userConfigDir(), "adopted.json");
}

export function journalPath(ledgerFile: string): string {
  return join(dirname(ledgerFile), "adopt.journal.json");
}

/** The project's ledger, journal and lock live in `.hcp/`: refused when a symlink leads that directory out of the project. */
export function ledgerInside(
  ledgerFile: string,
  root: string,
  guard: (named: unknown, base: TrustBase) => Guarded = guardPath,
): void {
  const g = guard(toPosix(relative(root, ledgerFile)), { dir: root, prefix: "" });
  if (!g.ok)
    throw new HcpxError({
      code: "symlink_refused",
      message: `the adopt ledger ${g.reason}`,
      file: toPosix(relative(root, ledgerFile)),
      hint: "replace the .hcp symlink with a directory of the project's own",
    });
}

export function readLedgerState(
  fs: ReadFs,
  scope: Scope,
  project: Project,
  base: string,
  homeDir: string,
  trust: TrustBase,
  preview: boolean,
  problems: Problem[],
  warnings: Problem[],
): LedgerState {
  const ledgerFile = ledgerPath(scope, project);
  const showLedger =
    scope === "user" ? "~/" + toPosix(relative(homeDir, ledgerFile)) : toPosix(relative(project.root, ledgerFile));
  let ledgerOld: string | undefined;
  let ledger: Ledger = emptyLedger();
  const journalFile = journalPath(ledgerFile);
  let journalPending = false;
  const temps = new Set<string>();
  const journalRmdirs: string[] = [];
  if (!preview) {
    if (scope === "project") ledgerInside(ledgerFile, base, fs.guard);
    const e = fs.entry(ledgerFile);
    if (e.kind === "file") {
      ledgerOld = e.text;
      ledger = parseLedger(e.text, showLedger);
    } else if (e.kind !== "absent") problems.push({ code: "not_a_file", message: "is not a file", file: showLedger });
    // An `adopt --write` killed mid-way left its journal: rebuild the ledger from
    // what is on disk now (each file changed is either its old or its new bytes).
    const j = fs.entry(journalFile);
    if (j.kind === "file") {
      const replayed = replayJournal(fs, scope, base, trust, journalFile, j.text, temps, journalRmdirs, warnings);
      if (replayed) {
        journalPending = true;
        ledger = replayed;
      }
    }
    for (const t of fs.staleTemps(dirname(ledgerFile))) if (!t.endsWith(".lock.tmp")) temps.add(t);
  }
  // What the ledger names is trusted only as far as guardPath lets it (ledger.ts).
  const sane = sanitizeLedger(ledger, scope, trust, showLedger, fs.guard);
  warnings.push(...sane.warnings);
  ledger = sane.ledger;
  const ledgerBase =
    journalPending || sane.warnings.length
      ? Object.keys(ledger.hosts).length || ledger.dirs?.length
        ? serializeLedger(ledger)
        : undefined
      : ledgerOld;
  return {
    ledgerFile,
    show: showLedger,
    ledger,
    ledgerOld,
    ledgerBase,
    journalFile,
    journalPending,
    temps,
    journalRmdirs,
  };
}

/** An `adopt --write` killed mid-way left its journal: the ledger rebuilt from what is on disk now
 * (each file changed is either its old or its new bytes); undefined when the journal does not parse.
 * What it names outside the trust base, or unlike what hcpx records, is ignored with a warning. */
function replayJournal(
  fs: ReadFs,
  scope: Scope,
  base: string,
  trust: TrustBase,
  journalFile: string,
  text: string,
  temps: Set<string>,
  journalRmdirs: string[],
  warnings: Problem[],
): Ledger | undefined {
  const journal = parseJournal(text);
  if (!journal) return undefined;
  const showJournal = toPosix(relative(base, journalFile));
  const ignored = (path: string, what: string) =>
    warnings.push({
      code: "journal_entry_ignored",
      severity: "warning",
      file: (scope === "user" ? "~/" : "") + showJournal,
      path,
      message: `${what}; ignored: hcpx never reads, writes or deletes what it names`,
      hint: "the journal is written by an interrupted hcpx adopt --write; delete it if someone else wrote it",
    });
  for (const [i, d] of (Array.isArray(journal.rmdirs) ? journal.rmdirs : []).entries()) {
    const g = fs.guard(d, trust, "absolute");
    if (g.ok) journalRmdirs.push(g.abs);
    else ignored(`rmdirs[${i}]`, `directory ${JSON.stringify(d)} ${g.reason}`);
  }
  const state = new Map<string, "old" | "new">();
  const hash = (v: unknown) => v === null || (typeof v === "string" && /^[0-9a-f]{64}$/.test(v));
  for (const [i, f] of journal.files.entries()) {
    const g = fs.guard(f?.path, trust);
    if (!g.ok) {
      ignored(`files[${i}].path`, `file ${JSON.stringify(f?.path)} ${g.reason}`);
      continue;
    }
    if (g.real !== f.real || !hash(f.before) || !hash(f.after)) {
      ignored(
        `files[${i}]`,
        `file ${JSON.stringify(f.path)} does not match what hcpx records (its real path or hashes)`,
      );
      continue;
    }
    const now = fs.entry(g.real);
    const h = now.kind === "file" ? sha256(now.text) : now.kind === "absent" ? null : "?";
    state.set(f.path, h === f.after ? "new" : h === f.before ? "old" : "new");
    for (const t of fs.staleTemps(dirname(g.real))) temps.add(t);
  }
  const parse = (t: string | undefined) =>
    t === undefined ? emptyLedger() : parseLedger(t, (scope === "user" ? "~/" : "") + showJournal);
  return reconcileLedger(parse(journal.ledgerOld), parse(journal.ledgerNew), (p) => state.get(p));
}

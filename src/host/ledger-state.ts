// Where a ledger lives, and the one reader of it (readLedger): the ledger file,
// and for the adopt planner the journal an interrupted `adopt --write` left (the
// ledger rebuilt to agree with the disk), through a read-only disk (src/plan/fs.ts:
// the planner's, or the real one for doctor and host detection) and adopt's trust
// rules (src/host/ledger.ts sanitizeLedger).
import { join, relative, dirname } from "node:path";
import type { Project } from "../pack/model";
import { HcpxError, type Problem } from "../util/errors";
import { toPosix, userConfigDir } from "../util/paths";
import { guardPath, type Guarded, type TrustBase } from "../util/fsio";
import type { ReadFs } from "../plan/fs";
import { sha256 } from "../util/text";
import { CAPS } from "../util/readfile";
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

/** Where a ledger is read from, how far what it names is trusted, and how messages name it. */
export interface LedgerAt {
  /** the ledger file (absolute) */
  file: string;
  scope: Scope;
  /** every path the ledger (or its journal) names stays inside this: the project root, or $HOME (`~/…`) */
  trust: TrustBase;
  /** the file as messages name it (`.hcp/adopted.json`, `~/.config/hcp/adopted.json`) */
  show: string;
}

/** The ledger `file` of a scope whose paths stay inside `base` (the project root, or $HOME), named as adopt names it. */
export function ledgerAt(file: string, scope: Scope, base: string): LedgerAt {
  return {
    file,
    scope,
    trust: { dir: base, prefix: scope === "user" ? "~/" : "" },
    show: (scope === "user" ? "~/" : "") + toPosix(relative(base, file)),
  };
}

/** What readLedger found. */
export interface LedgerRead {
  /** the ledger as far as it can be trusted (sanitizeLedger; empty when there is no ledger file) */
  ledger: Ledger;
  /** the file's text as read (undefined: no file) */
  text?: string;
  /** what was left out of the ledger or the journal, each naming the file and the entry */
  warnings: Problem[];
  /** something that is not a file where the ledger belongs */
  problems: Problem[];
  /** sanitizeLedger left something out: the file's text says more than the ledger that is trusted */
  trimmed: boolean;
  /** an interrupted run's journal was read and the ledger rebuilt from it */
  journalPending: boolean;
  /** temp files of a writer that was killed, next to the files the journal names */
  temps: string[];
  /** directories the interrupted run meant to remove when empty (absolute, guarded) */
  rmdirs: string[];
}

const nothingRead = (): LedgerRead => ({
  ledger: emptyLedger(),
  warnings: [],
  problems: [],
  trimmed: false,
  journalPending: false,
  temps: [],
  rmdirs: [],
});

/**
 * The one reader of an adopt ledger, for every caller: the adopt planner (through
 * its read-only disk, with the journal an interrupted `adopt --write` left folded
 * in), and doctor's adopted check and host detection (through the real disk,
 * `diskFs`). Adopt's trust rules for all: a project's `.hcp` that a symlink leads
 * out of the project is refused (ledgerInside), the read is bounded by the ledger's
 * cap, a ledger that does not parse is an error (bad_ledger), and only what passes
 * guardPath is kept (sanitizeLedger), with a warning for each thing left out.
 */
export function readLedger(fs: ReadFs, at: LedgerAt, journal?: { file: string }): LedgerRead {
  const out = nothingRead();
  if (at.scope === "project") ledgerInside(at.file, at.trust.dir, fs.guard);
  const e = fs.entry(at.file);
  if (e.kind === "file") {
    const size = Buffer.byteLength(e.text);
    if (size > CAPS.ledger)
      throw new HcpxError({
        code: "file_too_large",
        message: `is ${size} bytes, more than the ${CAPS.ledger} bytes hcpx reads from such a file`,
        file: at.show,
        hint: "this is not a ledger hcpx wrote: restore it from version control, or delete it",
      });
    out.text = e.text;
    out.ledger = parseLedger(e.text, at.show);
  } else if (e.kind !== "absent") out.problems.push({ code: "not_a_file", message: "is not a file", file: at.show });
  // An `adopt --write` killed mid-way left its journal: rebuild the ledger from
  // what is on disk now (each file changed is either its old or its new bytes).
  const j = journal ? fs.entry(journal.file) : undefined;
  if (journal && j?.kind === "file") {
    const replayed = replayJournal(fs, at, journal.file, j.text, out);
    if (replayed) {
      out.journalPending = true;
      out.ledger = replayed;
    }
  }
  // What the ledger names is trusted only as far as guardPath lets it (ledger.ts).
  const sane = sanitizeLedger(out.ledger, at.scope, at.trust, at.show, fs.guard);
  out.warnings.push(...sane.warnings);
  out.trimmed = sane.warnings.length > 0;
  out.ledger = sane.ledger;
  return out;
}

/** What the adopt planner starts from: its ledger (readLedger, journal included) unless it only previews, and the stale temps of the ledger's directory. */
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
  const journalFile = journalPath(ledgerFile);
  const at: LedgerAt = { file: ledgerFile, scope, trust, show: showLedger };
  const read = preview ? nothingRead() : readLedger(fs, at, { file: journalFile });
  problems.push(...read.problems);
  warnings.push(...read.warnings);
  const temps = new Set(read.temps);
  if (!preview) for (const t of fs.staleTemps(dirname(ledgerFile))) if (!t.endsWith(".lock.tmp")) temps.add(t);
  const { ledger, text: ledgerOld, journalPending } = read;
  const ledgerBase =
    journalPending || read.trimmed
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
    journalRmdirs: read.rmdirs,
  };
}

/** An `adopt --write` killed mid-way left its journal: the ledger rebuilt from what is on disk now
 * (each file changed is either its old or its new bytes); undefined when the journal does not parse.
 * What it names outside the trust base, or unlike what hcpx records, is ignored with a warning. */
function replayJournal(
  fs: ReadFs,
  at: LedgerAt,
  journalFile: string,
  text: string,
  out: Pick<LedgerRead, "warnings" | "temps" | "rmdirs">,
): Ledger | undefined {
  const journal = parseJournal(text);
  if (!journal) return undefined;
  const trust = at.trust;
  const showJournal = trust.prefix + toPosix(relative(trust.dir, journalFile));
  const ignored = (path: string, what: string) =>
    out.warnings.push({
      code: "journal_entry_ignored",
      severity: "warning",
      file: showJournal,
      path,
      message: `${what}; ignored: hcpx never reads, writes or deletes what it names`,
      hint: "the journal is written by an interrupted hcpx adopt --write; delete it if someone else wrote it",
    });
  for (const [i, d] of (Array.isArray(journal.rmdirs) ? journal.rmdirs : []).entries()) {
    const g = fs.guard(d, trust, "absolute");
    if (g.ok) out.rmdirs.push(g.abs);
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
    for (const t of fs.staleTemps(dirname(g.real))) out.temps.push(t);
  }
  const parse = (t: string | undefined) => (t === undefined ? emptyLedger() : parseLedger(t, showJournal));
  return reconcileLedger(parse(journal.ledgerOld), parse(journal.ledgerNew), (p) => state.get(p));
}

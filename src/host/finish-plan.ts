// The end of an adopt plan: every file that changes and the new ledger, as a
// FilePlan whose record (the ledger and journal texts) the one applier
// (src/plan/apply.ts) is handed; refused before anything is written when a
// write would fail half-way.
import { dirname } from "node:path";
import { HcpxError } from "../util/errors";
import { twinConflict } from "./twins";
import type { FileChange, LedgerRecord } from "../plan/types";
import { ledgerKey, ledgerRender, serializeLedger, type Ledger } from "./ledger";
import type { AdoptPlan, RunView } from "./adopt-types";

/** The plan: every file that changes, the new ledger; refused before anything is written when a write would fail half-way. */
export function finishPlan(run: RunView): AdoptPlan {
  const { problems, opts, state } = run;
  if (problems.length) throw new HcpxError(problems);
  const next = nextLedger(run);
  const ledgerNew = next && serializeLedger(next);
  const changes = changesOf(run);
  if (!opts.preview) {
    refuseOneFileTwice(run, changes);
    refuseUnwritable(run, changes);
  }
  const rmdirs = [...run.rmdirCandidates].sort((a, b) => b.length - a.length);
  const recNew = ledgerNew === state.ledgerOld ? state.ledgerOld : ledgerNew;
  // baseDirs: the directories made for the ledger itself, as the ledger the plan started from records them
  const render = ledgerRender({ base: state.ledgerBase, baseDirs: state.ledger.dirs ?? [], next });
  const record: LedgerRecord = {
    kind: "ledger",
    file: state.ledgerFile,
    old: state.ledgerOld,
    new: recNew,
    base: state.ledgerBase,
    journal: state.journalFile,
    journalPending: state.journalPending,
    render,
  };
  return {
    scope: run.scope,
    base: run.base,
    hosts: run.hosts,
    remove: opts.remove === true,
    changes,
    notes: run.notes,
    conflicts: run.conflicts,
    warnings: run.warnings,
    unread: run.unread,
    staleTemps: [...state.temps].sort(),
    rmdirs,
    record,
    commands: run.commands,
    remotes: run.remotes,
  };
}

/** The ledger after this run (undefined: no host left): its hosts replaced, and the shared markdown blocks other hosts recorded given their new hash. */
function nextLedger(run: RunView): Ledger | undefined {
  const next: Ledger = { ...run.ledger, hosts: { ...run.ledger.hosts } };
  for (const h of run.hosts) delete next.hosts[h];
  Object.assign(next.hosts, run.newHosts);
  // A shared file holds one hcp block (AGENTS.md: Droid, Kilo, Qoder, Auggie…): when this run
  // rewrites it (another host joined whose shell cannot run `hcpx exec`), the block the other
  // hosts recorded is now this one. Their entries record its new hash, else their own
  // --check/--remove would take the block for a hand edit and leave it in place.
  const blocks = new Map(
    Object.values(run.newHosts).flatMap((h) =>
      h.entries.filter((e) => e.kind === "markdown-block").map((e) => [ledgerKey(e), e.sha256] as const),
    ),
  );
  for (const [h, lh] of Object.entries(next.hosts)) {
    if (
      run.hosts.includes(h) ||
      lh.scope !== run.scope ||
      !lh.entries.some((e) => blocks.has(ledgerKey(e)) && blocks.get(ledgerKey(e)) !== e.sha256)
    )
      continue;
    next.hosts[h] = {
      ...lh,
      entries: lh.entries.map((e) => (blocks.has(ledgerKey(e)) ? { ...e, sha256: blocks.get(ledgerKey(e))! } : e)),
    };
  }
  return Object.keys(next.hosts).length ? next : undefined;
}

/** Every file whose text this run changes, sorted by path. */
function changesOf(run: RunView): FileChange[] {
  const changes: FileChange[] = [];
  const partsOf = (show: string) =>
    Object.values(run.newHosts).flatMap((h) =>
      h.entries.filter((e) => e.path === show).map((e) => ({ kind: e.kind, ...(e.key ? { key: e.key } : {}) })),
    );
  for (const f of run.vfs.values()) {
    const origText = f.orig.kind === "file" ? f.orig.text : null;
    if (f.cur === origText) continue;
    changes.push({
      parts: f.cur === null ? [] : [...new Map(partsOf(f.show).map((x) => [JSON.stringify(x), x])).values()],
      path: f.show,
      abs: f.abs,
      real: f.real,
      kind: origText === null ? "create" : f.cur === null ? "delete" : "update",
      old: origText ?? undefined,
      new: f.cur ?? undefined,
      hosts: [...f.hosts].sort(),
      notes: [...new Set(f.notes)],
    });
  }
  changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return changes;
}

/**
 * Refuse a change to a file that another path of the plan, or another host's part recorded under
 * another path, is too: a symbolic link makes them one file (CLAUDE.md -> AGENTS.md, .cursor/skills ->
 * ../.claude/skills). Written twice, the last host's bytes won and the other's --check saw a hand
 * edit; removed, one host took the other's file with it.
 */
function refuseOneFileTwice(run: RunView, changes: FileChange[]): void {
  const byReal = new Map<string, string>();
  for (const ch of changes) {
    const twin = byReal.get(ch.real);
    if (twin !== undefined && twin !== ch.path)
      run.problems.push({
        code: "host_conflict",
        message: `${ch.path} and ${twin} are one file (a symbolic link leads from one to the other): this run would write it for two hosts`,
        file: ch.path,
        hint: "make one of them a file of its own, or leave one of these hosts out",
      });
    byReal.set(ch.real, ch.path);
    const other = run.vfs.get(ch.abs)?.twinOf;
    if (other) run.problems.push(twinConflict(ch.path, other));
  }
  if (run.problems.length) throw new HcpxError(run.problems);
}

/** Refuse, before anything is written, what the write would fail on half-way
 * (or should not do): a read-only file, a directory we cannot write in. */
function refuseUnwritable(run: RunView, changes: FileChange[]): void {
  const { problems, vfs } = run;
  for (const ch of changes) {
    const f = vfs.get(ch.abs)!;
    if (f.orig.kind === "file" && (f.orig.mode & 0o200) === 0) {
      problems.push({
        code: "read_only",
        message: `is read-only (mode ${f.orig.mode.toString(8)}); left untouched`,
        file: ch.path,
        hint: "make it writable (chmod u+w) if hcpx should edit it, or leave this host out",
      });
      continue;
    }
    let d = dirname(ch.real);
    while (run.fs.entry(d).kind !== "dir" && dirname(d) !== d) d = dirname(d);
    if (!run.fs.writable(d)) {
      problems.push({
        code: "read_only",
        message: `cannot write in ${run.showOf(d) || "."}: permission denied; nothing written`,
        file: ch.path,
        hint: "make the directory writable, or leave this host out",
      });
    }
  }
  if (problems.length) throw new HcpxError(problems);
}

// The `hcpx pack update [id]` use case: each locked pack fetched again,
// compared with what is vendored, and, once the person has said yes to its
// review, swapped in (src/app/vendor.ts swapIn, through the door), locked, and
// its grants narrowed: an update never grants a write or a widening. Nothing
// here prints or asks: vendorUpdate() is a generator that yields each pack's
// review and takes the person's answer back (`next(yes)`), so that the question
// stays with the caller and each pack is fetched, reviewed and written in turn.
import { HcpxError, fail } from "../util/errors";
import { display } from "../util/paths";
import { neutralLine as o } from "../util/neutral";
import { loadPack, loadProject } from "../pack/load";
import type { Project } from "../pack/model";
import {
  diffHashes,
  hashTree,
  lockFile,
  openLock,
  packsRoot,
  readLock,
  writeLock,
  type Lock,
  type LockEntry,
} from "../packs/lock";
import { fetchLatest, removeDir } from "../packs/source";
import { sweepStaging } from "./vendor-sweep";
import { refuseChangedEntry } from "./vendor-files";
import { editedProblem, lookAt, readRecord, recordReplacing, recordWritten, type FolderLook } from "./vendor-record";
import { diffEmpty, diffLines, diffReach, reachOf, widenedVerbs, type ReachDiff } from "../packs/review";
import {
  baseOf,
  grantReads,
  hashesOf,
  holdConfig,
  packTarget,
  projectRoot,
  relocate,
  retarget,
  sourceLabel,
  stageChecked,
  swapIn,
  withdrawGrants,
  type VendorOpts,
} from "./vendor";

/** One pack's update, as the person reviews it: the version change and what it runs, reads and writes. */
export interface UpdateReview {
  id: string;
  /** `pack '<id>' <from> → <to> (<source>):` */
  head: string;
  /** the diff of its reach, one line each (indented) */
  lines: string[];
}

export interface UpdateResult {
  id: string;
  status: "up_to_date" | "updated" | "review_required";
  from?: string;
  to?: string;
  diff?: ReachDiff;
  granted?: string[];
  withdrawn?: string[];
  denied?: string[];
  /** new pass-through verbs: reads that take the agent's own argv, never granted by an update */
  withheld?: string[];
  /** up to date with `--to` another source of the same bytes: the source hcp.lock now records */
  source?: string;
}

export interface UpdateReport {
  packs: UpdateResult[];
  /** the reviews not accepted (head and lines): nothing was changed for those packs */
  pending: string[];
}

/** Update `idArg` (or every locked pack): yields each changed pack's review, takes whether the person accepts it. */
export function* vendorUpdate(
  idArg: string | undefined,
  opts: VendorOpts,
): Generator<UpdateReview, UpdateReport, boolean> {
  const root = projectRoot(opts);
  const lock: Lock = readLock(root);
  const ids = idArg ? [idArg] : Object.keys(lock.packs).sort();
  if (opts.to !== undefined && !idArg)
    fail("usage", "--to goes with one pack id", { hint: "hcpx pack update <id> --to <spec | ref | path>" });
  if (idArg && !lock.packs[idArg]) {
    const locked = Object.keys(lock.packs).sort();
    fail("unknown_pack", `no pack '${idArg}' in ${display(lockFile(root))}`, {
      hint: locked.length ? `locked packs: ${locked.join(", ")}` : "`hcpx pack add <source>` adds one",
    });
  }
  const project = loadProject({ config: opts.config });
  const report: UpdateReport = { packs: [], pending: [] };
  for (const id of ids) {
    const entry = lock.packs[id]!;
    const target = packTarget(root, id);
    refuseNotLocked(root, id, entry, target);
    const source = opts.to !== undefined ? retarget(entry.source, opts.to) : entry.source;
    const fetched = fetchLatest(source, root, `${id} (${sourceLabel(entry.source)})`);
    const files = hashesOf(fetched);
    if (diffHashes(entry.files, files).length === 0) {
      report.packs.push(upToDate(root, id, entry, fetched.source, files, opts.to !== undefined));
      continue;
    }
    const before = reachOf(loadPack(target), project);
    const staged = stageChecked(fetched, root, project, `${id} (${sourceLabel(fetched.source)})`);
    const { staging, id: newId } = staged;
    const after = relocate(staged.reach, staging, target);
    try {
      if (newId !== id)
        fail("id_changed", `the new version of '${id}' says its id is '${newId}'`, {
          hint: `add it as a new pack (\`hcpx pack add\`) and remove '${id}'`,
        });
      const diff = diffReach(before, after);
      const newVersion = loadPack(staging).surface.version;
      const head = `pack '${id}' ${o(entry.version)} → ${o(newVersion)} (${sourceLabel(fetched.source)}):`;
      const lines = diffEmpty(diff)
        ? ["  no change to what it runs, reads or writes (file contents changed)"]
        : diffLines(diff);
      if (!(yield { id, head, lines })) {
        removeDir(baseOf(root), staging);
        report.packs.push({ id, status: "review_required", from: entry.version, to: newVersion, diff });
        report.pending.push(head, ...lines);
        continue;
      }
      const newEntry = { source: fetched.source, version: newVersion, files };
      report.packs.push({
        id,
        status: "updated",
        from: entry.version,
        to: newVersion,
        diff,
        ...applyUpdate(root, { was: entry, now: newEntry }, id, staging, target, diff, project, opts),
      });
    } catch (e) {
      removeDir(baseOf(root), staging);
      throw e;
    }
  }
  return report;
}

/**
 * A pack whose source has the bytes vendored. With --to another source (a new tag on the same commit) there
 * is nothing to review, and the lock follows the source the person named, so that the next update and install
 * fetch from it: hcp.lock as it is now, under its edit lock, and only while it still locks these bytes.
 */
function upToDate(
  root: string,
  id: string,
  entry: LockEntry,
  source: LockEntry["source"],
  files: Record<string, string>,
  to: boolean,
): UpdateResult {
  if (!to || JSON.stringify(source) === JSON.stringify(entry.source)) return { id, status: "up_to_date" };
  const current = openLock(root);
  const now = current.packs[id];
  // changed while this one fetched: its bytes are not these, so the source named is not recorded, and the
  // person is told so rather than that it is
  refuseChangedEntry(root, id, files, now?.files, {
    doing: `this update fetched ${sourceLabel(source)}`,
    result: "nothing was recorded",
    again: `hcpx pack update ${id} --to …`,
  });
  current.packs[id] = { ...now!, source };
  writeLock(root, current);
  return { id, status: "up_to_date", source: sourceLabel(source) };
}

/**
 * An update compares the new version with the vendored folder, so that folder must be what hcp.lock records:
 * one holding a hand edit is refused as install refuses it (`pack_edited`, ./vendor-record.ts), any other
 * difference (a lock changed by a pull, a folder not installed) with `pack_differs`. What it found (its hashes)
 * is returned, for the record written before the swap.
 */
function refuseNotLocked(root: string, id: string, entry: LockEntry, target: string): FolderLook {
  const look = lookAt(target, entry.files, readRecord(root)?.packs[id]);
  if (look.state === "edited") throw new HcpxError(editedProblem(id, target, look));
  if (look.state !== "unchanged")
    fail(
      "pack_differs",
      `${display(target)} does not match hcp.lock (${look.state === "missing" ? "not installed" : look.detail.slice(0, 5).join(", ")}), so there is nothing sound to compare the update with`,
      { hint: "run `hcpx pack install` first" },
    );
  return look;
}

/**
 * After the yes: the staged folder must still hold the files fetched, staged and reviewed (`files`); a file
 * changed, added or removed in it meanwhile (something else writing in .hcp/packs) is not what the person
 * said yes to, and is refused by name before anything is swapped in or locked.
 */
function refuseRestaged(root: string, id: string, staging: string, files: Record<string, string>): void {
  const changed = diffHashes(files, hashTree(staging));
  if (changed.length)
    fail(
      "changed_during_plan",
      `${display(staging)}: the staged files of '${id}' changed after they were reviewed (${changed.slice(0, 5).join(", ")}${changed.length > 5 ? ", …" : ""}); nothing was changed`,
      {
        hint: `something else writes in ${display(packsRoot(root))}: run \`hcpx pack update ${id}\` again and review it again`,
      },
    );
}

/**
 * Swap the reviewed version in, record `entry.now` in hcp.lock, narrow the grants and grant its new reads;
 * only while hcp.lock still locks `entry.was`, the version the review compared it with.
 */
function applyUpdate(
  root: string,
  entry: { was: LockEntry; now: LockEntry },
  id: string,
  staging: string,
  target: string,
  diff: ReachDiff,
  project: Project,
  opts: VendorOpts,
): Pick<UpdateResult, "granted" | "withdrawn" | "denied" | "withheld"> {
  // never grant a write or a widening: withdraw grants of commands that became writes, became reads
  // (a read runs without a confirm), lost their confirm, land wider or became pass-through. Before the
  // swap, and with the config's edit lock taken: a config that cannot be edited leaves the old pack,
  // its lock entry and its grants; a failure after leaves the new pack with those grants withdrawn.
  // hcp.lock's edit lock first (one order: src/packs/lock.ts openLock), then the config's
  const lock = openLock(root);
  // changed while this one fetched (or the person read the review): what was reviewed is not the change any more
  refuseChangedEntry(root, id, entry.was.files, lock.packs[id]?.files, {
    doing: "this update was fetched and reviewed",
    result: "nothing was changed",
    again: `hcpx pack update ${id}`,
  });
  refuseRestaged(root, id, staging, entry.now.files);
  sweepStaging(root); // what a killed run left (src/app/vendor-sweep.ts), under the same lock
  // the config's edit lock (withdrawGrants below), which may be waited for, before the look: no wait between it and the swap
  holdConfig(opts);
  // a file changed or added by hand while the person read the review (or this one waited) is not replaced
  const look = refuseNotLocked(root, id, entry.was, target);
  const w = withdrawGrants(project, opts, id, widenedVerbs(diff));
  const rec = recordReplacing(root, id, entry.now.files, target, entry.was.files, look);
  swapIn(root, staging, target, [entry.was.files, rec?.files]);
  lock.packs[id] = entry.now;
  writeLock(root, lock);
  recordWritten(root, id, entry.now.files);
  const pack = loadPack(target);
  const granted = grantReads(opts, loadProject({ config: opts.config }), pack, diff.newReads);
  // a new pass-through verb waits for a person (src/pack/grants.ts grantedByDefault)
  const passThrough = pack.commands.filter((c) => c.passThrough && diff.newReads.includes(c.verb_key));
  return { granted, withdrawn: w.removed, denied: w.denied, withheld: passThrough.map((c) => `${id}.${c.verb_key}`) };
}

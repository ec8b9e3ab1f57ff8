// The `hcpx pack add <source>` use case: a pack from elsewhere (npm, git, a
// path) fetched, staged, loaded and linted (errors refuse it), reviewed, and,
// once the person has said yes, swapped in under .hcp/packs/<id> (through the
// door, src/app/vendor.ts swapIn), recorded in hcp.lock, activated with its
// reads granted (./activate.ts), and never a write: with --force over a
// vendored version, a command whose Policy widened is withdrawn from the grants.
// Nothing here prints or asks: vendorAdd() is a generator that yields the
// review and takes the person's answer back (`next(yes)`), as vendorUpdate()
// does (./vendor-update.ts).
import { existsSync } from "node:fs";
import { fail, type Problem } from "../util/errors";
import { display } from "../util/paths";
import { loadPack, loadProject } from "../pack/load";
import type { Pack } from "../pack/model";
import {
  diffHashes,
  hashTree,
  lockFile,
  openLock,
  readLock,
  writeLock,
  type Lock,
  type LockEntry,
} from "../packs/lock";
import { fetchNew, parseSource, removeDir, type Fetched } from "../packs/source";
import { diffLines, diffReach, reachLines, widenedVerbs, type Reach, type ReachDiff } from "../packs/review";
import { activateDir, type Activated } from "./activate";
import {
  baseOf,
  hashesOf,
  packTarget,
  projectRoot,
  reachIfLoads,
  relocate,
  sourceLabel,
  stageChecked,
  swapInKeep,
  swapOut,
  withdrawGrants,
  type VendorOpts,
} from "./vendor";
import { sweepStaging } from "./vendor-sweep";
import { refuseChangedEntry, takeBack, type BackStep } from "./vendor-files";
import { RECORD_NAME, recordReplacing, recordTakenBack, recordWritten, type RecordEntry } from "./vendor-record";

/** The pack as the person reviews it before it is vendored: what it runs, from where, the env it reads, its writes. */
export interface AddReview {
  id: string;
  /** the folder it goes to */
  target: string;
  /** `pack '<id>' from <source>:`, then its reach (and, with --force over a vendored version, the Policy change), one line each */
  lines: string[];
}

/** What `pack add` did: vendored, locked and activated; or refused at the review (nothing was vendored). */
export type AddReport =
  | { status: "review_required"; review: AddReview }
  | {
      status: "added";
      id: string;
      /** the pack's folder (display path) */
      dir: string;
      version: string;
      source: LockEntry["source"];
      /** hcp.lock (display path) */
      lock: string;
      /** path → sha256 of every vendored file */
      files: Record<string, string>;
      reach: Reach;
      granted: string[];
      withheld: Activated["withheld"];
      grantedBy: Activated["grantedBy"];
      /** --force over a vendored version: its Policy change, and the grants that change took back */
      change?: { changed: ReachDiff["changed"]; withdrawn: string[]; denied: string[] };
      warnings: Problem[];
    };

/** Vendor `source`: yields its review once, takes whether the person accepts it. */
export async function* vendorAdd(source: string, opts: VendorOpts): AsyncGenerator<AddReview, AddReport, boolean> {
  const root = projectRoot(opts);
  const project = loadProject({ config: opts.config });
  const lock = readLock(root);
  const fetched = fetchNew(parseSource(source, process.cwd()), root, source);
  const staged = stageChecked(fetched, root, project, source);
  const { staging, id } = staged;
  // from here on, whatever refuses or fails removes the staged copy (the catch below)
  let target: string;
  let reach: typeof staged.reach;
  let change: ReachDiff | undefined;
  let locked: Lock = lock;
  let widened: string[] = [];
  let w: { removed: string[]; denied: string[] } = { removed: [], denied: [] };
  let old: string | undefined;
  // .hcp/vendored.json's entry of `id` before this add wrote it (once it did): put back if the add is taken back
  let was: { entry: RecordEntry | undefined } | undefined;
  try {
    target = packTarget(root, id); // refused: a pack folder that is a link leading out of the project
    reach = relocate(staged.reach, staging, target);
    refuseExisting(root, lock, id, target, opts);
    const lines = [`pack '${id}' from ${sourceLabel(fetched.source)}:`, ...reachLines(reach)];
    // --force over a vendored version: its Policy change is a consent change too
    const beforeReach = existsSync(target) ? reachIfLoads(target) : undefined;
    change = beforeReach ? diffReach(beforeReach, reach) : undefined;
    if (change && change.changed.length)
      lines.push(`  Policy changes from the version vendored here:`, ...changedLines(change));
    const review = { id, target, lines };
    if (!(yield review)) {
      removeDir(baseOf(root), staging);
      return { status: "review_required", review };
    }
    // hcp.lock as it is now, under its edit lock (held until the command is done): another
    // vendoring command may have changed it while the person read the review
    locked = openLock(root);
    sweepStaging(root); // what a killed run left (src/app/vendor-sweep.ts), under the same lock
    refuseExisting(root, locked, id, target, opts);
    // --force over a vendored version: the Policy change shown was from the version locked when this began
    refuseChangedEntry(root, id, lock.packs[id]?.files, locked.packs[id]?.files, {
      doing: "this pack add fetched and reviewed it",
      result: "nothing was changed",
      again: `hcpx pack add ${source} --force`,
    });
    // a command the forced version widened (write → read included) loses its grant before the
    // new bytes land (a config that cannot be edited leaves the old pack and its grants)
    widened = change ? widenedVerbs(change) : [];
    if (widened.length) w = withdrawGrants(loadProject({ config: opts.config }), opts, id, widened);
    was = { entry: recordReplacing(root, id, hashesOf(fetched), target, locked.packs[id]?.files) };
    // a folder that is not exactly what hcp.lock or the record says hcpx wrote goes aside as `.kept`: never swept
    old = swapInKeep(root, staging, target, [locked.packs[id]?.files, was.entry?.files]);
  } catch (e) {
    // the swap failed (once `was` is set): the new version is not in the folder. The record's entry goes back
    // to what it was before this add also when the old folder could not be put back (the error names where it
    // is left, src/util/door.ts swapDirKeep): that is what hcpx last wrote in it (recordReplacing's `replacing`
    // never lists a hand edit, so one left in the old folder is still refused once the folder is moved back)
    takeBack(e, [dropStaged(root, staging), ...(was ? [recordBack(root, id, was.entry)] : [])]);
  }
  const files = hashesOf(fetched);
  const { pack, act } = await lockAndActivate(root, locked, id, { fetched, files, old, was: was.entry }, target, {
    ...opts,
    withhold: widened,
  });
  return {
    status: "added",
    id,
    dir: display(target),
    version: pack.surface.version,
    source: fetched.source,
    lock: display(lockFile(root)),
    files,
    reach,
    granted: act.granted,
    withheld: act.withheld,
    grantedBy: act.grantedBy,
    ...(change?.changed.length ? { change: { changed: change.changed, withdrawn: w.removed, denied: w.denied } } : {}),
    warnings: staged.warnings,
  };
}

/** The take-back step that removes the staged copy (a dead run's is swept by the next vendoring command). */
function dropStaged(root: string, staging: string): BackStep {
  return {
    left: `the staged copy ${display(staging)} was not removed`,
    then: "the next `hcpx pack install` removes it",
    run: () => removeDir(baseOf(root), staging),
  };
}

/** A pack already here is refused: one in hcp.lock (update or remove it), or a folder hcp.lock does not know (unless --force). */
function refuseExisting(root: string, lock: Lock, id: string, target: string, opts: VendorOpts): void {
  if (lock.packs[id] && !opts.force)
    fail("exists", `pack '${id}' is already in ${display(lockFile(root))} (${sourceLabel(lock.packs[id].source)})`, {
      hint: `run \`hcpx pack update ${id}\` to move it to a new version, or \`hcpx pack remove ${id}\` first`,
    });
  if (!lock.packs[id] && existsSync(target) && !opts.force)
    fail("exists", `${display(target)} exists but is not in hcp.lock`, {
      file: display(target),
      hint: "remove it, or pass --force to replace it",
    });
}

/** The Policy changes alone of a diff (what --force over a vendored version changes in a command the person consented to). */
function changedLines(change: ReachDiff): string[] {
  return diffLines({
    ...change,
    newWrites: [],
    newConfirmless: [],
    newReads: [],
    removed: [],
    newBins: [],
    newEnv: [],
    newSetsEnv: [],
    newModules: [],
    newHttp: [],
    kindChanged: undefined,
    rerun: undefined,
  });
}

/**
 * Check what landed, record the pack in hcp.lock and activate it; the folder it replaced (`old`, kept
 * aside by swapInKeep) is removed only then. On any failure the vendoring is taken back: the old
 * folder in place again (the pack that was working keeps working), hcp.lock's entry as it was, then
 * the record's (`was`; until then the entry naming both versions accounts for the folder).
 */
async function lockAndActivate(
  root: string,
  lock: Lock,
  id: string,
  got: { fetched: Fetched; files: Record<string, string>; old: string | undefined; was: RecordEntry | undefined },
  target: string,
  opts: VendorOpts & { withhold: string[] },
): Promise<{ pack: Pack; act: Activated }> {
  const prior = lock.packs[id];
  try {
    const landed = diffHashes(got.files, hashTree(target));
    if (landed.length)
      fail("hash_mismatch", `what landed in ${display(target)} differs from what was fetched: ${landed.join(", ")}`, {
        hint: "something changed the folder while hcpx wrote it; run `hcpx pack install`",
      });
    const pack = loadPack(target);
    lock.packs[id] = { source: got.fetched.source, version: pack.surface.version, files: got.files };
    writeLock(root, lock);
    const act = await activateDir(target, opts);
    recordWritten(root, id, got.files);
    if (got.old) removeDir(baseOf(root), got.old);
    return { pack, act };
  } catch (e) {
    // not activated (e.g. another active pack has this id, the config is locked): take the vendoring back;
    // hcp.lock's entry even when the folder could not be put back (pack install then puts back its copy kept
    // aside, the locked files), the record's only once both are (until then its entry names both versions)
    const aside = got.old ? ` (its copy kept aside: ${display(got.old)})` : "";
    takeBack(e, [
      {
        left: `${display(target)} was not put back as it was${aside}`,
        then: got.old?.endsWith(".kept")
          ? `check ${display(target)}: move its old folder ${display(got.old)} back by hand (see above); ` +
            "it may be yours: `hcpx pack install` never removes it"
          : `check ${display(target)}, and run \`hcpx pack install\` to put back what hcp.lock records`,
        run: () => swapOut(root, got.old, target),
      },
      {
        left: `${display(lockFile(root))} still records the version this add fetched for '${id}'`,
        then:
          "run this `hcpx pack add` again once its error is fixed, or restore hcp.lock (e.g. from version control) " +
          "and run `hcpx pack install`",
        run: () => {
          if (prior) lock.packs[id] = prior;
          else delete lock.packs[id];
          writeLock(root, lock);
        },
      },
      { ...recordBack(root, id, got.was), last: true },
    ]);
  }
}

/** The take-back step of the record's entry of `id` (recordTakenBack); left undone, pack install records again. */
function recordBack(root: string, id: string, was: RecordEntry | undefined): BackStep {
  return {
    left: `${RECORD_NAME}'s entry of '${id}' was not put back`,
    then: "run `hcpx pack install` (it records the folder again)",
    run: () => recordTakenBack(root, id, was),
  };
}

// What a killed `hcpx pack add / update / install` leaves in .hcp/packs, put right by the next one
// (src/util/door.ts stagingDir, swapDirKeep): its staging folder `.staging-<pid>-<rand>` (the
// fetched copy, never swapped in), and, when it was killed between the swap's two renames or before
// the old folder was removed, the old folder renamed aside to `.staging-<pid>-<rand>.old` (or
// `.kept`, below). Only a dead writer's folders are touched (a live pid's run is under way).
// - A folder that holds exactly what hcp.lock records for a pack whose folder is missing is put in
//   its place: the locked bytes, without fetching them again (an old folder, killed between the
//   swap's renames; a fetched copy, killed before install's swap).
// - Every other folder of a dead run but a `.kept` one is removed: a fetched copy, or an old folder
//   the lock no longer needs (the pack's folder is there). One that holds the locked files of a pack
//   whose folder differs from the lock is kept while it does (pack install fetches the locked files;
//   the next sweep removes it).
// - A folder set aside as `.staging-<pid>-<rand>.<id>.kept` (`.staging-<pid>-<rand>.kept` by an older
//   hcpx) is never removed nor moved, only named in what the sweep says, with the folder it was
//   (`.hcp/packs/<id>`): the swap named it so because it was not exactly what hcpx wrote there
//   (hcp.lock's or the record's files: src/app/vendor-files.ts asideName), so it may be the person's own
//   (a `pack add --force` over a folder of theirs, killed, or failed with its old folder not put back).
//   The person moves it back or removes it.
// `.hcp/packs` is hcpx's own: everything here but a `.kept` folder is reproducible from hcp.lock and
// its sources. A link named like a run's folder is not one (a run makes folders): it is left alone,
// never followed.
import { existsSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pidAlive } from "../util/fsio";
import { display } from "../util/paths";
import { diffHashes, hashTree, openLock, packDir, packsRoot, type Lock } from "../packs/lock";
import { removeDir } from "../packs/source";
import { baseOf, packTarget, swapIn } from "./vendor-files";
import { recordWritten } from "./vendor-record";

// a run's folder: its pid; and for a `.kept` one, the pack whose folder it was (none: an older hcpx named none)
const STAGING = /^\.staging-(\d+)-[0-9a-z]+(\.old|(?:\.([a-z][a-z0-9-]{0,31}))?\.kept)?$/;

/** Put right what dead runs left in .hcp/packs (above); what was done, one line each (empty: nothing was left). */
export function sweepStaging(root: string): string[] {
  let names: string[];
  let parent: string;
  try {
    // a packs folder that is a link is not hcpx's own: nothing to sweep (the command's own write refuses it)
    parent = packsRoot(root);
    names = readdirSync(parent);
  } catch {
    return [];
  }
  // a folder a run made; a link of that name is not one, and is left alone
  const dead = names.filter((n) => {
    const m = STAGING.exec(n);
    return m !== null && Number(m[1]) !== process.pid && !pidAlive(Number(m[1])) && isFolder(join(parent, n));
  });
  if (dead.length === 0) return [];
  const lock = openLock(root);
  const done: string[] = [];
  const keep = new Set<string>();
  // the old folders first: a run killed between the renames left both copies, and the old one is the locked
  for (const name of [...dead.filter((n) => n.endsWith(".old")), ...dead.filter((n) => !n.endsWith(".old"))]) {
    const dir = join(parent, name);
    if (name.endsWith(".kept")) {
      keep.add(name);
      const was = STAGING.exec(name)?.[3];
      const back = was ? display(packDir(root, was)) : undefined;
      done.push(
        back
          ? `kept ${display(dir)}: a run that did not finish set ${back} aside here, and it is not what hcpx wrote ` +
              `(it may be yours); move it back to ${back} by hand (first move away what is there now), or remove it yourself`
          : `kept ${display(dir)}: a run that did not finish set it aside, and it is not what hcpx wrote (it may be ` +
              "yours); move it back where it was by hand, or remove it yourself",
      );
      continue;
    }
    const id = lockedIn(dir, lock);
    if (id === undefined) continue;
    const target = packDir(root, id);
    if (!existsSync(target)) {
      swapIn(root, dir, packTarget(root, id));
      recordWritten(root, id, lock.packs[id]!.files);
      done.push(`${id}: put back from an interrupted run's copy (${display(dir)}), as hcp.lock records it`);
    } else if (!same(target, lock.packs[id]!.files)) keep.add(name);
  }
  for (const name of dead) {
    const dir = join(parent, name);
    if (keep.has(name) || !existsSync(dir)) continue;
    removeDir(baseOf(root), dir);
    done.push(`removed ${display(dir)}, left by an interrupted run`);
  }
  return done;
}

/** The pack whose locked files `dir` holds exactly, if any. */
function lockedIn(dir: string, lock: Lock): string | undefined {
  let files: Record<string, string>;
  try {
    files = hashTree(dir);
  } catch {
    return undefined; // a link or special file: not a copy hcpx made
  }
  return Object.keys(lock.packs).find((id) => diffHashes(lock.packs[id]!.files, files).length === 0);
}

function same(dir: string, files: Record<string, string>): boolean {
  try {
    return diffHashes(files, hashTree(dir)).length === 0;
  } catch {
    return false;
  }
}

function isFolder(p: string): boolean {
  return lstatSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
}

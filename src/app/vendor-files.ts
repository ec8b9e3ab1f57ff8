// Where vendored packs are written: every write of the vendoring commands goes through the one write
// door (src/util/door.ts) with the project root as its base, and a pack's folder is swapped in whole.
import { guard, swapBack, swapDir, swapDirKeep, type Base } from "../util/door";
import { display } from "../util/paths";
import { existsSync } from "node:fs";
import { basename } from "node:path";
import { PACK_ID_RE } from "../pack/schema";
import { diffHashes, hashTree, lockFile, packDir } from "../packs/lock";
import { fail } from "../util/errors";
import { errorLine, toldWithLeft } from "../util/ioerror";

/** Every write of these commands goes through src/util/door.ts with the project root as its base. */
export function baseOf(root: string): Base {
  return { dir: root, label: "the project" };
}

/** A pack's folder under .hcp/packs, refused when a component of its path (the folder included) is a link leading out of the project. */
export function packTarget(root: string, id: string): string {
  const target = packDir(root, id);
  guard(baseOf(root), target, display(target));
  return target;
}

/** File lists hcpx wrote in a pack's folder: its hcp.lock entry's, its record entry's (either may be absent). */
export type Known = (Record<string, string> | undefined)[];

/**
 * The suffix of the name a pack's folder gets while it is swapped out (src/util/door.ts swapDirKeep):
 * `.old` when it holds exactly files hcpx wrote there (one of `known`), a copy the sweep
 * (./vendor-sweep.ts) puts back or removes; `.<id>.kept` for anything else (it may be the person's own,
 * e.g. under `pack add --force`), named by the pack whose folder it was so that the sweep can say where
 * it goes back: no sweep removes it, only the swap that succeeded (the person's --force).
 */
export function asideName(target: string, known: Known): string {
  const kept = PACK_ID_RE.test(basename(target)) ? `.${basename(target)}.kept` : ".kept";
  let now: Record<string, string>;
  try {
    if (!existsSync(target)) return ".old"; // nothing goes aside
    now = hashTree(target);
  } catch {
    return kept; // a link, a special file, more than a pack holds: not a copy hcpx made
  }
  return known.some((k) => k !== undefined && diffHashes(k, now).length === 0) ? ".old" : kept;
}

/** Replace `target` with `staging` (renames inside the project; the old folder is removed after). */
export function swapIn(root: string, staging: string, target: string, known: Known = []): void {
  swapDir(baseOf(root), staging, target, display(target), asideName(target, known));
}

/** swapIn that keeps the old folder aside until the change succeeded (src/util/door.ts swapDirKeep): its path, if any. */
export function swapInKeep(root: string, staging: string, target: string, known: Known): string | undefined {
  return swapDirKeep(baseOf(root), staging, target, display(target), asideName(target, known));
}

/** Undo swapInKeep: the new folder removed, the old one (if any) back at `target`. */
export function swapOut(root: string, old: string | undefined, target: string): void {
  swapBack(baseOf(root), old, target, display(target));
}

/**
 * Refuse (`changed_during_plan`) when hcp.lock's entry of `id` as it is now, under its edit lock (`now`), no
 * longer locks the files it locked when this command read it (`was`; undefined: no entry then or now): another
 * vendoring command changed it while this one fetched or waited for the person's answer, so what was shown or
 * compared is not the change any more. `doing`: what this command did meanwhile; `result`: what it leaves.
 */
export function refuseChangedEntry(
  root: string,
  id: string,
  was: Record<string, string> | undefined,
  now: Record<string, string> | undefined,
  said: { doing: string; result: string; again: string },
): void {
  const same = was === undefined || now === undefined ? was === now : diffHashes(was, now).length === 0;
  if (!same)
    fail(
      "changed_during_plan",
      `${display(lockFile(root))}: the entry of '${id}' changed while ${said.doing} (another vendoring command wrote it); ${said.result}`,
      { hint: `run \`${said.again}\` again` },
    );
}

/** A step of taking a failed command's changes back. */
export interface BackStep {
  /** what stays changed when it fails, as the person reads it ("the folder … was not put back") */
  left: string;
  /** what the person can do about that */
  then: string;
  run(): void;
  /** run only when every step before it was done (until then what it would put back is still right as it is) */
  last?: boolean;
}

/**
 * Take a failed command's changes back (`steps`, in order) and throw `first`, the error that made it fail:
 * a step that throws in turn does not hide it. Its code is kept; each step that failed is named in its
 * message (what was left, and why), and what to do about it comes first in its hint.
 */
export function takeBack(first: unknown, steps: BackStep[]): never {
  const failed: { step: BackStep; why: string }[] = [];
  for (const step of steps) {
    if (step.last && failed.length) continue;
    try {
      step.run();
    } catch (e) {
      failed.push({ step, why: errorLine(e) });
    }
  }
  if (!failed.length) throw first;
  const left = failed.map((f) => `${f.step.left} (${f.why})`).join("; ");
  const todo = [...new Set(failed.map((f) => f.step.then))].join("; ");
  throw toldWithLeft(first, `what it had changed could not be taken back whole: ${left}`, todo);
}

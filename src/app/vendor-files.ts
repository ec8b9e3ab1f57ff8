// Where vendored packs are written: every write of the vendoring commands goes through the one write
// door (src/util/door.ts) with the project root as its base, and a pack's folder is swapped in whole.
import { guard, swapBack, swapDir, swapDirKeep, type Base } from "../util/door";
import { display } from "../util/paths";
import { diffHashes, lockFile, packDir } from "../packs/lock";
import { fail } from "../util/errors";

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

/** Replace `target` with `staging` (renames inside the project; the old folder is removed after). */
export function swapIn(root: string, staging: string, target: string): void {
  swapDir(baseOf(root), staging, target, display(target));
}

/** swapIn that keeps the old folder aside until the change succeeded (src/util/door.ts swapDirKeep): its path, if any. */
export function swapInKeep(root: string, staging: string, target: string): string | undefined {
  return swapDirKeep(baseOf(root), staging, target, display(target));
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

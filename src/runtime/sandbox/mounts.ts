// Fewer mounts for the same protection (issue 29): each read-only bind costs a confined call ~0.09 ms
// in bwrap (100 packs' folders: ~9 ms a call, measured), so a folder inside a writable root whose
// every entry is a protected folder — a project's packs/ holding only active packs, .hcp/packs — is
// bound read-only whole, one mount, instead of entry by entry. It is stricter only in that nothing new
// can be made in that folder during the call. A folder holding a protected file (.git: its config) is
// not: the files beside stay writable. A path inside another protected one is left out: its folder's
// mount covers it.
import { dirname, join } from "node:path";
import { isInside } from "../../util/paths";
import { entriesOf, type Dirent } from "../../util/dirents";

/** A folder's entries, one at a time (the caller may stop early): util/dirents.ts, or a test's. */
export type Listing = (dir: string) => Iterable<Dirent>;

/** `protect` (real paths, each inside one of `writable`) with nested paths left out and folders of protected folders bound whole. */
export function fewerMounts(
  protect: readonly string[],
  writable: readonly string[],
  list: Listing = entriesOf,
): string[] {
  const kept = outermost(protect);
  const byParent = new Map<string, string[]>();
  for (const p of kept) {
    const parent = dirname(p);
    byParent.set(parent, [...(byParent.get(parent) ?? []), p]);
  }
  const whole: string[] = [];
  for (const [parent, inside] of byParent) {
    // a root itself stays writable, and so does a root inside the folder (its bind would be covered); one
    // entry alone gains nothing
    if (inside.length < 2 || !writable.some((w) => isInside(parent, w))) continue;
    if (writable.some((w) => isInside(w, parent))) continue;
    if (onlyThese(parent, new Set(inside), list)) whole.push(parent);
  }
  return whole.length ? outermost([...kept, ...whole]) : kept;
}

/**
 * Whether every entry of `parent` is one of the protected folders `set`: read entry by entry, stopping at the
 * first that is not (or past set's size), so a folder a write filled costs a call no more than its packs do.
 * An unreadable folder: false.
 */
function onlyThese(parent: string, set: ReadonlySet<string>, list: Listing): boolean {
  try {
    let n = 0;
    for (const e of list(parent)) if (++n > set.size || !e.dir || !set.has(join(parent, e.name))) return false;
    return true;
  } catch {
    return false;
  }
}

/** The paths not inside another of them (a path and its folder: the folder); one lookup per folder above each. */
export function outermost(paths: readonly string[]): string[] {
  const set = new Set(paths);
  return [...set].filter((p) => {
    for (let d = dirname(p); d !== dirname(d); d = dirname(d)) if (set.has(d)) return false;
    return true;
  });
}

// HOME's secrets a confined call must not see (SECRET_DIRS, SECRET_FILES): which of them exist in each
// home, as the masks bwrap gets (a folder: an empty one nobody may open; a file: the null device).
//
// Most of the ~75 paths are absent from any one home, and asking each by stat() was ~1 ms of a
// confined call's start for two homes (issue 29, a fresh process). So the folders they lie in (the
// home, .config, .local/share, Library/Application Support) are listed once (readdir: opendir's module
// alone costs a fresh process ~0.35 ms), and only a name a listing holds is asked by stat(), as before;
// a folder its parent does not list is not opened. A listing only ever saves a stat, never hides less:
// a folder that cannot be listed, is larger than LIST_BYTES (a folder's size grows with its entries),
// holds more than LIST_NAMES names, or lists a name outside ASCII (on a case-folding file system "ſsh"
// or a Kelvin sign can name what stat(".ssh") or stat(".kube") finds, and ASCII lower case would not
// match them) is asked path by path. Names are compared in ASCII lower case, so ".SSH" on a
// case-folding file system is asked too.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { isInside } from "../../util/paths";
import { quietStat } from "../../util/stamp";
import { SECRET_DIRS, SECRET_FILES } from "../../pack/secret-paths";
import type { BwrapPlan } from "./bwrap";

/** A folder larger than this (st_size: ~18 bytes a short name on ext4, 20 on tmpfs) is not listed. */
export const LIST_BYTES = 32 * 1024;
/** A listing of more names than this is not used (a file system whose folders report no size). */
export const LIST_NAMES = 2048;

const SECRETS: readonly (readonly [string, boolean])[] = [
  ...SECRET_DIRS.map((d) => [d, true] as const),
  ...SECRET_FILES.map((f) => [f, false] as const),
];

const ASCII = /^[\x00-\x7f]*$/;
const NONE: ReadonlySet<string> = new Set();

/** A folder's names, [] when it does not exist, undefined when it is not to be listed: the file system's (listNames), or a test's. */
export type Lister = (dir: string) => readonly string[] | undefined;

/** The names in `dir`: [] when it does not exist; undefined when it is not a folder, larger than LIST_BYTES, or cannot be read. */
export function listNames(dir: string): readonly string[] | undefined {
  const st = quietStat(dir);
  if (!st) return [];
  if (!st.isDirectory() || st.size > LIST_BYTES) return undefined;
  try {
    return readdirSync(dir);
  } catch {
    return undefined;
  }
}

/**
 * Whether `rel` (a path under `home`) may exist: false only when a listing of a folder it lies in says
 * its name is not there. Each folder is listed at most once.
 */
export function mayExist(home: string, list: Lister = listNames): (rel: string) => boolean {
  const listed = new Map<string, ReadonlySet<string> | undefined>(); // undefined: not listed, ask by stat
  const namesIn = (folder: string): ReadonlySet<string> | undefined => {
    if (listed.has(folder)) return listed.get(folder);
    const names = folder !== "" && !may(folder) ? NONE : lowered(list(folder === "" ? home : join(home, folder)));
    listed.set(folder, names);
    return names;
  };
  const may = (rel: string): boolean => {
    const i = rel.lastIndexOf("/");
    const names = namesIn(i < 0 ? "" : rel.slice(0, i));
    return names === undefined || names.has(rel.slice(i + 1).toLowerCase());
  };
  return may;
}

/** `names` in ASCII lower case; undefined when there are none to use, more than LIST_NAMES, or one is not ASCII. */
function lowered(names: readonly string[] | undefined): ReadonlySet<string> | undefined {
  if (names === undefined || names.length > LIST_NAMES) return undefined;
  const out = new Set<string>();
  for (const n of names) {
    if (!ASCII.test(n)) return undefined;
    out.add(n.toLowerCase());
  }
  return out;
}

/**
 * The masks of the secrets in `homes` that exist, and the declared paths (real paths, `declared`) inside a
 * masked folder, bound back. A declared path equal to a secret, or around it, shows it whole.
 */
export function secretMasks(
  homes: readonly string[],
  declared: readonly string[],
  list: Lister = listNames,
): { masks: BwrapPlan["masks"]; unmask: string[] } {
  const masks: BwrapPlan["masks"] = [];
  const unmask: string[] = [];
  for (const h of homes) {
    const may = mayExist(h, list);
    for (const [rel, dir] of SECRETS) {
      if (!may(rel)) continue;
      const path = join(h, rel);
      const st = quietStat(path);
      if (!st) continue; // absent: nothing to hide (a program that creates it creates it in a read-only or hidden place)
      if (declared.some((d) => isInside(path, d))) continue;
      const inside = declared.filter((d) => isInside(d, path) && d !== path && existsSync(d));
      masks.push({ path, dir: st.isDirectory() && dir, ...(inside.length ? { traverse: true } : {}) });
      unmask.push(...inside);
    }
  }
  return { masks, unmask };
}

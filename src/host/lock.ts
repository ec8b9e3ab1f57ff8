// The adopt lock of one ledger: taken before the plan is made (a plan made
// before another writer finished would overwrite that writer's entries), held
// while the one applier (src/plan/apply.ts) writes, released after.
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { toPosix } from "../util/paths";
import { ledgerInside, type Scope } from "./engine";
import { acquireLock, guardPath, missingDirs } from "../util/fsio";
import { mkdirs, removeEmptyDir, type Base } from "../util/door";
import type { AdoptLock } from "../plan/types";

export type { AdoptLock };

/**
 * Take the adopt lock for the ledger `ledgerFile` (below `base`: the project
 * root or $HOME). Take it before planning: a plan made before another writer
 * finished would overwrite that writer's entries. `release()` also removes the
 * directories made for it when no ledger ended up in them (a refused plan leaves nothing).
 */
export function lockAdopt(ledgerFile: string, base: string, scope: Scope): AdoptLock {
  const show = (abs: string) => (scope === "user" ? "~/" : "") + toPosix(relative(base, abs));
  const ledgerDir = dirname(ledgerFile);
  if (scope === "project") ledgerInside(ledgerFile, base);
  const madeAbs = missingDirs(ledgerDir, base);
  // a run killed after making the ledger's folder and before its lock file named it (the lock hands on what it
  // made: below) left the folder empty, or holding only the temp file of its lock: still adopt's
  if (!madeAbs.length && !existsSync(ledgerFile) && onlyLockTemps(ledgerDir)) madeAbs.push(ledgerDir);
  const door: Base = { dir: base, label: scope === "user" ? "$HOME" : "the project" };
  mkdirs(door, ledgerDir, show(ledgerDir));
  const rmdirIfEmpty = (d: string) => removeEmptyDir(door, d);
  let unlock: () => void;
  try {
    // the lock records the directories made for it: a run killed before its
    // journal existed hands them on to the one that takes its stale lock over
    unlock = acquireLock(
      join(ledgerDir, "adopt.lock"),
      show(join(ledgerDir, "adopt.lock")),
      "hcpx adopt",
      () => JSON.stringify(madeAbs) + "\n",
      (stale) => {
        if (existsSync(ledgerFile)) return;
        try {
          const dirs = JSON.parse(stale.split("\n")[2] ?? "") as unknown;
          // a lock is a file on disk like the ledger: what it names passes the same guard
          if (Array.isArray(dirs))
            for (const d of dirs)
              if (
                typeof d === "string" &&
                !madeAbs.includes(d) &&
                guardPath(d, { dir: base, prefix: scope === "user" ? "~/" : "" }, "absolute").ok
              )
                madeAbs.push(d);
        } catch {
          /* an older or torn lock: nothing to hand on */
        }
        madeAbs.sort((a, b) => a.length - b.length);
      },
    );
  } catch (e) {
    for (const d of [...madeAbs].reverse()) rmdirIfEmpty(d);
    throw e;
  }
  const lock: AdoptLock = {
    made: madeAbs.map(show),
    rmdirsAfter: [...madeAbs],
    release() {
      unlock();
      if (!existsSync(ledgerFile))
        for (const d of [...new Set(lock.rmdirsAfter)].sort((a, b) => b.length - a.length)) rmdirIfEmpty(d);
    },
  };
  return lock;
}

/** Whether `dir` is a folder holding nothing but temp files of its adopt lock (`adopt.lock.<pid>-<rand>.tmp`). */
function onlyLockTemps(dir: string): boolean {
  try {
    return readdirSync(dir).every((n) => /^adopt\.lock\.(?:break\.)?\d+-[a-z0-9]+\.tmp$/.test(n));
  } catch {
    return false;
  }
}

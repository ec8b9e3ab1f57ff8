// What planning may ask of the disk: read-only, and injected, so that a plan
// can be made (and tested) without touching a real file system. `diskFs` is
// the real one: the same guard, reads and caps as everywhere else in hcpx.
import { accessSync, constants, readdirSync, realpathSync } from "node:fs";
import {
  guardPath,
  missingDirs,
  readEntry,
  resolveInside,
  staleTemps,
  type Entry,
  type Guarded,
  type TrustBase,
} from "../util/fsio";
import { CAPS, readTextFile } from "../util/readfile";

export interface ReadFs {
  /** what is at `real` (a file's text only when it is UTF-8) */
  entry(real: string): Entry;
  /** a file hcpx reads back (a manifest): bounded by a manifest's cap (CAPS.host), never a blocking open; an HcpxError when it cannot be read, `missing_file` when absent */
  readRecord(real: string, show: string): string;
  /** the names in a directory ([] when it cannot be listed) */
  list(dir: string): string[];
  /** realpath, or the path itself when it does not exist */
  realpath(p: string): string;
  /** src/util/fsio.ts guardPath: may a path named by a file read back be touched? */
  guard(named: unknown, base: TrustBase, form?: "display" | "absolute"): Guarded;
  /** src/util/fsio.ts resolveInside: the path written for `abs` (symlinks inside `base` resolved); an HcpxError naming `show` when a link leads out */
  resolve(abs: string, base: string, show: string): string;
  /** directories from `dir` up to (not including) `base` that do not exist yet, deepest last */
  missingDirs(dir: string, base: string): string[];
  /** temp files in `dir` of a writer that was killed (src/util/atomic.ts names them) */
  staleTemps(dir: string): string[];
  /** may this process create and replace files in the directory? */
  writable(dir: string): boolean;
}

export const diskFs: ReadFs = {
  entry: readEntry,
  readRecord: (real, show) => readTextFile(real, show, CAPS.host),
  list(dir) {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  },
  realpath(p) {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  },
  guard: guardPath,
  resolve: (abs, base, show) => resolveInside(abs, base, show).real,
  missingDirs,
  staleTemps,
  writable(dir) {
    try {
      accessSync(dir, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  },
};

// What planning may ask of the disk: read-only, and injected, so that a plan
// can be made (and tested) without touching a real file system. `diskFs` is
// the real one: the same guard, reads and caps as everywhere else in hcpx.
import { readdirSync, realpathSync } from "node:fs";
import { guardPath, readEntry, type Entry, type Guarded, type TrustBase } from "../host/fsio";
import { CAPS, readTextFile } from "../util/readfile";

export interface ReadFs {
  /** what is at `real` (a file's text only when it is UTF-8) */
  entry(real: string): Entry;
  /** a file hcpx reads back (a manifest): bounded, never a blocking open; an HcpxError when it cannot be read, `missing_file` when absent */
  readRecord(real: string, show: string): string;
  /** the names in a directory ([] when it cannot be listed) */
  list(dir: string): string[];
  /** realpath, or the path itself when it does not exist */
  realpath(p: string): string;
  /** src/host/fsio.ts guardPath: may a path named by a file read back be touched? */
  guard(named: unknown, base: TrustBase, form?: "display" | "absolute"): Guarded;
}

export const diskFs: ReadFs = {
  entry: readEntry,
  readRecord: (real, show) => readTextFile(real, show, CAPS.ledger),
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
};

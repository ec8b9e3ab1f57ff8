// A folder's entries one at a time (opendir), for the walks that read folders someone else may have
// filled (a vendored pack, a local pack's folder, .git/modules, a writable root's packs/): a caller
// that stops early, at its own bound, reads no further, and the folder is closed either way.
import { opendirSync } from "node:fs";

/** One entry: its name, and whether it is a folder (not a link to one). */
export interface Dirent {
  name: string;
  dir: boolean;
}

/** The entries of `dir`, as the system lists them; opening or reading it throws as opendir does. */
export function* entriesOf(dir: string): Generator<Dirent> {
  const d = opendirSync(dir);
  try {
    for (let e = d.readSync(); e !== null; e = d.readSync()) yield { name: e.name, dir: e.isDirectory() };
  } finally {
    try {
      d.closeSync();
    } catch {
      // closed already
    }
  }
}

// The one PATH lookup: the first executable regular file named `name` in an
// absolute PATH directory, as a shell would find it (relative PATH entries are
// skipped: what they mean depends on the caller's working directory).
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute } from "node:path";
import { joinIn } from "./paths";

/** Absolute path of an executable `name` on PATH, or undefined. */
export function whichOnPath(name: string, path = process.env.PATH ?? ""): string | undefined {
  for (const d of path.split(delimiter)) {
    if (!d || !isAbsolute(d)) continue;
    const f = joinIn(d, name); // path.join's answer, without its loop for a normal PATH entry (src/util/paths.ts)
    try {
      if (statSync(f).isFile()) {
        accessSync(f, constants.X_OK);
        return f;
      }
    } catch {
      /* next */
    }
  }
  return undefined;
}

/** The first `n` directories of a PATH, for a message (`a:b:c:d:…`). */
export function pathHead(path: string, n = 4): string {
  const dirs = path.split(delimiter);
  return dirs.slice(0, n).join(delimiter) + (dirs.length > n ? `${delimiter}…` : "");
}

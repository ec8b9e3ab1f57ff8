// The realpath walk behind every guarded path (src/util/fsio.ts resolveInside
// and guardPath, src/util/door.ts, src/util/readfile.ts's base policy): every
// existing component of a path below a base, symlinks followed, must stay
// inside realpath(base), and every component but the last must be a directory.
// node:fs and node:path only (it is on exec's start path through readfile.ts).
import { existsSync, lstatSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, sep } from "node:path";
import type { ErrorCode } from "./errors";
import { isInside, joinIn, relativeTo } from "./paths";

/** `real`: the path operated on; `realBase`: realpath(base) as the walk took it (absent: no base directory yet). */
export type Walk =
  { real: string; realBase?: string } | { problem: { code: ErrorCode; message: string; hint: string } };

const problem = (code: ErrorCode, message: string, hint: string): Walk => ({ problem: { code, message, hint } });
const OUTSIDE_HINT = "hcpx only touches files inside its base directory";
const leaves = (rel: string) => rel === ".." || rel.startsWith(".." + sep) || isAbsolute(rel);

/** The realpath walk behind resolveInside and guardPath: every existing component, symlinks followed, must stay inside realpath(base). */
export function walkInside(abs: string, base: string, label?: string): Walk {
  const where = label ?? (base === process.env.HOME ? "$HOME" : "the project");
  const rel = relativeTo(base, abs);
  if (leaves(rel)) return problem("outside_base", `is outside ${where}`, OUTSIDE_HINT);
  // no base directory yet (generate's first run, the cache's on a first call): nothing below it exists
  // to follow. Asked first, without realpath's exception (callgrind, median of 5: exec's first call
  // after install 178.9 -> 178.5 M with mkdirs' same change; a warm call 136.4 -> 135.9 M, so the extra
  // stat costs less than the exceptions it spares)
  if (!existsSync(base)) return { real: abs };
  let realBase: string;
  try {
    // the C realpath: one call, not an lstat from JS per component of the base (a manifest's 60,000
    // entries, test/plan/record-cap.test.ts: ~0.55 of ~1.1 CPU-s of realpaths less)
    realBase = realpathSync.native(base);
  } catch {
    return { real: abs };
  }
  const parts = rel.split(sep).filter(Boolean);
  let cur = realBase;
  for (let i = 0; i < parts.length; i++) {
    const next = joinIn(cur, parts[i]!);
    if (!isInside(next, realBase)) return problem("outside_base", `leads outside ${where}`, OUTSIDE_HINT);
    // (absent is the common case on a first write: lstat answers undefined, no exception is made)
    let st;
    try {
      st = lstatSync(next, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    // the rest does not exist yet
    if (st === undefined) return { real: join(next, ...parts.slice(i + 1)), realBase };
    if (st.isSymbolicLink()) {
      let target: string;
      try {
        target = realpathSync(next);
      } catch {
        return problem(
          "symlink_refused",
          "is a dangling symlink",
          "remove the link or point it at a file inside the project",
        );
      }
      if (!isInside(target, realBase))
        return problem(
          "symlink_refused",
          `is a symlink leading outside ${where} (to ${target})`,
          "hcpx does not write through links that leave its base directory; replace the link with a file, or adopt by hand",
        );
      cur = target;
      st = statSync(next);
    } else cur = next;
    if (i < parts.length - 1 && !st.isDirectory())
      return problem(
        "not_a_directory",
        `${join(...parts.slice(0, i + 1))} is a file, expected a directory on the way to this path`,
        "move that file away; hcpx does not replace files it does not own",
      );
  }
  return { real: cur, realBase };
}

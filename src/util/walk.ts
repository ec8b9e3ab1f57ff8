// The realpath walk behind every guarded path (src/util/fsio.ts resolveInside
// and guardPath, src/util/door.ts, src/util/readfile.ts's base policy): every
// existing component of a path below a base, symlinks followed, must stay
// inside realpath(base), and every component but the last must be a directory.
// node:fs and node:path only (it is on exec's start path through readfile.ts).
import { lstatSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import type { ErrorCode } from "./errors";
import { isInside } from "./paths";

export type Walk = { real: string } | { problem: { code: ErrorCode; message: string; hint: string } };

/** The realpath walk behind resolveInside and guardPath: every existing component, symlinks followed, must stay inside realpath(base). */
export function walkInside(abs: string, base: string, label?: string): Walk {
  const where = label ?? (base === process.env.HOME ? "$HOME" : "the project");
  let realBase: string;
  try {
    realBase = realpathSync(base);
  } catch {
    // no base directory yet (generate's first run): nothing below it exists to follow
    const rel = relative(base, abs);
    return rel === ".." || rel.startsWith(".." + sep) || isAbsolute(rel) ? { problem: { code: "outside_base", message: `is outside ${where}`, hint: "hcpx only touches files inside its base directory" } } : { real: abs };
  }
  const rel = relative(base, abs);
  if (rel === ".." || rel.startsWith(".." + sep) || isAbsolute(rel)) return { problem: { code: "outside_base", message: `is outside ${where}`, hint: "hcpx only touches files inside its base directory" } };
  const parts = rel.split(sep).filter(Boolean);
  let cur = realBase;
  for (let i = 0; i < parts.length; i++) {
    const next = join(cur, parts[i]!);
    if (!isInside(next, realBase)) return { problem: { code: "outside_base", message: `leads outside ${where}`, hint: "hcpx only touches files inside its base directory" } };
    let st;
    try {
      st = lstatSync(next);
    } catch {
      // the rest does not exist yet
      return { real: join(next, ...parts.slice(i + 1)) };
    }
    if (st.isSymbolicLink()) {
      let target: string;
      try {
        target = realpathSync(next);
      } catch {
        return { problem: { code: "symlink_refused", message: "is a dangling symlink", hint: "remove the link or point it at a file inside the project" } };
      }
      if (!isInside(target, realBase)) {
        return { problem: { code: "symlink_refused", message: `is a symlink leading outside ${where} (to ${target})`, hint: "hcpx does not write through links that leave its base directory; replace the link with a file, or adopt by hand" } };
      }
      cur = target;
      st = statSync(next);
    } else cur = next;
    if (i < parts.length - 1 && !st.isDirectory()) {
      return { problem: { code: "not_a_directory", message: `${join(...parts.slice(0, i + 1))} is a file, expected a directory on the way to this path`, hint: "move that file away; hcpx does not replace files it does not own" } };
    }
  }
  return { real: cur };
}


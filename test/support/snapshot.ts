// A whole tree as data, for "nothing else changed" assertions.
import { lstatSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import { join, relative } from "node:path";

/** Every entry below `root`: files with mode and bytes, dirs, symlinks (mtimes when asked). */
export function snapshot(
  root: string,
  opts: { mtimes?: boolean; skip?: (rel: string) => boolean } = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const f = join(d, name);
      const rel = relative(root, f);
      if (opts.skip?.(rel)) continue;
      const st = lstatSync(f);
      if (st.isSymbolicLink()) out[rel] = `link:${readlinkSync(f)}`;
      else if (st.isDirectory()) {
        out[rel + "/"] = "dir";
        walk(f);
      } else
        out[rel] =
          `${(st.mode & 0o7777).toString(8)}:${readFileSync(f).toString("base64")}${opts.mtimes ? `@${st.mtimeMs}` : ""}`;
    }
  };
  walk(root);
  return out;
}

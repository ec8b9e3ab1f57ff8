// A project config inside another project's writable root, where the OS sandbox is on (issue 25,
// docs/sandbox.md): a confined write may land there, so it could have made that config — one that
// sets enforce "off", activates a pack it planted beside it and grants it, under the name an allow
// rule gave another pack — and the next `hcpx exec` run in that folder would read it. Such a config
// is refused unless the enclosing project names its folder (sandbox.nested_projects), which a write
// cannot change: that config is read-only to every confined call, and so is the named one.
// "Where the sandbox is on": the enclosing config sets enforce "os", or the user config does.
import { realpathSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { HcpxError } from "../util/errors";
import { display, isInside, joinIn, resolveIn } from "../util/paths";
import { CAPS, isThere, readTextFile } from "../util/readfile";
import type { ConfigFile } from "./schema";

/** A config as the loader reads it: its folder and validated data. */
export interface ConfigRead {
  dir: string;
  data: ConfigFile;
}

/**
 * Refuse `projectFile` (named CONFIG_NAME) when an enclosing project config (in a folder above) has it in a
 * writable root while the sandbox is on there (its enforce "os", or `userOs`), and does not name its folder in
 * sandbox.nested_projects. One stat per folder above; an enclosing config is read only when there is one.
 */
export function refuseUnlistedNested(
  projectFile: string,
  name: string,
  userOs: boolean,
  read: (file: string) => ConfigRead,
): void {
  const innerDir = dirname(projectFile);
  for (const outer of enclosingConfigs(projectFile, name))
    if (isThere(outer) && (userOs || mayEnforce(outer))) check(outer, read(outer), innerDir, projectFile, userOs);
}

/**
 * The configs of the projects that may enclose `projectFile`'s (`name` in each folder above its own), there or
 * not: the files refuseUnlistedNested reads, so what a project kept loaded depends on besides its own config
 * and the user's (src/mcp/view-cache.ts stamps them: one appearing, edited or gone may refuse the config).
 */
export function enclosingConfigs(projectFile: string, name: string): string[] {
  const out: string[] = [];
  for (let dir = dirname(dirname(projectFile)); ; dir = dirname(dir)) {
    out.push(joinIn(dir, name));
    if (dirname(dir) === dir) return out;
  }
}

/**
 * Whether a config's text may set sandbox.enforce, before it is parsed and validated (~1 M instructions on
 * every exec of a project nested in another): without a backslash (an escape could spell the key) the key
 * must appear as written. A text that cannot be read is read again in full, which says why.
 */
function mayEnforce(file: string): boolean {
  let text: string;
  try {
    text = readTextFile(file, display(file), CAPS.config);
  } catch {
    return true;
  }
  return text.includes("\\") || text.includes("enforce");
}

/**
 * A project config's root (`root`, absolute) as the sandbox binds it, when that lies inside the config's own
 * folder `dir`: its real path (index.ts planFor binds each root's real path), so `./data` that is a link to
 * HOME or / is not inside. A root not there (yet) goes by its nearest folder that is: a write that makes it a
 * link later is seen at the next load. Undefined: outside. Where a write may change a root (load.ts
 * mergeSandbox) and where a nested config is judged (check, below) ask this alike.
 */
export function rootInside(root: string, dir: string): string | undefined {
  const real = realOrNearest(root);
  return isInside(real, realOrNearest(dir)) ? real : undefined;
}

/** `p`'s real path; for a path not there, its nearest folder's that is, with the rest of `p` after it. */
function realOrNearest(p: string): string {
  let rest = "";
  for (let d = p; ; d = dirname(d)) {
    try {
      const real = realpathSync(d);
      return rest ? join(real, rest) : real;
    } catch {
      if (dirname(d) === d) return p;
      rest = rest ? join(basename(d), rest) : basename(d);
    }
  }
}

function check(outerFile: string, outer: ConfigRead, innerDir: string, innerFile: string, userOs: boolean): void {
  const s = outer.data.sandbox;
  if (s?.enforce !== "os" && !userOs) return;
  // its writable roots: those inside its own folder (a project config's roots elsewhere are not writable), else the
  // folder; real paths, as the sandbox binds them (rootInside), and so the inner folder's
  const roots = (s?.roots ?? []).flatMap((r) => rootInside(resolveIn(outer.dir, r), outer.dir) ?? []);
  const writable = roots.length ? roots : [realOrNearest(outer.dir)];
  const inner = realOrNearest(innerDir);
  if (!writable.some((r) => isInside(inner, r))) return;
  if ((s?.nested_projects ?? []).some((n) => resolve(outer.dir, n) === innerDir)) return;
  const rel = relative(outer.dir, innerDir);
  throw new HcpxError({
    code: "nested_config",
    message: `${display(innerFile)} lies in a writable root of the project of ${display(outerFile)}, where the OS sandbox is on: a confined write could have made it, so it is not used`,
    file: display(innerFile),
    hint: `if it is yours, name its folder in ${display(outerFile)}: sandbox: { nested_projects: [${JSON.stringify(rel)}] }; else delete it, or run hcpx from the enclosing project`,
  });
}

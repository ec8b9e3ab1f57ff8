// The git dirs a repository keeps inside its own .git: a submodule's (.git/modules/<name>, its own
// submodules' below it in modules/ again) and a worktree's (.git/worktrees/<name>, whose
// config.worktree git reads when extensions.worktreeConfig is on). Each has its own hooks and
// config: a hook or a core.fsmonitor planted there runs unconfined when the person works in that
// submodule or worktree, and `git status` in the superproject recurses into its submodules. The
// sandbox keeps them read-only as it keeps .git's own (index.ts protectedIn). Read only for a
// confined write, and only where .git exists: a few readdir calls.
import { listDir, type Listing } from "./mounts";
import { join } from "node:path";

/** Folders at most this deep in modules/ are looked at (a submodule of a submodule … ): past it, none. */
const MAX_DEPTH = 8;

/** `git` (a .git folder) and the git dirs inside it: its submodules' (recursively) and its worktrees'. */
export function innerGitDirs(git: string, depth = 0): string[] {
  const out = [git];
  if (depth >= MAX_DEPTH) return out;
  for (const name of folders(join(git, "modules"))) out.push(...moduleDirs(join(git, "modules", name), depth + 1));
  if (depth === 0) for (const name of folders(join(git, "worktrees"))) out.push(join(git, "worktrees", name));
  return out;
}

/**
 * A folder under modules/: a submodule's git dir, or (a submodule named with a slash, `lib/a`) a folder
 * holding some. A git dir has a HEAD; its own modules/ holds its submodules.
 */
function moduleDirs(dir: string, depth: number): string[] {
  const entries = list(dir);
  if (entries.some((e) => e.name === "HEAD")) return innerGitDirs(dir, depth);
  if (depth >= MAX_DEPTH) return [];
  return entries.filter((e) => e.dir).flatMap((e) => moduleDirs(join(dir, e.name), depth + 1));
}

/** The folders in `dir`, none when it cannot be read. */
function folders(dir: string): string[] {
  return list(dir)
    .filter((e) => e.dir)
    .map((e) => e.name);
}

/** listDir's entries of `dir`, none when it cannot be read. */
function list(dir: string): ReturnType<Listing> {
  try {
    return listDir(dir);
  } catch {
    return [];
  }
}

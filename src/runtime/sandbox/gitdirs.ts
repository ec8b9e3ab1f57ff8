// The git dirs a repository keeps inside its own .git: a submodule's (.git/modules/<name>, its own
// submodules' below it in modules/ again) and a worktree's (.git/worktrees/<name>, whose
// config.worktree git reads when extensions.worktreeConfig is on). Each has its own hooks and
// config: a hook or a core.fsmonitor planted there runs unconfined when the person works in that
// submodule or worktree, and `git status` in the superproject recurses into its submodules. The
// sandbox keeps them read-only as it keeps .git's own (index.ts protectedIn). Read only for a
// confined write, and only where .git exists: a few readdir calls.
//
// The walk is bounded: modules/ lies in the writable root, so an earlier confined write may have
// filled it with folders. Past MAX_LISTED entries (~300 submodules' git dirs) or MAX_DEPTH it stops,
// and modules/ and worktrees/ are then kept read-only whole (gitProtected): a bounded cost, and
// nothing in them left writable.
import { existsSync, statSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { entriesOf, type Dirent } from "../../util/dirents";
import { configReader, gitConfigPointers, moduleWorktree, nearest, worktreeConfigOn } from "./git-config";

/** Folders at most this deep in modules/ are looked at (a submodule of a submodule … ). */
const MAX_DEPTH = 8;
/** Entries read at most over one walk, every folder's together. */
const MAX_LISTED = 4096;

class TooMany extends Error {}

/**
 * What a write must not change in `git` (a .git, where it exists): each inner git dir's hooks, its commondir
 * (redirect) and, `config`, its config (and config.worktree, where there is one or the repository turns them
 * on). One that is not there is kept by its nearest folder that is (git-config.ts nearest), but a commondir
 * (redirect says why): a git dir without a hooks folder is
 * kept whole, since a write could make one and git would run what it holds; a .git that is a file (a
 * worktree's or a submodule's pointer to its git dir) is kept as it is, so a write cannot point it elsewhere.
 */
export function gitProtected(
  git: string,
  config: boolean,
  home?: string,
  read = configReader(),
  absent?: string[],
): string[] {
  const dirs = innerGitDirs(git);
  // `absent`: the commondir files this git dir (a folder, not a .git file) and those it keeps have not, but a
  // linked worktree's: a write may make one (a mount cannot keep a name from being made in a folder a commit
  // writes in), so they are looked for after a confined write and removed (planted.ts)
  const missing = absent && statSync(git, { throwIfNoEntry: false })?.isDirectory() ? absent : undefined;
  const repoPerWorktree = config && worktreeConfigOn(git, read);
  const worktrees = join(git, "worktrees");
  // config.worktree: where there is one, or where the git dir's own config (a linked worktree: the repository's) turns them on
  const worktreeConfig = (g: string, on: boolean) => {
    const w = join(g, "config.worktree");
    return on || existsSync(w) ? [nearest(w)] : [];
  };
  const own = (g: string): string[] => {
    // a linked worktree's git dir has neither hooks nor config of its own: the repository's, its commondir names
    if (g.startsWith(worktrees + sep)) return [...redirect(g), ...(config ? worktreeConfig(g, repoPerWorktree) : [])];
    const mine = [
      ...redirect(g, missing),
      nearest(join(g, "hooks")),
      ...(config
        ? [nearest(join(g, "config")), ...worktreeConfig(g, g === git ? repoPerWorktree : worktreeConfigOn(g, read))]
        : []),
    ];
    // a submodule's own config: what its core.hooksPath and includes name (the repository's: repoGitPointers)
    return g === git
      ? mine
      : [...mine, ...gitConfigPointers([join(g, "config")], moduleWorktree(g, dirname(git), read), home, read)];
  };
  if (dirs) return dirs.flatMap(own);
  // too many folders to look at: everything below modules/ and worktrees/ stays as it is
  return [...own(git), join(git, "modules"), worktrees];
}

/**
 * Besides hooks and config, what in a git dir (gitrepository-layout(5)) names where git reads them: `commondir`
 * (a linked worktree's has one, "../.."). Rewritten to a folder of the write's own, git reads that folder's
 * config and hooks: its core.fsmonitor runs at the person's next git command there. Kept where it exists,
 * whatever git_config_writers says (it moves the hooks too). Not kept, each for its reason:
 * - a commondir not there (every repository's own .git, a submodule's): only keeping the git dir read-only whole
 *   stops one being made, and a write that commits makes files beside it (docs/sandbox.md says what is left);
 * - `gitdir` (a worktree's): git reads it to find the worktree (`git worktree list`, `prune`), never for a
 *   config or hooks;
 * - info/: its attributes name filter and diff drivers, whose commands only a config defines;
 * - new git dirs in modules/ and worktrees/: git uses one only through a `.git` file in a working tree, and a
 *   write may make a repository of its own in a root anyway (docs/sandbox.md).
 */
function redirect(g: string, missing?: string[]): string[] {
  const c = join(g, "commondir");
  if (existsSync(c)) return [c];
  missing?.push(c);
  return [];
}

/**
 * `git` (a .git folder) and the git dirs inside it: its submodules' (recursively) and its worktrees'.
 * Undefined when there are more than the walk looks at (MAX_LISTED entries, or deeper than MAX_DEPTH).
 */
export function innerGitDirs(git: string): string[] | undefined {
  const budget = { left: MAX_LISTED };
  try {
    return walk(git, 0, budget);
  } catch (e) {
    if (e instanceof TooMany) return undefined;
    throw e;
  }
}

function walk(git: string, depth: number, budget: { left: number }): string[] {
  const out = [git];
  for (const name of folders(join(git, "modules"), budget))
    out.push(...moduleDirs(join(git, "modules", name), depth + 1, budget));
  if (depth === 0) for (const name of folders(join(git, "worktrees"), budget)) out.push(join(git, "worktrees", name));
  return out;
}

/**
 * A folder under modules/: a submodule's git dir, or (a submodule named with a slash, `lib/a`) a folder
 * holding some. A git dir has a HEAD; its own modules/ holds its submodules.
 */
function moduleDirs(dir: string, depth: number, budget: { left: number }): string[] {
  if (depth > MAX_DEPTH) throw new TooMany();
  const entries = list(dir, budget);
  if (entries.some((e) => e.name === "HEAD")) return walk(dir, depth, budget);
  return entries.filter((e) => e.dir).flatMap((e) => moduleDirs(join(dir, e.name), depth + 1, budget));
}

/** The folders in `dir`, none when it cannot be read. */
function folders(dir: string, budget: { left: number }): string[] {
  return list(dir, budget)
    .filter((e) => e.dir)
    .map((e) => e.name);
}

/** The entries of `dir` (those read before it could not be read further), each taken from the budget: past it, TooMany. */
function list(dir: string, budget: { left: number }): Dirent[] {
  const out: Dirent[] = [];
  try {
    for (const e of entriesOf(dir)) {
      if (--budget.left < 0) throw new TooMany();
      out.push(e);
    }
  } catch (e) {
    if (e instanceof TooMany) throw e;
  }
  return out;
}

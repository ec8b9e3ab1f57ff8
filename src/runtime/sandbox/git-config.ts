// What git's configs point at that decides what git runs: core.hooksPath (husky's `.husky/_`, a
// team's `.githooks`) and the files they include ([include] and [includeIf …] path). Inside a
// writable root such a folder or file is kept read-only, as .git/hooks and .git/config are
// (index.ts protectedIn): a confined write there would plant a hook, or a core.fsmonitor through an
// included file, that runs unconfined at the person's next git command.
//
// Read: the repository's own .git/config, the person's (~/.gitconfig, $XDG_CONFIG_HOME/git/config)
// and the system's (/etc/gitconfig), and every file they include, through the one reader. Every
// hooksPath any of them sets counts, not only the one git would take (fail closed), and every
// include, whatever its condition. A path that is not there is kept by its nearest folder that is:
// a write must not make it either (git skips a missing include; a missing hooks folder runs nothing
// until someone makes it).
import { existsSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { CAPS, readTextFile } from "../../util/readfile";
import { HcpxError } from "../../util/errors";
import { display } from "../../util/paths";

/** Included files followed at most (git's own limit is 10 deep). */
const MAX_FILES = 32;

export interface GitConfigEntry {
  /** section, lower case, with its subsection: "core", "includeif.gitdir:~/work/" */
  section: string;
  /** key, lower case */
  key: string;
  /** the value, unquoted and unescaped (undefined: a key given without `=`, git's true) */
  value: string | undefined;
}

/** A git config's entries (parseGitConfig of readConfig), read once per reader: one confined call's reads. */
export type ConfigReader = (file: string) => GitConfigEntry[];

/** A reader that reads and parses each git config once: the repository's, a submodule's and the person's are asked for more than one thing per confined call. */
export function configReader(): ConfigReader {
  const read = new Map<string, GitConfigEntry[]>();
  return (file) => {
    let entries = read.get(file);
    if (entries === undefined) read.set(file, (entries = parseGitConfig(readConfig(file))));
    return entries;
  };
}

/**
 * What a write in `root` must not change besides .git's own files, when `root` holds a repository (a
 * .git folder, or a linked worktree's .git file): what the repository's, the person's and the system's
 * git configs point at.
 */
export function repoGitPointers(root: string, homes: readonly string[], read = configReader()): string[] {
  const git = gitDirOf(join(root, ".git"));
  if (git === undefined) return [];
  const xdg = process.env.XDG_CONFIG_HOME;
  const configs = [
    join(git.common, "config"),
    ...(git.dir !== git.common ? [join(git.dir, "config.worktree")] : []),
    ...homes.flatMap((h) => [join(h, ".gitconfig"), join(h, ".config", "git", "config")]),
    ...(xdg && isAbsolute(xdg) ? [join(xdg, "git", "config")] : []),
    "/etc/gitconfig",
  ];
  return gitConfigPointers(configs, root, homes[0], read);
}

/**
 * The git dir a `.git` stands for: the folder itself, or (a linked worktree's or a submodule's `.git`
 * file, "gitdir: <path>") the one it names; `common`: the repository's (its commondir), whose config
 * a linked worktree shares. Undefined when there is none.
 */
function gitDirOf(dotGit: string): { dir: string; common: string } | undefined {
  const st = statSync(dotGit, { throwIfNoEntry: false });
  if (st?.isDirectory()) return { dir: dotGit, common: dotGit };
  if (!st?.isFile()) return undefined;
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(readConfig(dotGit));
  if (!m) return undefined;
  const dir = resolve(dirname(dotGit), m[1]!);
  const common = readConfig(join(dir, "commondir")).trim();
  return { dir, common: common ? resolve(dir, common) : dir };
}

/**
 * What a git config file must not make writable: the folders core.hooksPath names and the files
 * [include] and [includeIf] name, in `configs` and in what they include. `worktree`: where a relative
 * hooksPath starts (the repository's top folder); `home`: what `~/` is.
 */
export function gitConfigPointers(
  configs: readonly string[],
  worktree: string,
  home: string | undefined,
  read = configReader(),
): string[] {
  const out = new Set<string>();
  const seen = new Set<string>();
  const queue = [...configs];
  while (queue.length) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (seen.size > MAX_FILES)
      throw new HcpxError({
        code: "sandbox_unavailable",
        message: `git's configs include more than ${MAX_FILES} files (from ${display(configs[0] ?? file)}): the sandbox cannot tell which of them a write must not change`,
        hint: 'remove the include loop or chain from the git config, or set sandbox.enforce to "off"',
      });
    for (const e of read(file)) {
      if (e.value === undefined || e.value === "") continue;
      if (e.section === "core" && e.key === "hookspath") out.add(nearest(pathOf(e.value, worktree, home)));
      else if ((e.section === "include" || e.section.startsWith("includeif.")) && e.key === "path") {
        const inc = pathOf(e.value, dirname(file), home);
        out.add(nearest(inc));
        queue.push(inc);
      }
    }
  }
  return [...out];
}

/** A config's text; none when it is not there (or is not a file git could read either). */
function readConfig(file: string): string {
  if (!existsSync(file)) return "";
  try {
    return readTextFile(file, display(file), CAPS.host);
  } catch (e) {
    // too large, not readable: what it points at cannot be known, so nothing runs (gone since, or not a
    // file: git reads nothing there either)
    if (e instanceof HcpxError && e.code !== "not_a_file" && e.code !== "missing_file")
      throw new HcpxError({
        ...e.problems[0]!,
        code: "sandbox_unavailable",
        message: `git's config ${display(file)} could not be read (${e.problems[0]!.message}): the sandbox cannot tell what it makes git run`,
      });
    return "";
  }
}

/** `~/x` under home, an absolute path as it is, another from `base`. */
function pathOf(value: string, base: string, home: string | undefined): string {
  if (value === "~" || value.startsWith("~/")) return home ? join(home, value.slice(2)) : value;
  return isAbsolute(value) ? resolve(value) : resolve(base, value);
}

/** A submodule's working tree: its git dir's core.worktree (git writes it, relative to the git dir), else `root`. */
export function moduleWorktree(g: string, root: string, read = configReader()): string {
  let worktree: string | undefined;
  for (const e of read(join(g, "config")))
    if (e.section === "core" && e.key === "worktree" && e.value) worktree = e.value;
  return worktree === undefined ? root : resolve(g, worktree);
}

/** Whether the repository's config at `git`/config turns per-worktree configs on (extensions.worktreeConfig). */
export function worktreeConfigOn(git: string, read = configReader()): boolean {
  let on = false;
  for (const e of read(join(git, "config")))
    if (e.section === "extensions" && e.key === "worktreeconfig")
      on = e.value === undefined || /^(true|yes|on|1)$/i.test(e.value.trim());
  return on;
}

/** `p`, or its nearest folder that exists (a write must not make `p`). */
export function nearest(p: string): string {
  let d = p;
  while (!existsSync(d) && dirname(d) !== d) d = dirname(d);
  return d;
}

/** git's config syntax (git-config(1)): sections, subsections, quoted values, escapes, comments, continued lines. */
export function parseGitConfig(text: string): GitConfigEntry[] {
  const out: GitConfigEntry[] = [];
  let section = "";
  let i = 0;
  const n = text.length;
  const blank = (c: string | undefined) => c === " " || c === "\t" || c === "\r";
  while (i < n) {
    while (i < n && (blank(text[i]) || text[i] === "\n")) i++;
    if (i >= n) break;
    const c = text[i]!;
    if (c === "#" || c === ";") {
      while (i < n && text[i] !== "\n") i++;
      continue;
    }
    if (c === "[") {
      const end = text.indexOf("]", i);
      if (end < 0) break;
      section = sectionName(text.slice(i + 1, end));
      i = end + 1;
      continue;
    }
    // a key: letters, digits and '-', then an optional `= value`
    let k = i;
    while (k < n && /[A-Za-z0-9-]/.test(text[k]!)) k++;
    const key = text.slice(i, k).toLowerCase();
    i = k;
    while (i < n && blank(text[i])) i++;
    if (key === "" || text[i] !== "=") {
      if (key) out.push({ section, key, value: undefined });
      while (i < n && text[i] !== "\n") i++; // not git config: skip the line
      continue;
    }
    const v = value(text, i + 1);
    out.push({ section, key, value: v.value });
    i = v.end;
  }
  return out;
}

/** `core`, `includeIf "gitdir:~/x/"`, `branch.main` (the old form): lower case, subsection kept as written. */
function sectionName(inside: string): string {
  const m = /^\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*$/.exec(inside);
  if (!m) return inside.trim().toLowerCase();
  return m[2] === undefined ? m[1]!.toLowerCase() : `${m[1]!.toLowerCase()}.${m[2].replace(/\\(.)/g, "$1")}`;
}

/** A value from `from` to its line's end: quotes, \" \\ \n \t \b, a comment outside quotes, `\` + newline continuing it. */
function value(text: string, from: number): { value: string; end: number } {
  let out = "";
  let pending = ""; // spaces kept only when more of the value follows
  let quoted = false;
  let i = from;
  while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\n" && !quoted) break;
    if (c === "\r" && text[i + 1] === "\n" && !quoted) continue;
    if (!quoted && (c === "#" || c === ";")) {
      while (i < text.length && text[i] !== "\n") i++;
      break;
    }
    if (c === "\\") {
      const d = text[i + 1];
      i++;
      if (d === "\n") continue;
      if (d === "\r" && text[i + 1] === "\n") {
        i++;
        continue;
      }
      out += pending + (d === "n" ? "\n" : d === "t" ? "\t" : d === "b" ? "\b" : (d ?? ""));
      pending = "";
      continue;
    }
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (!quoted && (c === " " || c === "\t")) {
      pending += c;
      continue;
    }
    out += pending + c;
    pending = "";
  }
  return { value: out, end: i };
}

// Helpers for the adopt tests: a scratch project with its own HOME, whole-tree
// snapshots (bytes, modes, mtimes, symlinks) and a check that a file changed
// only by additions.
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { structuredPatch } from "diff";
import { HCPX, type RunResult } from "../support/cli";
import { scratchProject, tmp } from "../support/project";
import { userConfigOf } from "../support/userconfig";

export interface Scratch {
  dir: string;
  home: string;
  env: NodeJS.ProcessEnv;
  adopt: (...args: string[]) => Promise<RunResult>;
  run: (args: string[], env?: NodeJS.ProcessEnv) => Promise<RunResult>;
  write: (rel: string, text: string) => void;
  read: (rel: string) => string;
}

/**
 * A scratch project (ledger + transit) with its own HOME; PATH without any `hcpx` (the shared
 * builder, ownHome), or with this install's (`hcpxOnPath`: for `--command "hcpx mcp"`, which
 * --check wants to resolve on the host's PATH).
 */
export function scratch(opts: { packs?: string[]; hcpxOnPath?: boolean } = {}): Scratch {
  const p = scratchProject({ packs: opts.packs, ownHome: true });
  const env: NodeJS.ProcessEnv = { ...p.env };
  if (opts.hcpxOnPath) {
    const bin = tmp("hcpx-adopt-bin-");
    symlinkSync(HCPX, join(bin, "hcpx"));
    env.PATH = `${bin}:${env.PATH}`;
  }
  const run = (args: string[], extra: NodeJS.ProcessEnv = {}) => p.run(args, { ...env, ...extra });
  return {
    dir: p.dir,
    home: p.home!,
    env,
    run,
    adopt: (...args: string[]) => run(["adopt", ...args]),
    write: p.write,
    read: p.read,
  };
}

/** The user's own config (what user scope serves): the scratch project's, with absolute paths. */
export function userConfigFromProject(s: Scratch, xdg?: string): string {
  return userConfigOf(s.dir, s.home, xdg);
}

/** Every entry below `root`: files with content and mode (and mtime when asked), dirs, symlinks. */
export { snapshot } from "../support/snapshot";

/**
 * `after` differs from `before` only by added lines (and a comma appended to
 * the line our entry was inserted after): nothing of `before` is lost or changed.
 */
export function onlyAdded(before: string, after: string): { ok: boolean; removed: string[]; added: string[] } {
  const patch = structuredPatch("a", "b", before, after, undefined, undefined, { context: 0 });
  const removed: string[] = [];
  const added: string[] = [];
  for (const h of patch.hunks)
    for (const l of h.lines) (l.startsWith("-") ? removed : l.startsWith("+") ? added : []).push(l.slice(1));
  // (a last line without a line break shows as removed and re-added with one)
  const ok = removed.every(
    (r) => added.includes(r) || added.includes(r.replace(/(\r?)$/, ",$1")) || added.includes(r + ","),
  );
  return { ok, removed, added };
}

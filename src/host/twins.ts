// One file, two paths: a symbolic link that makes one host's file another's (CLAUDE.md -> AGENTS.md,
// .cursor/skills -> ../.claude/skills). adopt finds it by real path (adopt-run.ts file(), finish-plan.ts)
// and refuses to write or remove through the second path what it keeps there for the first host.
import type { Problem } from "../util/errors";
import type { Ledger } from "./ledger";
import type { ReadFs } from "../plan/fs";

/** Another host's recorded part: the path its ledger entry names, and where that file really is. */
export interface Recorded {
  host: string;
  path: string;
  real: string;
}

/** The other hosts' recorded paths at this scope, resolved (a link that leads out is left to the format that reads it). */
export function recordedElsewhere(run: {
  ledger: Ledger;
  hosts: string[];
  scope: string;
  base: string;
  fs: ReadFs;
  absOf(p: string): string;
}): Recorded[] {
  const out: Recorded[] = [];
  for (const [host, lh] of Object.entries(run.ledger.hosts)) {
    if (run.hosts.includes(host) || lh.scope !== run.scope) continue;
    for (const path of new Set(lh.entries.map((e) => e.path))) {
      try {
        out.push({ host, path, real: run.fs.resolve(run.absOf(path), run.base, path) });
      } catch {
        // refused where the format reads it
      }
    }
  }
  return out;
}

/** The VFile field naming the other host's part that `real` is, if any (not the same path: that is a shared file). */
export function twinFor(recorded: Recorded[], real: string, show: string): { twinOf?: { host: string; path: string } } {
  const r = recorded.find((x) => x.real === real && x.path !== show);
  return r ? { twinOf: { host: r.host, path: r.path } } : {};
}

/** `path` is `other.path` (a symbolic link), where hcpx keeps another host's part. */
export function twinConflict(path: string, other: { host: string; path: string }): Problem {
  return {
    code: "host_conflict",
    message: `${path} is ${other.path} (a symbolic link), where hcpx keeps ${other.host}'s part: one file cannot hold both hosts' parts; nothing written`,
    file: path,
    hint: `make ${path} a file of its own, or leave one host out (\`hcpx adopt ${other.host} --remove --write\` first)`,
  };
}

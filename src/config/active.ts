// The activated packs of a project, read tolerantly: a pack that does not load
// is reported, not fatal (status, doctor and grant still have work to do).
import { resolve } from "node:path";
import type { Problem } from "../util/errors";
import { loadPacksTolerant } from "../pack/load";
import { matches } from "../pack/grants";
import type { Pack, Project } from "../pack/model";
import type { ConfigDoc } from "./file";

export interface Active {
  packs: Pack[];
  broken: { dir: string; problems: Problem[] }[];
}

export function loadActive(project: Pick<Project, "packDirs">): Active {
  const { packs, broken } = loadPacksTolerant(project);
  return { packs, broken: broken.map((b) => ({ dir: b.dir, problems: b.problems })) };
}

/** Pack dirs listed in this one config file (absolute), with the raw entry. */
export function configPackEntries(cfg: ConfigDoc): { entry: string; dir: string }[] {
  return (cfg.data.packs ?? []).map((entry) => ({ entry, dir: resolve(cfg.dir, entry) }));
}

/** Every `pack.verb` of the active packs that `pattern` matches. */
export function matchedCommands(packs: Pack[], pattern: string): string[] {
  const out: string[] = [];
  for (const p of packs)
    for (const c of p.commands) if (matches(pattern, `${p.id}.${c.verb_key}`)) out.push(`${p.id}.${c.verb_key}`);
  return out;
}

/**
 * Which scope's MCP entry serves which packs: the project's entry (project-scope adopt)
 * serves the project config's packs alone; the user-scope entry serves the user config's
 * (a pack both activate is in both). `projectDirs`/`userDirs`: what each config alone activates.
 */
export function servedByScope(
  packs: Pack[],
  projectDirs: string[],
  userDirs: string[],
): { project: string[]; user: string[] } {
  const ids = (dirs: string[]) => {
    const set = new Set(dirs.map((d) => resolve(d)));
    return packs
      .filter((p) => set.has(resolve(p.dir)))
      .map((p) => p.id)
      .sort();
  };
  return { project: ids(projectDirs), user: ids(userDirs) };
}

// The activated packs of a project, read tolerantly: a pack that does not load
// is reported, not fatal (status, doctor and grant still have work to do).
import { resolve } from "node:path";
import { HcpxError, type Problem } from "../util/errors";
import { loadPack } from "../pack/load";
import { matches } from "../pack/grants";
import type { Pack, Project } from "../pack/model";
import type { ConfigDoc } from "./file";

export interface Active {
  packs: Pack[];
  broken: { dir: string; problems: Problem[] }[];
}

export function loadActive(project: Pick<Project, "packDirs">): Active {
  const packs: Pack[] = [];
  const broken: Active["broken"] = [];
  for (const dir of project.packDirs) {
    try {
      packs.push(loadPack(dir));
    } catch (e) {
      if (!(e instanceof HcpxError)) throw e;
      broken.push({ dir, problems: e.problems });
    }
  }
  packs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { packs, broken };
}

/** Pack dirs listed in this one config file (absolute), with the raw entry. */
export function configPackEntries(cfg: ConfigDoc): { entry: string; dir: string }[] {
  return (cfg.data.packs ?? []).map((entry) => ({ entry, dir: resolve(cfg.dir, entry) }));
}

/** Every `pack.verb` of the active packs that `pattern` matches. */
export function matchedCommands(packs: Pack[], pattern: string): string[] {
  const out: string[] = [];
  for (const p of packs) for (const c of p.commands) if (matches(pattern, `${p.id}.${c.verb_key}`)) out.push(`${p.id}.${c.verb_key}`);
  return out;
}

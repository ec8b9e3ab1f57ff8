// What `hcpx mcp` exports: the activated packs as the Principal may see them.
// Only granted commands exist; sense_only packs and packs with no granted
// command export nothing (§12.5.5, §12.2.6). One pack → one group (§12.5.2).
//
// If src/projection/build.ts grows a builder of ProjectedPack[], switch
// `projectPacks` below to it (one line) so there is one projection in hcpx.
import { loadPacks } from "../pack/load";
import { grantedCommands } from "../pack/grants";
import { loadSkill, type Skill } from "../pack/skill";
import { toolName, type Command, type Pack, type Project } from "../pack/model";
import type { ProjectedPack } from "../projection/types";

export interface ExportView {
  project: Project;
  packs: ProjectedPack[];
  /** tool name (`<pack>__<verb_>`) → pack id + verb_key, granted commands only */
  byTool: Map<string, { pack: string; verb: string; command: Command }>;
  /** pack id → its parsed Skill (undefined when SKILL.md is missing or unreadable) */
  skills: Map<string, Skill | undefined>;
}

export function projectPacks(project: Project): { packs: ProjectedPack[]; skills: Map<string, Skill | undefined> } {
  const out: ProjectedPack[] = [];
  const skills = new Map<string, Skill | undefined>();
  for (const pack of loadPacks(project)) {
    if (pack.surface.kind === "sense_only") continue;
    const granted = grantedCommands(project.grants, pack);
    if (granted.length === 0) continue;
    const skill = trySkill(pack);
    skills.set(pack.id, skill);
    out.push({
      pack,
      commands: granted.map((command) => ({ command, toolName: toolName(pack.id, command.verb_key) })),
      withheld: pack.commands.filter((c) => !granted.includes(c)).map((c) => c.verb_key),
      leads: skill?.leads ?? [],
      description: skill?.frontmatter.description ?? pack.surface.description,
    });
  }
  return { packs: out, skills };
}

export function exportView(project: Project): ExportView {
  const { packs, skills } = projectPacks(project);
  const byTool = new Map<string, { pack: string; verb: string; command: Command }>();
  for (const p of packs) for (const c of p.commands) byTool.set(c.toolName, { pack: p.pack.id, verb: c.command.verb_key, command: c.command });
  return { project, packs, byTool, skills };
}

function trySkill(pack: Pack): Skill | undefined {
  try {
    return loadSkill(pack);
  } catch {
    return undefined; // `hcpx lint` reports it; the export still serves the commands
  }
}

/**
 * The Skill as the Principal may read it: hot-path rows of commands it is not
 * granted are removed, and so are example lines (`hcpx exec <pack> <verb>`) of
 * those commands, so withheld verbs appear in no output.
 */
export function filteredSkill(p: ProjectedPack, skill: Skill | undefined): string {
  if (!skill) return `# ${p.pack.id}\n\n${p.pack.surface.description}\n`;
  const withheld = new Set(p.withheld);
  if (withheld.size === 0) return skill.text;
  const drop = new Set(skill.rows.filter((r) => withheld.has(r.verb)).map((r) => r.line));
  const execRe = new RegExp(`hcpx\\s+exec\\s+${escapeRe(p.pack.id)}\\s+([a-z][a-z0-9_.-]*)`);
  const lines = skill.text.split("\n");
  // row line numbers count from the start of the file (after a BOM, if any)
  return lines
    .filter((line, i) => {
      if (drop.has(i + 1)) return false;
      const m = execRe.exec(line);
      return !(m && withheld.has(m[1]!));
    })
    .join("\n");
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

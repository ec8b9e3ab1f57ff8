// What `hcpx mcp` exports: the projection (src/projection/build.ts, the one
// every surface renders from) cut to what the MCP export may carry. Only
// granted commands exist; sense_only packs and packs with no granted command
// export nothing (§12.5.5, §12.2.6). One pack → one group (§12.5.2).
import { loadPacks } from "../pack/load";
import type { Command, Project } from "../pack/model";
import { buildProjection } from "../projection/build";
import { READ_SKILL_TOOL, readSkillTool } from "../projection/tools";
import type { ProjectedPack, ToolDef } from "../projection/types";

export interface ExportView {
  project: Project;
  /** Packs with at least one granted command, sorted by id (never sense_only). */
  packs: ProjectedPack[];
  /** tool name (`<pack>__<verb_>`) → pack id + verb_key, granted commands only */
  byTool: Map<string, { pack: string; verb: string; command: Command }>;
  /** pack id → the Skill as the Principal may read it (withheld commands taken out) */
  skills: Map<string, string>;
  /** The in-process shape: one tool per granted command (no hcp__read_skill). */
  commandTools: ToolDef[];
  /** `hcp__read_skill`, its `pack` enum limited to the exported packs. */
  readSkillTool: ToolDef;
}

export function exportView(project: Project): ExportView {
  const projection = buildProjection(project, loadPacks(project));
  const packs = projection.packs.filter((p) => p.commands.length > 0 && p.pack.surface.kind !== "sense_only");
  const ids = new Set(packs.map((p) => p.pack.id));
  const byTool = new Map<string, { pack: string; verb: string; command: Command }>();
  for (const p of packs) for (const c of p.commands) byTool.set(c.toolName, { pack: p.pack.id, verb: c.command.verb_key, command: c.command });
  return {
    project,
    packs,
    byTool,
    skills: new Map(projection.skills.filter((s) => ids.has(s.packId)).map((s) => [s.packId, s.content])),
    commandTools: projection.tools.filter((t) => t.name !== READ_SKILL_TOOL && byTool.has(t.name)),
    readSkillTool: readSkillTool([...ids]),
  };
}

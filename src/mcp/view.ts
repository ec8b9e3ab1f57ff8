// What `hcpx mcp` exports: the projection (src/projection/build.ts, the one
// every surface renders from) cut to what the MCP export may carry. Only
// granted commands exist; sense_only packs and packs with no granted command
// export nothing (§12.5.5, §12.2.6). One pack → one group (§12.5.2).
//
// One broken pack breaks only itself: a pack that does not load (its
// surface.json, policy.json or SKILL.md), or whose id another activated pack
// also has, is left out and listed in `broken` with the reason; the others are
// served. The server says which pack is broken and why in the tools'
// descriptions, its instructions and on stderr.
import { HcpxError, type Problem } from "../util/errors";
import { display } from "../util/paths";
import { neutralLine } from "../util/neutral";
import { loadPacksTolerant, type BrokenPack } from "../pack/load";
import type { Command, Pack, Project } from "../pack/model";
import { buildProjection } from "../projection/build";
import { READ_SKILL_TOOL, readSkillTool } from "../projection/tools";
import type { ProjectedPack, Projection, ToolDef } from "../projection/types";
import { callable } from "../pack/adapters/index";
import { fitLines, needsIndex, readSkillToolFor } from "./bounds";

export interface ExportView {
  project: Project;
  /** Packs with at least one granted command, sorted by id (never sense_only). */
  packs: ProjectedPack[];
  /** Activated packs that are not served, and why. */
  broken: BrokenPack[];
  /** tool name (`<pack>__<verb_>`) → pack id + verb_key, granted commands only */
  byTool: Map<string, { pack: string; verb: string; command: Command }>;
  /** pack id → the Skill as the Principal may read it (withheld commands taken out) */
  skills: Map<string, string>;
  /** The in-process shape: one tool per granted command (no hcp__read_skill). */
  commandTools: ToolDef[];
  /** `hcp__read_skill`, its `pack` enum limited to the exported packs. */
  readSkillTool: ToolDef;
}

/** `hcpx mcp` names a pack's tools by verb alone where the config says so (mcp.tool_names); other surfaces keep `<pack>__<verb>`. */
const namesOf = (project: Project) => ({ verbToolNames: project.verbToolNames });

/** The projection of the packs that build; a pack whose Skill or ids break the projection joins `broken`. */
function projectTolerant(project: Project, packs: Pack[], broken: BrokenPack[]): Projection {
  const mcpNames = namesOf(project);
  try {
    return buildProjection(project, packs, mcpNames);
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
  }
  const healthy: Pack[] = [];
  for (const p of packs) {
    try {
      buildProjection(project, [p], mcpNames);
      healthy.push(p);
    } catch (e) {
      if (!(e instanceof HcpxError)) throw e;
      broken.push({ dir: p.dir, id: p.id, problems: e.problems });
    }
  }
  // what still fails is between packs (two packs' tool names collide): fatal, as before
  return buildProjection(project, healthy, mcpNames);
}

export function exportView(project: Project): ExportView {
  const loaded = loadPacksTolerant(project);
  const broken = [...loaded.broken];
  const projection = projectTolerant(project, loaded.packs, broken);
  const packs = projection.packs.filter((p) => p.commands.length > 0 && callable(p.pack.surface.kind));
  const ids = new Set(packs.map((p) => p.pack.id));
  const byTool = new Map<string, { pack: string; verb: string; command: Command }>();
  for (const p of packs)
    for (const c of p.commands)
      byTool.set(c.toolName, { pack: p.pack.id, verb: c.command.verb_key, command: c.command });
  const read = readSkillToolFor(readSkillTool([...ids]), [...ids], needsIndex(packs));
  const note = brokenNote(broken);
  return {
    project,
    packs,
    broken,
    byTool,
    skills: new Map(projection.skills.filter((s) => ids.has(s.packId)).map((s) => [s.packId, s.content])),
    commandTools: projection.tools.filter((t) => t.name !== READ_SKILL_TOOL && byTool.has(t.name)),
    readSkillTool: note ? { ...read, description: `${read.description}\n${note}` } : read,
  };
}

function firstError(problems: Problem[]): Problem | undefined {
  return problems.find((p) => p.severity !== "warning") ?? problems[0];
}

/**
 * One line per broken pack: `- <id or dir>: <file>:<line>: <what>`. One line indeed (neutralLine): the reason
 * may quote the pack's own text (an unknown key, a value), which must not add a line to the instructions and
 * tool descriptions the model reads as hcpx's.
 */
export function brokenLines(broken: BrokenPack[]): string[] {
  return broken.map((b) => {
    const p = firstError(b.problems);
    const where = p?.file ? `${p.file}${p.line ? `:${p.line}` : ""}: ` : "";
    const more = b.problems.length > 1 ? ` (+${b.problems.length - 1} more)` : "";
    return neutralLine(
      `- ${b.id !== undefined ? `${b.id} (${display(b.dir)})` : display(b.dir)}: ${where}${p?.message ?? "does not load"}${more}`,
    );
  });
}

export const BROKEN_HEADER = "Not served, broken";

/** Characters of broken-pack lines a tool description may carry (the log on stderr has them all). */
export const BROKEN_BUDGET = 800;

/** The text the tools carry about broken packs, bounded; empty when none is. */
export function brokenNote(broken: BrokenPack[]): string {
  if (broken.length === 0) return "";
  const { shown, more } = fitLines(brokenLines(broken), BROKEN_BUDGET);
  return [
    `${BROKEN_HEADER} (run \`hcpx lint\` in the project to see every problem):`,
    ...shown,
    ...(more ? [`- … and ${more} more`] : []),
  ].join("\n");
}

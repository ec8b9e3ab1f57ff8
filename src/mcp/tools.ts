// Tool definitions of the MCP export. Pure data: no SDK here. Two shapes
// (§12.2): the single tool `hcp` (default, defined here: its description is
// the compact verb list) and one tool per granted command (`--shape
// per-command`, the projection's in-process tools); both add hcp__read_skill.
// What the model sees of the single shape is bounded whatever the number of
// packs (./bounds.ts).
import { packLine, shellTool } from "../projection/tools";
import type { ProjectedPack, ToolDef } from "../projection/types";
import { brokenNote, type ExportView } from "./view";
import { DESCRIPTION_BUDGET, fitLines, idsFit, indexHint, instructionLeads, withPackIds } from "./bounds";

export { packIndex } from "./bounds";

export type Shape = "single" | "per-command";
export const SHAPES: readonly Shape[] = ["single", "per-command"];

export type McpToolDef = ToolDef;

export { SHELL_TOOL as HCP_TOOL, verbMarker as marker, packLine } from "../projection/tools";

/** The single tool `hcp`: the projection's shell-shape tool, its description listing the granted verbs of the packs that fit. */
export function singleTool(packs: ProjectedPack[]): McpToolDef {
  const callable = packs.filter((p) => p.commands.length > 0);
  const { shown, more } = fitLines(callable.map(packLine), DESCRIPTION_BUDGET);
  const t = shellTool(more ? callable.slice(0, shown.length) : callable, { listVerbs: true });
  if (!more && idsFit(callable.map((p) => p.pack.id))) return t;
  const description = more
    ? `${t.description}\n- … and ${more} more of ${callable.length} packs: ${indexHint(callable.length)}`
    : t.description;
  return {
    ...t,
    description,
    inputSchema: withPackIds(
      t.inputSchema,
      callable.map((p) => p.pack.id),
      "Pack id",
    ),
  };
}

export function toolsFor(shape: Shape, view: ExportView): McpToolDef[] {
  if (shape !== "single") return [...view.commandTools, view.readSkillTool];
  const hcp = singleTool(view.packs);
  const note = brokenNote(view.broken);
  return [note ? { ...hcp, description: `${hcp.description}\n${note}` } : hcp, view.readSkillTool];
}

/** Server instructions (initialize): the leads of the exported packs that fit, one group per pack. */
export function instructions(packs: ProjectedPack[], shape: Shape, broken: ExportView["broken"] = []): string {
  // the projection's leads are already filtered: none names a withheld command
  const how =
    shape === "single"
      ? "Use the `hcp` tool with {pack, verb, args}; read a pack's Skill with hcp__read_skill before its first use."
      : "Each tool is one pack command (`<pack>__<verb>`); read a pack's Skill with hcp__read_skill before its first use.";
  const leads = packs.flatMap(instructionLeads).map((l) => `- ${l}`);
  const { shown, more } = fitLines(leads, DESCRIPTION_BUDGET);
  const note = brokenNote(broken);
  return [
    `HCP packs served by hcpx. ${how} Writes marked confirm run only with confirm: true after the user agreed.`,
    ...shown,
    ...(more ? [`- … and the leads of ${more} more: ${indexHint(packs.length)}`] : []),
    ...(note ? [note] : []),
  ].join("\n");
}

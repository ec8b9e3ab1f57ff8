// Tool definitions of the MCP export. Pure data: no SDK here. Two shapes
// (§12.2): the single tool `hcp` (default, defined here: its description is
// the compact verb list) and one tool per granted command (`--shape
// per-command`, the projection's in-process tools); both add hcp__read_skill.
import type { Command } from "../pack/model";
import { CONFIRM_MARKER } from "../projection/tools";
import type { ProjectedPack, ToolDef } from "../projection/types";
import type { ExportView } from "./view";

export type Shape = "single" | "per-command";
export const SHAPES: readonly Shape[] = ["single", "per-command"];

export type McpToolDef = ToolDef;

export const HCP_TOOL = "hcp";

/** `[w:remote, confirm required]`-style marker (operation, land, confirm); empty for a read. */
export function marker(c: Command): string {
  const p = c.policy;
  if (p.operation === "read") return "";
  return `[w${p.land ? `:${p.land}` : ""}${p.confirm ? `, ${CONFIRM_MARKER}` : ""}]`;
}

/** One line per pack: `- ledger: accounts, balance, entry.add[w:remote], transfer[w:remote, confirm required]`. */
export function packLine(p: ProjectedPack): string {
  const passThrough = p.commands.some((c) => c.command.passThrough);
  const verbs = p.commands.map((c) => `${c.command.verb_key}${marker(c.command)}`).join(", ");
  return `- ${p.pack.id}${passThrough ? " (argv)" : ""}: ${verbs}`;
}

export function singleTool(packs: ProjectedPack[]): McpToolDef {
  const lines = [
    "Run a command of an HCP pack through the hcpx runtime (grants, Policy and credentials are applied there).",
    "Call hcp__read_skill {pack} first to learn a pack's verbs and their args.",
    `Markers: [w:<land>] write; "${CONFIRM_MARKER}" = runs only with confirm: true, after the user agreed; no marker = read.`,
    "(argv) packs pass args.argv: [string] literally.",
    "Packs:",
    ...packs.map(packLine),
  ];
  if (packs.length === 0) lines.push("- (none granted)");
  return {
    name: HCP_TOOL,
    description: lines.join("\n"),
    inputSchema: {
      type: "object",
      properties: {
        pack: { type: "string", description: "pack id" },
        verb: { type: "string", description: "verb_key, e.g. entry.add" },
        args: { type: "object", description: "the verb's args; (argv) packs: { argv: [string] }", additionalProperties: true },
        confirm: { type: "boolean", description: `true only for a write marked ${CONFIRM_MARKER}, after the user approved it` },
      },
      required: ["pack", "verb"],
      additionalProperties: false,
    },
  };
}

export function toolsFor(shape: Shape, view: ExportView): McpToolDef[] {
  return shape === "single" ? [singleTool(view.packs), view.readSkillTool] : [...view.commandTools, view.readSkillTool];
}

/** Server instructions (initialize): the leads of each exported pack, one group per pack. */
export function instructions(packs: ProjectedPack[], shape: Shape): string {
  // the projection's leads are already filtered: none names a withheld command
  const how = shape === "single" ? "Use the `hcp` tool with {pack, verb, args}; read a pack's Skill with hcp__read_skill before its first use." : "Each tool is one pack command (`<pack>__<verb>`); read a pack's Skill with hcp__read_skill before its first use.";
  const leads = packs.flatMap((p) => (p.leads.length ? p.leads : [`${p.pack.id}: ${p.pack.surface.description}`]));
  return [`HCP packs served by hcpx. ${how} Writes marked confirm run only with confirm: true after the user agreed.`, ...leads.map((l) => `- ${l}`)].join("\n");
}

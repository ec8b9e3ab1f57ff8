// Tool definitions of the MCP export, from the projected packs. Pure data: no
// SDK here. Two shapes (§12.2): the single tool `hcp` (default) and one tool
// per granted command (`--shape per-command`); both add `hcp__read_skill`.
import type { ArgSpec } from "../pack/schema";
import type { Command } from "../pack/model";
import type { ProjectedPack, ToolDef } from "../projection/types";

export type Shape = "single" | "per-command";
export const SHAPES: readonly Shape[] = ["single", "per-command"];

export interface McpToolDef extends Omit<ToolDef, "annotations"> {
  annotations?: NonNullable<ToolDef["annotations"]> & { idempotentHint?: boolean; openWorldHint?: boolean };
}

export const HCP_TOOL = "hcp";
export const READ_SKILL_TOOL = "hcp__read_skill";

/** `[w:remote,confirm]`-style marker; empty for a read. */
export function marker(c: Command): string {
  const p = c.policy;
  if (p.operation === "read") return "";
  return `[w${p.land ? `:${p.land}` : ""}${p.confirm ? ",confirm" : ""}]`;
}

/** One line per pack: `ledger: accounts, balance, entry.add[w:remote], transfer[w:remote,confirm]`. */
export function packLine(p: ProjectedPack): string {
  const passThrough = p.commands.some((c) => c.command.passThrough);
  const verbs = p.commands.map((c) => `${c.command.verb_key}${marker(c.command)}`).join(", ");
  return `- ${p.pack.id}${passThrough ? " (argv)" : ""}: ${verbs}`;
}

export function singleTool(packs: ProjectedPack[]): McpToolDef {
  const lines = [
    "Run a command of an HCP pack through the hcpx runtime (grants, Policy and credentials are applied there).",
    "Call hcp__read_skill {pack} first to learn a pack's verbs and their args.",
    "Markers: [w:<land>] write; ,confirm = runs only with confirm:true, after the user agreed; no marker = read.",
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
        confirm: { type: "boolean", description: "true only for a confirm write the user approved" },
      },
      required: ["pack", "verb"],
      additionalProperties: false,
    },
  };
}

export function readSkillTool(packs: ProjectedPack[]): McpToolDef {
  return {
    name: READ_SKILL_TOOL,
    description: `Full Skill (SKILL.md) of a pack: what it is for, its verbs, args and rules. Packs: ${packs.map((p) => p.pack.id).join(", ") || "(none)"}.`,
    inputSchema: {
      type: "object",
      properties: { pack: { type: "string", description: "pack id" } },
      required: ["pack"],
      additionalProperties: false,
    },
    annotations: { title: "Read a pack's Skill", readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  };
}

export function argSchema(a: ArgSpec): Record<string, unknown> {
  const s: Record<string, unknown> = {};
  if (a.type === "enum") {
    const values = a.values ?? [];
    s.enum = values;
    if (values.every((v) => typeof v === "string")) s.type = "string";
  } else s.type = a.type;
  if (a.values && a.type !== "enum") s.enum = a.values;
  if (a.description) s.description = a.description;
  if (a.default !== undefined) s.default = a.default;
  return s;
}

export function inputSchemaFor(c: Command): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  if (c.passThrough) {
    properties.argv = { type: "array", items: { type: "string" }, maxItems: c.passThrough.maxArgv, description: "arguments after the subcommand, passed literally" };
  } else {
    for (const [name, a] of Object.entries(c.args)) {
      properties[name] = argSchema(a);
      if (a.required) required.push(name);
    }
  }
  if (c.policy.operation === "write" && c.policy.confirm) {
    properties.confirm = { type: "boolean", description: "must be true to run: set it only after the user approved this write" };
  }
  return { type: "object", properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

export function commandDescription(packId: string, c: Command): string {
  const p = c.policy;
  const policy = p.operation === "read" ? "read" : `write, land: ${p.land ?? "unspecified"}${p.confirm ? ", confirm required (set confirm: true only after the user approved)" : ""}`;
  return `${c.summary} [${packId}; ${policy}]`;
}

export function commandTool(packId: string, name: string, c: Command): McpToolDef {
  const p = c.policy;
  const read = p.operation === "read";
  const destructive = !read && (p.land === "external" || p.confirm);
  return {
    name,
    description: commandDescription(packId, c),
    inputSchema: inputSchemaFor(c),
    annotations: {
      title: `${packId} ${c.verb_key}`,
      readOnlyHint: read,
      ...(read ? { idempotentHint: true } : { destructiveHint: destructive }),
      ...(p.land === "external" ? { openWorldHint: true } : {}),
    },
  };
}

export function perCommandTools(packs: ProjectedPack[]): McpToolDef[] {
  return packs.flatMap((p) => p.commands.map((c) => commandTool(p.pack.id, c.toolName, c.command)));
}

export function toolsFor(shape: Shape, packs: ProjectedPack[]): McpToolDef[] {
  return shape === "single" ? [singleTool(packs), readSkillTool(packs)] : [...perCommandTools(packs), readSkillTool(packs)];
}

/** Server instructions (initialize): the leads of each exported pack, one group per pack. */
export function instructions(packs: ProjectedPack[], shape: Shape): string {
  const how = shape === "single" ? "Use the `hcp` tool with {pack, verb, args}; read a pack's Skill with hcp__read_skill before its first use." : "Each tool is one pack command (`<pack>__<verb>`); read a pack's Skill with hcp__read_skill before its first use.";
  const leads = packs.flatMap((p) => (p.leads.length ? p.leads : [`${p.pack.id}: ${p.pack.surface.description}`]));
  return [`HCP packs served by hcpx. ${how} Writes marked confirm run only with confirm: true after the user agreed.`, ...leads.map((l) => `- ${l}`)].join("\n");
}

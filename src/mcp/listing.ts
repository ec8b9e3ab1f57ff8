// How a served command is listed to an MCP client: each tool's metadata
// (title, annotations from the Policy, the input schema without the args the
// command's inputs fill) and the tool-list change key's record of the packs
// served. Pure: the view cache (view-cache.ts) calls it on each rebuild.
import type { Command } from "../pack/model";
import { READ_SKILL_TOOL } from "../projection/tools";
import type { ToolDef } from "../projection/types";
import { inputArgs } from "./inputs";
import type { ExportView } from "./view";

/**
 * MCP tool metadata from the Policy: annotations (read-only, destructive,
 * idempotent, open-world) from the operation and the land, and a title.
 */
export function mcpTool(
  t: ToolDef,
  command: Command | undefined,
  packId: string | undefined,
  all: Command[],
): Record<string, unknown> {
  let title: string;
  let ann: Record<string, boolean>;
  if (command) {
    const p = command.policy;
    const read = p.operation === "read";
    title = `${packId}: ${command.summary.trim().replace(/[.;:,]$/, "")}`;
    ann = {
      readOnlyHint: read,
      destructiveHint: !read && (p.confirm || p.land === "external"),
      idempotentHint: read,
      openWorldHint: p.land !== "local",
    };
  } else if (t.name === READ_SKILL_TOOL) {
    title = "Read an HCP pack's Skill";
    ann = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  } else {
    // the single tool `hcp`: the union of what its verbs may do
    const writes = all.filter((c) => c.policy.operation === "write");
    title = "HCP packs";
    ann = {
      readOnlyHint: writes.length === 0,
      destructiveHint: writes.some((c) => c.policy.confirm || c.policy.land === "external"),
      idempotentHint: writes.length === 0,
      openWorldHint: all.some((c) => c.policy.land !== "local"),
    };
  }
  return {
    name: t.name,
    title,
    description: t.description,
    inputSchema: command?.inputs ? withoutInputArgs(t.inputSchema, command) : t.inputSchema,
    annotations: { title, ...ann },
  };
}

/** A tool's input schema without the args the command's inputs fill (hcpx asks the client for those). */
function withoutInputArgs(schema: Record<string, unknown>, c: Command): Record<string, unknown> {
  const filled = inputArgs(c);
  const props = Object.fromEntries(
    Object.entries((schema.properties ?? {}) as Record<string, unknown>).filter(([k]) => !filled.has(k)),
  );
  const required = ((schema.required ?? []) as string[]).filter((k) => !filled.has(k));
  const { required: _r, ...rest } = schema;
  return { ...rest, properties: props, ...(required.length ? { required } : {}) };
}

/**
 * The packs served, as the tool-list change key holds them: id, description and
 * each command's prompt declaration (the prompts, src/mcp/prompts.ts, change with it).
 */
export function servedOf(packs: ExportView["packs"]): unknown[][] {
  return packs.map((p) => [p.pack.id, p.description, p.commands.map((c) => c.command.prompt ?? null)]);
}

// The bounds of what the MCP export's single shape tells a model (issue 29):
// the `hcp` description lists packs (one line each, their granted verbs with
// markers) while they fit in DESCRIPTION_BUDGET characters, then says how many
// more there are and how to list them (hcp__read_skill without a pack: the
// pack index, a page at a time); the pack ids stand in the schemas' enums only
// while they fit in ENUM_BUDGET. Only granted commands are ever named (the
// projection holds no withheld one).
import { READ_SKILL_TOOL, packLine } from "../projection/tools";
import type { ProjectedPack, ToolDef } from "../projection/types";

/** Characters of pack lines the `hcp` description (and the server instructions) may carry. */
export const DESCRIPTION_BUDGET = 4096;
/** Characters of pack ids a schema's `pack` enum may carry; beyond, the enum is left out (the server checks the id). */
export const ENUM_BUDGET = 1024;
/** Packs per page of the pack index (hcp__read_skill without a pack). */
export const INDEX_PAGE = 100;

/** The first lines of `lines` that fit in `budget` characters (one at least), and how many were left out. */
export function fitLines(lines: readonly string[], budget: number): { shown: string[]; more: number } {
  let used = 0;
  let k = 0;
  for (; k < lines.length; k++) {
    const add = lines[k]!.length + 1;
    if (used + add > budget && k > 0) break;
    used += add;
  }
  return { shown: lines.slice(0, k), more: lines.length - k };
}

export const indexHint = (n: number) =>
  `${READ_SKILL_TOOL} {} lists every pack with its verbs (${INDEX_PAGE} a page: {page: 2} …)${n > INDEX_PAGE ? `; ${Math.ceil(n / INDEX_PAGE)} pages` : ""}`;

/** Whether the pack ids fit in a schema enum. */
export function idsFit(ids: readonly string[]): boolean {
  let n = 0;
  for (const id of ids) if ((n += id.length + 3) > ENUM_BUDGET) return false;
  return true;
}

/** A schema whose `pack` property enumerates `ids` while they fit, else names where to find them. */
export function withPackIds(schema: Record<string, unknown>, ids: string[], what: string): Record<string, unknown> {
  const props = { ...(schema.properties as Record<string, Record<string, unknown>>) };
  const { enum: _e, ...pack } = props.pack ?? {};
  props.pack = idsFit(ids)
    ? { ...pack, enum: ids }
    : { ...pack, description: `${what} (${ids.length} packs: ${READ_SKILL_TOOL} {} lists them)` };
  return { ...schema, properties: props };
}

/** hcp__read_skill of the export: a pack's Skill, or without a pack the pack index (a page at a time). */
export function readSkillToolFor(base: ToolDef, ids: string[], index: boolean): ToolDef {
  if (!index) return base;
  const schema = withPackIds(base.inputSchema, ids, "Pack id; leave it out for the pack index");
  const props = schema.properties as Record<string, unknown>;
  return {
    ...base,
    description: `${base.description} Without a pack: the list of every pack with its verbs, ${INDEX_PAGE} a page.`,
    inputSchema: {
      ...schema,
      properties: {
        ...props,
        page: { type: "integer", minimum: 1, description: "Page of the pack index (without pack)" },
      },
      required: [],
    },
  };
}

/**
 * The lines the server instructions carry for a pack: its leads (one line each: src/pack/leads.ts), or
 * `<pack>: <description>` with the description's line breaks folded, so that it is one line too.
 */
export function instructionLeads(p: ProjectedPack): string[] {
  return p.leads.length ? p.leads : [`${p.pack.id}: ${p.description.replace(/\s+/g, " ").trim()}`];
}

/** Whether the model is pointed to the pack index: the packs' lines, their leads or their ids do not all fit. */
export function needsIndex(packs: ProjectedPack[]): boolean {
  const callable = packs.filter((p) => p.commands.length > 0);
  if (!idsFit(callable.map((p) => p.pack.id))) return true;
  if (fitLines(callable.map(packLine), DESCRIPTION_BUDGET).more) return true;
  return (
    fitLines(
      packs.flatMap(instructionLeads).map((l) => `- ${l}`),
      DESCRIPTION_BUDGET,
    ).more > 0
  );
}

/** One page (1-based) of the pack index: one line per pack, its granted verbs with their markers. */
export function packIndex(packs: ProjectedPack[], page: number): string {
  const callable = packs.filter((p) => p.commands.length > 0);
  const pages = Math.max(1, Math.ceil(callable.length / INDEX_PAGE));
  const lines = callable.slice((page - 1) * INDEX_PAGE, page * INDEX_PAGE).map(packLine);
  const head = `Packs ${callable.length ? `${(page - 1) * INDEX_PAGE + 1}–${(page - 1) * INDEX_PAGE + lines.length}` : "0"} of ${callable.length} (page ${page} of ${pages}${page < pages ? `; next: ${READ_SKILL_TOOL} {page: ${page + 1}}` : ""}). Markers: [w:<land>] write; "confirm required" = runs only with confirm: true; no marker = read.`;
  return [head, ...(lines.length ? lines : ["- (none)"])].join("\n");
}

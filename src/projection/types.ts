// The projection of activated packs for one Principal: what every surface
// (generate, adopt, mcp) renders from. Built once, in memory, by ./build.ts.
import type { Command, Pack } from "../pack/model";

export interface ProjectedCommand {
  command: Command;
  /** `<pack>__<verb_with_dots_as_underscores>` */
  toolName: string;
}

export interface ProjectedPack {
  pack: Pack;
  /** Only the commands the Principal is granted, in surface order. */
  commands: ProjectedCommand[];
  /** Commands withheld by grants (names only; they appear in no output). */
  withheld: string[];
  leads: string[];
  /** Skill description from SKILL.md frontmatter. */
  description: string;
}

export interface ToolDef {
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12 subset) of the input object. */
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string };
}

/** A file to be written, relative to some root (posix separators). */
export interface PlannedFile {
  path: string;
  content: string;
}

export interface Plan {
  files: PlannedFile[];
}

/** One pack's Skill copy, as hosts receive it (frontmatter + filtered body). */
export interface ProjectedSkill {
  packId: string;
  content: string;
}

/** Everything every surface renders from (see ./build.ts). */
export interface Projection {
  /** Sorted by pack id: packs with at least one granted command, and sense_only packs. */
  packs: ProjectedPack[];
  /** The stable system-prompt block: header line with the hash, then the body. */
  promptBlock: string;
  /** sha256 of the block's body, first 16 hex digits. */
  hash: string;
  /** The shell shape (§12.2.1): the single `hcp` tool (the name the MCP export uses). */
  shellTool: ToolDef;
  /** The in-process shape (§12.2.2): one tool per granted command, then `hcp__read_skill`. */
  tools: ToolDef[];
  /** The `hcp__read_skill` tool (also the last entry of `tools`). */
  readSkillTool: ToolDef;
  skills: ProjectedSkill[];
}

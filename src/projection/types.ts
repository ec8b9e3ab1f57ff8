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

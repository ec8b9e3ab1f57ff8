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
  /** the bytes; a lazy file renders them again on each read (lazyFile) */
  readonly content: string;
  /**
   * A lazy file's text in pieces, rendered again on each call and never held whole (generate's
   * tool lists: ~35 MB each at 5,000 packs): src/plan/files.ts reads them only to compare them with
   * a file on disk (and hash them when the same); apply once to write them, hashing what it writes.
   */
  chunks?: () => Iterable<string>;
  /** a JSON array file: how many items it holds (the summary counts them without rendering it) */
  items?: number;
}

/** A file rendered in pieces when read, each time (`chunks` must be pure: the same text each call). */
export function lazyFile(path: string, chunks: () => Iterable<string>, items?: number): PlannedFile {
  return {
    path,
    chunks,
    ...(items !== undefined ? { items } : {}),
    get content() {
      let s = "";
      for (const c of chunks()) s += c;
      return s;
    },
  };
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

/** The options that change only the prompt block (buildProjection, withSkillsPath). */
export interface BlockOptions {
  /**
   * The block advertises the shell route (`hcpx exec …`) only when the host's
   * shell can run it: `hcpx` on PATH (adopt knows from the MCP command it
   * writes). Default true.
   */
  shell?: boolean;
  /**
   * The command the shell route runs, `<shellCommand> exec …` (default `hcpx`): where
   * hcpx is not on PATH, what the MCP entry runs (absolute node + hcpx), so that the
   * block says how to run it.
   */
  shellCommand?: string;
  /**
   * The MCP server name the host sees (adopt: descriptor `servers`, `hcp-user` at
   * user scope where both scopes have one); default `hcp`.
   */
  server?: string;
  /**
   * The MCP tools the host's entry serves (adopt): "single" (the `hcp` tool),
   * "per-command" (one tool `<pack>__<verb>` per granted command), "mixed" (a
   * block hosts with different shapes read: it names neither). Unset (generate,
   * the library): every form, the in-process tool loop included.
   * `hcp__read_skill` is served in every shape.
   */
  tools?: "single" | "per-command" | "mixed";
  /** What a gated write relies on at this host, one sentence for the model (descriptor `gate.model`). */
  gate?: string;
  /**
   * The entry is a remote one (`adopt --url`): another machine's hcpx serves it, with its
   * own packs and shape. The block names its tools only as its tool list gives them
   * (`hcp__read_skill` is in every shape) and never the shell route.
   */
  remote?: boolean;
}

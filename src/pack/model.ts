// The loaded, normalised model every part of hcpx works on.
import type { ArgSpec, HttpSpec, PolicyRow } from "./schema";
import type { AdapterKind, SurfaceOf } from "./adapters/index";
import type { Problem } from "../util/errors";

export type Operation = "read" | "write";
export type Land = "local" | "remote" | "external";

export interface CommandPolicy {
  operation: Operation;
  land?: Land;
  confirm: boolean;
  /** true when the row came from an openapi draft not yet reviewed. */
  inferred: boolean;
}

export interface Command {
  verb_key: string;
  summary: string;
  description?: string;
  /** The CLI face, first token the pack's CLI name. */
  cli?: string[];
  /** wrap: how stdout is read, when the command overrides wrap.output. */
  output?: "json" | "text" | "jsonl";
  args: Record<string, ArgSpec>;
  /** openapi: the operation (method upper-cased). */
  http?: Omit<HttpSpec, "method"> & { method: string };
  /** kind mcp: the server's tool name this command calls. */
  tool?: string;
  /** What hcpx asks the MCP client for before the command runs (docs/inputs.md); key → input. */
  inputs?: Record<string, CommandInput>;
  /** `hcpx mcp`: the command is also an MCP prompt (docs/prompts.md), with the inputs the prompt asks. */
  prompt?: CommandPrompt;
  /** Set for verbs synthesised from `pass_through.allowedSubcommands`. */
  passThrough?: { maxArgv: number };
  policy: CommandPolicy;
}

/** One input a command declares: asked of the MCP client, its answer fills `arg`. */
export interface CommandInput {
  ask: "form" | "sampling" | "roots";
  arg: string;
  message?: string;
  field?: string;
  prompt?: string;
  max_tokens?: number;
  round?: number;
  optional?: boolean;
}

/** A command as an MCP prompt: hcpx answers prompts/get with a message naming the tool to call; it never runs it. */
export interface CommandPrompt {
  description?: string;
  /** asked of the client by prompts/get; each answer fills one arg of the message's tool call */
  inputs?: Record<string, CommandInput>;
}

/** A loaded pack; `Pack<"openapi">` is one whose kind is known (its section is then present). */
export interface Pack<K extends AdapterKind = AdapterKind> {
  id: string;
  /** Absolute pack directory. */
  dir: string;
  surfaceFile: string;
  policyFile: string;
  skillFile: string;
  surface: SurfaceOf<K>;
  policyRows: Record<string, PolicyRow>;
  policyInferred: boolean;
  commands: Command[];
  /** Warnings found while loading (none today: every load problem is an error). */
  warnings: Problem[];
}

export interface Grants {
  allow: string[];
  deny: string[];
  /** a ceiling these grants stay within: a command is granted only when it grants it too (`hcpx mcp --http`: a principal's grants within the project's) */
  within?: Grants;
}

export interface Sandbox {
  /** bare bin name -> absolute path */
  bins: Record<string, string>;
  /** absolute, resolved roots a relative wrap.bin must stay inside */
  roots: string[];
  /**
   * The roots a write may change under enforce "os": the user config's, and a project config's that
   * lie inside its own folder (a repository's config cannot open /etc or HOME to writes). Unset: all roots.
   */
  writable?: string[];
  /** sandbox.bins.bwrap of the user config (a project config cannot name the sandbox's own program) */
  bwrap?: string;
  /** absolute cwd for wrapped bins */
  cwd: string;
  /**
   * "os": wrap bins and mcp servers run confined per their Policy row
   * (src/runtime/sandbox); of the user and project configs the stricter wins.
   */
  enforce?: "os" | "off";
  /** where enforce "os" came from (config files), for messages */
  enforcedBy?: string[];
  /** composite pack ids every layer asking "os" trusts to run in-process */
  trustedComposites?: string[];
  /** pack ids every layer asking "os" lets write .git/config (src/runtime/sandbox: read-only for every other) */
  gitConfigWriters?: string[];
  /** the project configs of the folders the config names in sandbox.nested_projects (src/pack/nested.ts): read-only to a confined call */
  nestedConfigs?: string[];
}

/**
 * Who says yes to a `confirm: true` write. "person": only a person (MCP
 * elicitation, or `hcpx exec --confirm` typed at a terminal); "host": a person
 * through elicitation when the client can ask, else the model's confirm with
 * the host's own approval prompt; "agent": the model's confirm is enough.
 */
export type ConfirmMode = "person" | "host" | "agent";
export const CONFIRM_STRICTNESS: Record<ConfirmMode, number> = { agent: 0, host: 1, person: 2 };
export const DEFAULT_CONFIRM_TIMEOUT_MS = 120_000;

export interface Project {
  /** Directory of the project config (or cwd when only a user config exists). */
  root: string;
  /** Absolute path of the project's hcp.config.json5, when there is one. */
  configFile?: string;
  /** Absolute path of the user config, when there is one. */
  userConfigFile?: string;
  /** Absolute activated pack directories, in config order, de-duplicated. */
  packDirs: string[];
  principal: { id: string; kind: "person" | "agent" };
  grants: Grants;
  sandbox: Sandbox;
  /** the confirm setting: of the user and project configs, the stricter `by` wins */
  confirm: { by: ConfirmMode; timeoutMs: number };
  /** `hcpx mcp`: pack ids whose tools are named by their verb alone (config mcp.tool_names) */
  verbToolNames?: string[];
  warnings: Problem[];
}

export function toolName(packId: string, verbKey: string): string {
  return `${packId}__${verbKey.replace(/\./g, "_")}`;
}

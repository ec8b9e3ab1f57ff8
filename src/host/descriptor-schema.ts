// The host descriptor's schema (`hosts/<host>.json5`, docs/host-descriptors.md), the
// part that is data: the file formats with what a target of each takes, and the
// entry's slots. The zod schemas of every field, and the types they give, are
// ./descriptor-zod.ts (loaded only when a descriptor is checked);
// src/host/descriptor.ts loads and checks descriptors.

/**
 * The file formats, each with what a target of it takes: `keyed` formats hold the
 * MCP `entry` (or permission rules) at a `key` path; `prose` formats render a
 * `template`; `rules`: `items`/`members` (a list or object of permission rules).
 * Each has one handler in src/host/formats/ (the table there is typed by this one).
 */
export const FORMAT_CAPS = {
  json: { keyed: true, prose: false, rules: true },
  jsonc: { keyed: true, prose: false, rules: true },
  toml: { keyed: true, prose: false, rules: false },
  yaml: { keyed: true, prose: false, rules: false },
  "markdown-block": { keyed: false, prose: true, rules: false },
  file: { keyed: false, prose: true, rules: false },
  "dir-of-skills": { keyed: false, prose: false, rules: false },
} as const satisfies Record<string, { keyed: boolean; prose: boolean; rules: boolean }>;
export type Format = keyof typeof FORMAT_CAPS;
export const FORMATS = Object.keys(FORMAT_CAPS) as [Format, ...Format[]];

/**
 * What fills a field of the MCP entry: `command` (the program), `args` (its
 * arguments), `argv` (program and arguments, one array), `env` (the packs'
 * Binding env names as an object NAME: the host's reference to it, per the
 * target's `envSyntax`; left out when there are none), `envNames` (the same
 * names as a list: Codex's `env_vars`; left out when empty), `toolApprovals`
 * (the descriptor's `toolApprovals` per served tool).
 */
export const SLOTS = ["command", "args", "argv", "env", "envNames", "toolApprovals"] as const;
export type Slot = (typeof SLOTS)[number];

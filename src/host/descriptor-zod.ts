// The host descriptor's zod/mini schemas, and the types of a descriptor's fields they give (the data,
// formats and slots, is ./descriptor-schema.ts). Loaded when a descriptor is checked (src/host/descriptor.ts
// descriptorSchema(), a require() that esbuild bundles as a lazily run module): adopt's bundle carries
// every shipped descriptor as the build checked it (HOSTS_INDEX), so an adopt that reads only those builds
// none of this (zod makes a schema's checks when the schema is made: ~1 ms of adopt's start, cpu profile).
import * as z from "zod/mini";
import { FORMATS, SLOTS } from "./descriptor-schema";
import { CheckPathSchema, UnreadSchema } from "./unread-zod"; // gate.unread, a check's files
import { HookSchema, SkippedSchema } from "./hooks-zod"; // gate.hooks, gate.skipped

/**
 * One rule as the host's list holds it: a string (`mcp__hcp__{tool}`), or an object whose
 * strings are filled in the same way (Augment's `{ toolName, permission: { type } }`, Amp's
 * `{ tool, action }`): a list of objects is one more shape of data, not code per host.
 */
const RuleItem = z.union([z.string().check(z.minLength(1)), z.record(z.string().check(z.minLength(1)), z.unknown())]);
export type RuleItem = z.infer<typeof RuleItem>;
/** Rule patterns per command class; `{tool}`, `{pack}`, `{verb}` and `{server}` are filled in per granted command. */
const RuleClasses = z.strictObject({
  /** granted reads */
  read: z.optional(z.array(RuleItem)),
  /** granted writes without confirm */
  write: z.optional(z.array(RuleItem)),
  /** granted writes with confirm: true (the host's approval prompt) */
  confirm: z.optional(z.array(RuleItem)),
  /** fixed items, once (e.g. the read-only hcp__read_skill tool) */
  always: z.optional(z.array(RuleItem)),
});
export type RuleClasses = z.infer<typeof RuleClasses>;
/**
 * How the host reads its rules, so that `adopt --check` and `doctor` can tell when a rule the
 * person wrote lets a confirm-gated write run without the host asking (a rule hcpx wrote never
 * does): `name` (the host's name for a served tool), `match`, `at`, `field`/`decision`, `allow`,
 * `order` ("any": an allow-list; "first"/"last": the first/last matching rule decides) and
 * `after` (with "last": more lists the host evaluates after these, paths from the file's top,
 * `*` each member). docs/host-descriptors.md says each. A host whose ask rule wins over any allow
 * (Claude Code, Gemini CLI, Qwen Code, Devin) needs none.
 */
const WidensSchema = z.strictObject({
  name: z.string().check(z.minLength(1)),
  match: z.enum(["exact", "glob", "wildcard"]),
  at: z.optional(z.array(z.string().check(z.minLength(1))).check(z.minLength(1))),
  field: z.optional(z.string().check(z.minLength(1))),
  decision: z.optional(z.array(z.string().check(z.minLength(1))).check(z.minLength(1))),
  allow: z.optional(z.array(z.string()).check(z.minLength(1))),
  order: z.enum(["any", "first", "last"]),
  after: z.optional(z.array(z.array(z.string().check(z.minLength(1))).check(z.minLength(1))).check(z.minLength(1))),
});
export type Widens = z.infer<typeof WidensSchema>;
/** a slot, a fixed `{ value }`, or `{ items }`: a list of rules expanded per granted command (Kiro's and Cline's `autoApprove`) */
const Field = z.union([
  z.enum(SLOTS),
  z.strictObject({ value: z.optional(z.unknown()) }),
  z.strictObject({ items: RuleClasses }),
]);
/** a remote entry's field: the URL, the token's env var name, headers with a `{token}` reference, or a fixed value */
const RemoteField = z.union([
  z.enum(["url", "tokenEnv", "toolApprovals"]),
  z.strictObject({ value: z.optional(z.unknown()) }),
  z.strictObject({ headers: z.record(z.string().check(z.minLength(1)), z.string()) }),
  z.strictObject({ items: RuleClasses }),
]);
const EntrySchema = z.strictObject({
  /** field name → a slot, or `{ value: … }` written as it is (`type: { value: "stdio" }`); in the order written */
  fields: z.record(z.string().check(z.minLength(1)), Field),
  /**
   * slots hcpx does not write but `hcpx import` reads from the person's other
   * servers (Claude Code's `env`: hcpx's own entry inherits the host's environment)
   */
  read: z.optional(
    z.strictObject({
      env: z.optional(z.string().check(z.minLength(1))),
      envNames: z.optional(z.string().check(z.minLength(1))),
    }),
  ),
  /** fields that mark a server reached by URL (not importable as stdio) */
  remote: z.optional(z.array(z.string().check(z.minLength(1)))),
  /**
   * `adopt --url`: the host's documented remote (Streamable HTTP) entry, field
   * name to `url` (the URL), `tokenEnv` (the token's env var name itself, Codex's
   * bearer_token_env_var), `{ headers: { Name: "Bearer {token}" } }` (headers
   * whose `{token}` is the target's `envSyntax` reference to --token-env; left
   * out without it), a fixed `{ value }`, or the approval fields of a local entry
   * (`toolApprovals`, `{ items }`). Absent: the host's remote shape is
   * not documented, and `--url` is refused for it.
   */
  remoteFields: z.optional(z.record(z.string().check(z.minLength(1)), RemoteField)),
});
export type EntrySpec = z.infer<typeof EntrySchema>;
const TargetSchema = z.strictObject({
  /** stable id within the host, e.g. "mcp", "instructions", "rule", "skills" */
  id: z.string().check(z.regex(/^[a-z][a-z0-9-]*$/)),
  /** relative to the project root, or `~/…` (user scope). Alternatives: the first that exists, else the first. */
  path: z.union([z.string().check(z.minLength(1)), z.array(z.string().check(z.minLength(1))).check(z.minLength(1))]),
  format: z.enum(FORMATS),
  /** json/jsonc/toml: key path of the MCP entry, e.g. ["mcpServers", "hcp"] */
  key: z.optional(z.array(z.string().check(z.minLength(1))).check(z.minLength(1))),
  /**
   * yaml: the entry is an item of the list at `key` without its last segment, the item
   * whose field `named` equals that last segment (Continue: `mcpServers` is a list of
   * `{name, command, args, env}`, hcpx owns the item with `name: hcp`); the entry's
   * fields include that one (`name: { value: "hcp" }`).
   */
  named: z.optional(z.string().check(z.minLength(1))),
  /** `templates/<host>/<template>` — renders the prose: the markdown block or the owned file (never an MCP entry: that is `entry`) */
  template: z.optional(z.string()),
  /** jsonc: trailing commas accepted by the host (default true); json is always strict */
  trailingCommas: z.optional(z.boolean()),
  /** a size the host ignores text beyond (characters of the rendered file / block) */
  maxChars: z.optional(z.number()),
  /**
   * markdown-block: the bytes of this file the host reads (Codex: 32 KiB of project docs); the hcp
   * block must end within them, after the docs `chain` counts first. The host's default when
   * `maxBytesFrom` names a setting of its own.
   */
  maxBytes: z.optional(z.int().check(z.nonnegative())),
  /**
   * markdown-block: the host's setting that replaces `maxBytes` (Codex's `project_doc_max_bytes`): the
   * value at `key` in the first of `path` (relative to the project, or `~/…`, where the descriptor's
   * `homes` may move it) that sets it; a whole number ≥ 0. A file that does not parse, or a value of
   * another kind, is an error naming the file and line (the host refuses it too), never the default.
   */
  maxBytesFrom: z.optional(
    z.strictObject({
      path: z.union([
        z.string().check(z.minLength(1)),
        z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
      ]),
      format: z.enum(["json", "jsonc", "toml"]),
      key: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
    }),
  ),
  /**
   * markdown-block: files the host reads *instead of* this one when one of them is in the same folder
   * (the first that is a file): Codex's AGENTS.override.md. adopt merges the block into it too (this
   * file keeps its own, for the other hosts and readers). `empty`: what an empty (blank) one does —
   * "hides": the host reads it, so nothing there (Codex's project folders): adopt leaves it as it is,
   * and --check and doctor say the host reads no block; "skipped": the host goes on to this file (~/.codex).
   */
  shadowedBy: z.optional(
    z.strictObject({
      files: z
        .array(z.string().check(z.regex(/^(?!\.\.?$)[^/\\\0]+$/, "a file name in the same folder (no / or ..)")))
        .check(z.minLength(1)),
      empty: z.enum(["hides", "skipped"]),
    }),
  ),
  /**
   * markdown-block: the host reads this file in every folder from the nearest one above the project
   * holding one of `markers` (Codex: `.git`) down to where it starts, and `maxBytes` counts them all:
   * the docs of the folders above the project (each the first of `shadowedBy` and this file's name
   * that is a file; a blank one counts nothing) come first.
   */
  chain: z.optional(
    z.strictObject({ markers: z.array(z.string().check(z.regex(/^[^/\\\0]+$/))).check(z.minLength(1)) }),
  ),
  /** the host's env var reference syntax in this file, `VAR` standing for the name (the entry's `env` slot is written with it) */
  envSyntax: z.optional(z.string().check(z.regex(/VAR/))),
  /**
   * The host's variable syntax in this file: what it expands in the strings we
   * write (`syntax`, for people), and a regular expression (`pattern`) matching
   * anything it would expand. None of the hosts we ship has an escape for it, so
   * an MCP command word that matches is refused (the engine, not per host).
   */
  vars: z.optional(
    z.strictObject({ syntax: z.string().check(z.minLength(1)), pattern: z.string().check(z.minLength(1)) }),
  ),
  /**
   * json/jsonc: the file as hcpx creates it, before the entry goes in — the host's own
   * skeleton (opencode adds `$schema` to any config that lacks it). A removal that leaves
   * exactly this in a file hcpx created deletes the file.
   */
  initial: z.optional(z.record(z.string(), z.unknown())),
  /** a note printed with the plan when this target is written */
  note: z.optional(z.string()),
  /**
   * json/jsonc/toml: the MCP server entry hcpx writes at `key`, as data (no template):
   * its fields in the order written, each a slot hcpx fills or a fixed `{ value }`.
   * The same description tells `hcpx import <host>` where the host's other stdio
   * servers keep their command line and env (siblings of `key`'s last segment).
   */
  entry: z.optional(EntrySchema),
  /**
   * json/jsonc: `key` names a list (the host's permission rules, e.g. Claude Code's
   * permissions.allow); hcpx adds these items to it and removes only the items it
   * added, never a rule the person wrote. No template.
   */
  items: z.optional(RuleClasses),
  /**
   * json/jsonc: `key` names an object of rule → decision (opencode's `permission`);
   * hcpx sets one member per item: `{ pattern, read?, write?, confirm?, always? }`.
   */
  members: z.optional(
    z.strictObject({
      pattern: z.string().check(z.minLength(1)),
      read: z.optional(z.string()),
      write: z.optional(z.string()),
      confirm: z.optional(z.string()),
      /** fixed member names with the read decision (e.g. the hcp__read_skill tool) */
      always: z.optional(z.array(z.string().check(z.minLength(1)))),
    }),
  ),
  /** rules the person may have written here that let a gated write run without asking (see WidensSchema) */
  widens: z.optional(WidensSchema),
  /**
   * With `items`: add them only to a list that is already there (a host allow-list such
   * as Gemini's `mcp.allowed` or Claude Code's `enabledMcpjsonServers`: creating the list
   * would block every other server, or approve what the host would ask about).
   */
  ifPresent: z.optional(z.boolean()),
  /**
   * With `items`: the person's own approval of the server (Claude Code's
   * `enabledMcpjsonServers` in .claude/settings.local.json). Written only as `ifPresent`
   * says, unless the person passes `adopt --approve`: then the list is created. A
   * project-scope approval is one person's file (`git: "ignore"`).
   */
  approval: z.optional(z.boolean()),
  /**
   * Project scope: whether the file belongs in git ("commit": the team shares it, the
   * default) or not ("ignore": one person's, e.g. a settings.local file). Said after
   * `adopt --write`; "ignore" files go into the `.gitignore` block (src/host/gitignore.ts).
   */
  git: z.optional(z.enum(["commit", "ignore"])),
});
export type Target = z.infer<typeof TargetSchema>;
/**
 * Traces of a host being in use, for `adopt --detected` (src/host/detect.ts): `paths`
 * (files or directories, relative to the project root at project scope, `~/…` at user
 * scope) and `programs` (names looked up on PATH). Any one of them is enough.
 */
const DetectSchema = z.strictObject({
  paths: z.optional(z.array(z.string().check(z.minLength(1)))),
  programs: z.optional(z.array(z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/)))),
});
export type Detect = z.infer<typeof DetectSchema>;
/**
 * How the host starts an MCP server of this scope (src/host/health.ts checks the
 * command against it): `cwd` its working directory (`~/…`; default: the project root
 * at project scope, $HOME at user scope), `env` the only variables it passes (default:
 * its whole environment; Codex passes a short list).
 */
const LaunchSchema = z.strictObject({
  cwd: z.optional(z.string().check(z.minLength(1))),
  env: z.optional(z.array(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/)))),
});
/**
 * A fact outside the files adopt writes that decides whether the host will use the
 * server (src/host/health.ts): the value at `key` in `path` must include / exclude /
 * equal `value`. `{root}` (the project root) and `{server}` (the MCP server name) are
 * filled in, in `key`, `value`, `message` and `hint`. `absent`: what a missing key in a
 * file that is there means ("ok": the host's default lets it through; "fail"). When none
 * of the files is there, the host keeps no such state on this machine (a CI runner):
 * the check passes.
 */
const HealthSchema = z.strictObject({
  id: z.string().check(z.regex(/^[a-z][a-z0-9-]*$/)),
  path: z.union([z.string().check(z.minLength(1)), z.array(CheckPathSchema).check(z.minLength(1))]),
  format: z.enum(["json", "jsonc", "toml"]),
  key: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
  /** "differs": the value there is anything but `value` (Gemini's trustedFolders.json: not DO_NOT_TRUST) */
  /** "missing": no value at `key` at all (Claude Code's local-scope server of the same name, which wins over .mcp.json's) */
  /** "empty": none, or an empty list, in every file of `path` (opencode's `plugin`: a list the host joins across files) */
  expect: z.enum(["includes", "excludes", "equals", "differs", "missing", "empty"]),
  /** a string ({root}, {server} filled in), or a boolean (Codex's `enabled = false`, Kiro's `"disabled": true`) */
  value: z.union([z.string(), z.boolean()]),
  /** includes/excludes on a list of objects: the member compared with `value` (Amp's amp.mcpTrustedServers: serverName) */
  field: z.optional(z.string().check(z.minLength(1))),
  absent: z.enum(["ok", "fail"]),
  /** what it means when the check fails, e.g. "Gemini CLI blocks a server not on mcp.allowed (⛔ Blocked)" */
  message: z.string().check(z.minLength(1)),
  /** what to do */
  hint: z.string().check(z.minLength(1)),
});
export type HealthCheck = z.infer<typeof HealthSchema>;
const ScopeSchema = z.strictObject({
  targets: z.array(TargetSchema),
  /** printed with every plan for this scope (e.g. "MCP servers are read from the user file only") */
  notes: z.optional(z.array(z.string())),
  /** traces of this host in use at this scope (`adopt --detected`) */
  detect: z.optional(DetectSchema),
  /** how the host starts this scope's MCP server (working directory, environment) */
  launch: z.optional(LaunchSchema),
  /** allow-lists, deny-lists and trust the host keeps outside the files adopt writes */
  health: z.optional(z.array(HealthSchema)),
  /**
   * What decides whether the host uses the server, or runs a gated write unasked, that hcpx
   * cannot read (approvals kept in the app, a flag, a file of the person's it does not parse):
   * `doctor` says it with the host's result, plainly, instead of calling it checked.
   */
  unchecked: z.optional(z.array(z.string().check(z.minLength(1)))),
});
export type ScopeSpec = z.infer<typeof ScopeSchema>;
export const DescriptorSchema = z.strictObject({
  host: z.string().check(z.regex(/^[a-z][a-z0-9-]*$/)),
  name: z.string(),
  /** "host" (default) for `adopt`; "bundle" for `generate --as` */
  kind: z.optional(z.enum(["host", "bundle"])),
  docs: z.optional(z.array(z.string())),
  /** the MCP server name the entry is written under */
  server: z.optional(z.string()),
  /**
   * Other ids the same product is known by (Windsurf became Devin Desktop: `devin` with
   * `aliases: ["windsurf"]`): `adopt windsurf` adopts this host, and a ledger that recorded
   * the old id is read as this one. One descriptor, never two writing the same files.
   */
  aliases: z.optional(z.array(z.string().check(z.regex(/^[a-z][a-z0-9-]*$/)))),
  /**
   * The vendor ended the product (Continue joined Cursor): adopt keeps working for people
   * who still run it; `adopt --detected` and `doctor` say it is end of life.
   */
  endOfLife: z.optional(
    z.strictObject({ since: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/)), note: z.string().check(z.minLength(1)) }),
  ),
  /**
   * The MCP tool shape this host is given (`hcpx mcp --shape …`): "single" (the one
   * `hcp` tool, default) or "per-command" (one tool per granted command, reads with
   * readOnlyHint) — for hosts whose approval is per tool, so reads and gated writes
   * can be told apart.
   */
  tools: z.optional(z.enum(["single", "per-command"])),
  /**
   * A value per MCP tool for the template, `toolApprovals` ({ <tool>: { <field>: value } }),
   * e.g. Codex's [mcp_servers.hcp.tools.<tool>] approval_mode. Needs tools: "per-command".
   */
  toolApprovals: z.optional(
    z.strictObject({
      field: z.string().check(z.minLength(1)),
      read: z.string(),
      write: z.string(),
      confirm: z.string(),
    }),
  ),
  /**
   * The names this host's program gives itself as an MCP client (`clientInfo.name`: the
   * legacy `initialize`, or a 2026-07-28 request's `_meta`), e.g. Claude Code's
   * "claude-code". On an entry several hosts read (Claude Code's project `.mcp.json`, also
   * started by Copilot CLI and Qoder), adopt writes `--client-host <id>` and the server
   * counts this host's ask rule only for a client of one of these names (src/host/approval.ts,
   * docs/confirm.md). Exact, case-sensitive.
   */
  clientNames: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(200)))),
  /**
   * false: the host's shell tool cannot run `hcpx exec …` (Codex: a login shell that
   * resets PATH, and a sandbox in which a Node program's stdout to a pipe is lost), so
   * its prompt block does not advertise the shell route; the MCP tools are the route
   */
  shellRoute: z.optional(z.boolean()),
  /**
   * Where the host's user files go when an environment variable moves them: a `~/…` path of this
   * descriptor (a file or a folder, and everything below it) → `$VAR` or `$VAR/<path below it>`.
   * Claude Code: `{ "~/.claude": "$CLAUDE_CONFIG_DIR", "~/.claude.json": "$CLAUDE_CONFIG_DIR/.claude.json" }`.
   * The variable is read where the path is used (src/host/homes.ts): adopt's own environment for
   * what it writes, checks and detects; `hcpx mcp`'s for the host's approval (src/host/approval.ts).
   * Unset or empty: the `~/…` path. Where two keys match, the longer decides while its variable is set.
   */
  homes: z.optional(
    z.record(
      z.string().check(z.regex(/^~(\/(?!\.{1,2}(?:\/|$))[^/]+)+$/)),
      z.string().check(z.regex(/^\$[A-Za-z_][A-Za-z0-9_]*(\/(?!\.{1,2}(?:\/|$))[^/]+)*$/)),
    ),
  ),
  scopes: z.strictObject({
    project: z.optional(ScopeSchema),
    user: z.optional(ScopeSchema),
  }),
  /**
   * What a confirm-gated write relies on at this host (issue 26): `model`, one sentence the
   * prompt block adds to its confirm rule (the host's own prompt, or none); `person`, what
   * adopt tells the person per scope: how and where they approve the server (Claude Code's
   * pending approval, Codex trust…) or, where the host has no approval, what gates a write.
   */
  /**
   * The MCP server name per scope, where it is not `hcp` (issue 26): Claude Code warns
   * "Conflicting scopes" when a project's `.mcp.json` and `~/.claude.json` both hold `hcp`
   * with different commands (and the project's hides the user's). The scope's entry key,
   * its rule patterns (`mcp__hcp__…`) and approvals are written under this name instead.
   */
  servers: z.optional(
    z.strictObject({
      project: z.optional(z.string().check(z.regex(/^[a-z][a-z0-9-]*$/))),
      user: z.optional(z.string().check(z.regex(/^[a-z][a-z0-9-]*$/))),
    }),
  ),
  gate: z.optional(
    z.strictObject({
      model: z.string().check(z.minLength(1)),
      person: z.optional(z.strictObject({ project: z.optional(z.string()), user: z.optional(z.string()) })),
      /**
       * Settings that switch the host's own asking off (Claude Code's `permissions.defaultMode:
       * "bypassPermissions"`): each must hold for an ask rule hcpx wrote to count as the person's one
       * question under `confirm: "host"` (src/host/approval.ts). Health-check shape, `{root}`/`{server}` filled.
       */
      inForce: z.optional(z.array(HealthSchema)),
      unread: z.optional(z.array(UnreadSchema)), // what the host merges into its rules that hcpx does not read
      hooks: z.optional(z.array(HookSchema)), // hooks that may approve a call: the prompt is then not the question
      skipped: z.optional(SkippedSchema), // settings files the host skips as a whole when they hold an error
    }),
  ),
});
export type Descriptor = z.infer<typeof DescriptorSchema>;

// One options schema per command (issue 28): every command's arguments,
// options, help and completion hints, as data. From it:
// - program.ts builds the commander program (and nothing else declares an option);
// - `OptionsOf<"adopt">` / `ArgsOf<"adopt">` type what each command's run() gets,
//   so a renamed or retyped option is a compile error where it is used;
// - the fast paths in fast-exec.ts (the plain exec, mcp and adopt forms, read
//   without commander on the start path) take their option types from here, and
//   test/cli/options-schema.test.ts checks their flags against it;
// - completion (commands/completion.ts) walks it: subcommands, flags, and which
//   argument or option value is a host, a pack, a grant name, a directory or a path.
// size: one declaration per command, data only; splitting it would split the one place options are declared
//
// Types from the flags: `--x` is a boolean, `--x <v>` a string, `--x <v...>` or
// `repeat: true` a string list, `--no-x` the boolean `x` (true unless given); an
// option with a `default` or `required` is always set. Keys are commander's
// attribute names (camelCase of the long flag), which the schema test checks.
import { MCP_DEFAULTS } from "./defaults";

/** What completion offers for a positional argument. */
export type ArgCompletion = "pack" | "name" | "host" | "dir";

export interface ArgSpec {
  /** `<name>` required, `[name]` optional, `...` variadic: commander's syntax */
  readonly name: string;
  readonly description: string;
  readonly complete?: ArgCompletion;
}

export interface OptionSpec {
  /** commander's flags: `-y, --yes`, `--out <dir>`, `--host <host...>`, `--no-watch` */
  readonly flags: string;
  readonly description: string;
  readonly default?: string;
  /** may be given more than once: the values in order */
  readonly repeat?: true;
  readonly required?: true;
  /** completion offers file names for its value */
  readonly complete?: "path";
}

export interface CommandSpec {
  readonly description: string;
  /** a group of subcommands (`pack`, `token`): the entries named `<group> <sub>` */
  readonly group?: true;
  readonly args?: readonly ArgSpec[];
  readonly options?: Readonly<Record<string, OptionSpec>>;
  /** --help: a paragraph before the examples, the examples, a line after them */
  readonly before?: string;
  readonly examples?: readonly string[];
  readonly after?: string;
}

export const COMMANDS = {
  generate: {
    description: "write every projection (prompt block, tool lists, Skill copies, host previews) for review",
    examples: ["hcpx generate", "hcpx generate --check   # CI: exit 1 when .hcp/generated is stale"],
    args: [
      { name: "[dir]", description: "with --as: the plugin / extension directory (its name is the bundle's name)" },
    ],
    options: {
      out: {
        flags: "--out <dir>",
        description: "output directory (default: .hcp/generated under the project root)",
        complete: "path",
      },
      host: {
        flags: "--host <host...>",
        description: "host previews to render (default: claude cursor; `none` for none)",
      },
      check: {
        flags: "--check",
        description: "write nothing; exit 1 and list what differs when the output is out of date",
      },
      json: { flags: "--json", description: "print a JSON envelope" },
      as: {
        flags: "--as <kind>",
        description:
          "instead: write the packs as a claude-plugin, gemini-extension or mcpb (Claude Desktop's MCP Bundle) into DIR",
      },
    },
  },
  adopt: {
    description:
      "place the projections where each host reads them (MCP entry, instructions block, Skill copies); prints the diff, --write applies",
    before:
      "Hand edits are kept unless --force: a re-adopt sets hcpx's own fields of the hcp entry again and keeps\nthe fields you added to it (an `env`, say); --remove leaves an entry or file you changed in place.",
    examples: [
      "hcpx adopt --detected        # the hosts in use, and why",
      "hcpx adopt --detected --write --gitignore",
      "hcpx adopt claude            # review the diff",
      "hcpx adopt claude cursor --write",
      "hcpx adopt all --check       # CI: exit 1 on drift",
      "hcpx adopt codex --scope user --write",
      "hcpx adopt claude --remove --write",
    ],
    args: [
      {
        name: "[host...]",
        description:
          "a host id (the README's Hosts table; an unknown one lists them), or all (with --check: the hosts adopted or in use)",
        complete: "host",
      },
    ],
    options: {
      write: {
        flags: "--write",
        description: "apply the plan (default: print it as a unified diff and write nothing)",
      },
      check: {
        flags: "--check",
        description: "write nothing; exit 1 when anything differs from the plan (stale files and hand edits included)",
      },
      remove: {
        flags: "--remove",
        description: "plan the removal of what hcpx wrote for these hosts (with --write: remove it)",
      },
      scope: {
        flags: "--scope <scope>",
        description: "project (files in the project) or user (files under $HOME)",
        default: "project",
      },
      command: {
        flags: "--command <cmd>",
        description:
          "the command line of the MCP entry (default: `hcpx mcp` when hcpx is on PATH, else absolute node + hcpx)",
      },
      useRecordedCommand: {
        flags: "--use-recorded-command",
        description:
          "write the MCP command recorded in the ledger by an earlier --command (without it, a recorded command that differs is shown and not used)",
      },
      force: {
        flags: "--force",
        description: "replace or remove entries and files changed by hand, or not written by hcpx",
      },
      detected: {
        flags: "--detected",
        description:
          "the hosts this project (--scope user: you) uses: adopted before, or with their config files or (user scope) programs on PATH; says what was found",
      },
      gitignore: {
        flags: "--gitignore",
        description:
          "keep a marked block in .gitignore listing the files that stay out of git (kept up to date once it is there)",
      },
      url: {
        flags: "--url <url>",
        description:
          "a team's server (`hcpx mcp --http` behind a proxy): write each host's remote entry for this URL instead of the local command (docs/remote-hosts.md); with --check, reach it",
      },
      tokenEnv: {
        flags: "--token-env <name>",
        description:
          "with --url: the environment variable that holds the bearer token; the entry names it the host's way, never the token",
      },
      approve: {
        flags: "--approve",
        description:
          "also write your approval of the server to your own settings file, where the host keeps one (Claude Code: enabledMcpjsonServers in .claude/settings.local.json); else say where you approve it",
      },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  lint: {
    description:
      "check packs: schemas, kinds, that each command's four names agree (verb_key, cli[], tool name, Skill row), policy rows, Skill table, ids; the format: docs/pack-format.md",
    examples: ["hcpx lint packs/ledger", "hcpx lint --json        # every activated pack"],
    args: [
      {
        name: "[pack-dir...]",
        description: "pack directories (default: every activated pack of the project)",
        complete: "dir",
      },
    ],
    options: {
      strict: { flags: "--strict", description: "exit 2 when there are warnings (errors always exit 1)" },
      json: { flags: "--json", description: "print the result envelope { ok, data: { packs, errors, warnings } }" },
    },
  },
  mcp: {
    description:
      "serve the granted packs as an MCP server (stdio; Streamable HTTP for a team with --http): the tool `hcp` (or one tool per command), hcp__read_skill, Skills as resources",
    examples: [
      "hcpx mcp                # started by an MCP host; see `hcpx adopt`",
      "hcpx mcp --shape per-command",
      "hcpx mcp --http 8080 --server-config server.json5   # a team server (docs/http.md)",
    ],
    options: {
      shape: {
        flags: "--shape <shape>",
        description: "single (one tool `hcp`) or per-command (one tool per granted command)",
        default: MCP_DEFAULTS.shape,
      },
      watch: {
        flags: "--no-watch",
        description: "do not watch the config and packs for changes (each request still checks them)",
      },
      http: {
        flags: "--http <[addr:]port>",
        description: "serve Streamable HTTP for a team instead of stdio (loopback unless --bind-public; docs/http.md)",
      },
      serverConfig: {
        flags: "--server-config <file>",
        description:
          "with --http: the principals, their grants, tokens and JWT issuer, limits, the shared requestState key",
        complete: "path",
      },
      bindPublic: {
        flags: "--bind-public",
        description: "with --http: allow an address other than loopback (behind a TLS reverse proxy)",
      },
      auth: {
        flags: "--no-auth",
        description: "with --http: serve without authentication, loopback only (local tests, the conformance suite)",
      },
      host: {
        flags: "--host <id>",
        description:
          'the host that starts this server (adopt\'s entry): its approval rules, while in force, are the one question under confirm "host"',
      },
      clientHost: {
        flags: "--client-host <ids>",
        description:
          "an entry several hosts read (adopt's): these hosts' approval rules count only for a client whose clientInfo names that host (docs/confirm.md)",
      },
    },
  },
  token: {
    description:
      "the static bearer tokens of `hcpx mcp --http` (docs/http.md): add prints a token once, only its hash is kept",
    group: true,
  },
  "token add": {
    description: "make a token for a principal of the server config; printed once, its sha256 kept in the tokens file",
    args: [{ name: "<principal>", description: "principal id, as in the server config's principals" }],
    options: {
      serverConfig: {
        flags: "--server-config <file>",
        description:
          "required: the server config that names the principal (the token is kept in its tokens_file); a token for a principal no config names would stop the server's start",
        complete: "path",
      },
      force: { flags: "--force", description: "replace the principal's token (the old one stops working)" },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  "token list": {
    description: "list the principals that have a token (never the tokens)",
    options: {
      serverConfig: {
        flags: "--server-config <file>",
        description: "use its tokens_file and flag tokens of principals it does not name",
        complete: "path",
      },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  "token remove": {
    description: "remove a principal's token: it stops authenticating at the next request",
    args: [{ name: "<principal>", description: "principal id" }],
    options: {
      serverConfig: { flags: "--server-config <file>", description: "use its tokens_file", complete: "path" },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  exec: {
    description:
      "run one command of an activated pack through the runtime (grant, confirm, Binding) and print its result envelope",
    examples: [
      "hcpx exec ledger balance -- account=checking",
      "hcpx exec ledger transfer --confirm --json -- from=checking to=savings amount=100",
    ],
    args: [
      { name: "<pack_id>", description: "pack id, e.g. ledger", complete: "pack" },
      { name: "<verb_key>", description: "command, e.g. entry.add" },
      {
        name: "[args...]",
        description: "after --: k=v arguments (coerced by type); for a pass-through verb, its literal argv",
      },
    ],
    options: {
      confirm: { flags: "--confirm", description: "confirm a write whose Policy row has confirm: true" },
      json: { flags: "--json", description: "print the result envelope { ok, data | error } as one JSON line" },
    },
  },
  pack: {
    description:
      "create and vendor packs: from an OpenAPI document or an MCP server, a new scaffold, add commands to one; add, install, update, remove packs from npm, git or a path",
    examples: ["hcpx pack new gitx --wrap git", "hcpx pack from-openapi openapi.json --id todo"],
    group: true,
  },
  "pack from-openapi": {
    description:
      "write a pack (surface.json, draft policy.json marked inferred, SKILL.md) from an OpenAPI 3.0/3.1 document",
    examples: ["hcpx pack from-openapi ./openapi.json --id todo --base-url http://127.0.0.1:8080"],
    args: [
      { name: "<document>", description: "OpenAPI 3.0 / 3.1 document, JSON or YAML (external $refs are followed)" },
    ],
    options: {
      id: { flags: "--id <id>", description: "pack id, ^[a-z][a-z0-9-]{0,31}$", required: true },
      out: { flags: "--out <dir>", description: "pack directory to write (default: packs/<id>)", complete: "path" },
      baseUrl: {
        flags: "--base-url <url>",
        description: "openapi.base_url (default: the document's first server URL, variables at their defaults)",
      },
      origin: {
        flags: "--origin <url>",
        description: "where the document is served from: relative server URLs resolve against it",
      },
      include: {
        flags: "--include <pattern>",
        description:
          "import only matching operations: tag:<tag>, path:<glob>, op:<operationId>, a /path glob or a bare tag/operationId (repeatable)",
        repeat: true,
      },
      exclude: {
        flags: "--exclude <pattern>",
        description: "leave matching operations out (same patterns; repeatable)",
        repeat: true,
      },
      auth: {
        flags: "--auth <kind>",
        description:
          "credentials the document does not declare: bearer, basic, header:<name>, query:<name> or cookie:<name> (the value comes from the Binding)",
      },
      force: { flags: "--force", description: "overwrite an existing pack directory" },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  "pack add": {
    description:
      "vendor a pack from npm, git or a path into .hcp/packs/<id>, record it in hcp.lock, activate it (reads granted)",
    examples: [
      "hcpx pack add @acme/hcp-pack-jira@^1 --yes",
      "hcpx pack add git+https://example.com/packs/notes.git#v1.2.0",
      "hcpx pack add ./vendor/notes-pack",
    ],
    args: [
      {
        name: "<source>",
        description: "@scope/name@range, ./pack.tgz, git+https://host/repo.git#ref, ./repo#ref, or ./path/to/pack",
        complete: "dir",
      },
    ],
    options: {
      yes: {
        flags: "-y, --yes",
        description: "you have seen what it runs, from where, and the env it reads: vendor it without asking",
      },
      force: { flags: "--force", description: "replace a pack of the same id" },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  "pack install": {
    description: "restore exactly the packs hcp.lock records (CI): same version or commit, every file's hash checked",
    examples: [
      "hcpx pack install          # CI: restore what hcp.lock records",
      "hcpx pack install --check  # exit 1 when a vendored pack was changed",
      "hcpx pack install --force  # also over files changed or added by hand in a vendored folder",
    ],
    options: {
      check: { flags: "--check", description: "fetch nothing; exit 1 when a vendored pack differs from hcp.lock" },
      force: {
        flags: "--force",
        description:
          "restore a vendored folder even when files in it were changed or added by hand since hcpx wrote it",
      },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  "pack update": {
    description:
      "fetch the newest version the source allows and show the diff (new writes, confirm-less writes, programs, env); --yes applies it, never granting a write",
    examples: ["hcpx pack update notes      # review the diff", "hcpx pack update notes --yes"],
    args: [{ name: "[id]", description: "one locked pack (default: all)" }],
    options: {
      to: { flags: "--to <spec>", description: "move to another npm spec or tarball, git ref, or path (with one id)" },
      yes: { flags: "-y, --yes", description: "apply the update after the review" },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  "pack sync": {
    description:
      "carry policy.json into SKILL.md after a review: the hot-path table's read/write cells, missing rows, an openapi pack's lead",
    args: [{ name: "<pack-dir>", description: "the pack directory" }],
    options: {
      check: {
        flags: "--check",
        description: "write nothing; exit 1 when SKILL.md does not say what policy.json says",
      },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  "pack remove": {
    description: "deactivate a vendored pack, drop its grants, its folder and its hcp.lock entry",
    examples: ["hcpx pack remove notes", "hcpx pack remove notes --force  # also when its folder was changed by hand"],
    args: [{ name: "<id>", description: "pack id" }],
    options: {
      force: {
        flags: "--force",
        description: "remove the folder even when files in it were added or changed since hcp.lock recorded it",
      },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  "pack from-mcp": {
    description:
      "write an mcp pack from an MCP server (a command line, or --url for a remote one): one command per tool, a draft Policy from its annotations, a SKILL.md",
    examples: [
      "hcpx pack from-mcp --id fs -- npx -y @modelcontextprotocol/server-filesystem .",
      "hcpx pack from-mcp --env GITHUB_TOKEN -- ./node_modules/.bin/mcp-server-github",
      'hcpx pack from-mcp --url https://api.githubcopilot.com/mcp/ --header "Authorization=Bearer env:GITHUB_TOKEN"',
    ],
    args: [
      {
        name: "[command...]",
        description: "after --: the server's command line, e.g. -- npx @modelcontextprotocol/server-filesystem .",
      },
    ],
    options: {
      update: {
        flags: "--update <pack-dir>",
        description: "review the pack's server again: its tools against the pins in surface.json (mcp.pins)",
      },
      yes: { flags: "--yes", description: "with --update: pin the tools as the server lists them now" },
      id: { flags: "--id <id>", description: "pack id (default: from the server's name)" },
      out: { flags: "--out <dir>", description: "pack directory to write (default: packs/<id>)", complete: "path" },
      env: {
        flags: "--env <name...>",
        description: "environment names the server needs, passed from the runtime's env (never written)",
      },
      url: { flags: "--url <url>", description: "a remote server (Streamable HTTP) instead of a command line" },
      header: {
        flags: "--header <NAME=value>",
        description:
          'with --url: a header, its value from the Binding: "Authorization=Bearer env:TOKEN" (repeatable; a literal credential is refused)',
        repeat: true,
      },
      timeout: {
        flags: "--timeout <ms>",
        description: "how long to wait for the server to start and list its tools",
        default: "30000",
      },
      force: { flags: "--force", description: "overwrite an existing pack directory" },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  "pack new": {
    description: "scaffold a pack that lints clean: surface.json, policy.json, SKILL.md (+ index.mjs for --composite)",
    examples: [
      'hcpx pack new gitx --wrap git --verb "status=status --short" --verb "show=show --stat {{rev}}"',
      'hcpx pack new gitx --wrap git --verb "log=log --oneline" --write "commit:local:confirm=commit -m {{message}}"',
      "hcpx pack new tools --composite --dir ./packs/tools",
    ],
    after: "Specs, land and confirm: docs/pack-format.md#command-specs",
    args: [{ name: "<id>", description: "pack id, ^[a-z][a-z0-9-]{0,31}$" }],
    options: {
      wrap: { flags: "--wrap <bin>", description: "wrap a program: a bare name (recorded in sandbox.bins) or a path" },
      composite: {
        flags: "--composite",
        description: "an in-process pack: index.mjs exports one async function per verb",
      },
      sense: { flags: "--sense", description: "a sense_only pack: stimuli, no commands" },
      verb: {
        flags: "--verb <spec>",
        description:
          'with --wrap: a read command, "<verb_key>[:json]=<argv…>" (repeatable); {{name}} in the argv becomes a required arg, \'…\' or "…" quote an argument with spaces',
        repeat: true,
      },
      write: {
        flags: "--write <spec>",
        description:
          'with --wrap: a write command, "<verb_key>:<local|remote|external>[:confirm][:json]=<argv…>" (repeatable)',
        repeat: true,
      },
      land: {
        flags: "--land <land>",
        description: "where every --write that does not say lands: local, remote or external",
      },
      confirm: { flags: "--confirm", description: "every --write runs only with an explicit confirm" },
      dir: {
        flags: "--dir <dir>",
        description: "where to write it (default: packs/<id> next to hcp.config.json5)",
        complete: "path",
      },
      force: { flags: "--force", description: "write into a non-empty directory" },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  "pack add-verb": {
    description: "add commands to a wrap pack: surface.json, policy.json and SKILL.md together (comments kept)",
    examples: [
      'hcpx pack add-verb packs/gitx --write "commit:local:confirm=commit -m {{message}}"',
      'hcpx pack add-verb packs/gitx --write "push=push" --land remote --confirm',
      'hcpx pack add-verb packs/gitx --verb "tags=tag --list"',
    ],
    after: "Specs, land and confirm: docs/pack-format.md#command-specs",
    args: [{ name: "<pack-dir>", description: "the pack directory", complete: "dir" }],
    options: {
      verb: {
        flags: "--verb <spec>",
        description: 'a read command, "<verb_key>[:json]=<argv…>" (repeatable)',
        repeat: true,
      },
      write: {
        flags: "--write <spec>",
        description: 'a write command, "<verb_key>:<local|remote|external>[:confirm][:json]=<argv…>" (repeatable)',
        repeat: true,
      },
      land: {
        flags: "--land <land>",
        description: "where every --write that does not say lands: local, remote or external",
      },
      confirm: { flags: "--confirm", description: "every --write runs only with an explicit confirm" },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  import: {
    description:
      "list the MCP servers in a host's config (stdio and remote); --server/--all writes an mcp pack of each (like `hcpx pack from-mcp`)",
    examples: [
      "hcpx import claude                 # list the servers in .mcp.json",
      "hcpx import claude --server filesystem",
      "hcpx import claude --all --activate",
      "hcpx import codex --scope user --all",
    ],
    args: [
      {
        name: "<host>",
        description: "a host id (the README's Hosts table; an unknown one lists them)",
        complete: "host",
      },
    ],
    options: {
      scope: {
        flags: "--scope <scope>",
        description: "project (the host's files in the project) or user (under $HOME)",
        default: "project",
      },
      server: { flags: "--server <name...>", description: "the servers to import" },
      all: { flags: "--all", description: "import every server that can be (stdio, and remote by Streamable HTTP)" },
      activate: {
        flags: "--activate",
        description: "activate each pack written (its reads granted, never a write), as `hcpx activate`",
      },
      timeout: {
        flags: "--timeout <ms>",
        description: "how long to wait for each server to start and list its tools",
        default: "30000",
      },
      force: { flags: "--force", description: "overwrite existing pack directories" },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  init: {
    description: "write a commented hcp.config.json5 in the current directory",
    examples: ["hcpx init --yes"],
    options: {
      yes: { flags: "-y, --yes", description: "use the defaults, never ask (also without a TTY)" },
      force: { flags: "--force", description: "overwrite an existing hcp.config.json5" },
      principal: { flags: "--principal <id>", description: "principal id (default: dev)" },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  activate: {
    description:
      "add a pack to hcp.config.json5 and grant its read commands (writes and pass-through verbs need `hcpx grant`)",
    examples: ["hcpx activate ./packs/ledger"],
    args: [{ name: "<pack-dir>", description: "the pack directory", complete: "dir" }],
    options: {
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  deactivate: {
    description: "remove a pack from hcp.config.json5, with its `<id>.…` allow patterns",
    examples: ["hcpx deactivate ledger"],
    args: [{ name: "<id>", description: "pack id", complete: "pack" }],
    options: {
      keepGrants: { flags: "--keep-grants", description: "keep the pack's allow patterns" },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  grant: {
    description: "allow commands: add grant patterns to hcp.config.json5",
    examples: ["hcpx grant ledger.entry.add", "hcpx grant 'transit.*'"],
    args: [{ name: "<pattern...>", description: "<pack>.<verb>, <pack>.<prefix>.*, <pack>.* or *", complete: "name" }],
    options: {
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  revoke: {
    description: "remove allow patterns from hcp.config.json5 (--deny: add them to grants.deny instead)",
    examples: ["hcpx revoke ledger.entry.add", "hcpx revoke --deny ledger.entry.delete"],
    args: [{ name: "<pattern...>", description: "exact patterns as written in grants.allow", complete: "name" }],
    options: {
      deny: {
        flags: "--deny",
        description: "deny the pattern (wins over any allow, e.g. one verb of a granted `pack.*`)",
      },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  doctor: {
    description:
      "check health: Node, config, packs lint, wrap bins, adopted hosts in sync and able to use the server (command on PATH, trust, allow-lists), `hcpx mcp` answers (exit 0 ok, 2 warnings, 1 failure)",
    examples: ["hcpx doctor --json", "hcpx doctor --url https://hcp.example.com/mcp --token-env HCP_TOKEN"],
    options: {
      mcpTimeout: { flags: "--mcp-timeout <ms>", description: "how long to wait for `hcpx mcp`", default: "15000" },
      url: {
        flags: "--url <url>",
        description:
          "also reach this team server as a host's remote entry does: reachable, authenticated, tools listed in each protocol era (only a URL named here is contacted, never one read from a file)",
      },
      tokenEnv: {
        flags: "--token-env <name>",
        description: "with --url: the environment variable whose value is sent as the bearer token",
      },
      json: { flags: "--json", description: "print the result envelope with every check" },
    },
  },
  status: {
    description: "active packs, granted and withheld commands (read/write/confirm), adopted hosts",
    examples: ["hcpx status --json"],
    options: {
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  log: {
    description:
      "the audit log: every tool call through `hcpx mcp` (stdio, HTTP) and `hcpx exec`, who, what, the decision and the result; and the refused authentications of `hcpx mcp --http`",
    examples: ["hcpx log --since 1h", "hcpx log --principal alice --pack ledger --json"],
    options: {
      since: {
        flags: "--since <when>",
        description: "only calls since a duration ago (90s, 15m, 2h, 7d, 1w) or an ISO date/time",
      },
      principal: {
        flags: "--principal <p>",
        description: 'only this principal\'s calls ("local": stdio and exec; "(unknown)": refused authentications)',
      },
      pack: { flags: "--pack <id>", description: "only calls of this pack" },
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
  completion: {
    description: "print a shell completion script",
    examples: [
      "hcpx completion bash > ~/.local/share/bash-completion/completions/hcpx",
      "source <(hcpx completion zsh)",
    ],
    args: [{ name: "<shell>", description: "bash, zsh or fish" }],
    options: {
      json: { flags: "--json", description: "print the result envelope" },
    },
  },
} as const satisfies Record<string, CommandSpec>;

/** The options every command takes (before the command name). */
export const GLOBAL_OPTIONS = {
  config: {
    flags: "--config <file>",
    description:
      "project config to use (default: $HCP_CONFIG when set, else hcp.config.json5 found upward from the cwd)",
    complete: "path",
  },
} as const satisfies Record<string, OptionSpec>;

export type CommandName = keyof typeof COMMANDS;
/** The commands that run (not a group). */
export type RunnableName = {
  [C in CommandName]: (typeof COMMANDS)[C] extends { group: true } ? never : C;
}[CommandName];

type Value<O> = O extends { repeat: true }
  ? string[]
  : O extends { flags: `${string}...>` }
    ? string[]
    : O extends { flags: `${string}<${string}>` }
      ? string
      : boolean;
type AlwaysSet<O> = O extends { default: string } | { required: true } | { flags: `--no-${string}` } ? true : false;
type Options<T> = {
  -readonly [K in keyof T as AlwaysSet<T[K]> extends true ? K : never]: Value<T[K]>;
} & {
  -readonly [K in keyof T as AlwaysSet<T[K]> extends true ? never : K]?: Value<T[K]>;
};

/** The options object commander hands a command's action. */
export type OptionsOf<C extends CommandName> = (typeof COMMANDS)[C] extends { options: infer T }
  ? Options<T>
  : Record<string, never>;
/** The global options (GLOBAL_OPTIONS), as program.opts() gives them. */
export type GlobalOptions = Options<typeof GLOBAL_OPTIONS>;

type ArgValue<N> = N extends `${string}...${string}` ? string[] : N extends `<${string}` ? string : string | undefined;
/** The positional arguments commander hands a command's action, in order. */
export type ArgsOf<C extends CommandName> = (typeof COMMANDS)[C] extends { args: infer A }
  ? { -readonly [I in keyof A]: A[I] extends { name: infer N } ? ArgValue<N> : never }
  : [];

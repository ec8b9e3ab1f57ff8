// The commander program: every command, its options and help. Loaded by
// main.ts for everything but the plain `hcpx exec` form, which main.ts parses
// itself. Each command's code is loaded with import() only when that command
// runs: dist/commands/<name>.mjs, a bundle of its own (scripts/build.mjs).
import { Command, CommanderError } from "commander";
import { MCP_DEFAULTS } from "./fast-exec";
import { sayErrRaw, sayRaw } from "./output";

declare const HCPX_VERSION: string;
const VERSION = typeof HCPX_VERSION === "string" ? HCPX_VERSION : "0.0.0-dev";

export interface GlobalOpts {
  config?: string;
}

export const program = new Command("hcpx")
  .description("Harness Context Protocol reference tool: packs, projections, adopt, exec and MCP export")
  .version(VERSION, "-V, --version")
  .option("--config <file>", "project config to use (default: hcp.config.json5 found upward from the cwd, or $HCP_CONFIG)")
  .showSuggestionAfterError(true)
  .configureHelp({ sortSubcommands: false })
  // help and usage errors leave through the one exit too (they can quote an argument)
  .configureOutput({ writeOut: sayRaw, writeErr: sayErrRaw })
  .exitOverride();

export const globals = (): GlobalOpts => program.opts<GlobalOpts>();

/** Wrap an action so that a command module is imported only when it runs. */
function act<A extends unknown[]>(fn: (...a: A) => Promise<number | void>) {
  return async (...a: A) => {
    const code = await fn(...a);
    if (typeof code === "number" && code !== 0) process.exitCode = code;
  };
}

// ---- commands (one block each; the implementation lives in ./commands/<name>.ts) ----
// [commands:begin]
program
  .command("generate")
  .description("write every projection (prompt block, tool lists, Skill copies, host previews) for review")
  .option("--out <dir>", "output directory (default: .hcp/generated under the project root)")
  .option("--host <host...>", "host previews to render (default: claude cursor; `none` for none)")
  .option("--check", "write nothing; exit 1 and list what differs when the output is out of date")
  .option("--json", "print a JSON envelope")
  .option("--as <kind>", "instead: write the packs as a claude-plugin, gemini-extension or mcpb (Claude Desktop's MCP Bundle) into DIR")
  .argument("[dir]", "with --as: the plugin / extension directory (its name is the bundle's name)")
  .action(
    act(async (dir: string | undefined, opts) => {
      if (opts.as !== undefined) {
        const b = await import("./commands/generate-bundle");
        return b.run(opts.as, dir ?? opts.out, opts, globals());
      }
      const m = await import("./commands/generate");
      return m.run(opts, globals());
    }),
  );
program
  .command("adopt")
  .description("place the projections where each host reads them (MCP entry, instructions block, Skill copies); prints the diff, --write applies")
  .argument("[host...]", "a host id (the README's Hosts table; an unknown one lists them), or all (with --check: the hosts adopted or in use)")
  .option("--write", "apply the plan (default: print it as a unified diff and write nothing)")
  .option("--check", "write nothing; exit 1 when anything differs from the plan (stale files and hand edits included)")
  .option("--remove", "plan the removal of what hcpx wrote for these hosts (with --write: remove it)")
  .option("--scope <scope>", "project (files in the project) or user (files under $HOME)", "project")
  .option("--command <cmd>", 'the command line of the MCP entry (default: `hcpx mcp` when hcpx is on PATH, else absolute node + hcpx)')
  .option("--use-recorded-command", "write the MCP command recorded in the ledger by an earlier --command (without it, a recorded command that differs is shown and not used)")
  .option("--force", "replace or remove entries and files changed by hand, or not written by hcpx")
  .option("--detected", "the hosts this project (--scope user: you) uses: adopted before, or with their config files or (user scope) programs on PATH; says what was found")
  .option("--gitignore", "keep a marked block in .gitignore listing the files that stay out of git (kept up to date once it is there)")
  .option("--url <url>", "a team's server (`hcpx mcp --http` behind a proxy): write each host's remote entry for this URL instead of the local command (docs/remote-hosts.md); with --check, reach it")
  .option("--token-env <name>", "with --url: the environment variable that holds the bearer token; the entry names it the host's way, never the token")
  .option("--approve", "also write your approval of the server to your own settings file, where the host keeps one (Claude Code: enabledMcpjsonServers in .claude/settings.local.json); else say where you approve it")
  .option("--json", "print the result envelope")
  .addHelpText("after", "\nHand edits are kept unless --force: a re-adopt sets hcpx's own fields of the hcp entry again and keeps\nthe fields you added to it (an `env`, say); --remove leaves an entry or file you changed in place.\n\nExamples:\n  $ hcpx adopt --detected        # the hosts in use, and why\n  $ hcpx adopt --detected --write --gitignore\n  $ hcpx adopt claude            # review the diff\n  $ hcpx adopt claude cursor --write\n  $ hcpx adopt all --check       # CI: exit 1 on drift\n  $ hcpx adopt codex --scope user --write\n  $ hcpx adopt claude --remove --write\n")
  .action(
    act(async (hosts: string[], opts: { write?: boolean; check?: boolean; remove?: boolean; force?: boolean; scope?: string; command?: string; useRecordedCommand?: boolean; detected?: boolean; gitignore?: boolean; url?: string; tokenEnv?: string; approve?: boolean; json?: boolean }) => {
      const { loadCommand } = await import("./load-command");
      const { fileURLToPath } = await import("node:url");
      const { dirname } = await import("node:path");
      const m = loadCommand<typeof import("./commands/adopt")>("adopt", dirname(fileURLToPath(import.meta.url))); // dist/commands/adopt.cjs (scripts/build.mjs)
      const code = await m.exports.run(hosts, opts, globals());
      m.save();
      return code;
    }),
  );
program
  .command("lint")
  .description("check packs: schemas, kinds, that each command's four names agree (verb_key, cli[], tool name, Skill row), policy rows, Skill table, ids; the format: docs/pack-format.md")
  .argument("[pack-dir...]", "pack directories (default: every activated pack of the project)")
  .option("--strict", "exit 2 when there are warnings (errors always exit 1)")
  .option("--json", "print the result envelope { ok, data: { packs, errors, warnings } }")
  .action(
    act(async (dirs: string[], opts: { strict?: boolean; json?: boolean }) => {
      const m = await import("./commands/lint");
      return m.run(dirs, { ...opts, ...globals() });
    }),
  );
program
  .command("mcp")
  .description("serve the granted packs as an MCP server (stdio; Streamable HTTP for a team with --http): the tool `hcp` (or one tool per command), hcp__read_skill, Skills as resources")
  .option("--shape <shape>", "single (one tool `hcp`) or per-command (one tool per granted command)", MCP_DEFAULTS.shape)
  .option("--no-watch", "do not watch the config and packs for changes (each request still checks them)")
  .option("--http <[addr:]port>", "serve Streamable HTTP for a team instead of stdio (loopback unless --bind-public; docs/http.md)")
  .option("--server-config <file>", "with --http: the principals, their grants, tokens and JWT issuer, limits, the shared requestState key")
  .option("--bind-public", "with --http: allow an address other than loopback (behind a TLS reverse proxy)")
  .option("--no-auth", "with --http: serve without authentication, loopback only (local tests, the conformance suite)")
  .option("--host <id>", "the host that starts this server (adopt's entry): its approval rules, while in force, are the one question under confirm \"host\"")
  .option("--client-host <ids>", "an entry several hosts read (adopt's): these hosts' approval rules count only for a client whose clientInfo names that host (docs/confirm.md)")
  .action(
    act(async (opts: { shape?: string; watch?: boolean; http?: string; host?: string; clientHost?: string; serverConfig?: string; bindPublic?: boolean; auth?: boolean }) => {
      const { loadCommand } = await import("./load-command");
      const { fileURLToPath } = await import("node:url");
      const { dirname } = await import("node:path");
      const m = loadCommand<typeof import("./commands/mcp")>("mcp", dirname(fileURLToPath(import.meta.url))); // dist/commands/mcp.cjs (scripts/build.mjs)
      const code = await m.exports.run({ ...opts, ...globals() });
      m.save();
      return code;
    }),
  );
const tokenGroup = program.command("token").description("the static bearer tokens of `hcpx mcp --http` (docs/http.md): add prints a token once, only its hash is kept");
tokenGroup
  .command("add")
  .description("make a token for a principal of the server config; printed once, its sha256 kept in the tokens file")
  .argument("<principal>", "principal id, as in the server config's principals")
  .option("--server-config <file>", "check the principal against this config and use its tokens_file")
  .option("--force", "replace the principal's token (the old one stops working)")
  .option("--json", "print the result envelope")
  .action(act(async (principal: string, opts: { serverConfig?: string; force?: boolean; json?: boolean }) => (await import("./commands/token")).runAdd(principal, { ...opts, ...globals() })));
tokenGroup
  .command("list")
  .description("list the principals that have a token (never the tokens)")
  .option("--server-config <file>", "use its tokens_file and flag tokens of principals it does not name")
  .option("--json", "print the result envelope")
  .action(act(async (opts: { serverConfig?: string; json?: boolean }) => (await import("./commands/token")).runList({ ...opts, ...globals() })));
tokenGroup
  .command("remove")
  .description("remove a principal's token: it stops authenticating at the next request")
  .argument("<principal>", "principal id")
  .option("--server-config <file>", "use its tokens_file")
  .option("--json", "print the result envelope")
  .action(act(async (principal: string, opts: { serverConfig?: string; json?: boolean }) => (await import("./commands/token")).runRemove(principal, { ...opts, ...globals() })));
program
  .command("exec")
  .description("run one command of an activated pack through the runtime (grant, confirm, Binding) and print its result envelope")
  .argument("<pack_id>", "pack id, e.g. ledger")
  .argument("<verb_key>", "command, e.g. entry.add")
  .argument("[args...]", "after --: k=v arguments (coerced by type); for a pass-through verb, its literal argv")
  .option("--confirm", "confirm a write whose Policy row has confirm: true")
  .option("--json", "print the result envelope { ok, data | error } as one JSON line")
  .action(
    act(async (pack: string, verb: string, args: string[], opts: { confirm?: boolean; json?: boolean }) => {
      const { loadCommand } = await import("./load-command");
      const { fileURLToPath } = await import("node:url");
      const { dirname } = await import("node:path");
      const m = loadCommand<typeof import("./commands/exec")>("exec", dirname(fileURLToPath(import.meta.url))); // dist/, where program.mjs is
      const code = await m.exports.run(pack, verb, args, { ...opts, ...globals() });
      m.save();
      return code;
    }),
  );
// `pack` is a command group: add subcommands with packGroup.command(...).
const packGroup = program.command("pack").description("create and vendor packs: from an OpenAPI document or an MCP server, a new scaffold, add commands to one; add, install, update, remove packs from npm, git or a path");
packGroup
  .command("from-openapi")
  .description("write a pack (surface.json, draft policy.json marked inferred, SKILL.md) from an OpenAPI 3.0/3.1 document")
  .argument("<document>", "OpenAPI 3.0 / 3.1 document, JSON or YAML (external $refs are followed)")
  .requiredOption("--id <id>", "pack id, ^[a-z][a-z0-9-]{0,31}$")
  .option("--out <dir>", "pack directory to write (default: packs/<id>)")
  .option("--base-url <url>", "openapi.base_url (default: the document's first server URL, variables at their defaults)")
  .option("--origin <url>", "where the document is served from: relative server URLs resolve against it")
  .option("--include <pattern>", "import only matching operations: tag:<tag>, path:<glob>, op:<operationId>, a /path glob or a bare tag/operationId (repeatable)", (v: string, prev: string[] = []) => [...prev, v])
  .option("--exclude <pattern>", "leave matching operations out (same patterns; repeatable)", (v: string, prev: string[] = []) => [...prev, v])
  .option("--auth <kind>", "credentials the document does not declare: bearer, basic, header:<name>, query:<name> or cookie:<name> (the value comes from the Binding)")
  .option("--force", "overwrite an existing pack directory")
  .option("--json", "print the result envelope")
  .action(
    act(async (document: string, opts: { id: string; out?: string; baseUrl?: string; origin?: string; include?: string[]; exclude?: string[]; auth?: string; force?: boolean; json?: boolean }) => {
      const m = await import("./commands/pack-from-openapi");
      return m.run(document, { ...opts, ...globals() });
    }),
  );
packGroup
  .command("add")
  .description("vendor a pack from npm, git or a path into .hcp/packs/<id>, record it in hcp.lock, activate it (reads granted)")
  .argument("<source>", "@scope/name@range, ./pack.tgz, git+https://host/repo.git#ref, ./repo#ref, or ./path/to/pack")
  .option("-y, --yes", "you have seen what it runs, from where, and the env it reads: vendor it without asking")
  .option("--force", "replace a pack of the same id")
  .option("--json", "print the result envelope")
  .action(
    act(async (source: string, opts: { yes?: boolean; force?: boolean; json?: boolean }) => {
      const m = await import("./commands/pack-vendor");
      return m.runAdd(source, { ...opts, ...globals() });
    }),
  );
packGroup
  .command("install")
  .description("restore exactly the packs hcp.lock records (CI): same version or commit, every file's hash checked")
  .option("--check", "fetch nothing; exit 1 when a vendored pack differs from hcp.lock")
  .option("--json", "print the result envelope")
  .action(
    act(async (opts: { check?: boolean; json?: boolean }) => {
      const m = await import("./commands/pack-vendor");
      return m.runInstall({ ...opts, ...globals() });
    }),
  );
packGroup
  .command("update")
  .description("fetch the newest version the source allows and show the diff (new writes, confirm-less writes, programs, env); --yes applies it, never granting a write")
  .argument("[id]", "one locked pack (default: all)")
  .option("--to <spec>", "move to another npm spec or tarball, git ref, or path (with one id)")
  .option("-y, --yes", "apply the update after the review")
  .option("--json", "print the result envelope")
  .action(
    act(async (id: string | undefined, opts: { yes?: boolean; to?: string; json?: boolean }) => {
      const m = await import("./commands/pack-vendor");
      return m.runUpdate(id, { ...opts, ...globals() });
    }),
  );
packGroup
  .command("sync")
  .description("carry policy.json into SKILL.md after a review: the hot-path table's read/write cells, missing rows, an openapi pack's lead")
  .argument("<pack-dir>", "the pack directory")
  .option("--check", "write nothing; exit 1 when SKILL.md does not say what policy.json says")
  .option("--json", "print the result envelope")
  .action(
    act(async (dir: string, opts: { check?: boolean; json?: boolean }) => {
      const m = await import("./commands/pack-sync");
      return m.run(dir, { ...opts, ...globals() });
    }),
  );
packGroup
  .command("remove")
  .description("deactivate a vendored pack, drop its grants, its folder and its hcp.lock entry")
  .argument("<id>", "pack id")
  .option("--json", "print the result envelope")
  .action(
    act(async (id: string, opts: { json?: boolean }) => {
      const m = await import("./commands/pack-vendor");
      return m.runRemove(id, { ...opts, ...globals() });
    }),
  );
packGroup
  .command("from-mcp")
  .description("write an mcp pack from an MCP server (a command line, or --url for a remote one): one command per tool, a draft Policy from its annotations, a SKILL.md")
  .argument("[command...]", "after --: the server's command line, e.g. -- npx @modelcontextprotocol/server-filesystem .")
  .option("--update <pack-dir>", "review the pack's server again: its tools against the pins in surface.json (mcp.pins)")
  .option("--yes", "with --update: pin the tools as the server lists them now")
  .option("--id <id>", "pack id (default: from the server's name)")
  .option("--out <dir>", "pack directory to write (default: packs/<id>)")
  .option("--env <name...>", "environment names the server needs, passed from the runtime's env (never written)")
  .option("--url <url>", "a remote server (Streamable HTTP) instead of a command line")
  .option("--header <NAME=value>", 'with --url: a header, its value from the Binding: "Authorization=Bearer env:TOKEN" (repeatable; a literal credential is refused)', (v: string, prev: string[] = []) => [...prev, v])
  .option("--timeout <ms>", "how long to wait for the server to start and list its tools", "30000")
  .option("--force", "overwrite an existing pack directory")
  .option("--json", "print the result envelope")
  .action(
    act(async (command: string[], opts: { id?: string; out?: string; env?: string[]; url?: string; header?: string[]; timeout?: string; force?: boolean; json?: boolean; update?: string; yes?: boolean }) => {
      const m = await import("./commands/pack-from-mcp");
      return m.run(command, { ...opts, ...globals() });
    }),
  );
packGroup
  .command("new")
  .description("scaffold a pack that lints clean: surface.json, policy.json, SKILL.md (+ index.mjs for --composite)")
  .argument("<id>", "pack id, ^[a-z][a-z0-9-]{0,31}$")
  .option("--wrap <bin>", "wrap a program: a bare name (recorded in sandbox.bins) or a path")
  .option("--composite", "an in-process pack: index.mjs exports one async function per verb")
  .option("--sense", "a sense_only pack: stimuli, no commands")
  .option("--verb <spec>", "with --wrap: a read command, \"<verb_key>[:json]=<argv…>\" (repeatable); {{name}} in the argv becomes a required arg, '…' or \"…\" quote an argument with spaces", (v: string, prev: string[] = []) => [...prev, v])
  .option("--write <spec>", "with --wrap: a write command, \"<verb_key>:<local|remote|external>[:confirm][:json]=<argv…>\" (repeatable)", (v: string, prev: string[] = []) => [...prev, v])
  .option("--land <land>", "where every --write that does not say lands: local, remote or external")
  .option("--confirm", "every --write runs only with an explicit confirm")
  .option("--dir <dir>", "where to write it (default: packs/<id> next to hcp.config.json5)")
  .option("--force", "write into a non-empty directory")
  .option("--json", "print the result envelope")
  .addHelpText("after", "\nExamples:\n  $ hcpx pack new gitx --wrap git --verb \"status=status --short\" --verb \"show=show --stat {{rev}}\"\n  $ hcpx pack new gitx --wrap git --verb \"log=log --oneline\" --write \"commit:local:confirm=commit -m {{message}}\"\n  $ hcpx pack new tools --composite --dir ./packs/tools\n\nSpecs, land and confirm: docs/pack-format.md#command-specs\n")
  .action(
    act(async (id: string, opts: { wrap?: string; composite?: boolean; sense?: boolean; verb?: string[]; write?: string[]; land?: string; confirm?: boolean; dir?: string; force?: boolean; json?: boolean }) => {
      const m = await import("./commands/pack-new");
      return m.run(id, { ...opts, ...globals() });
    }),
  );
packGroup
  .command("add-verb")
  .description("add commands to a wrap pack: surface.json, policy.json and SKILL.md together (comments kept)")
  .argument("<pack-dir>", "the pack directory")
  .option("--verb <spec>", "a read command, \"<verb_key>[:json]=<argv…>\" (repeatable)", (v: string, prev: string[] = []) => [...prev, v])
  .option("--write <spec>", "a write command, \"<verb_key>:<local|remote|external>[:confirm][:json]=<argv…>\" (repeatable)", (v: string, prev: string[] = []) => [...prev, v])
  .option("--land <land>", "where every --write that does not say lands: local, remote or external")
  .option("--confirm", "every --write runs only with an explicit confirm")
  .option("--json", "print the result envelope")
  .addHelpText("after", "\nExamples:\n  $ hcpx pack add-verb packs/gitx --write \"commit:local:confirm=commit -m {{message}}\"\n  $ hcpx pack add-verb packs/gitx --write \"push=push\" --land remote --confirm\n  $ hcpx pack add-verb packs/gitx --verb \"tags=tag --list\"\n\nSpecs, land and confirm: docs/pack-format.md#command-specs\n")
  .action(
    act(async (dir: string, opts: { verb?: string[]; write?: string[]; land?: string; confirm?: boolean; json?: boolean }) => {
      const m = await import("./commands/pack-add-verb");
      return m.run(dir, { ...opts, ...globals() });
    }),
  );
program
  .command("import")
  .description("list the MCP servers in a host's config (stdio and remote); --server/--all writes an mcp pack of each (like `hcpx pack from-mcp`)")
  .argument("<host>", "a host id (the README's Hosts table; an unknown one lists them)")
  .option("--scope <scope>", "project (the host's files in the project) or user (under $HOME)", "project")
  .option("--server <name...>", "the servers to import")
  .option("--all", "import every server that can be (stdio, and remote by Streamable HTTP)")
  .option("--activate", "activate each pack written (its reads granted, never a write), as `hcpx activate`")
  .option("--timeout <ms>", "how long to wait for each server to start and list its tools", "30000")
  .option("--force", "overwrite existing pack directories")
  .option("--json", "print the result envelope")
  .addHelpText("after", "\nExamples:\n  $ hcpx import claude                 # list the servers in .mcp.json\n  $ hcpx import claude --server filesystem\n  $ hcpx import claude --all --activate\n  $ hcpx import codex --scope user --all\n")
  .action(
    act(async (host: string, opts: { scope?: string; server?: string[]; all?: boolean; activate?: boolean; timeout?: string; force?: boolean; json?: boolean }) => {
      const m = await import("./commands/import");
      return m.run(host, { ...opts, ...globals() });
    }),
  );
program
  .command("init")
  .description("write a commented hcp.config.json5 in the current directory")
  .option("-y, --yes", "use the defaults, never ask (also without a TTY)")
  .option("--force", "overwrite an existing hcp.config.json5")
  .option("--principal <id>", "principal id (default: dev)")
  .option("--json", "print the result envelope")
  .addHelpText("after", "\nExample:\n  $ hcpx init --yes\n")
  .action(
    act(async (opts: { yes?: boolean; force?: boolean; principal?: string; json?: boolean }) => {
      const m = await import("./commands/init");
      return m.run({ ...opts, ...globals() });
    }),
  );
program
  .command("activate")
  .description("add a pack to hcp.config.json5 and grant its read commands (writes need `hcpx grant`)")
  .argument("<pack-dir>", "the pack directory")
  .option("--json", "print the result envelope")
  .addHelpText("after", "\nExample:\n  $ hcpx activate ./packs/ledger\n")
  .action(
    act(async (dir: string, opts: { json?: boolean }) => {
      const m = await import("./commands/activate");
      return m.run(dir, { ...opts, ...globals() });
    }),
  );
program
  .command("deactivate")
  .description("remove a pack from hcp.config.json5, with its `<id>.…` allow patterns")
  .argument("<id>", "pack id")
  .option("--keep-grants", "keep the pack's allow patterns")
  .option("--json", "print the result envelope")
  .addHelpText("after", "\nExample:\n  $ hcpx deactivate ledger\n")
  .action(
    act(async (id: string, opts: { keepGrants?: boolean; json?: boolean }) => {
      const m = await import("./commands/deactivate");
      return m.run(id, { ...opts, ...globals() });
    }),
  );
program
  .command("grant")
  .description("allow commands: add grant patterns to hcp.config.json5")
  .argument("<pattern...>", "<pack>.<verb>, <pack>.<prefix>.*, <pack>.* or *")
  .option("--json", "print the result envelope")
  .addHelpText("after", "\nExamples:\n  $ hcpx grant ledger.entry.add\n  $ hcpx grant 'transit.*'\n")
  .action(
    act(async (patterns: string[], opts: { json?: boolean }) => {
      const m = await import("./commands/grant");
      return m.run(patterns, { ...opts, ...globals() });
    }),
  );
program
  .command("revoke")
  .description("remove allow patterns from hcp.config.json5 (--deny: add them to grants.deny instead)")
  .argument("<pattern...>", "exact patterns as written in grants.allow")
  .option("--deny", "deny the pattern (wins over any allow, e.g. one verb of a granted `pack.*`)")
  .option("--json", "print the result envelope")
  .addHelpText("after", "\nExamples:\n  $ hcpx revoke ledger.entry.add\n  $ hcpx revoke --deny ledger.entry.delete\n")
  .action(
    act(async (patterns: string[], opts: { deny?: boolean; json?: boolean }) => {
      const m = await import("./commands/revoke");
      return m.run(patterns, { ...opts, ...globals() });
    }),
  );
program
  .command("doctor")
  .description("check health: Node, config, packs lint, wrap bins, adopted hosts in sync and able to use the server (command on PATH, trust, allow-lists), `hcpx mcp` answers (exit 0 ok, 2 warnings, 1 failure)")
  .option("--mcp-timeout <ms>", "how long to wait for `hcpx mcp`", "15000")
  .option("--url <url>", "also reach this team server as a host's remote entry does: reachable, authenticated, tools listed in each protocol era (only a URL named here is contacted, never one read from a file)")
  .option("--token-env <name>", "with --url: the environment variable whose value is sent as the bearer token")
  .option("--json", "print the result envelope with every check")
  .addHelpText("after", "\nExample:\n  $ hcpx doctor --json\n  $ hcpx doctor --url https://hcp.example.com/mcp --token-env HCP_TOKEN\n")
  .action(
    act(async (opts: { json?: boolean; mcpTimeout?: string; url?: string; tokenEnv?: string }) => {
      const m = await import("./commands/doctor");
      return m.run({ ...opts, ...globals() });
    }),
  );
program
  .command("status")
  .description("active packs, granted and withheld commands (read/write/confirm), adopted hosts")
  .option("--json", "print the result envelope")
  .addHelpText("after", "\nExample:\n  $ hcpx status --json\n")
  .action(
    act(async (opts: { json?: boolean }) => {
      const m = await import("./commands/status");
      return m.run({ ...opts, ...globals() });
    }),
  );
program
  .command("log")
  .description("the audit log: every tool call through `hcpx mcp` (stdio, HTTP) and `hcpx exec`, who, what, the decision and the result")
  .option("--since <when>", "only calls since a duration ago (90s, 15m, 2h, 7d, 1w) or an ISO date/time")
  .option("--principal <p>", "only this principal's calls (\"local\": stdio and exec)")
  .option("--pack <id>", "only calls of this pack")
  .option("--json", "print the result envelope")
  .addHelpText("after", "\nExamples:\n  $ hcpx log --since 1h\n  $ hcpx log --principal alice --pack ledger --json\n")
  .action(
    act(async (opts: { since?: string; principal?: string; pack?: string; json?: boolean }) => {
      const m = await import("./commands/log");
      return m.run(opts);
    }),
  );
program
  .command("completion")
  .description("print a shell completion script")
  .argument("<shell>", "bash, zsh or fish")
  .option("--json", "print the result envelope")
  .addHelpText("after", "\nExamples:\n  $ hcpx completion bash > ~/.local/share/bash-completion/completions/hcpx\n  $ source <(hcpx completion zsh)\n")
  .action(
    act(async (shell: string, opts: { json?: boolean }) => {
      const m = await import("./commands/completion");
      return m.run(shell, { ...opts, ...globals() }, program);
    }),
  );
// An example in every command's --help (for blocks that do not carry their own).
{
  const examples: Record<string, string[]> = {
    generate: ["hcpx generate", "hcpx generate --check   # CI: exit 1 when .hcp/generated is stale"],
    lint: ["hcpx lint packs/ledger", "hcpx lint --json        # every activated pack"],
    mcp: ["hcpx mcp                # started by an MCP host; see `hcpx adopt`", "hcpx mcp --shape per-command", "hcpx mcp --http 8080 --server-config server.json5   # a team server (docs/http.md)"],
    exec: ["hcpx exec ledger balance -- account=checking", "hcpx exec ledger transfer --confirm --json -- from=checking to=savings amount=100"],
    pack: ["hcpx pack new gitx --wrap git", "hcpx pack from-openapi openapi.json --id todo"],
    add: ["hcpx pack add @acme/hcp-pack-jira@^1 --yes", "hcpx pack add git+https://example.com/packs/notes.git#v1.2.0", "hcpx pack add ./vendor/notes-pack"],
    install: ["hcpx pack install          # CI: restore what hcp.lock records", "hcpx pack install --check  # exit 1 when a vendored pack was changed"],
    update: ["hcpx pack update notes      # review the diff", "hcpx pack update notes --yes"],
    remove: ["hcpx pack remove notes"],
    "from-mcp": ["hcpx pack from-mcp --id fs -- npx -y @modelcontextprotocol/server-filesystem .", "hcpx pack from-mcp --env GITHUB_TOKEN -- ./node_modules/.bin/mcp-server-github", 'hcpx pack from-mcp --url https://api.githubcopilot.com/mcp/ --header "Authorization=Bearer env:GITHUB_TOKEN"'],
    "from-openapi": ["hcpx pack from-openapi ./openapi.json --id todo --base-url http://127.0.0.1:8080"],
  };
  for (const cmd of [...program.commands, ...packGroup.commands]) {
    const ex = examples[cmd.name()];
    if (ex) cmd.addHelpText("after", `\nExample${ex.length > 1 ? "s" : ""}:\n${ex.map((e) => `  $ ${e}`).join("\n")}\n`);
  }
  program.addHelpText(
    "after",
    "\nExamples:\n  $ hcpx init --yes && hcpx pack new gitx --wrap git && hcpx activate packs/gitx\n  $ hcpx exec gitx version --json\n  $ hcpx adopt claude --write\n" +
      "\nExit codes: 0 ok · 1 failure · 2 warnings (doctor, status, lint --strict) · 64 usage error · 70 internal error\n" +
      "Every command but mcp takes --json and then prints one envelope: { ok: true, data } or { ok: false, error: { code, message, hint } }; the codes: docs/errors.md.\n",
  );
}
// [commands:end]

/** Parse and run; usage errors (already printed by commander) become exit 64. */
export async function runProgram(argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    // help and version exit 0; usage errors were already printed by commander.
    process.exitCode = e.exitCode === 0 ? 0 : 64;
    if (e.exitCode !== 0 && argv.includes("--json")) {
      const message = e.message.replace(/^error: /, "");
      const { failure, writeJson } = await import("./output");
      writeJson(failure("usage", message), { line: true });
    }
  }
}

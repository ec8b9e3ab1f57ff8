// The commander program, built from the one options schema (spec.ts): every
// command, its options and help. Loaded by main.ts for everything but the plain
// exec, mcp and adopt forms, which fast-exec.ts reads itself. Each command's code
// is loaded with import() only when that command runs: in dist/, the bundle
// commands/<name>.cjs beside this one's, required through V8's code cache
// (scripts/build.mjs, load-command.ts).
import { Command, CommanderError } from "commander";
import { sayErrRaw, sayRaw } from "./output";
import { lateExecConfig } from "./fast-exec";
import {
  COMMANDS,
  GLOBAL_OPTIONS,
  type ArgsOf,
  type CommandSpec,
  type GlobalOptions,
  type OptionSpec,
  type OptionsOf,
  type RunnableName,
} from "./spec";
import { VERSION } from "../util/build-info";
import { releaseHeld } from "../util/held";

export type GlobalOpts = GlobalOptions;

export type Runner<C extends RunnableName> = (
  args: ArgsOf<C>,
  opts: OptionsOf<C>,
  g: GlobalOpts,
) => Promise<number | void>;

// What each command runs: its module's entry, given the arguments and options the schema types.
export type Runners = { [C in RunnableName]: Runner<C> };

const RUN: Runners = {
  generate: async ([dir], opts, g) => {
    if (opts.as !== undefined)
      return (await import("./commands/generate-bundle")).run(opts.as, dir ?? opts.out, opts, g);
    return (await import("./commands/generate")).run(opts, g);
  },
  adopt: async ([hosts], opts, g) => (await import("./commands/adopt")).run(hosts, opts, g),
  lint: async ([dirs], opts, g) => (await import("./commands/lint")).run(dirs, { ...opts, ...g }),
  mcp: async (_, opts, g) => (await import("./commands/mcp")).run({ ...opts, ...g }),
  "token add": async ([principal], opts, g) => (await import("./commands/token")).runAdd(principal, { ...opts, ...g }),
  "token list": async (_, opts, g) => (await import("./commands/token")).runList({ ...opts, ...g }),
  "token remove": async ([principal], opts, g) =>
    (await import("./commands/token")).runRemove(principal, { ...opts, ...g }),
  exec: async ([pack, verb, args], opts, g) =>
    (await import("./commands/exec")).run(pack, verb, args, { ...opts, ...g }),
  "pack from-openapi": async ([document], opts, g) =>
    (await import("./commands/pack-from-openapi")).run(document, { ...opts, ...g }),
  "pack add": async ([source], opts, g) => (await import("./commands/pack-vendor")).runAdd(source, { ...opts, ...g }),
  "pack install": async (_, opts, g) => (await import("./commands/pack-vendor")).runInstall({ ...opts, ...g }),
  "pack update": async ([id], opts, g) => (await import("./commands/pack-vendor")).runUpdate(id, { ...opts, ...g }),
  "pack sync": async ([dir], opts, g) => (await import("./commands/pack-sync")).run(dir, { ...opts, ...g }),
  "pack remove": async ([id], opts, g) => (await import("./commands/pack-vendor")).runRemove(id, { ...opts, ...g }),
  "pack from-mcp": async ([command], opts, g) =>
    (await import("./commands/pack-from-mcp")).run(command, { ...opts, ...g }),
  "pack new": async ([id], opts, g) => (await import("./commands/pack-new")).run(id, { ...opts, ...g }),
  "pack add-verb": async ([dir], opts, g) => (await import("./commands/pack-add-verb")).run(dir, { ...opts, ...g }),
  import: async ([host], opts, g) => (await import("./commands/import")).run(host, { ...opts, ...g }),
  init: async (_, opts, g) => (await import("./commands/init")).run({ ...opts, ...g }),
  activate: async ([dir], opts, g) => (await import("./commands/activate")).run(dir, { ...opts, ...g }),
  deactivate: async ([id], opts, g) => (await import("./commands/deactivate")).run(id, { ...opts, ...g }),
  grant: async ([patterns], opts, g) => (await import("./commands/grant")).run(patterns, { ...opts, ...g }),
  revoke: async ([patterns], opts, g) => (await import("./commands/revoke")).run(patterns, { ...opts, ...g }),
  doctor: async (_, opts, g) => (await import("./commands/doctor")).run({ ...opts, ...g }),
  status: async (_, opts, g) => (await import("./commands/status")).run({ ...opts, ...g }),
  log: async (_, opts) => (await import("./commands/log")).run(opts),
  completion: async ([shell], opts, g) => (await import("./commands/completion")).run(shell, { ...opts, ...g }),
};

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

function addOption(cmd: Command, o: OptionSpec): void {
  if (o.required) cmd.requiredOption(o.flags, o.description);
  else if (o.repeat) cmd.option(o.flags, o.description, collect);
  else if (o.default !== undefined) cmd.option(o.flags, o.description, o.default);
  else cmd.option(o.flags, o.description);
}

/** The --help text after the options: the schema's paragraph, examples and closing line. */
function afterHelp(s: CommandSpec): string | undefined {
  const parts: string[] = [];
  if (s.before) parts.push(`\n${s.before}\n`);
  if (s.examples)
    parts.push(`\nExample${s.examples.length > 1 ? "s" : ""}:\n${s.examples.map((e) => `  $ ${e}`).join("\n")}\n`);
  if (s.after) parts.push(`\n${s.after}\n`);
  return parts.length ? parts.join("") : undefined;
}

/**
 * The commander program from the schema: the commands in its order (a group
 * before its subcommands), each action handing its arguments and options to
 * `run` (the commands' modules; a test passes its own to see what commander gives).
 */
export function buildProgram(run: Runners = RUN): Command {
  const root = new Command("hcpx")
    .description("Harness Context Protocol reference tool: packs, projections, adopt, exec and MCP export")
    .version(VERSION, "-V, --version")
    .option(GLOBAL_OPTIONS.config.flags, GLOBAL_OPTIONS.config.description)
    .showSuggestionAfterError(true)
    .configureHelp({ sortSubcommands: false })
    // help and usage errors leave through the one exit too (they can quote an argument); with --json,
    // help and version text is held for runProgram's envelope
    .configureOutput({ writeOut: (s) => (held ? held.push(s) : sayRaw(s)), writeErr: sayErrRaw })
    .exitOverride();
  const made = new Map<string, Command>([["", root]]);
  for (const [path, spec] of Object.entries(COMMANDS) as [string, CommandSpec][]) {
    const at = path.lastIndexOf(" ");
    const cmd = made
      .get(at < 0 ? "" : path.slice(0, at))!
      .command(path.slice(at + 1))
      .description(spec.description);
    made.set(path, cmd);
    const help = afterHelp(spec);
    if (help) cmd.addHelpText("after", help);
    if (spec.group) continue;
    for (const a of spec.args ?? []) cmd.argument(a.name, a.description);
    for (const o of Object.values(spec.options ?? {})) addOption(cmd, o);
    const runner = run[path as RunnableName] as Runner<RunnableName>;
    const n = spec.args?.length ?? 0;
    cmd.action(async (...a: unknown[]) => {
      const code = await runner(
        a.slice(0, n) as ArgsOf<RunnableName>,
        a[n] as OptionsOf<RunnableName>,
        root.opts<GlobalOpts>(),
      );
      if (typeof code === "number" && code !== 0) process.exitCode = code;
    });
  }
  root.addHelpText(
    "after",
    "\nExamples:\n  $ hcpx init --yes && hcpx pack new gitx --wrap git && hcpx activate packs/gitx\n  $ hcpx exec gitx version --json\n  $ hcpx adopt claude --write\n" +
      "\nExit codes: 0 ok · 1 failure · 2 warnings (doctor, status, lint --strict) · 64 usage error · 70 internal error\n" +
      "Every command but mcp takes --json and then prints one envelope: { ok: true, data } or { ok: false, error: { code, message, hint } }; the codes: docs/errors.md.\n",
  );
  return root;
}

/** Help or version text commander printed while --json was asked for: runProgram sends it as one envelope. */
let held: string[] | undefined;

/** --json among the arguments hcpx reads (not after a `--`, which are a bin's). */
function jsonAsked(argv: string[]): boolean {
  const end = argv.indexOf("--");
  return (end < 0 ? argv : argv.slice(0, end)).includes("--json");
}

export const program = buildProgram();

/** Parse and run; usage errors (already printed by commander) become exit 64. */
export async function runProgram(argv: string[]): Promise<void> {
  const json = jsonAsked(argv);
  held = json ? [] : undefined;
  try {
    const late = lateExecConfig(argv.slice(2));
    if (late) {
      sayErrRaw(`error: ${late}\n`);
      process.exitCode = 64;
      if (json) {
        const { failure, writeJson } = await import("./output");
        writeJson(failure("usage", late), { line: true });
      }
      return;
    }
    await program.parseAsync(argv);
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    // help and version exit 0; usage errors were already printed by commander.
    process.exitCode = e.exitCode === 0 ? 0 : 64;
    if (json) {
      const { failure, success, writeJson } = await import("./output");
      if (e.exitCode !== 0) writeJson(failure("usage", e.message.replace(/^error: /, "")), { line: true });
      else writeJson(success(e.code === "commander.version" ? { version: VERSION } : { help: (held ?? []).join("") }));
    }
  } finally {
    held = undefined;
    // the command is done: a config edit's lock goes now, not at exit (src/util/held.ts)
    releaseHeld();
  }
}

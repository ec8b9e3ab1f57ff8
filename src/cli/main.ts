#!/usr/bin/env node
// hcpx entry. Kept small: it is the start path of every `hcpx exec` an agent
// runs. Each command's code is loaded with import() only when that command runs
// (esbuild puts it in its own chunk).
import { Command, CommanderError } from "commander";
import { HcpxError } from "../util/errors";
import { makeOut, reportError } from "./output";

declare const HCPX_VERSION: string;
const VERSION = typeof HCPX_VERSION === "string" ? HCPX_VERSION : "0.0.0-dev";

export interface GlobalOpts {
  config?: string;
}

const program = new Command("hcpx")
  .description("Harness Context Protocol reference tool: packs, projections, adopt, exec and MCP export")
  .version(VERSION, "-V, --version")
  .option("--config <file>", "project config to use (default: hcp.config.json5 found upward from the cwd, or $HCP_CONFIG)")
  .showSuggestionAfterError(true)
  .configureHelp({ sortSubcommands: false })
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
  .command("lint")
  .description("check packs: schemas, kinds, the four faces (§12.4), policy rows, Skill table, ids")
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
  .description("serve the granted packs as a stdio MCP server (the reference export, §12.5): the tool `hcp`, hcp__read_skill, Skills as resources")
  .option("--shape <shape>", "single (one tool `hcp`) or per-command (one tool per granted command)", "single")
  .option("--no-watch", "do not watch the config and packs for changes (tools/list still re-reads them)")
  .action(
    act(async (opts: { shape?: string; watch?: boolean }) => {
      const m = await import("./commands/mcp");
      return m.run({ ...opts, ...globals() });
    }),
  );
// [commands:end]

async function main(argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // help and version exit 0; usage errors were already printed by commander.
      process.exitCode = e.exitCode === 0 ? 0 : 64;
      return;
    }
    const json = argv.includes("--json");
    if (e instanceof HcpxError) {
      process.exitCode = reportError(e, makeOut({ json }));
      return;
    }
    const err = e as Error;
    const message = `internal error: ${err?.message ?? String(e)}`;
    if (json) process.stdout.write(JSON.stringify({ ok: false, error: { code: "internal", message, hint: "this is a bug in hcpx; rerun with HCPX_DEBUG=1 for details and report it" } }) + "\n");
    else process.stderr.write(`${message}\n  hint: this is a bug in hcpx; rerun with HCPX_DEBUG=1 for details and report it\n`);
    if (process.env.HCPX_DEBUG) process.stderr.write(`${err?.stack ?? ""}\n`);
    process.exitCode = 70;
  }
}

void main(process.argv);

#!/usr/bin/env node
// hcpx entry: the start path of every `hcpx exec` an agent runs, so it is kept
// to what exec needs. The plain exec form is parsed here, without commander
// (callgrind: commander's import and the program's definition are ~45 M
// instructions, ~9% of a bare Node start); everything else, including
// `hcpx exec --help` and any exec form with other options, goes to the
// commander program in program.ts, which gives the same result for the same
// exec arguments. Each command is its own bundle, dist/commands/<name>.cjs
// (scripts/build.mjs): the exec path loads hcpx.cjs and commands/exec.cjs only,
// the latter through V8's code cache (load-command.ts).
//
// The entry, dist/hcpx.cjs (the package's bin), is CommonJS: a CommonJS main
// module starts without Node's ESM loader, ~16 M instructions (callgrind) of a
// ~100 M bare start. The program (dist/commands/program.cjs) and the commands are
// CommonJS bundles too, loaded through the code cache the build ships.
// dist/hcpx.mjs is kept as a one-line ES module that imports the entry, for
// host configs and scripts written with that path.
import { parseFastAdopt, parseFastExec, parseFastMcp } from "./fast-exec";
import { loadCommand } from "./load-command";
import { VERSION } from "../util/build-info";

async function main(argv: string[]): Promise<void> {
  try {
    // `hcpx --version` alone: answered here, without loading commander.
    if (argv.length === 3 && (argv[2] === "--version" || argv[2] === "-V")) {
      process.stdout.on("error", () => {}); // a reader that left (EPIPE): nothing else was to be said
      process.stdout.write(`${VERSION}\n`);
      return;
    }
    const fast = parseFastExec(argv.slice(2));
    if (fast)
      return await runBundle<typeof import("./commands/exec")>("exec", (m) => {
        m.useFdOut(); // the envelope straight to fd 1, without building process.stdout (output.ts)
        return m.run(fast.pack, fast.verb, fast.operands, { confirm: fast.confirm, json: fast.json });
      });
    // `hcpx mcp` alone, as hosts start it (adopt writes that command): its
    // bundle through the code cache too, without commander; the same options
    // commander gives it (shape single, watching).
    // (and the forms adopt writes: --shape per-command, --host, --config)
    // serve() returns once the first tools/list is answered (or the server stops first): the code of a
    // host's start is compiled by the time its cache is saved
    const mcp = parseFastMcp(argv.slice(2));
    if (mcp) return await runBundle<typeof import("./commands/mcp")>("mcp", (m) => m.run(mcp));
    // `hcpx adopt <host>… [--write] [--check] [--json] [--command <cmd>]`: the same, for the bench's, a user's and CI's usual forms
    const adopt = parseFastAdopt(argv.slice(2));
    if (adopt)
      return await runBundle<typeof import("./commands/adopt")>("adopt", (m) => {
        m.useFdOut(); // its report straight to fd 1, as exec's envelope (output.ts)
        return m.run(adopt.hosts, adopt.opts, {});
      });
    // the program, and the command it runs (its sibling bundle, required as it runs): their code caches
    // are read now and, where the build ships none usable, written after the command (adopt's rule)
    await runBundle<typeof import("./program")>("program", (m) => m.runProgram(argv));
  } catch (e) {
    // a file of its own in dist/ (failure.cjs, scripts/build.mjs), read only when something failed
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- this module is built as CommonJS only
    const { reportFailure } = require("./failure") as typeof import("./failure");
    process.exitCode = reportFailure(e, argv);
  }
}

/**
 * Run a command bundle (dist/commands/<name>.cjs, through its code cache: load-command.ts), save
 * its cache once it ran (its lazily compiled code is in it then), and exit with the code it gives.
 */
async function runBundle<M>(name: string, run: (m: M) => Promise<number | void>): Promise<void> {
  const m = loadCommand<M>(name, __dirname); // built as CommonJS only (dist/hcpx.cjs)
  const code = await run(m.exports);
  m.save();
  if (typeof code === "number" && code !== 0) process.exitCode = code;
}

// An error nothing caught (a composite pack's timer or unawaited promise, or hcpx's own bug): through the one exit,
// never Node's raw print of it (src/cli/failure.ts onStray). failure.cjs is read only when one comes.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- this module is built as CommonJS only
const onStray = (e: unknown) => (require("./failure") as typeof import("./failure")).onStray(e, process.argv);
process.on("uncaughtException", onStray);
process.on("unhandledRejection", onStray);
void main(process.argv);

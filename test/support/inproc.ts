// `hcpx ...args` as a function call in the test's own process: the commander
// program (src/cli/program.ts) and its commands, with the run's cwd, its whole
// environment (the same hermetic baseEnv() a child gets, HOME included), its
// own stdout and stderr and its exit code, and the entry's failure report
// (src/cli/failure.ts) for what escapes. A RunResult like runHcpx's, for ~5 ms
// of CPU a run instead of a Node start (~170 ms for an adopt).
//
// For tests of what a command decides and writes (adopt's plans, checks and
// files, doctor's checks): the process itself — signals, stdin, exit on a
// timer, the bin's start path, two processes racing — is tested with
// runHcpx/spawnHcpx. Not for commands that end the process or keep it
// running (exec: process.exit; mcp: a server). Runs are serialised: the cwd,
// the environment and the streams are the process's.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, expect, vi } from "vitest";
import { baseEnv, HCPX, REPO, type RunOptions, type RunResult } from "./cli";

let queue: Promise<unknown> = Promise.resolve();

// The first run imports the program and most of src (seconds on a loaded machine): done here,
// under the hook's bound, so that it does not count against the first test's.
beforeAll(async () => {
  await import("../../src/cli/program");
  await import("../../src/cli/failure");
  await import("../../src/cli/commands/adopt");
});

// The program loads adopt's command from its built bundle through the code cache
// (src/cli/load-command.ts, tested by test/cli/code-cache.test.ts); here it is the
// source module, as every other command is.
vi.doMock(fileURLToPath(new URL("../../src/cli/load-command.ts", import.meta.url)), async () => {
  const adopt = await import("../../src/cli/commands/adopt");
  return {
    loadCommand: (name: string) => {
      if (name !== "adopt") throw new Error(`runInProcess: the ${name} command is not run in process`);
      return { exports: adopt, save: () => {} };
    },
  };
});

/** Run `hcpx ...args` in this process (see above); runHcpx's options, without `input` (the test's timeout bounds it, not `timeoutMs`). */
export function runInProcess(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  if (opts.input !== undefined) throw new Error("runInProcess: stdin is the test's own: use runHcpx to feed input");
  if ((args.includes("exec") || args[0] === "mcp") && !asksHelp(args))
    throw new Error(`runInProcess: \`hcpx ${args.join(" ")}\` ends or keeps the process: use runHcpx`);
  // the kill-mid-write hook (src/util/atomic.ts) would kill the test's own process
  if (opts.env?.HCPX_TEST_KILL_AFTER_WRITES !== undefined)
    throw new Error("runInProcess: HCPX_TEST_KILL_AFTER_WRITES kills the process: use runHcpx");
  const next = queue.then(() => once(args, opts));
  queue = next.catch(() => undefined);
  return next;
}

async function once(args: string[], opts: RunOptions): Promise<RunResult> {
  const env: NodeJS.ProcessEnv = opts.pureEnv ? { ...opts.env } : { ...baseEnv(), ...opts.env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const saved = {
    env: { ...process.env },
    cwd: process.cwd(),
    argv1: process.argv[1],
    exitCode: process.exitCode,
    out: process.stdout.write,
    err: process.stderr.write,
    tty: [process.stdin.isTTY, process.stdout.isTTY, process.stderr.isTTY] as (boolean | undefined)[],
  };
  let stdout = "";
  let stderr = "";
  const capture = (add: (s: string) => void) =>
    function (chunk: string | Uint8Array, enc?: unknown, cb?: unknown): boolean {
      add(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      const done = typeof enc === "function" ? enc : cb;
      if (typeof done === "function") (done as () => void)();
      return true;
    };
  const argv = [process.execPath, HCPX, ...args];
  try {
    for (const k of Object.keys(process.env)) delete process.env[k];
    Object.assign(process.env, env);
    process.chdir(opts.cwd ?? REPO);
    // the bin the entries name when no --command is given (src/host/command.ts: process.argv[1])
    process.argv[1] = realpathSync(HCPX);
    process.exitCode = undefined;
    // never a terminal, as for a child with piped stdio: nothing asks (src/config/common.ts interactive) or reads the test's stdin
    for (const st of [process.stdin, process.stdout, process.stderr] as { isTTY?: boolean }[]) st.isTTY = false;
    process.stdout.write = capture((s) => (stdout += s)) as typeof process.stdout.write;
    process.stderr.write = capture((s) => (stderr += s)) as typeof process.stderr.write;
    try {
      const { runProgram } = await import("../../src/cli/program");
      await runProgram(argv);
    } catch (e) {
      const { reportFailure } = await import("../../src/cli/failure");
      process.exitCode = reportFailure(e, argv);
    }
    const code = typeof process.exitCode === "number" ? process.exitCode : Number(process.exitCode ?? 0);
    return { code, signal: null, stdout, stderr };
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    [process.stdin, process.stdout, process.stderr].forEach((st, i) => {
      const was = saved.tty[i];
      if (was === undefined) delete (st as { isTTY?: boolean }).isTTY;
      else (st as { isTTY?: boolean }).isTTY = was;
    });
    process.exitCode = saved.exitCode;
    process.argv[1] = saved.argv1!;
    process.chdir(saved.cwd);
    for (const k of Object.keys(process.env)) delete process.env[k];
    Object.assign(process.env, saved.env);
  }
}

/** runInProcess, then the checks runHcpxChecked owes: no stack trace, no internal error. */
export async function runInProcessChecked(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const r = await runInProcess(args, opts);
  const all = r.stdout + r.stderr;
  expect(all).not.toMatch(/\n\s+at .+[(:]\d+/);
  expect(all).not.toMatch(/^internal error:|"code":\s*"internal"/m);
  return r;
}

/**
 * A scratch project (test/adopt/helpers.ts scratch(), test/support/project.ts) whose `run` and
 * `adopt` run in this process, with the same cwd and environment its child runs get.
 */
export function inProcess<S extends { dir: string; env: NodeJS.ProcessEnv }>(
  s: S,
): S & {
  run: (args: string[], env?: NodeJS.ProcessEnv) => Promise<RunResult>;
  adopt: (...args: string[]) => Promise<RunResult>;
} {
  const run = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    runInProcess(args, { cwd: s.dir, env: { ...s.env, ...extra } });
  return { ...s, run, adopt: (...args: string[]) => run(["adopt", ...args]) };
}

/** `--help` (or `-h`) before any `--`: commander prints the help and the command's action never runs. */
function asksHelp(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/** The runs that need a process of their own: exec and mcp (above, unless they ask for help), and init without --yes (it asks on stdin). */
export function needsProcess(args: string[]): boolean {
  if (asksHelp(args)) return false;
  return args.includes("exec") || args[0] === "mcp" || (args[0] === "init" && !args.includes("--yes"));
}

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
// running (mcp: a server); exec (it exits at once when a signal cancels its
// call) only through execInProcess, for tests of what a call does. Runs are
// serialised: the cwd, the environment and the streams are the process's.
import { realpathSync } from "node:fs";
import { isatty } from "node:tty";
import { beforeAll, expect } from "vitest";
import { baseEnv, HCPX, REPO, runHcpx, type RunOptions, type RunResult } from "./cli";

let queue: Promise<unknown> = Promise.resolve();

// The first run imports the program and most of src (seconds on a loaded machine): done here,
// under the hook's bound, so that it does not count against the first test's.
beforeAll(async () => {
  await import("../../src/cli/program");
  await import("../../src/cli/failure");
  await import("../../src/cli/commands/adopt");
});

/** Run `hcpx ...args` in this process (see above); runHcpx's options, without `input` (the test's timeout bounds it, not `timeoutMs`). */
export function runInProcess(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  if (opts.input !== undefined) throw new Error("runInProcess: stdin is the test's own: use runHcpx to feed input");
  if ((args.includes("exec") || args[0] === "mcp") && !asksHelp(args))
    throw new Error(`runInProcess: \`hcpx ${args.join(" ")}\` ends or keeps the process: use runHcpx`);
  // the kill-mid-write hook (src/util/atomic.ts) would kill the test's own process
  if (opts.env?.HCPX_TEST_KILL_AFTER_WRITES !== undefined)
    throw new Error("runInProcess: HCPX_TEST_KILL_AFTER_WRITES kills the process: use runHcpx");
  return queued(args, opts);
}

/**
 * `hcpx exec ...` in this process, for tests of what a call does (the request an adapter sends,
 * the envelope it answers with, the exit code it maps to), not of exec's process: its start path
 * (src/cli/main.ts parses the plain form without commander, which gives the same result),
 * a signal to it, its end, and the validation cache (src/pack/validcache.ts: keyed by the build's
 * schema hash, so off in the sources; test/pack/failclosed.test.ts runs the cache through the bin).
 * The runtime's children (bins, MCP servers) stay processes. What a run adds to this process
 * (exec's signal listeners) goes with the run; exec leaves the process early only when a signal
 * aborted the call, which no in-process run sends.
 */
export function execInProcess(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  if (args[0] !== "exec") throw new Error(`execInProcess: \`hcpx ${args.join(" ")}\` is not an exec: use runInProcess`);
  if (opts.input !== undefined) throw new Error("execInProcess: stdin is the test's own: use runHcpx to feed input");
  if (opts.env?.HCPX_TEST_KILL_AFTER_WRITES !== undefined)
    throw new Error("execInProcess: HCPX_TEST_KILL_AFTER_WRITES kills the process: use runHcpx");
  // exec asks whether its stdin and stderr are a terminal (a person there): a child with piped
  // stdio never is; this process is when vitest runs in one, and then the run is a child's
  if (isatty(0) && isatty(2)) return runHcpx(args, opts);
  const next = queue.then(() => once(args, opts));
  queue = next.catch(() => undefined);
  return next;
}

function queued(args: string[], opts: RunOptions): Promise<RunResult> {
  const next = queue.then(() => once(args, opts));
  queue = next.catch(() => undefined);
  return next;
}

/** The signals a command listens to while it runs (exec passes them on to its call). */
const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

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
    listeners: SIGNALS.map((sig) => process.listeners(sig)),
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
    SIGNALS.forEach((sig, i) => {
      for (const l of process.listeners(sig)) if (!saved.listeners[i]!.includes(l)) process.removeListener(sig, l);
    });
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

/**
 * `hcpx ...args` for a test of what the command decides, writes and answers: in this process where it can
 * run here (exec through execInProcess, the rest through runInProcess), else (needsProcess: mcp, a bare
 * init) as a process (runHcpx).
 */
export function runHere(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  if (args[0] === "exec") return execInProcess(args, opts);
  return needsProcess(args) ? runHcpx(args, opts) : runInProcess(args, opts);
}

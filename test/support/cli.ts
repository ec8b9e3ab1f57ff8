// The one way tests run the built CLI as a real process: a hermetic
// environment (scratch HOME, no colour, no user config), stdin closed or fed,
// a guard that SIGKILLs a run that hangs, and the checks every user-facing run
// owes (no stack trace, one envelope with --json). Tests that need the child
// itself (to signal it, talk JSON-RPC to it, kill it mid-write) use spawnHcpx.
// Tests about a function call the function in-process instead.
import { spawn, type ChildProcessWithoutNullStreams, type StdioOptions } from "node:child_process";
import { lstatSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { USER_PLACES } from "./hermetic";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/**
 * The built CLI: the package's bin, dist/hcpx.cjs (dist/hcpx.mjs is a one-line ES module shim
 * over it that starts Node's ESM loader first: ~20 ms CPU more a run; test/cli/fast-exec.test.ts
 * runs the shim itself). HCPX_DIST_BIN points tests at another build (e.g. a private copy while
 * others rebuild dist/).
 */
export const HCPX = process.env.HCPX_DIST_BIN ?? join(REPO, "dist", "hcpx.cjs");

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  /** merged over the hermetic baseEnv() (a key set to undefined removes it) */
  env?: NodeJS.ProcessEnv;
  /** use `env` as the whole environment, without baseEnv() */
  pureEnv?: boolean;
  input?: string;
  /** the guard: SIGKILL after this long (default 20 s); the result then has signal SIGKILL */
  timeoutMs?: number;
}

/**
 * The test file's scratch HOME: one a file, also when files share a worker
 * process (vitest.config.ts, test/support/shared-worker.ts), so what one file's
 * runs leave in HOME (the audit log, user-scope configs) no other file sees.
 */
let scratchHome: { file: string | undefined; dir: string } | undefined;

/** A hermetic environment: a scratch HOME so no user config leaks in, no colour. */
export function baseEnv(): NodeJS.ProcessEnv {
  const file = expect.getState().testPath;
  if (!scratchHome || scratchHome.file !== file) scratchHome = { file, dir: mkdtempSync(join(tmpdir(), "hcpx-home-")) };
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: scratchHome.dir, NO_COLOR: "1" };
  // the places a test may have set in this process since test/support/env.ts took the developer's out: the
  // audit log (src/runtime/audit.ts) and the caches (code, validation, mcp start) go to the scratch HOME
  for (const k of USER_PLACES) delete env[k];
  return env;
}

function envFor(opts: RunOptions): NodeJS.ProcessEnv {
  const env = opts.pureEnv ? { ...opts.env } : { ...baseEnv(), ...opts.env };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env;
}

/** PATH without any directory holding an `hcpx` (so adopt picks the same command every time). */
export function cleanPath(path = process.env.PATH ?? ""): string {
  return path
    .split(":")
    .filter((d) => {
      try {
        lstatSync(join(d, "hcpx"));
        return false;
      } catch {
        return true;
      }
    })
    .join(":");
}

/** Start `node dist/hcpx.cjs ...args` and hand back the child (stdio piped unless `stdio` says otherwise). */
export function spawnHcpx(
  args: string[],
  opts: Omit<RunOptions, "input" | "timeoutMs"> & { stdio?: StdioOptions } = {},
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [HCPX, ...args], {
    cwd: opts.cwd ?? REPO,
    env: envFor(opts),
    stdio: opts.stdio ?? ["pipe", "pipe", "pipe"],
  }) as ChildProcessWithoutNullStreams;
}

/** Run `node dist/hcpx.cjs ...args` with stdin closed (or fed `input`). */
export function runHcpx(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return run(process.execPath, [HCPX, ...args], opts);
}

/** Run any program the same way (hermetic env, guard, output gathered). */
export function run(cmd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? REPO, env: envFor(opts), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 20_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    child.stdin.on("error", () => {}); // a child that exits before reading its input
    child.stdin.end(opts.input ?? "");
  });
}

/** Nothing a user sees looks like a stack trace or an internal error. */
export function noStack(r: RunResult): void {
  const all = r.stdout + r.stderr;
  expect(all).not.toMatch(/\n\s+at .+[(:]\d+/);
  expect(all).not.toMatch(/^internal error:|"code":\s*"internal"/m);
}

/** runHcpx, then the checks every run owes: it ended by itself (not the guard) and printed no stack trace. */
export async function runHcpxChecked(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const r = await runHcpx(args, { timeoutMs: 30_000, ...opts });
  expect(r.signal, `hcpx ${args.join(" ")} was killed (waiting for input?)`).toBeNull();
  noStack(r);
  return r;
}

export interface Env<T = Record<string, unknown>> {
  ok: boolean;
  data: T;
  error: {
    code: string;
    message: string;
    hint?: string;
    line?: number;
    problems?: { code: string; message: string; line?: number; column?: number; severity?: string }[];
    [k: string]: unknown;
  };
}

/** The one JSON envelope a --json run prints on stdout (and nothing else there). */
export function envelope<T = Record<string, unknown>>(r: RunResult): Env<T> {
  expect(r.stdout.trim(), `stdout of a --json run (stderr: ${r.stderr})`).toMatch(/^\{[\s\S]*\}$/);
  return JSON.parse(r.stdout) as Env<T>;
}

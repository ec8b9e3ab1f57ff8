// The wrap adapter: render argv from cli[] / argv_template (one placeholder =
// one argv element, never a shell), resolve the bin inside the sandbox, spawn
// it in its own process group with a minimal environment, and turn what it
// did into an envelope. node:child_process only (this is the exec hot path).
import { existsSync, readFileSync, readdirSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, resolve } from "node:path";
import type { Command, Pack, Project } from "../pack/model";
import type { WrapSpec } from "../pack/schema";
import { display, isInside } from "../util/paths";
import { removeFile } from "../util/door";
import { childProcess } from "../util/builtins";
import { argText, type ArgValues } from "./args";
import { failure, type Envelope, type Failure } from "./envelope";
import { forbiddenEnvOf } from "../pack/envrules";
import { nestingDepth } from "../pack/json5";
import { classOf, confine } from "./sandbox/gate";
import { spawnChild } from "./spawn";
import type { AdapterCall } from "./adapters/types";
import type { CallSignal } from "./cancel";

/** A file a confined write must not have made (sandbox/planted.ts: a git dir's new commondir), removed through the door. */
export const removePlanted = (file: string) => removeFile(dirname(file), file, display(file), true);

export const DEFAULT_TIMEOUT_MS = 30_000;
export const STDOUT_CAP = 8 * 1024 * 1024;
/**
 * A bin's (or a service's, or a composite's) JSON nested deeper than this is
 * refused (bad_output): printing, redacting or sending it walks it
 * recursively, and 8 MiB of `[` would overflow the stack.
 */
export const MAX_OUTPUT_NESTING = 512;

/** JSON.parse of output, or a reason it is not usable: not JSON, or nested deeper than MAX_OUTPUT_NESTING. */
export function parseOutput(text: string): { ok: true; value: unknown } | { ok: false; why: string; deep: boolean } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, why: (e as Error).message, deep: false };
  }
  if (nestingDepth(value, MAX_OUTPUT_NESTING) > MAX_OUTPUT_NESTING)
    return { ok: false, why: `nested deeper than ${MAX_OUTPUT_NESTING} levels`, deep: true };
  return { ok: true, value };
}
const STDERR_TAIL = 2048;

/** A runtime failure decided before or after the spawn. */

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}$/;

/**
 * argv (without the bin) for a named command. Positional slots come from
 * cli[] (minus its first token, the pack's CLI name) or wrap.argv_template;
 * then each given optional arg with a `flag`; then wrap.json_flag.
 */
export function renderArgv(wrap: WrapSpec, cmd: Command, values: ArgValues): string[] | Failure {
  const template = cmd.cli ? cmd.cli.slice(1) : (wrap.argv_template ?? ["{{verb}}"]);
  const used = new Set<string>();
  const argv: string[] = [];
  for (const el of template) {
    const whole = WHOLE.exec(el);
    if (whole) {
      const name = whole[1]!;
      if (name === "verb" && !Object.hasOwn(cmd.args, "verb")) {
        argv.push(...cmd.verb_key.split("."));
        continue;
      }
      if (!Object.hasOwn(cmd.args, name))
        return failure("bad_pack", `${cmd.verb_key}: the argv slot {{${name}}} names no declared arg`, {
          hint: "declare the arg in the command's args, or fix the cli[] / argv_template",
        });
      used.add(name);
      const v = values[name];
      if (v === undefined) continue; // optional positional not given: no element
      const s = argText(v);
      if (s.startsWith("-") && !cmd.args[name]!.allow_dash) {
        return failure("bad_args", `argument '${name}' starts with '-', which the bin would read as an option`, {
          arg: name,
          hint: `pass a value that does not start with '-' (the pack can allow it with allow_dash: true on '${name}')`,
        });
      }
      argv.push(s);
      continue;
    }
    // text with embedded placeholders: still exactly one argv element
    let missing = false;
    let unknown: string | undefined;
    const s = el.replace(PLACEHOLDER, (_m, name: string) => {
      if (name === "verb" && !Object.hasOwn(cmd.args, "verb")) return cmd.verb_key;
      if (!Object.hasOwn(cmd.args, name)) {
        unknown = name;
        return "";
      }
      used.add(name);
      const v = values[name];
      if (v === undefined) missing = true;
      return v === undefined ? "" : argText(v);
    });
    if (unknown)
      return failure(
        "bad_pack",
        `${cmd.verb_key}: the argv element ${JSON.stringify(el)} names no declared arg '${unknown}'`,
      );
    if (missing) continue;
    if (s.startsWith("-") && !el.startsWith("-")) {
      // The element's template does not start with '-', so a value put it there
      // (`{{name}}.txt` with name=-rf): the same option injection as a whole slot.
      const name = leadingArg(el, cmd, values);
      if (name && !cmd.args[name]!.allow_dash) {
        return failure(
          "bad_args",
          `argument '${name}' makes the argv element ${JSON.stringify(s.length > 40 ? s.slice(0, 40) + "…" : s)} start with '-', which the bin would read as an option`,
          {
            arg: name,
            hint: `pass a value that does not start with '-' (the pack can allow it with allow_dash: true on '${name}')`,
          },
        );
      }
    }
    argv.push(s);
  }
  const flagged = pushFlags(argv, cmd, values, used);
  if (flagged) return flagged;
  if (wrap.json_flag) argv.push(wrap.json_flag);
  return argv;
}

/** Each given arg without an argv slot, as its `flag` (a boolean: the flag alone when true), pushed onto `argv`; a failure when one has no flag. */
function pushFlags(argv: string[], cmd: Command, values: ArgValues, used: Set<string>): Failure | undefined {
  for (const [name, spec] of Object.entries(cmd.args)) {
    if (used.has(name)) continue;
    const v = values[name];
    if (v === undefined) continue;
    if (!spec.flag)
      return failure(
        "bad_pack",
        `${cmd.verb_key}: argument '${name}' has neither an argv slot {{${name}}} nor a flag, so it cannot be passed to the bin`,
        { arg: name, hint: 'add `flag: "--name"` to the arg or a {{name}} element to cli[]' },
      );
    if (spec.type === "boolean") {
      if (v === true) argv.push(spec.flag);
      continue;
    }
    const s = argText(v);
    if (s.startsWith("-") && !spec.allow_dash) {
      return failure("bad_args", `argument '${name}' starts with '-', which the bin could read as an option`, {
        arg: name,
        hint: `pass a value that does not start with '-' (the pack can allow it with allow_dash: true on '${name}')`,
      });
    }
    argv.push(spec.flag, s);
  }
  return undefined;
}

/** The arg whose value comes first in an element that starts with placeholders (the first one with a non-empty value, else the first). */
function leadingArg(el: string, cmd: Command, values: ArgValues): string | undefined {
  let first: string | undefined;
  let at = 0;
  for (const m of el.matchAll(PLACEHOLDER)) {
    if (m.index !== at) break;
    at += m[0].length;
    const name = m[1]!;
    if (!Object.hasOwn(cmd.args, name)) continue; // {{verb}}
    first ??= name;
    if (String(values[name] ?? "") !== "") return name;
  }
  return first;
}

/** argv for a pass_through verb: the subcommand, then the literal operands. */
export function passThroughArgv(wrap: WrapSpec, cmd: Command, literal: readonly unknown[]): string[] | Failure {
  const max = cmd.passThrough!.maxArgv;
  if (literal.length > max)
    return failure("bad_args", `${cmd.verb_key} takes at most ${max} literal arguments, got ${literal.length}`, {
      hint: "pass fewer arguments (maxArgv in the pack's pass_through)",
    });
  if (!literal.every((a) => typeof a === "string"))
    return failure("bad_args", "pass-through arguments must be strings");
  const argv = [cmd.verb_key, ...(literal as string[])];
  if (wrap.json_flag) argv.push(wrap.json_flag);
  return argv;
}

export interface ResolvedBin {
  /** what is spawned */
  command: string;
  /** argv prefix (the script, for a .mjs/.js/.cjs bin run with this Node) */
  prefix: string[];
  /** the resolved bin path */
  path: string;
}

/**
 * Resolve wrap.bin inside the sandbox. A path (relative to the pack dir, or
 * absolute) must realpath inside one of sandbox.roots; a bare name resolves
 * only through sandbox.bins, never PATH. A .mjs/.js/.cjs bin is run with the
 * Node that runs hcpx (`process.execPath script …`), so it needs no shebang
 * or exec bit and never picks another `node` from PATH.
 */
export function resolveBin(pack: Pack, project: Project, bin: string, field = "wrap.bin"): ResolvedBin | Failure {
  let path: string;
  if (!bin.includes("/") && !bin.includes("\\")) {
    const mapped = Object.hasOwn(project.sandbox.bins, bin) ? project.sandbox.bins[bin] : undefined;
    if (!mapped) {
      return failure("bin_denied", `bin '${bin}' is not in sandbox.bins, and bare names are never looked up on PATH`, {
        bin,
        hint: `add it to sandbox.bins in ${project.configFile ? "hcp.config.json5" : "your config"}: bins: { ${JSON.stringify(bin)}: "/absolute/path/to/${bin}" }`,
      });
    }
    if (!isAbsolute(mapped)) return failure("bin_denied", `sandbox.bins.${bin} must be an absolute path`, { bin });
    try {
      path = realpathSync(mapped);
    } catch {
      return failure("spawn_failed", `sandbox.bins.${bin} points to ${mapped}, which does not exist`, {
        bin,
        hint: "fix the path in sandbox.bins",
        started: false,
      });
    }
  } else {
    const abs = resolve(pack.dir, bin);
    try {
      path = realpathSync(abs);
    } catch {
      return failure("spawn_failed", `${field} ${bin} not found (resolved to ${abs})`, {
        bin,
        hint: `fix ${field} in surface.json: a relative path is resolved against the pack directory`,
        started: false,
      });
    }
    const roots = project.sandbox.roots.map((r) => {
      try {
        return realpathSync(r);
      } catch {
        return r;
      }
    });
    const allowedAbs = Object.values(project.sandbox.bins).includes(abs);
    if (!allowedAbs && !roots.some((r) => isInside(path, r))) {
      return failure("bin_denied", `${field} ${bin} resolves to ${path}, outside the sandbox roots`, {
        bin,
        roots,
        hint: "keep the bin inside sandbox.roots (hcp.config.json5), or list it in sandbox.bins",
      });
    }
  }
  try {
    if (!statSync(path).isFile())
      return failure("spawn_failed", `${field} ${path} is not a file`, { bin, started: false });
  } catch {
    return failure("spawn_failed", `${field} ${path} cannot be read`, { bin, started: false });
  }
  // a JavaScript file (path.extname's .mjs/.js/.cjs, a dotfile's name aside) runs under this Node; the
  // regex spares exec's start compiling path.extname (~1.6 KB of Node's source, callgrind ~0.3 M)
  if (isJsFile(path)) return { command: process.execPath, prefix: [path], path };
  return { command: path, prefix: [], path };
}

/** Variables passed through from the runtime's env to every bin (no PATH: bins are absolute). */
const PASS_ENV = [
  "HOME",
  "USER",
  "LOGNAME",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TEMP",
  "TMP",
  "NO_COLOR",
  "SYSTEMROOT",
  "WINDIR",
];

/**
 * Launchers that start the program they are given by looking it (and its interpreter) up on
 * PATH: `npx -y pkg` runs a `#!/usr/bin/env node` script, `uvx pkg` a Python entry point. The
 * way hosts run `npx …`/`uvx …` servers, they get a PATH — this one, made by the runtime from
 * where the launcher resolved (and this Node's directory), never from the pack (agent_env and
 * the Binding cannot name PATH).
 */
const LAUNCHERS = new Set(["npx", "npm", "pnpm", "pnpx", "bunx", "bun", "yarn", "uvx", "uv", "pipx", "deno"]);

/**
 * The PATH a launcher needs, or undefined for any other program (bins are absolute: no PATH).
 * `name`: the bin as the pack or the command line names it (`npx`); `binPath`: where it resolved
 * (npm's `npx` is the real file npx-cli.js).
 */
export function launcherPath(binPath: string | undefined, name?: string): string | undefined {
  const base = (p: string) => basename(p).replace(/(?:-cli)?\.(?:c|m)?js$/, "");
  if (!binPath || !(LAUNCHERS.has(base(binPath)) || (name !== undefined && LAUNCHERS.has(base(name)))))
    return undefined;
  const dirs = [dirname(binPath), dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"];
  return [...new Set(dirs)].join(":");
}

/** The minimal env of a bin: a few locale/home basics + agent_env + the Binding names (+ a launcher's PATH, see launcherPath). */
export function binEnv(
  wrap: Pick<WrapSpec, "agent_env">,
  bindingNames: readonly string[],
  runtimeEnv: NodeJS.ProcessEnv,
  binPath?: string,
  binName?: string,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // the names first, then only the values passed on: process.env reads each value from the C environ
  for (const k of Object.keys(runtimeEnv)) {
    if (!PASS_ENV.includes(k) && !k.startsWith("LC_")) continue;
    const v = runtimeEnv[k];
    if (v !== undefined) env[k] = v;
  }
  Object.assign(env, wrap.agent_env ?? {});
  for (const n of bindingNames) {
    const v = runtimeEnv[n];
    if (v !== undefined) env[n] = v;
  }
  const path = launcherPath(binPath, binName);
  if (path !== undefined) env.PATH = path;
  return env;
}

export interface SpawnSpec {
  command: string;
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  output: "json" | "text" | "jsonl";
  /** shown in messages */
  label: string;
  /** aborted when the caller is gone (a signal to `hcpx exec`, an MCP cancel, `hcpx mcp` shutting down) */
  signal?: CallSignal;
  /** called once the bin has started (its "spawn" event; ExecuteOptions.started) */
  started?: () => void;
  /** what it reads on fds 3 … (the sandbox's seccomp filter: SpawnLine.fds) */
  fds?: Uint8Array[];
  /** the fds hcpx inherited reach it as /dev/null (a confined call: SpawnLine.shutInherited) */
  shutInherited?: boolean;
  /** bubblewrap's status, read on the fd after `fds` (a confined call: SpawnLine.report) */
  report?: (text: string) => void;
}

/** How long a cancelled bin's tree gets between SIGTERM and SIGKILL. */
export const CANCEL_GRACE_MS = 1000;
/** After the SIGKILL: how long to wait for the tree to be gone before giving up on it. */
const KILL_WAIT_MS = 1000;

/**
 * Every descendant of `pid`. Linux: /proc/<pid>/task/<tid>/children. Where
 * /proc is absent (macOS, the BSDs) the process table from `ps` (an absolute
 * /bin/ps or /usr/bin/ps, never PATH), read only when a bin is being stopped;
 * empty when neither is there (then only the process-group kill remains). A
 * child that started its own session or group escapes a group kill, so it is
 * killed by pid.
 */
export function descendants(pid: number, source: "auto" | "proc" | "ps" = "auto"): number[] {
  const useProc = source === "proc" || (source === "auto" && existsSync("/proc/self/task"));
  const children = useProc ? procChildren : psChildren();
  const out: number[] = [];
  const queue = [pid];
  while (queue.length && out.length < 4096) {
    const p = queue.shift()!;
    for (const n of children(p)) {
      if (n > 0 && n !== pid && !out.includes(n)) {
        out.push(n);
        queue.push(n);
      }
    }
  }
  return out;
}

function procChildren(p: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${p}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const t of tasks) {
    try {
      for (const c of readFileSync(`/proc/${p}/task/${t}/children`, "utf8").split(" "))
        if (c.trim()) out.push(Number(c));
    } catch {
      /* the task ended */
    }
  }
  return out;
}

/** A parent → children map from `ps -A -o pid= -o ppid=` (POSIX options). */
function psChildren(): (p: number) => number[] {
  const byParent = new Map<number, number[]>();
  const ps = ["/bin/ps", "/usr/bin/ps"].find((f) => existsSync(f));
  if (ps) {
    const r = childProcess().spawnSync(ps, ["-A", "-o", "pid=", "-o", "ppid="], {
      encoding: "utf8",
      timeout: 2000,
      stdio: ["ignore", "pipe", "ignore"],
    });
    for (const line of (r.stdout ?? "").split("\n")) {
      const [a, b] = line.trim().split(/\s+/).map(Number);
      if (!a || b === undefined || Number.isNaN(b)) continue;
      const list = byParent.get(b) ?? [];
      list.push(a);
      byParent.set(b, list);
    }
  }
  return (p) => byParent.get(p) ?? [];
}

function signalAll(pid: number, pids: readonly number[], sig: NodeJS.Signals): void {
  for (const d of pids) {
    try {
      process.kill(d, sig);
    } catch {
      /* gone */
    }
  }
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
  }
}

export function killGroup(pid: number | undefined): void {
  if (!pid) return;
  // collected before the kill: once the bin is gone its children are reparented and untraceable
  signalAll(pid, descendants(pid), "SIGKILL");
}

/** A process that still runs (a zombie, exited but not reaped, does not count; /proc tells them apart). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return !existsSync("/proc/self");
  }
}

function groupRunning(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  // members may all be zombies (reparented to a pid 1 that does not reap): check what /proc knows
  if (!existsSync("/proc/self")) return true;
  try {
    for (const e of readdirSync("/proc")) {
      if (!/^\d+$/.test(e)) continue;
      try {
        const stat = readFileSync(`/proc/${e}/stat`, "utf8");
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(f[2]) === pgid && f[0] !== "Z") return true;
      } catch {
        /* gone */
      }
    }
  } catch {
    return true;
  }
  return false;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Stop a bin and everything it started: SIGTERM to its process group and to
 * every descendant (a child in its own session included), CANCEL_GRACE_MS for
 * them to exit, then SIGKILL to what is left. Resolves when none of them runs,
 * or KILL_WAIT_MS after the SIGKILL at the latest (a process in
 * uninterruptible sleep cannot be hurried).
 */
export async function terminateTree(pid: number, graceMs = CANCEL_GRACE_MS): Promise<void> {
  await stopTree(pid, graceMs, true);
}

/**
 * terminateTree() for the descendants of `pid` only, never `pid` or its group:
 * `hcpx exec` stops what a cancelled call left running under it (an
 * in-process composite module's children) before it exits.
 */
export async function terminateDescendants(pid: number, graceMs = CANCEL_GRACE_MS): Promise<void> {
  if (descendants(pid).length) await stopTree(pid, graceMs, false);
}

async function stopTree(pid: number, graceMs: number, root: boolean): Promise<void> {
  const known = new Set(descendants(pid));
  const gone = () => (!root || !groupRunning(pid)) && ![...known].some(running);
  const signal = (sig: NodeJS.Signals) => {
    if (root) signalAll(pid, [...known], sig);
    else for (const d of known) killPid(d, sig);
  };
  signal("SIGTERM");
  for (const deadline = Date.now() + graceMs; Date.now() < deadline;) {
    if (gone()) return;
    await sleep(20);
    // children started after the first look (before the bin saw its SIGTERM) are tracked too
    for (const d of descendants(pid)) known.add(d);
  }
  for (const d of descendants(pid)) known.add(d);
  signal("SIGKILL");
  for (const deadline = Date.now() + KILL_WAIT_MS; Date.now() < deadline && !gone();) await sleep(20);
}

function killPid(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* gone */
  }
}

/** Why a call was cancelled, for the message: the signal's name when the CLI aborted on one. */
export function cancelReason(signal: CallSignal | undefined): string {
  const r: unknown = signal?.reason;
  return typeof r === "string" ? r : "the caller cancelled the call";
}

/**
 * The answer of a cancelled call; one that never started says so (`started: false`: its audit record's decision
 * is `cancelled`, not `ran`). `stopped`: what became of one that ran, as its kind stops (a bin's process tree, the
 * default; an HTTP request, a composite's module, a remote MCP server's call: each says its own).
 */
export function cancelled(
  label: string,
  signal: CallSignal | undefined,
  ran: boolean,
  extra: Record<string, unknown> = {},
  stopped = "it was stopped with its process group and descendants",
): Failure {
  return failure(
    "cancelled",
    ran
      ? `${label} was cancelled (${cancelReason(signal)}): ${stopped}`
      : `${label} was cancelled (${cancelReason(signal)}) before it started; nothing was run`,
    ran ? extra : { ...extra, started: false },
  );
}

/**
 * Spawn (no shell, own process group), bounded in time and output. Never
 * rejects. When `spec.signal` aborts, the bin's tree is stopped
 * (terminateTree) and the envelope, `cancelled`, comes only once it is gone.
 */
export function runBin(spec: SpawnSpec): Promise<Envelope> {
  return new Promise((done) => {
    if (spec.signal?.aborted) {
      done(cancelled(spec.label, spec.signal, false));
      return;
    }
    let state: "running" | "timeout" | "too_large" | "cancelled" = "running";
    let finished = false;
    let stopping: Promise<void> | undefined;
    let child;
    try {
      // its command, argv, cwd, env, fds, shutInherited and report (spawnChild reads no other field)
      child = spawnChild({ ...spec, stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      done(failure("spawn_failed", `could not start ${spec.label}: ${(e as Error).message}`, { started: false }));
      return;
    }
    const onAbort = () => {
      if (state !== "running" || finished) return;
      state = "cancelled";
      stopping = child.pid ? terminateTree(child.pid) : Promise.resolve();
    };
    const finish = (env: Envelope) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
      if (stopping) void stopping.then(() => done(env));
      else done(env);
    };
    spec.signal?.addEventListener("abort", onAbort, { once: true });
    // "spawn" comes once: on(), not once(), spares exec's start compiling once's wrapper and removeListener (~0.3 M)
    if (spec.started) child.on("spawn", spec.started);
    const timer = setTimeout(() => {
      state = "timeout";
      killGroup(child.pid);
    }, spec.timeoutMs);
    const got = capture(
      child,
      () => state === "running",
      () => {
        state = "too_large";
        killGroup(child.pid);
      },
    );
    child.on("error", (e: NodeJS.ErrnoException) => {
      finish(
        failure("spawn_failed", `could not start ${spec.label}: ${e.code ?? e.message}`, {
          hint: e.code === "EACCES" ? "the bin is not executable (chmod +x)" : undefined,
          // no pid: the spawn failed, nothing ran (an "error" of a started child is not this one's)
          started: child.pid === undefined ? false : undefined,
        }),
      );
    });
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let linger: NodeJS.Timeout | undefined;
    const settle = () => {
      if (!exited) return;
      if (linger) clearTimeout(linger);
      finish(result(spec, exited.code, exited.signal, state, Buffer.concat(got.out), got.errTail, got.errCut));
    };
    child.on("exit", (code, signal) => {
      exited = { code, signal };
      // A grandchild may still hold the pipes: give them a moment, then stop waiting.
      linger = setTimeout(
        () => {
          if (!stopping) killGroup(child.pid);
          child.stdout?.destroy();
          child.stderr?.destroy();
          settle();
        },
        state === "running" ? 250 : 50,
      );
    });
    child.on("close", settle);
  });
}

/**
 * What the bin prints: its stdout while `running()` (past STDOUT_CAP, `tooLarge()`
 * and no more), and the last STDERR_TAIL bytes of its stderr (`errCut` once cut).
 */
function capture(
  child: ReturnType<typeof spawnChild>,
  running: () => boolean,
  tooLarge: () => void,
): { out: Buffer[]; errTail: Buffer; errCut: boolean } {
  const got = { out: [] as Buffer[], errTail: Buffer.alloc(0), errCut: false };
  let outBytes = 0;
  child.stdout!.on("data", (d: Buffer) => {
    if (!running()) return;
    outBytes += d.length;
    if (outBytes > STDOUT_CAP) {
      tooLarge();
      return;
    }
    got.out.push(d);
  });
  child.stderr!.on("data", (d: Buffer) => {
    got.errTail = Buffer.concat([got.errTail, d]);
    if (got.errTail.length > STDERR_TAIL * 2) {
      got.errTail = got.errTail.subarray(got.errTail.length - STDERR_TAIL);
      got.errCut = true;
    }
  });
  return got;
}

/**
 * The last STDERR_TAIL characters. A cut is marked with a leading "…": the
 * redaction (redact.ts) then also hides a Binding value the cut split in two,
 * whose tail alone would not match the value.
 */
function tail(buf: Buffer, cut = false): string {
  const s = buf.toString("utf8");
  if (!cut && s.length <= STDERR_TAIL) return s.trimEnd();
  return ("…" + s.slice(-STDERR_TAIL).replace(/^\uFFFD+/, "")).trimEnd();
}

/** The first `n` characters, a cut marked with a trailing "…" (see tail()). */
function head(s: string, n: number): string {
  return s.length > n ? s.slice(0, n) + "…" : s;
}

function lastLine(s: string): string {
  const lines = s
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return lines[lines.length - 1] ?? "";
}

/**
 * The stderr line that says what failed: the first one a program marks as its failure
 * (git's `fatal: …`, `error: …`, jq's `jq: error (at <stdin>:1): …`, `panic: …`),
 * else the last line (git prints usage after its `fatal:` line).
 */
export function failureLine(s: string): string {
  const lines = s
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return (
    lines.find((l) => /^(?:[\w.-]+:\s*)?(?:fatal|error|panic|FATAL|ERROR|Error)\b[^:]{0,40}:/.test(l)) ??
    lines[lines.length - 1] ??
    ""
  );
}

/** JSON Lines: one JSON value per non-blank line, or the first line that is not one. */
function parseLines(
  text: string,
): { ok: true; items: unknown[] } | { ok: false; line: number; why: string; deep: boolean } {
  const items: unknown[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.replace(/\r$/, "");
    if (!l.trim()) continue;
    const p = parseOutput(l);
    if (!p.ok)
      return {
        ok: false,
        line: i + 1,
        why: p.why.replace(/,? *".*"(\.\.\.)? is not valid JSON$/s, " (not valid JSON)"),
        deep: p.deep,
      };
    items.push(p.value);
  }
  return { ok: true, items };
}

function result(
  spec: SpawnSpec,
  code: number | null,
  signal: NodeJS.Signals | null,
  state: string,
  stdout: Buffer,
  stderr: Buffer,
  stderrCut = false,
): Envelope {
  const stderrTail = tail(stderr, stderrCut);
  if (state === "cancelled") return cancelled(spec.label, spec.signal, true, { stderr_tail: stderrTail });
  if (state === "timeout")
    return failure(
      "timeout",
      `${spec.label} did not finish within ${spec.timeoutMs} ms and was killed (with its process group)`,
      {
        timeout_ms: spec.timeoutMs,
        stderr_tail: stderrTail,
        hint: "raise wrap.timeout_ms in surface.json if this command is legitimately slow",
      },
    );
  if (state === "too_large")
    return failure("output_too_large", `${spec.label} wrote more than ${STDOUT_CAP} bytes to stdout and was stopped`, {
      limit_bytes: STDOUT_CAP,
      hint: "ask for less (a limit or filter argument)",
    });
  const text = stdout.toString("utf8");
  if (signal)
    return failure("exit_nonzero", `${spec.label} was killed by signal ${signal}`, {
      exit_code: null,
      signal,
      stderr_tail: stderrTail,
    });
  if (code !== 0) {
    const detail = failureLine(stderrTail) || lastLine(text);
    const extra: Record<string, unknown> = { exit_code: code, stderr_tail: stderrTail };
    if (spec.output === "json" && text.trim()) {
      const parsed = parseOutput(text);
      if (parsed.ok) extra.output = parsed.value;
      else extra.stdout_tail = text.length > STDERR_TAIL ? "…" + text.slice(-STDERR_TAIL) : text;
    }
    return failure("exit_nonzero", `${spec.label} exited with code ${code}${detail ? `: ${detail}` : ""}`, extra);
  }
  if (spec.output === "text") return { ok: true, data: { text } };
  if (spec.output === "jsonl") {
    // JSON Lines (jq -c, many CLIs' --json): `{ items: [one value per line] }`; no output is no items
    const lines = parseLines(text);
    if (lines.ok) return { ok: true, data: { items: lines.items } };
    return failure(
      "bad_output",
      `${spec.label} printed a line that is not JSON (line ${lines.line} of its output, declared as jsonl): ${lines.why}`,
      {
        line: lines.line,
        excerpt: head(text.split("\n")[lines.line - 1] ?? "", 200),
        stderr_tail: stderrTail,
        hint: "check wrap.output in surface.json: jsonl is one JSON value per line",
      },
    );
  }
  if (!text.trim())
    return failure("bad_output", `${spec.label} printed nothing, but its output is declared as json`, {
      stderr_tail: stderrTail,
    });
  const parsed = parseOutput(text);
  if (parsed.ok) return { ok: true, data: parsed.value };
  if (parsed.deep)
    return failure("bad_output", `${spec.label} printed JSON ${parsed.why}, more than hcpx passes on`, {
      limit_depth: MAX_OUTPUT_NESTING,
      excerpt: head(text, 200),
      stderr_tail: stderrTail,
      hint: "ask the bin for a flatter or smaller result",
    });
  // V8's message quotes the start of the text, cut mid-word ("abc"... is not valid JSON): the excerpt shows it instead
  const why = parsed.why.replace(/,? *".*"(\.\.\.)? is not valid JSON$/s, " (not valid JSON)");
  return failure("bad_output", `${spec.label} printed output that is not one JSON value: ${why}`, {
    excerpt: head(text, 200),
    stderr_tail: stderrTail,
    hint: "check wrap.json_flag / wrap.output in surface.json",
  });
}

/** Whether path.extname(file), lower-cased, is .mjs, .js or .cjs (test/runtime/js-file.test.ts checks it against extname). */
export function isJsFile(file: string): boolean {
  return JS_FILE.test(file);
}
const JS_FILE = /[^/]\.(?:mjs|js|cjs)$/i;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Linux refuses one argv element longer than this (MAX_ARG_STRLEN, 32 pages); E2BIG otherwise. */
export const MAX_ARG_BYTES = 128 * 1024 - 1;
/** A conservative bound for the whole argv (ARG_MAX is commonly 2 MiB, shared with the environment). */
export const MAX_ARGV_BYTES = 1024 * 1024;

/**
 * An argv the OS cannot deliver exactly is refused before the spawn: a lone
 * UTF-16 surrogate would reach the bin as U+FFFD (not the value given), an
 * over-long element or argv would fail the spawn with E2BIG.
 */
function argvProblem(argv: readonly string[]): Failure | undefined {
  // A string of n UTF-16 units is at most 3n bytes of UTF-8: when that bound is within both limits,
  // so is the argv, and no byte is counted (Buffer.byteLength compiled on exec's start, ~0.15 M)
  let bound = 0;
  for (const a of argv) bound += 3 * a.length + 1;
  const count = bound > MAX_ARG_BYTES;
  let total = 0;
  for (const a of argv) {
    if (LONE_SURROGATE.test(a))
      return failure(
        "bad_args",
        "an argument contains an unpaired UTF-16 surrogate, which cannot be passed to a program as UTF-8",
        { hint: "pass well-formed Unicode text" },
      );
    if (!count) continue;
    const n = Buffer.byteLength(a, "utf8");
    if (n > MAX_ARG_BYTES)
      return failure(
        "bad_args",
        `an argument is too long: ${n} bytes, the limit for one argument of a program is ${MAX_ARG_BYTES} bytes`,
        { limit_bytes: MAX_ARG_BYTES, hint: "pass less data per argument" },
      );
    total += n + 1;
  }
  if (total > MAX_ARGV_BYTES)
    return failure(
      "bad_args",
      `the arguments are too long together: ${total} bytes, the limit is ${MAX_ARGV_BYTES} bytes`,
      { limit_bytes: MAX_ARGV_BYTES, hint: "pass less data" },
    );
  return undefined;
}

/** The wrap adapter (the table: ./adapters/index.ts). */
export async function runWrap({
  pack,
  project,
  cmd,
  values,
  literal,
  env: runtimeEnv,
  signal,
  packBins,
  started,
}: AdapterCall<"wrap">): Promise<Envelope> {
  const wrap = pack.surface.wrap;
  // loadPack refuses such a pack already; checked again here, next to the spawn, for a Pack built any other way
  const bad = forbiddenEnvOf(pack.surface);
  if (bad.length)
    return failure(
      "bad_pack",
      `pack ${pack.id}: ${bad[0]!.path[0] === "wrap" ? "wrap.agent_env" : "binding.env"} names ${bad[0]!.name}, a variable that makes a program load other code or find other programs`,
      { path: bad[0]!.path.join("."), hint: "remove it from surface.json (README: Security model)" },
    );
  const argv = cmd.passThrough ? passThroughArgv(wrap, cmd, literal ?? []) : renderArgv(wrap, cmd, values);
  if (!Array.isArray(argv)) return argv;
  if (argv.some((a) => a.includes("\0"))) return failure("bad_args", "an argument contains a NUL byte");
  const unusable = argvProblem(argv);
  if (unusable) return unusable;
  const bin = resolveBin(pack, project, wrap.bin);
  if ("ok" in bin) return bin;
  const label = `${pack.id} ${cmd.verb_key}`;
  // sandbox.enforce "os": the same spawn, confined per the Policy row (src/runtime/sandbox)
  const line = confine(
    {
      command: bin.command,
      argv: [...bin.prefix, ...argv],
      cwd: project.sandbox.cwd,
      env: binEnv(wrap, pack.surface.binding?.env ?? [], runtimeEnv, bin.path, wrap.bin),
    },
    { pack, project, cls: classOf(cmd.policy), binPath: bin.path, label, packBins, remove: removePlanted },
  );
  if ("ok" in line) return line;
  return line.explain(
    await runBin({
      command: line.command,
      argv: line.argv,
      cwd: line.cwd,
      env: line.env,
      fds: line.fds,
      shutInherited: line.shutInherited,
      report: line.report,
      timeoutMs: wrap.timeout_ms ?? DEFAULT_TIMEOUT_MS,
      output: cmd.output ?? wrap.output ?? "json",
      label,
      signal,
      started,
    }),
  );
}

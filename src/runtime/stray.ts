// A composite pack's code runs inside hcpx's own process (composite.ts), and it
// can throw where no call awaits it: in a timer's callback, or a promise it
// started and nobody awaited. Node then ends the process and prints the error
// raw: a Binding value in its message shown in clear, a terminal escape acted
// on (found in review: hcpx exec printed `ok: true`, then the raw error, and
// exited 1; hcpx mcp died at the first such call). The CLI's entry listens for
// these errors (src/cli/main.ts) and hands them to src/cli/failure.ts
// onStray(), which asks here whose they are:
// - a pack's, when a frame of the error's stack lies in a composite pack
//   this process ran (or, an error without such a frame, while composite
//   code is the only code that could have thrown it: see strayOf);
// - else hcpx's own: an internal error, reported as one.
// A call of that pack still running is answered `composite_error` at once,
// instead of waiting for its timeout (its verb may never answer now).
//
// This state is process-wide (a global symbol), not module state: the
// composite adapter runs in a command's bundle (dist/commands/exec.cjs,
// mcp.cjs) and onStray() in dist/failure.cjs, each with its own copy of this
// module. Nothing here listens to the process: the entry does.
import { CUT } from "../util/redact";

/** A composite call in flight: what its pack is, and how to answer it now. */
export interface RunningCall {
  pack: string;
  /** answer the call composite_error with this stray error's text (the verb's promise is no longer awaited) */
  fail(message: string): void;
}

interface Registry {
  /** each composite pack this process ran: file URL prefix of its real folder (`file:///…/pack/`) -> pack id */
  packs: Map<string, string>;
  running: Set<RunningCall>;
  /** exec's exit code, once its one call is answered and its envelope printed (answered()) */
  answeredCode?: number;
  /** stray errors reported so far (onStray stops printing them after a bound) */
  reported: number;
}

const KEY = Symbol.for("hcpx.composite.strays");

function registry(): Registry {
  const g = globalThis as Record<symbol, Registry | undefined>;
  return (g[KEY] ??= { packs: new Map(), running: new Set(), reported: 0 });
}

/** Record that this process runs a composite pack whose real folder is `realDir` (composite.ts, each call). */
export function compositeRan(pack: string, realDirUrl: string): void {
  const packs = registry().packs;
  const prefix = realDirUrl.endsWith("/") ? realDirUrl : `${realDirUrl}/`;
  if (packs.get(prefix) !== pack) packs.set(prefix, pack);
}

/** A composite call starts: until the returned function is called, a stray error of its pack answers it. */
export function callRunning(call: RunningCall): () => void {
  const running = registry().running;
  running.add(call);
  return () => running.delete(call);
}

/** hcpx exec answered its one call (its envelope is printed) with this exit code: a stray error after it ends the process so. */
export function answered(code: number): void {
  registry().answeredCode = code;
}

/** hcpx exec's exit code once its envelope is printed (answered()), else undefined. */
export function answeredCode(): number | undefined {
  return registry().answeredCode;
}

/** Whose a stray error is, and what was done about it. */
export interface Stray {
  /** the pack whose code threw it, when its stack or the calls running tell */
  pack?: string;
  /** the text to report (the error's message, or what was thrown), bounded */
  message: string;
  /** how many running calls were answered composite_error for it */
  failed: number;
  /** hcpx exec's exit code when its call was already answered (then the process ends with it) */
  answeredCode?: number;
  /** stray errors reported before this one */
  reported: number;
}

/** The most of a stray error's text that is reported (a value cut there is hidden by redaction's cut rule). */
const MESSAGE_MAX = 2000;

/**
 * Whose `e` is: undefined when it is hcpx's own (no composite ran in this process, or its stack has frames
 * and none in a composite's folder). Else the calls of its pack still running are answered with it.
 */
export function strayOf(e: unknown): Stray | undefined {
  const r = registry();
  if (r.packs.size === 0) return undefined;
  const stack = stackOf(e);
  let pack: string | undefined;
  if (stack !== undefined) {
    for (const [prefix, id] of r.packs) if (stack.includes(prefix)) pack = id;
    // an error with a stack of its own that passes through no pack's file: hcpx's own code threw it, unless
    // only Node's own code is on it (an `error` event nobody listens to, for a socket a verb opened) while
    // one composite call runs: then that call's code started it (hcpx's own sockets and streams have listeners)
    if (pack === undefined && /\n\s+at /.test(stack) && !(r.running.size === 1 && nodeOnly(stack))) return undefined;
  }
  const message = messageOf(e);
  // no stack to tell by (a string thrown, an Error without frames): the only call running, if one is
  const calls = [...r.running].filter((c) => (pack === undefined ? r.running.size === 1 : c.pack === pack));
  if (pack === undefined && calls.length === 1) pack = calls[0]!.pack;
  for (const c of calls) {
    r.running.delete(c);
    c.fail(message);
  }
  return { pack, message, failed: calls.length, answeredCode: r.answeredCode, reported: r.reported++ };
}

/**
 * Every frame of `stack` is Node's own (`node:net:…`, `internal/…`, `<anonymous>`): none names a file by an
 * absolute path or a file URL, as hcpx's bundles and a pack's modules are named.
 */
function nodeOnly(stack: string): boolean {
  const frames = stack.split("\n").filter((l) => /^\s+at /.test(l));
  return frames.length > 0 && frames.every((l) => !/(?:\(|at )(?:file:\/\/|\/)/.test(l));
}

function stackOf(e: unknown): string | undefined {
  try {
    const s = (e as { stack?: unknown } | null)?.stack;
    return typeof s === "string" ? s : undefined;
  } catch {
    return undefined; // a getter that throws
  }
}

function messageOf(e: unknown): string {
  let text: string;
  try {
    const m = (e as { message?: unknown } | null)?.message;
    text = typeof m === "string" ? m : String(e);
  } catch {
    text = "(a value that cannot be shown as text)";
  }
  return text.length > MESSAGE_MAX ? text.slice(0, MESSAGE_MAX) + CUT : text;
}

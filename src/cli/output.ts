// How every command talks to a person or an agent: one envelope shape with
// --json, readable text otherwise; colour only on a TTY and never with NO_COLOR.
//
// This module is the CLI's one exit (test/arch/exits.test.ts): every byte hcpx
// writes to stdout or stderr passes through emit() or writeJson(), which
// redact every secret in play (src/util/redact.ts redactOut) and neutralise
// the text (src/util/neutral.ts): whatever a pack, a host file, a server or a
// bin put into it prints as text, never as a terminal control. Colour is the
// only control that reaches the terminal, and only from c.* below: they mark
// the text with a per-process token that no outside text can hold, and the
// exit turns the marks into SGR sequences after neutralising.
import { fstatSync, statSync, writeSync } from "node:fs";
import { HcpxError, formatProblem, type ErrorCode, type Problem } from "../util/errors";
import { colours, neutralise, neutralJson, paint } from "../util/neutral";
import { redactOut } from "../util/redact";
import { failure, problemFailure, success, type Envelope } from "../runtime/envelope";

export { failure, neutralise, success, type Envelope };
export { neutralLine, unpainted } from "../util/neutral";

export interface Out {
  json: boolean;
  color: boolean;
}

/** Colour for `stream` (stdout when none is named): NO_COLOR, FORCE_COLOR, else whether it is a terminal. */
export function useColor(stream?: NodeJS.WriteStream): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "") return false;
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== "0") return true;
  // stdout: not process.stdout.isTTY, which builds process.stdout (for a pipe, a net.Socket: node:net
  // loaded, ~1 ms of a plain `hcpx adopt`) even where the text then goes to fd 1 directly (useFdOut)
  return stream ? stream.isTTY === true : isTerminal(1);
}

/**
 * Whether fd is a terminal, as Node decides it for process.stdin/stdout (a tty stream exactly when
 * isatty(fd)), without building that stream (~1 ms on exec's and adopt's start paths). A terminal is
 * a character device other than /dev/null (what an agent's tool call usually gets as stdin): only
 * for another character device is node:tty loaded to ask isatty() (two more builtin modules, node:net
 * among them, ~1.5 M instructions).
 */
export function isTerminal(fd: number): boolean {
  try {
    const st = fstatSync(fd);
    if (!st.isCharacterDevice() || st.rdev === statSync("/dev/null").rdev) return false;
  } catch {
    return false;
  }
  return (process.getBuiltinModule("node:tty") as typeof import("node:tty")).isatty(fd);
}

export function makeOut(opts: { json?: boolean }): Out {
  return { json: opts.json === true, color: useColor() };
}

/** Colour (src/util/neutral.ts paint): marks that the exit makes SGR sequences after neutralising. */
const code = (n: number, m: number) => (on: boolean, s: string) => paint(on, n, m, s);
export const c = {
  red: code(31, 39),
  green: code(32, 39),
  yellow: code(33, 39),
  cyan: code(36, 39),
  dim: code(2, 22),
  bold: code(1, 22),
};

/** Readable text as it reaches a terminal: redacted, neutralised, then the colour marks of c.* made SGR sequences. */
export function shown(text: string): string {
  return colours(neutralise(redactOut(text)));
}

/**
 * stdout's last step on `hcpx exec`'s start path (main.ts turns it on): the
 * bytes go to fd 1 with write(2), without building process.stdout — a
 * net.Socket over the pipe a host reads, ~5.4 M instructions (callgrind, with
 * child_process already loaded; ~15 M without) of every agent tool call, for
 * one line. A pipe left non-blocking by whoever shares it answers EAGAIN when
 * full: then the rest, and every later write, goes through process.stdout,
 * which waits for the reader (in order: Node's pipe writes are synchronous on
 * Linux); so does any other failure (EPIPE: the stream reports it as it
 * always did). What is written is the same text either way; only the sink differs.
 */
const fdOut = { on: false, stream: false };

/**
 * A reader that leaves early (`hcpx --help | head -1`) makes the next write to its pipe fail with
 * EPIPE, which the stream reports as an 'error' event: unhandled, Node printed a stack trace and ended
 * the process wherever the command was (a write half planned). Now the rest of that stream's text
 * goes nowhere, and the command finishes what it does and exits as it would have. Any other
 * failure of the stream (EIO, ENOSPC in a redirect) is said once on stderr.
 * `open(which)`: may `which` still be written to (its listener is added on the first write).
 */
const gone = { out: false, err: false };
const watched = { out: false, err: false };

function open(which: "out" | "err"): boolean {
  if (!watched[which]) {
    watched[which] = true;
    (which === "out" ? process.stdout : process.stderr).on("error", (e: NodeJS.ErrnoException) => {
      gone[which] = true;
      if (e.code !== "EPIPE" && which === "out")
        emit("err", `hcpx: writing the output failed (${e.code ?? "error"}); the rest of it is lost\n`);
    });
  }
  return !gone[which];
}

/** Write stdout's bytes to fd 1 directly from now on (exec's start path, main.ts). */
export function useFdOut(): void {
  fdOut.on = true;
}

/** Write `text` to fd 1, handing the rest to `fallback` when a write fails (false then); exported for its test. */
export function writeFd(
  text: string,
  write: (buf: Uint8Array, off: number) => number = (buf, off) => writeSync(1, buf, off),
  fallback: (rest: Uint8Array) => void = (rest) => void (open("out") && process.stdout.write(rest)),
): boolean {
  const buf = Buffer.from(text, "utf8");
  let off = 0;
  while (off < buf.length) {
    let n = 0;
    try {
      n = write(buf, off);
    } catch {
      // EAGAIN, or anything else (EPIPE: the reader left): what process.stdout does with it (open() above)
    }
    // a failure, or a write that took nothing (never looped on)
    if (!(n > 0)) {
      fallback(buf.subarray(off));
      return false;
    }
    off += n;
  }
  return true;
}

function out(text: string): void {
  if (fdOut.on && !fdOut.stream) fdOut.stream = !writeFd(text);
  else if (open("out")) process.stdout.write(text);
}

/** The one place readable text is written (stdout or stderr). */
function emit(stream: "out" | "err", text: string): void {
  if (stream === "out") out(shown(text));
  else if (open("err")) process.stderr.write(shown(text));
}

/** Readable text on stdout, with a newline at its end. */
export function say(text: string): void {
  emit("out", text.endsWith("\n") ? text : text + "\n");
}

/** Readable text on stderr, with a newline at its end. */
export function sayErr(text: string): void {
  emit("err", text.endsWith("\n") ? text : text + "\n");
}

/** Readable text on stdout as it is (no newline added: a prompt, or a bin's text that has its own). */
export function sayRaw(text: string): void {
  emit("out", text);
}

/** Readable text on stderr as it is (no newline added). */
export function sayErrRaw(text: string): void {
  emit("err", text);
}

/** An envelope (or any JSON value) on stdout: redacted, and with no raw control character (C1, DEL, bidi are \\u escapes). */
export function writeJson(value: unknown, opts: { line?: boolean } = {}): void {
  out(neutralJson(JSON.stringify(redactOut(value), null, opts.line ? undefined : 2)) + "\n");
}

/**
 * The end of a command that may finish with a non-zero exit code (a check that
 * found drift, doctor or lint with warnings): with --json, one envelope whose
 * `ok` is false exactly when `exitCode` is not 0 — then `error` says why and
 * `error.details` carries what `data` would have; else the human text.
 * Returns `exitCode`.
 */
export function finish<T>(
  out: Out,
  exitCode: number,
  data: T,
  why: { code: ErrorCode; message: string; hint?: string; [k: string]: unknown } | undefined,
  human?: string | ((color: boolean) => string),
): number {
  if (exitCode === 0 || !out.json) done(out, data, human);
  else {
    const { code = "failed", message = "the command did not succeed", ...context } = why ?? {};
    writeJson(failure(code, message, { ...context, details: data }));
  }
  return exitCode;
}

/** Success: envelope on stdout with --json, else the human text (if any). */
export function done<T>(out: Out, data: T, human?: string | ((color: boolean) => string)): void {
  if (out.json) writeJson(success(data));
  else if (human !== undefined) {
    const text = typeof human === "function" ? human(out.color) : human;
    if (text) say(text);
  }
}

export function errorEnvelope(e: HcpxError): Envelope {
  return problemFailure(e.problems, { list: true });
}

/** Report a user-facing error; returns the exit code. */
export function reportError(e: HcpxError, out: Out): number {
  if (out.json) writeJson(errorEnvelope(e));
  else {
    const color = useColor(process.stderr);
    for (const p of e.problems) {
      const text = formatProblem(p);
      sayErr(
        p.severity === "warning"
          ? c.yellow(color, text)
          : c.red(color, text.split("\n")[0]!) + text.slice(text.split("\n")[0]!.length),
      );
    }
  }
  return e.exitCode;
}

export function printWarnings(problems: Problem[], out: Out): void {
  if (out.json || problems.length === 0) return;
  const color = useColor(process.stderr);
  for (const p of problems) sayErr(c.yellow(color, formatProblem({ ...p, severity: "warning" })));
}

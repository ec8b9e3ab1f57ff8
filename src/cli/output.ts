// How every command talks to a person or an agent: one envelope shape with
// --json, readable text otherwise; colour only on a TTY and never with NO_COLOR.
import { HcpxError, formatProblem, type ErrorCode, type Problem } from "../util/errors";
import { failure, problemFailure, success, type Envelope } from "../runtime/envelope";

export { failure, type Envelope };

export interface Out {
  json: boolean;
  color: boolean;
}

export function useColor(stream: NodeJS.WriteStream = process.stdout): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "") return false;
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== "0") return true;
  return stream.isTTY === true;
}

export function makeOut(opts: { json?: boolean }): Out {
  return { json: opts.json === true, color: useColor() };
}

const code = (n: number, m: number) => (on: boolean, s: string) => (on ? `\u001b[${n}m${s}\u001b[${m}m` : s);
export const c = {
  red: code(31, 39),
  green: code(32, 39),
  yellow: code(33, 39),
  cyan: code(36, 39),
  dim: code(2, 22),
  bold: code(1, 22),
};

/**
 * Text from a bin (or a server) made safe for a terminal: every control
 * character that a terminal acts on — C0 (ESC, BEL, backspace, CR, …; tab and
 * newline excepted), DEL, the C1 range (U+0080–U+009F, e.g. the one-byte CSI
 * U+009B) — and the bidi overrides that reorder what is shown (U+202A–U+202E,
 * U+2066–U+2069) become a visible `\x1b` / `\u202e` escape. So an ESC, CSI or
 * OSC sequence prints as text instead of moving the cursor, clearing the
 * screen, setting the title or writing the clipboard. A lone CR before a
 * newline (CRLF output) stays.
 */
export function neutralise(s: string): string {
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (ch, at: number) => {
    if (ch === "\r" && s[at + 1] === "\n") return ch;
    const n = ch.charCodeAt(0);
    return n <= 0xff ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u${n.toString(16).padStart(4, "0")}`;
  });
}

export function writeJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + "\n");
}

/**
 * The end of a command that may finish with a non-zero exit code (a check that
 * found drift, doctor or lint with warnings): with --json, one envelope whose
 * `ok` is false exactly when `exitCode` is not 0 — then `error` says why and
 * `error.details` carries what `data` would have; else the human text.
 * Returns `exitCode`.
 */
export function finish<T>(out: Out, exitCode: number, data: T, why: { code: ErrorCode; message: string; hint?: string; [k: string]: unknown } | undefined, human?: string | ((color: boolean) => string)): number {
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
    if (text) process.stdout.write(text.endsWith("\n") ? text : text + "\n");
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
      process.stderr.write((p.severity === "warning" ? c.yellow(color, text) : c.red(color, text.split("\n")[0]!) + text.slice(text.split("\n")[0]!.length)) + "\n");
    }
  }
  return e.exitCode;
}

export function printWarnings(problems: Problem[], out: Out): void {
  if (out.json || problems.length === 0) return;
  const color = useColor(process.stderr);
  for (const p of problems) process.stderr.write(c.yellow(color, formatProblem({ ...p, severity: "warning" })) + "\n");
}

// How every command talks to a person or an agent: one envelope shape with
// --json, readable text otherwise; colour only on a TTY and never with NO_COLOR.
import { HcpxError, formatProblem, type Problem } from "../util/errors";

export interface Envelope<T = unknown> {
  ok: boolean;
  data?: T;
  error?: { code: string; message: string; hint?: string; problems?: Problem[]; [k: string]: unknown };
}

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
export function finish<T>(out: Out, exitCode: number, data: T, why: { code: string; message: string; hint?: string } | undefined, human?: string | ((color: boolean) => string)): number {
  if (exitCode === 0 || !out.json) done(out, data, human);
  else writeJson({ ok: false, error: { code: why?.code ?? "failed", message: why?.message ?? "the command did not succeed", ...(why?.hint ? { hint: why.hint } : {}), details: data } });
  return exitCode;
}

/** Success: envelope on stdout with --json, else the human text (if any). */
export function done<T>(out: Out, data: T, human?: string | ((color: boolean) => string)): void {
  if (out.json) writeJson({ ok: true, data });
  else if (human !== undefined) {
    const text = typeof human === "function" ? human(out.color) : human;
    if (text) process.stdout.write(text.endsWith("\n") ? text : text + "\n");
  }
}

export function errorEnvelope(e: HcpxError): Envelope {
  const first = e.problems[0]!;
  return {
    ok: false,
    error: {
      code: first.code,
      message: e.problems.length > 1 ? `${e.problems.filter((p) => p.severity !== "warning").length} problem(s); first: ${first.message}` : first.message,
      hint: first.hint,
      ...(first.file ? { file: first.file } : {}),
      ...(first.path ? { path: first.path } : {}),
      ...(first.line ? { line: first.line } : {}),
      problems: e.problems,
    },
  };
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

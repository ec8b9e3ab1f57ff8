// The one envelope: what every `--json` output, every runtime call (exec, the
// MCP server's tool answers, the library) and every error report is. `ok` is
// false exactly when the command did not do what was asked (for the CLI: when
// the exit code is not 0). Its own module, below the runtime's adapters, so
// that execute.ts and wrap/composite/openapi/mcp-adapter do not import each
// other for it. On the `hcpx exec` path: no imports but the code table.
import { hintOf, type ErrorCode, type Problem } from "../util/errors";

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  /** what to do: the failing place's own words, else the code's (src/util/codes.ts) */
  hint?: string;
  /** the context: file, path, line, exit_code, stderr_tail, problems, details … */
  [k: string]: unknown;
}

export type Envelope<T = unknown> = { ok: true; data: T } | { ok: false; error: ErrorBody };
export type Failure = { ok: false; error: ErrorBody };

export function success<T>(data: T): Envelope<T> {
  return { ok: true, data };
}

/** The one failure envelope: `extra` is its context (undefined values left out); `hint` defaults to the code's. */
export function failure(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): Failure {
  const error: ErrorBody = { code, message };
  for (const k of Object.keys(extra)) if (extra[k] !== undefined) error[k] = extra[k];
  if (error.hint === undefined) {
    const hint = hintOf({ code });
    if (hint !== undefined) error.hint = hint;
  }
  return { ok: false, error };
}

/**
 * The failure envelope of a user's error (a HcpxError's problems): the first
 * error's code, message, hint and place; with `list`, every problem too
 * (`problems`) and, when there are several, a message that says how many.
 */
export function problemFailure(problems: readonly Problem[], opts: { list?: boolean } = {}): Failure {
  const first = problems.find((p) => p.severity !== "warning") ?? problems[0];
  if (!first) return failure("internal", "an error without a problem");
  const errors = problems.filter((p) => p.severity !== "warning").length;
  const message = opts.list && problems.length > 1 ? `${errors} problem(s); first: ${first.message}` : first.message;
  return failure(first.code, message, {
    hint: hintOf(first),
    file: first.file,
    path: first.path,
    line: first.line,
    column: first.column,
    problems: opts.list ? problems : undefined,
  });
}

// Errors a user sees: what is wrong, where (file, JSON path, line), what to do.
// A HcpxError is never printed with a stack trace; anything else is a bug.
//
// ERRORS (src/util/codes.ts) is the one list of error codes: every
// `error.code` of a `--json` envelope, of a `problems[]` entry, of the
// runtime's and the MCP server's answers is a key of it (the type checker
// holds every `code:` to it), or a lint rule (LINT_CODES, docs/pack-format.md).
// Each code carries the hint a user gets when the place that failed gives
// none, and `usage: true` when it means the command line itself is wrong (exit
// 64). docs/errors.md lists them for users; test/doc/errors.test.ts keeps that
// list equal to this one. The table is loaded with a require() that esbuild
// bundles as a lazily run module, on the first error only (`hcpx exec`'s
// successful path never evaluates it; under vitest test/support/lazy-require.ts
// turns it into an import).
import { LINT_CODES, type LintCode } from "./lint-codes";
import { neutralLine } from "./neutral";
import type { CodeInfo } from "./codes";

export { LINT_CODES, type LintCode };

/** An error code of ERRORS, or a lint rule's. */
export type ErrorCode = keyof typeof import("./codes").ERRORS | LintCode;

let table: Record<string, CodeInfo> | undefined;

/** The hint and exit code a code carries (lint rules: none of their own). */
export function codeInfo(code: string): CodeInfo | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazily run bundled module (see above)
  table ??= (require("./codes") as typeof import("./codes")).ERRORS;
  return Object.prototype.hasOwnProperty.call(table, code) ? table[code] : undefined;
}

export interface Problem {
  /** Stable machine code: a key of ERRORS or a lint rule. */
  code: ErrorCode;
  message: string;
  file?: string;
  /** JSON path like `commands[2].verb_key`. */
  path?: string;
  line?: number;
  column?: number;
  /** What to do about it (default: the code's own hint). */
  hint?: string;
  severity?: "error" | "warning";
}

/** The hint shown for a problem: its own, else its code's. */
export function hintOf(p: Pick<Problem, "code" | "hint">): string | undefined {
  return p.hint ?? codeInfo(p.code)?.hint;
}

/**
 * `instanceof HcpxError` holds across copies of this class: each command is a
 * bundle of its own (dist/commands/*.cjs) with its own copy, and its errors
 * reach the handler in main.ts (another copy).
 */
const BRAND = Symbol.for("hcpx.HcpxError");

function uniqueProblems(list: Problem[]): Problem[] {
  if (list.length < 2) return list;
  const seen = new Set<string>();
  return list.filter((p) => {
    const k = JSON.stringify(p);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export class HcpxError extends Error {
  readonly [BRAND] = true;
  static override [Symbol.hasInstance](v: unknown): boolean {
    return typeof v === "object" && v !== null && (v as { [BRAND]?: unknown })[BRAND] === true;
  }
  readonly problems: Problem[];
  readonly exitCode: number;
  /** `exitCode` defaults to 64 when the first error's code is a usage error (ERRORS[code].usage), else 1. */
  constructor(problems: Problem | Problem[], exitCode?: number) {
    // one problem once: several checks of one file (a host's targets in it) may find the same fault
    const list = Array.isArray(problems) ? uniqueProblems(problems) : [problems];
    super(list.map(formatProblem).join("\n"));
    this.name = "HcpxError";
    this.problems = list;
    const first = list.find((p) => p.severity !== "warning") ?? list[0];
    this.exitCode = exitCode ?? (first && codeInfo(first.code)?.usage ? 64 : 1);
  }
  get code(): ErrorCode | "error" {
    return this.problems[0]?.code ?? "error";
  }
}

/**
 * The one way to stop with a user's error: throws a HcpxError of one problem.
 * `exit` overrides the exit code (default: 64 for a usage code, else 1).
 */
export function fail(
  code: ErrorCode,
  message: string,
  extra: Omit<Problem, "code" | "message"> & { exit?: number } = {},
): never {
  const { exit, ...rest } = extra;
  throw new HcpxError({ code, message, ...rest }, exit);
}

/** The one way to stop on a wrong command line: `bad_args`, exit 64 (EX_USAGE). */
export function usage(message: string, hint?: string, extra: Omit<Problem, "code" | "message" | "hint"> = {}): never {
  throw new HcpxError({ code: "bad_args", message, ...(hint !== undefined ? { hint } : {}), ...extra }, 64);
}

export function where(p: Problem): string {
  let s = p.file ?? "";
  if (p.line !== undefined) s += `:${p.line}${p.column !== undefined ? `:${p.column}` : ""}`;
  if (p.path) s += `${s ? " " : ""}at ${p.path}`;
  return s;
}

/**
 * A problem as a person reads it: its place and message on one line, its hint on the next. Each is kept on
 * its line (neutralLine: a newline, CR or tab in it becomes an escape): a message quotes names, paths and
 * values from outside (a config's pack path, a pack's fields, the name an agent gave exec), and a newline
 * in one of them would forge a line of what the person reads.
 */
export function formatProblem(p: Problem): string {
  const loc = where(p);
  const sev = p.severity === "warning" ? "warning" : "error";
  const hint = hintOf(p);
  return `${sev}${loc ? ` ${neutralLine(loc)}` : ""}: ${neutralLine(p.message)}${hint ? `\n  hint: ${neutralLine(hint)}` : ""}`;
}

/** JSON path segments to the display form `a.b[2].c` (keys that are not identifiers are quoted). */
export function pathToString(path: readonly (string | number)[]): string {
  let s = "";
  for (const seg of path) {
    if (typeof seg === "number") s += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) s += s ? `.${seg}` : seg;
    else s += `[${JSON.stringify(seg)}]`;
  }
  return s;
}

// Errors a user sees: what is wrong, where (file, JSON path, line), what to do.
// A HcpxError is never printed with a stack trace; anything else is a bug.

export interface Problem {
  /** Stable machine code, e.g. `bad_json5`, `schema`, `not_granted`. */
  code: string;
  message: string;
  file?: string;
  /** JSON path like `commands[2].verb_key`. */
  path?: string;
  line?: number;
  column?: number;
  /** What to do about it. */
  hint?: string;
  severity?: "error" | "warning";
}

/**
 * `instanceof HcpxError` holds across copies of this class: each command is a
 * bundle of its own (dist/commands/*.mjs) with its own copy, and its errors
 * reach the handler in main.ts (another copy).
 */
const BRAND = Symbol.for("hcpx.HcpxError");

export class HcpxError extends Error {
  readonly [BRAND] = true;
  static override [Symbol.hasInstance](v: unknown): boolean {
    return typeof v === "object" && v !== null && (v as { [BRAND]?: unknown })[BRAND] === true;
  }
  readonly problems: Problem[];
  readonly exitCode: number;
  constructor(problems: Problem | Problem[], exitCode = 1) {
    const list = Array.isArray(problems) ? problems : [problems];
    super(list.map(formatProblem).join("\n"));
    this.name = "HcpxError";
    this.problems = list;
    this.exitCode = exitCode;
  }
  get code(): string {
    return this.problems[0]?.code ?? "error";
  }
}

export function fail(code: string, message: string, extra: Omit<Problem, "code" | "message"> = {}): never {
  throw new HcpxError({ code, message, ...extra });
}

export function where(p: Problem): string {
  let s = p.file ?? "";
  if (p.line !== undefined) s += `:${p.line}${p.column !== undefined ? `:${p.column}` : ""}`;
  if (p.path) s += `${s ? " " : ""}at ${p.path}`;
  return s;
}

export function formatProblem(p: Problem): string {
  const loc = where(p);
  const sev = p.severity === "warning" ? "warning" : "error";
  return `${sev}${loc ? ` ${loc}` : ""}: ${p.message}${p.hint ? `\n  hint: ${p.hint}` : ""}`;
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

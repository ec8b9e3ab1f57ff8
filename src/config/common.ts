// Small helpers shared by the config-editing commands (init, activate, grant …).
import type { ErrorCode, Problem } from "../util/errors";

export interface CommonOpts {
  json?: boolean;
  config?: string;
}

export function warning(code: ErrorCode, message: string, hint?: string): Problem {
  return { code, message, hint, severity: "warning" };
}

/** A stdin and stdout that a person is looking at (never true for an agent or with --json). */
export function interactive(opts: { json?: boolean; yes?: boolean }): boolean {
  return !opts.json && !opts.yes && process.stdin.isTTY === true && process.stdout.isTTY === true && !process.env.CI;
}

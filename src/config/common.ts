// Small helpers shared by the config-editing commands (init, activate, grant …).
import { HcpxError, type Problem } from "../util/errors";

export interface CommonOpts {
  json?: boolean;
  config?: string;
}

/** A usage error (exit 64): the command line itself is wrong. */
export function usage(code: string, message: string, hint: string): never {
  throw new HcpxError({ code, message, hint }, 64);
}

export function warning(code: string, message: string, hint?: string): Problem {
  return { code, message, hint, severity: "warning" };
}

/** A stdin and stdout that a person is looking at (never true for an agent or with --json). */
export function interactive(opts: { json?: boolean; yes?: boolean }): boolean {
  return !opts.json && !opts.yes && process.stdin.isTTY === true && process.stdout.isTTY === true && !process.env.CI;
}

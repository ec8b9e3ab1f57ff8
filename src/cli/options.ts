// Option values that commander hands over as text and a command reads as a
// number: a wrong one is a usage error (exit 64), never silently the default.
import { fail } from "../util/errors";

/** `--timeout <ms>`-style options: a whole number of milliseconds > 0 (undefined: the default). */
export function msOption(flag: string, value: string | undefined, fallback: number): number;
export function msOption(flag: string, value: string | undefined): number | undefined;
export function msOption(flag: string, value: string | undefined, fallback?: number): number | undefined {
  if (value === undefined) return fallback;
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0)
    fail("usage", `${flag} must be a whole number of milliseconds above 0, not '${value}'`, {
      hint: `e.g. ${flag} 30000`,
    });
  return n;
}

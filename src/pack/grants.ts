// Grants: which commands the Principal may execute. Deny by default: a command
// is granted when an allow pattern matches it and no deny pattern does.
// A pattern is `<pack>.<verb>` (exact), `<pack>.<prefix>.*` / `<pack>.*`
// (everything below), or `*` (everything).
import { HcpxError, type Problem } from "../util/errors";
import type { Command, Grants, Pack } from "./model";

export const GRANT_PATTERN_RE = /^(\*|[a-z][a-z0-9-]{0,31}(\.[a-z][a-z0-9_-]*)*(\.\*)?)$/;

export function checkPattern(p: string, where?: { file?: string; path?: string }): void {
  if (!GRANT_PATTERN_RE.test(p) || (!p.includes(".") && p !== "*")) {
    throw new HcpxError({
      code: "bad_pattern",
      message: `'${p}' is not a grant pattern`,
      ...where,
      hint: "use <pack>.<verb> (ledger.balance), <pack>.* (ledger.*), <pack>.<prefix>.* (ledger.entry.*) or *",
    });
  }
}

/** Check every pattern; throws one HcpxError listing all bad ones (exit 64: usage). */
export function checkPatterns(patterns: readonly string[]): void {
  const bad: Problem[] = [];
  for (const p of patterns) {
    try {
      checkPattern(p);
    } catch (e) {
      if (!(e instanceof HcpxError)) throw e;
      bad.push(...e.problems);
    }
  }
  if (bad.length) throw new HcpxError(bad, 64);
}

export function matches(pattern: string, name: string): boolean {
  if (pattern === "*") return true;
  if (pattern.endsWith(".*")) return name.startsWith(pattern.slice(0, -1));
  return pattern === name;
}

export function isGranted(grants: Grants, packId: string, verbKey: string): boolean {
  const name = `${packId}.${verbKey}`;
  return (
    grants.allow.some((p) => matches(p, name)) &&
    !grants.deny.some((p) => matches(p, name)) &&
    (grants.within === undefined || isGranted(grants.within, packId, verbKey))
  );
}

/**
 * The one rule for what hcpx grants without a person's word (activate, and so `pack add`; `pack update`
 * for a new command): a read that is not a pass-through verb. A pass-through verb runs the argv the
 * agent gives, options included (git log --output=FILE writes): its read row cannot vouch for that,
 * so a person grants it (`hcpx grant`). A write never.
 */
export function grantedByDefault(cmd: Pick<Command, "policy" | "passThrough">): boolean {
  return cmd.policy.operation === "read" && !cmd.passThrough;
}

export function grantedCommands(grants: Grants, pack: Pack): Command[] {
  return pack.commands.filter((c) => isGranted(grants, pack.id, c.verb_key));
}

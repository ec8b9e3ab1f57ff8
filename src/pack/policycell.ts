// A hot-path row's verb cell (its first) and read/write cell (its last: `read`,
// `write`, `write, confirm`), read one way by lint (src/pack/lint-skill.ts), `pack sync`
// (./skillsync.ts) and the Skill copies hosts read (src/projection/skillcopy.ts),
// so that what lint accepts and what a copy keeps are the same cells.

/** The verb of a hot-path row's first cell: as code (`wipe`) or emphasised (**wipe**, *wipe*, __wipe__). */
export function rowVerb(cell: string): string {
  // (the patterns run only where they can match: a cell with a backquote, one that starts emphasised)
  const t = (cell.includes("`") ? cell.replace(/`/g, "") : cell).trim();
  return t.startsWith("*") || t.startsWith("_") ? t.replace(/^(\*{1,2}|_{1,2})(.+)\1$/, "$2") : t;
}

export interface CellReading {
  /** the first whole word `read` or `write` (`reader`, `rewrite` are neither) */
  operation?: "read" | "write";
  /** the whole word `confirm`, not negated (`unconfirmed`, `confirmation`, `no confirm`, `confirm: no`: no marker) */
  confirm: boolean;
}

export interface CellPolicy {
  operation: "read" | "write";
  confirm?: boolean;
}

/**
 * "confirm" said not to apply: a negation before it, at most three of these words between (`no confirm`,
 * `without the person's confirm`, `no need to confirm`, `non-confirm`), or a negative after it (`confirm: no`,
 * `confirm not needed`, `confirm optional`). Such a cell is no confirm marker, so a gated write's row that
 * says it is refused by lint and rewritten in a copy (a model never reads "no confirm" of a write that asks).
 * Matched against the cell in lower case, not with the `i` flag: V8 compiles the two case-blind forms in
 * ~0.9 ms, every adopt, lint and generate that reads a Skill's table, the lower-case ones in ~0.4 ms. The
 * same matches, but that a non-ASCII letter whose lower case is ASCII (the Kelvin sign: k) now counts
 * as that letter (`s\u212Aip confirm` is negated): a negation more, never one less.
 */
const NEGATED_BEFORE =
  /\b(?:no|not|without|never|skips?|skipped|skipping|non)[\s-]+(?:(?:a|an|any|the|user|users|person|person's|human|explicit|prior|need|needed|required|to)\s+){0,3}confirm\b/;
const NEGATED_AFTER = /\bconfirm\b\s*(?:[:=]\s*)?(?:no|none|false|off|never|not|optional|unneeded|n\/a)(?![\w/])/;

export function readPolicyCell(cell: string): CellReading {
  const low = cell.toLowerCase();
  const op = /\b(read|write)\b/.exec(low)?.[1] as "read" | "write" | undefined;
  return {
    operation: op,
    confirm: /\bconfirm\b/.test(low) && !NEGATED_BEFORE.test(low) && !NEGATED_AFTER.test(low),
  };
}

/** The cell hcpx writes for a policy: `read`, `write`, `write, confirm`. */
export function policyCell(p: CellPolicy): string {
  return p.operation === "write" && p.confirm ? "write, confirm" : p.operation;
}

/** True when `cell` (undefined: the row has none) states what the policy says: its operation, and a confirm marker exactly when it is a gated write. */
export function cellStates(cell: string | undefined, p: CellPolicy): boolean {
  if (cell === undefined) return false;
  const r = readPolicyCell(cell);
  return r.operation === p.operation && r.confirm === (p.operation === "write" && p.confirm === true);
}

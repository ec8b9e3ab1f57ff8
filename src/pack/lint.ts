// `hcpx lint` as a library: every rule of the seeds (adapter.md, §12.4) and of
// DESIGN.md over one loaded pack, as Problems with a stable code, the file, the
// JSON path and the line. Not on the exec path (it reaches skill.ts → yaml).
import { resolve } from "node:path";
import { HcpxError, type Problem } from "../util/errors";
import { display } from "../util/paths";
import { loadPackChecked } from "./load";
import type { Pack } from "./model";
import { parseSkill, readSkillText, type Skill } from "./skill";
import { lintContext, type LintOptions } from "./lint-context";
import { LINT_RULES } from "./lint-rules";

export { LINT_CODES, type LintCode } from "../util/lint-codes";
export { MAX_SERVER_TOOL, SERVER_NAME, TOOL_NAME_RE } from "./lint-rules";
export { MAX_LEAD, READ_ONLY_CLAIM_RE } from "./lint-skill";
export type { LintOptions } from "./lint-context";

export interface LintResult {
  pack?: Pack;
  problems: Problem[];
}

/**
 * Lint a loaded pack: its load-time warnings, then every rule of the table
 * (./lint-rules.ts, a kind's own rules from its adapter entry), in order.
 * `skill`: a parsed Skill; undefined → load it here (its load errors become
 * problems); null → skip Skill rules.
 */
export function lintPack(pack: Pack, skill?: Skill | null, opts: LintOptions = {}): Problem[] {
  const ctx = lintContext(pack, skill, opts);
  // Load-time warnings first (none today: load problems are errors).
  const warnings = pack.warnings.map((w) => ({ ...w, severity: w.severity ?? ("warning" as const) }));
  return [...warnings, ...LINT_RULES.flatMap((rule) => rule.check(pack, ctx))];
}

/** Load and lint one pack directory; load errors become problems. */
export function lintPackDir(dir: string, opts: LintOptions = {}): LintResult {
  let pack: Pack;
  let ruleProblems: Problem[];
  try {
    ({ pack, problems: ruleProblems } = loadPackChecked(dir));
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    const problems = [...e.problems];
    // SKILL.md problems are still worth reporting when surface/policy fail.
    if (!problems.some((p) => p.code === "not_a_pack")) {
      const file = resolve(dir, "SKILL.md");
      try {
        parseSkill(readSkillText(file), display(file));
      } catch (e2) {
        if (e2 instanceof HcpxError) problems.push(...e2.problems);
        else throw e2;
      }
    }
    return { problems: sortProblems(problems) };
  }
  // A pack that breaks a load rule (policy rows, env names) gets every other rule checked
  // too; the runtime refuses it (loadPack).
  return { pack, problems: sortProblems([...ruleProblems, ...lintPack(pack, undefined, opts)]) };
}

const FILE_ORDER = (f: string | undefined) =>
  f?.endsWith("surface.json") ? 0 : f?.endsWith("policy.json") ? 1 : f?.endsWith("SKILL.md") ? 2 : 3;

/** Errors first, then by file (surface, policy, SKILL.md) and line. */
export function sortProblems(ps: Problem[]): Problem[] {
  return ps
    .map((p, i) => ({ p: { ...p, severity: p.severity ?? ("error" as const) }, i }))
    .sort((a, b) => {
      const sa = a.p.severity === "warning" ? 1 : 0;
      const sb = b.p.severity === "warning" ? 1 : 0;
      return sa - sb || FILE_ORDER(a.p.file) - FILE_ORDER(b.p.file) || (a.p.line ?? 0) - (b.p.line ?? 0) || a.i - b.i;
    })
    .map((x) => x.p);
}

// The lint rules of SKILL.md (entries of the table in ./lint-rules.ts): its
// name, its leads, no read-only claim in a pack with writes, and a hot-path
// row per command that says what policy.json says.
import type { Problem } from "../util/errors";
import { display } from "../util/paths";
import type { Pack } from "./model";
import type { Skill } from "./skill";
import type { LintContext, PackLintRule } from "./lint-context";
import { policyCell } from "./policycell";
import { MAX_LEAD, leadLine } from "./leads";

export { MAX_LEAD } from "./leads";
/**
 * A claim that the whole pack only reads (docs/pack-format.md#read-only-claims):
 * "Read-only …" at the start, "(read-only)" at the end, "every command is a
 * read", "only reads", "never writes". A claim about one verb
 * ("`query` is read-only") is not one.
 */
export const READ_ONLY_CLAIM_RE =
  /^\s*(?:[a-z0-9-]+:\s*)?read[- ]only\b|\(read[- ]only\)\s*\.?\s*$|\bevery command is a read\b|\ball (?:commands|verbs) are reads\b|\b(?:it|this pack) (?:only reads|never writes)\b/i;
const READ_ONLY_BODY_RE = /\bevery command is a read\b|\ball (?:commands|verbs) are reads\b/i;
export const READ_ONLY_HINT =
  "say what it does without calling the whole pack read-only; the hot-path table marks each command read or write (docs/pack-format.md#read-only-claims)";

/** The SKILL.md line of a frontmatter key (2 when it is not there: the line after `---`). */
function fmLine(skill: Skill, key: string): number {
  const i = skill.frontmatterText.split(/\r?\n/).findIndex((l) => l.startsWith(`${key}:`));
  return i >= 0 ? i + 2 : 2;
}

/** The path of lead `i`: `leads[i]` when leads is a list, else `leads`. */
const leadPath = (skill: Skill, i: number) => (Array.isArray(skill.frontmatter.leads) ? `leads[${i}]` : "leads");

/** A rule that runs only when the Skill loaded. */
const withSkill =
  (check: (pack: Pack, skill: Skill, ctx: LintContext) => Problem[]): PackLintRule["check"] =>
  (pack, ctx) => {
    const { skill } = ctx.skill();
    return skill ? check(pack, skill, ctx) : [];
  };

function leads(skill: Skill, { inSkill }: LintContext): Problem[] {
  const out: Problem[] = [];
  if (skill.leads.length === 0)
    out.push(
      inSkill(
        fmLine(skill, "leads"),
        "skill_no_leads",
        "warning",
        "the Skill has no leads (1–3 short lines for the system prompt)",
        'add leads: ["<pack>: what it is for, in one line"]',
        "leads",
      ),
    );
  // more than 3 leads, a line break in one, one past MAX_LEAD_HARD: the Skill does not load (./leads.ts)
  skill.leads.forEach((l, i) => {
    if (l.length > MAX_LEAD)
      out.push(
        inSkill(
          leadLine(skill.frontmatterText, i),
          "skill_lead_long",
          "warning",
          `lead ${i + 1} is ${l.length} chars (> ${MAX_LEAD})`,
          "keep each lead a short line: the system prompt carries every pack's leads",
          leadPath(skill, i),
        ),
      );
  });
  return out;
}

function readOnlyClaims(pack: Pack, skill: Skill, { inSkill }: LintContext): Problem[] {
  const writes = pack.commands.filter((c) => c.policy.operation === "write").map((c) => c.verb_key);
  if (!writes.length) return [];
  const out: Problem[] = [];
  if (READ_ONLY_CLAIM_RE.test(String(skill.frontmatter.description)))
    out.push(
      inSkill(
        fmLine(skill, "description"),
        "skill_claims_read_only",
        "error",
        `the Skill description claims the pack is read-only, but it has writes: ${writes.join(", ")}`,
        READ_ONLY_HINT,
        "description",
      ),
    );
  skill.leads.forEach((l, i) => {
    if (READ_ONLY_CLAIM_RE.test(l))
      out.push(
        inSkill(
          fmLine(skill, "leads"),
          "skill_claims_read_only",
          "error",
          `lead ${i + 1} claims the pack is read-only, but it has writes: ${writes.join(", ")}`,
          READ_ONLY_HINT,
          leadPath(skill, i),
        ),
      );
  });
  skill.body.split(/\r?\n/).forEach((l, i) => {
    if (READ_ONLY_BODY_RE.test(l))
      out.push(
        inSkill(
          skill.bodyLine + i,
          "skill_claims_read_only",
          "error",
          `the Skill says every command is a read, but the pack has writes: ${writes.join(", ")}`,
          READ_ONLY_HINT,
        ),
      );
  });
  return out;
}

/** Each hot-path row names a command once, and says read/write and confirm as policy.json does. */
function hotPathRows(pack: Pack, skill: Skill, { inSkill }: LintContext): Problem[] {
  const out: Problem[] = [];
  const byVerb = new Map<string, (typeof skill.rows)[number]>();
  for (const row of skill.rows) {
    const cmd = pack.commands.find((c) => c.verb_key === row.verb);
    if (!cmd) {
      out.push(
        inSkill(
          row.line,
          "skill_row_unknown",
          "error",
          `hot-path row '${row.verb}' names no command of the pack`,
          `remove the row or fix the verb (commands: ${pack.commands.map((c) => c.verb_key).join(", ") || "none"})`,
        ),
      );
      continue;
    }
    if (byVerb.has(row.verb)) {
      out.push(
        inSkill(
          row.line,
          "skill_row_duplicate",
          "error",
          `hot-path row '${row.verb}' appears twice (also line ${byVerb.get(row.verb)!.line})`,
          "keep one row per command",
        ),
      );
      continue;
    }
    byVerb.set(row.verb, row);
    const want = cmd.policy.operation;
    const sync = `or run \`hcpx pack sync ${display(pack.dir)}\` (the Skill's read/write cells from policy.json)`;
    if (!row.operation)
      out.push(
        inSkill(
          row.line,
          "skill_row_operation",
          "error",
          `hot-path row '${row.verb}' has no read/write cell`,
          `end the row with | ${policyCell(cmd.policy)} |`,
        ),
      );
    else if (row.operation !== want)
      out.push(
        inSkill(
          row.line,
          "skill_row_operation",
          "error",
          `hot-path row '${row.verb}' says ${row.operation}, policy.json says ${want}`,
          `make the Skill row say ${want} (policy.json is the source of truth), ${sync}`,
        ),
      );
    if (want === "write" && cmd.policy.confirm && !row.confirm)
      out.push(
        inSkill(
          row.line,
          "skill_confirm_missing",
          "error",
          `'${row.verb}' needs confirm but its hot-path row has no confirm marker`,
          `write | write, confirm | in its read/write cell, ${sync}`,
        ),
      );
    if (row.confirm && !cmd.policy.confirm)
      out.push(
        inSkill(
          row.line,
          "skill_confirm_extra",
          "warning",
          `hot-path row '${row.verb}' is marked confirm but policy.json does not require confirm`,
          `drop the marker, or add confirm: true to its policy row; ${sync}`,
        ),
      );
  }
  return out;
}

/** Every command has a row (reported at the last row, or the body's last line). */
function missingRows(pack: Pack, skill: Skill, { inSkill }: LintContext): Problem[] {
  const lastLine = skill.bodyLine + skill.body.split(/\r?\n/).length - 1;
  const at = skill.rows.length ? skill.rows[skill.rows.length - 1]!.line : lastLine;
  return pack.commands
    .filter((c) => !skill.rows.some((r) => r.verb === c.verb_key))
    .map((c) =>
      inSkill(
        at,
        "skill_row_missing",
        "error",
        `the hot-path table has no row for '${c.verb_key}'`,
        `add | \`${c.verb_key}\` | ${c.summary} | ${policyCell(c.policy)} | (each command has a Skill row: docs/pack-format.md#the-four-faces)`,
      ),
    );
}

/** The Skill's rules, in the order lintPack runs them (after the Skill's load errors). */
export const SKILL_RULES: readonly PackLintRule[] = [
  {
    code: "skill_name_mismatch",
    check: withSkill((pack, skill, { inSkill }) =>
      skill.frontmatter.name !== pack.id
        ? [
            inSkill(
              fmLine(skill, "name"),
              "skill_name_mismatch",
              "error",
              `Skill name '${skill.frontmatter.name}' is not the pack id '${pack.id}'`,
              `set name: ${pack.id}`,
              "name",
            ),
          ]
        : [],
    ),
  },
  {
    code: ["skill_no_leads", "skill_lead_long"],
    check: withSkill((_pack, skill, ctx) => leads(skill, ctx)),
  },
  { code: "skill_claims_read_only", check: withSkill(readOnlyClaims) },
  {
    code: [
      "skill_row_unknown",
      "skill_row_duplicate",
      "skill_row_operation",
      "skill_confirm_missing",
      "skill_confirm_extra",
    ],
    check: withSkill(hotPathRows),
  },
  { code: "skill_row_missing", check: withSkill(missingRows) },
];

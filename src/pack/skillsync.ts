// `hcpx pack sync`: what SKILL.md says about the Policy, from policy.json (the
// source of truth). A person reviews policy.json (a write made external, a
// confirm added, an inferred mark removed); this carries the review into the
// Skill without a hand edit of the hot-path table:
// - each hot-path row's read/write cell (`read`, `write`, `write, confirm`);
// - a row for a command that has none (after the last row);
// - for an openapi pack drafted by `pack from-openapi`: its lead (reads, needs
//   confirm) and its line saying the Policy is inferred or reviewed.
// The words `pack new` and `pack from-openapi` write about the Policy are here too,
// so that what writes them and what carries a review into them are one.
// Every other line stays byte for byte. Pure: the CLI command does the I/O.
import { parseSkill } from "./skill";
import type { Pack } from "./model";
import { cellStates, policyCell as cellOf } from "./policycell";

/** The scaffold's own words for a pack without writes (SKILL.md lines, frontmatter up to `fmEnd`), dropped in place once it has one. */
export function readOnlyWordsDropped(lines: string[], fmEnd: number): string[] {
  const changed: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const was = lines[i]!;
    const l =
      i <= fmEnd
        ? was.replace(/; every command is a read\.(?=")/, ".").replace(/ \(read-only\)\.(?=")/, " (read).")
        : was.replace(/Every command is a read; output is/, "Output is");
    if (l !== was) changed.push(was.trim());
    lines[i] = l;
  }
  return changed;
}

/** The Skill's lead of an openapi pack: its title, its first reads, its gated writes (at most 120 characters). */
export function openapiLead(id: string, title: string, reads: string[], confirms: string[]): string {
  const lead = `${id}: ${title}${reads.length ? `; reads: ${reads.slice(0, 4).join(", ")}${reads.length > 4 ? ", …" : ""}` : ""}${confirms.length ? `; needs confirm: ${confirms.slice(0, 3).join(", ")}${confirms.length > 3 ? ", …" : ""}` : ""}.`;
  return lead.length > 120 ? lead.slice(0, 119).replace(/[,;\s]+[^,;\s]*$/, "") + "…" : lead;
}

/** The Skill's line about the Policy: inferred (to review) or reviewed. */
export const POLICY_LINE = {
  inferred: "Drafted by `hcpx pack from-openapi`: the Policy is inferred — review it.",
  reviewed: "Drafted by `hcpx pack from-openapi`; the Policy is reviewed.",
} as const;

export interface SkillSync {
  text: string;
  /** what changed, one line each (empty: the Skill already says what policy.json says) */
  changes: string[];
}

const escCell = (s: string) => s.replace(/\|/g, "\\|").replace(/\s+/g, " ");

export function syncSkill(text: string, file: string, pack: Pack): SkillSync {
  const skill = parseSkill(text, file);
  const nl = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text.split(/\r?\n/);
  const changes: string[] = [];
  const seen = syncCells(lines, skill, pack, changes);
  // 2. a row for each command without one
  const missing = pack.commands.filter((c) => !seen.has(c.verb_key));
  if (missing.length) {
    const rows = missing.map((c) => `| \`${c.verb_key}\` | ${escCell(c.summary)} | ${cellOf(c.policy)} |`);
    if (skill.rows.length) lines.splice(skill.rows[skill.rows.length - 1]!.line, 0, ...rows);
    else {
      while (lines.length && lines[lines.length - 1] === "") lines.pop();
      lines.push("", "## Hot path", "", "| verb | what it does | read/write |", "|---|---|---|", ...rows, "");
    }
    for (const c of missing) changes.push(`${c.verb_key}: row added (${cellOf(c.policy)})`);
  }
  // 3. the scaffold's words for a pack of reads only, once policy.json has a write
  if (pack.commands.some((c) => c.policy.operation === "write")) {
    const fmEnd = lines.findIndex((l, i) => i > 0 && /^---\s*$/.test(l));
    if (readOnlyWordsDropped(lines, fmEnd).length) changes.push("the words saying every command is a read are dropped");
  }
  syncDrafted(lines, skill, pack, changes);
  return { text: changes.length ? lines.join(nl) : text, changes };
}

/** 1. the read/write cell of each row (only the cell is rewritten: escaped pipes and the other cells stay); returns the verbs that have a row. */
function syncCells(lines: string[], skill: ReturnType<typeof parseSkill>, pack: Pack, changes: string[]): Set<string> {
  const byVerb = new Map(pack.commands.map((c) => [c.verb_key, c]));
  const seen = new Set<string>();
  for (const row of skill.rows) {
    const cmd = byVerb.get(row.verb);
    if (!cmd || seen.has(row.verb)) continue;
    seen.add(row.verb);
    const want = cellOf(cmd.policy);
    if (cellStates(row.cells.length >= 3 ? row.cells[row.cells.length - 1] : undefined, cmd.policy)) continue;
    const i = row.line - 1;
    const raw = lines[i]!;
    lines[i] =
      row.cells.length >= 3
        ? raw.replace(/\|([^|]*)\|(\s*)$/, `| ${want} |$2`)
        : `${raw.trimEnd()}${raw.trimEnd().endsWith("|") ? "" : " |"} ${want} |`;
    changes.push(
      `${row.verb}: ${row.cells.length >= 3 ? row.cells[row.cells.length - 1] || "(empty)" : "(no cell)"} → ${want}`,
    );
  }
  return seen;
}

/** 4. a drafted pack's lead and its line about the Policy (as `pack from-openapi` wrote them: the line says so). */
function syncDrafted(lines: string[], skill: ReturnType<typeof parseSkill>, pack: Pack, changes: string[]): void {
  const fmEnd = lines.findIndex((l, i) => i > 0 && /^---\s*$/.test(l));
  if (lines.some((l, i) => i > fmEnd && (l === POLICY_LINE.inferred || l === POLICY_LINE.reviewed))) {
    const reads = pack.commands.filter((c) => c.policy.operation === "read").map((c) => c.verb_key);
    const confirms = pack.commands
      .filter((c) => c.policy.operation === "write" && c.policy.confirm)
      .map((c) => c.verb_key);
    for (const lead of skill.leads) {
      if (!lead.startsWith(`${pack.id}: `)) continue;
      const cut = lead.search(/; (reads|needs confirm): /);
      const title = (
        cut >= 0 ? lead.slice(pack.id.length + 2, cut) : lead.slice(pack.id.length + 2).replace(/[.\u2026]$/, "")
      ).trim();
      if (!title) continue;
      const next = openapiLead(pack.id, title, reads, confirms);
      if (next === lead) continue;
      const at = lines.findIndex(
        (l, i) =>
          i < fmEnd && /^\s*-\s/.test(l) && (l.trim() === `- ${JSON.stringify(lead)}` || l.trim() === `- ${lead}`),
      );
      if (at < 0) continue;
      lines[at] = `${/^\s*/.exec(lines[at]!)![0]}- ${JSON.stringify(next)}`;
      changes.push(`lead: ${next}`);
    }
    const inferred = pack.policyInferred || pack.commands.some((c) => c.policy.inferred);
    const [from, to] = inferred
      ? [POLICY_LINE.reviewed, POLICY_LINE.inferred]
      : [POLICY_LINE.inferred, POLICY_LINE.reviewed];
    const at = lines.findIndex((l, i) => i > fmEnd && l === from);
    if (at >= 0) {
      lines[at] = to;
      changes.push(
        inferred
          ? "the Policy is inferred (rows still marked inferred)"
          : "the Policy is reviewed (no inferred marks left)",
      );
    }
  }
}

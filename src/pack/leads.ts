// A Skill's leads (frontmatter `leads`): each is one line of the prompt block
// in CLAUDE.md / AGENTS.md / rule files and of `hcpx mcp`'s instructions, under
// the pack's own `### <pack>` heading and above its `Verbs:` line. So a lead
// is one line (no line break of any kind: it would add a heading or a `Verbs:`
// line of the pack's own) and is not such a line itself (OWN_LINE), there are at most MAX_LEADS of them, and each is
// bounded (MAX_LEAD_HARD; lint warns past MAX_LEAD). Checked where the Skill is
// loaded (./skill.ts), so lint, generate, adopt and mcp refuse the same Skill.
import type { Problem } from "../util/errors";

/** What lint recommends a lead stays within (skill_lead_long, a warning). */
export const MAX_LEAD = 120;
/** What a lead may not exceed (skill_lead_long, an error where the Skill is loaded): 4 × MAX_LEAD. */
export const MAX_LEAD_HARD = 4 * MAX_LEAD;
export const MAX_LEADS = 3;

/** A line break: LF, CR, NEL, and the line and paragraph separators. */
const BREAK = /[\n\r\u0085\u2028\u2029]/;
/**
 * A line of the block's own, which a lead may not be either (src/projection/build.ts packLines): a Markdown
 * heading (`### gitx`), a setext underline (`===`, `---`: it makes the line above a heading), an HTML comment
 * (hcpx's `<!-- hcp:… -->` lines), or hcpx's `Verbs:` / `Observes only:` line.
 */
const OWN_LINE = /^\s{0,3}(#{1,6}(\s|$)|(=+|-+)\s*$|<!--)|^\s*(verbs|observes only)\s*:/i;

/**
 * The SKILL.md line (1-based) of lead `i`: the i-th item (`- …`, or the i-th
 * non-blank line of a block string) under `leads:`; the `leads:` line itself
 * when the items are on it (`leads: [a, b]`), cannot be told apart, or `i` is -1.
 */
export function leadLine(frontmatterText: string, i: number): number {
  const lines = frontmatterText.split(/\r?\n/);
  const k = lines.findIndex((l) => l.startsWith("leads:"));
  if (k < 0) return 2;
  if (i < 0) return k + 2;
  const inline = lines[k]!.slice("leads:".length).trim();
  if (inline && !/^[|>][-+0-9]*$/.test(inline)) return k + 2;
  const list = !inline;
  let n = -1;
  for (let j = k + 1; j < lines.length; j++) {
    const l = lines[j]!;
    if (l.trim() && !/^\s/.test(l) && !l.startsWith("-")) break; // the next key
    if (list ? /^\s*-(\s|$)/.test(l) : l.trim() !== "") n++;
    if (n === i) return j + 2;
  }
  return k + 2;
}

/** The leads' problems as errors: more than MAX_LEADS, a line break in one, one over MAX_LEAD_HARD characters. */
export function leadProblems(leads: string[], asList: boolean, frontmatterText: string, file: string): Problem[] {
  const out: Problem[] = [];
  const at = (i: number) => ({ file, line: leadLine(frontmatterText, i), path: asList ? `leads[${i}]` : "leads" });
  if (leads.length > MAX_LEADS)
    out.push({
      code: "skill_leads_count",
      severity: "error",
      message: `the Skill has ${leads.length} leads; at most ${MAX_LEADS}`,
      hint: "keep the 1–3 lines that matter most: each lead is a line of the system prompt",
      file,
      line: leadLine(frontmatterText, -1),
      path: "leads",
    });
  leads.forEach((l, i) => {
    if (BREAK.test(l))
      out.push({
        code: "host_text_unsafe",
        severity: "error",
        message: `the Skill's ${asList ? `leads[${i}]` : "leads"} holds a line break: a lead is one line of the prompt block in host files (CLAUDE.md, AGENTS.md), and a second line would be the pack's own heading or Verbs: line`,
        hint: "write each lead on one line (as a list item, or one lead per line of a `leads: |` block): at most 3 leads",
        ...at(i),
      });
    else if (OWN_LINE.test(l))
      out.push({
        code: "host_text_unsafe",
        severity: "error",
        message: `the Skill's ${asList ? `leads[${i}]` : "leads"} reads as a line of hcpx's own prompt block (a heading, a Verbs: line, a comment): the block gives each pack its heading and Verbs: line, and a lead under another pack's heading would speak for that pack`,
        hint: "start the lead with the pack's id, like `transit: plan journeys; reads: plan, departures`",
        ...at(i),
      });
    else if (l.length > MAX_LEAD_HARD)
      out.push({
        code: "skill_lead_long",
        severity: "error",
        message: `lead ${i + 1} is ${l.length} characters; at most ${MAX_LEAD_HARD}`,
        hint: `keep each lead a short line (≤ ${MAX_LEAD} characters): the system prompt carries every pack's leads`,
        ...at(i),
      });
  });
  return out;
}

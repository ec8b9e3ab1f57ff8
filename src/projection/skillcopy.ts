// Skill copies for hosts: spec-valid Agent Skills frontmatter (name, description,
// metadata), the body with every mention of a withheld command taken out, and
// the hot-path table filtered to granted commands with the policy cell (and so
// the confirm marker) made to agree with policy.json.
import type { Command } from "../pack/model";
import type { Skill } from "../pack/skill";
import { toolName } from "../pack/model";

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A regex finding `verb` as a whole token (`entry.add` does not contain the token `add`). */
export function tokenRe(verb: string): RegExp {
  return new RegExp(`(?<![\\w-]|\\w\\.)${esc(verb)}(?![\\w-]|\\.\\w)`);
}

export interface Withheld {
  packId: string;
  verbs: string[];
}

/**
 * True when `text` names a withheld command: its tool name, `<pack> <verb>` as
 * in `hcpx exec`, a dotted verb anywhere, or a one-word verb inside code.
 */
export function namesWithheld(text: string, w: Withheld, opts: { code?: boolean; prose?: boolean } = {}): boolean {
  for (const v of w.verbs) {
    if (text.includes(toolName(w.packId, v))) return true;
    if (tokenRe(`${w.packId} ${v}`).test(text)) return true;
    if ((v.includes(".") || opts.prose) && tokenRe(v).test(text)) return true;
    if (opts.code) {
      if (tokenRe(v).test(text)) return true;
    } else {
      for (const m of text.matchAll(/`([^`\n]+)`/g)) if (tokenRe(v).test(m[1]!)) return true;
    }
  }
  return false;
}

/** Leads without the lines naming a withheld command (a lead is short: any mention counts). */
export function filterLeads(leads: string[], w: Withheld): string[] {
  return leads.map((l) => l.trim()).filter((l) => l && !namesWithheld(l, w, { prose: true }));
}

export function policyCell(c: Command): string {
  return c.policy.confirm ? `${c.policy.operation}, confirm` : c.policy.operation;
}

function splitRow(line: string): string[] {
  return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
}

type Unit = { lines: string[]; kind: "code" | "row" | "text" | "blank" };

function units(body: string): Unit[] {
  const out: Unit[] = [];
  let fence: string | undefined;
  let cur: Unit | undefined;
  const flush = () => {
    if (cur) out.push(cur);
    cur = undefined;
  };
  for (const line of body.split("\n")) {
    const fm = /^\s*(```+|~~~+)/.exec(line);
    if (fence !== undefined) {
      out.push({ lines: [line], kind: "code" });
      if (fm && fm[1]!.startsWith(fence)) fence = undefined;
      continue;
    }
    if (fm) {
      flush();
      fence = fm[1]!;
      out.push({ lines: [line], kind: "code" });
      continue;
    }
    if (!line.trim()) {
      flush();
      out.push({ lines: [line], kind: "blank" });
    } else if (/^\s*\|/.test(line)) {
      flush();
      out.push({ lines: [line], kind: "row" });
    } else if (/^#{1,6}\s/.test(line)) {
      flush();
      out.push({ lines: [line], kind: "text" });
    } else if (/^\s*([-*+]|\d+[.)])\s/.test(line)) {
      flush();
      cur = { lines: [line], kind: "text" };
    } else if (cur) cur.lines.push(line);
    else cur = { lines: [line], kind: "text" };
  }
  flush();
  return out;
}

/**
 * The body of a Skill copy: units (paragraphs, list items, table rows, code
 * lines) naming a withheld command are dropped; hot-path rows of granted
 * commands get the policy cell of policy.json; granted commands without a row
 * get one, so every gated write carries its confirm marker.
 */
export function filterSkillBody(skill: Skill, granted: Command[], w: Withheld): string {
  const rowVerbs = new Set(skill.rows.map((r) => r.verb));
  const byVerb = new Map(granted.map((c) => [c.verb_key, c]));
  const withheld = new Set(w.verbs);
  const body = skill.body.replace(/\r\n?/g, "\n");
  const out: string[] = [];
  let lastRowIndex = -1;
  for (const u of units(body)) {
    if (u.kind === "row") {
      const line = u.lines[0]!;
      const cells = splitRow(line);
      const verb = (cells[0] ?? "").replace(/`/g, "").trim();
      if (withheld.has(verb) || namesWithheld(line, w)) continue;
      const c = byVerb.get(verb);
      if (c && cells.length >= 3) {
        const cell = cells[cells.length - 1]!;
        const ok = cell.toLowerCase().includes(c.policy.operation) && /confirm/i.test(cell) === c.policy.confirm;
        if (!ok) {
          cells[cells.length - 1] = policyCell(c);
          out.push(`| ${cells.join(" | ")} |`);
        } else out.push(line);
      } else out.push(line);
      if (c) lastRowIndex = out.length - 1;
      continue;
    }
    if (u.kind === "code" ? namesWithheld(u.lines[0]!, w, { code: true }) : u.kind === "text" && namesWithheld(u.lines.join("\n"), w)) continue;
    out.push(...u.lines);
  }
  const missing = granted.filter((c) => !rowVerbs.has(c.verb_key));
  if (missing.length) {
    const rows = missing.map((c) => `| \`${c.verb_key}\` | ${c.summary.replace(/\|/g, "\\|")} | ${policyCell(c)} |`);
    if (lastRowIndex >= 0) out.splice(lastRowIndex + 1, 0, ...rows);
    else {
      while (out.length && !out[out.length - 1]!.trim()) out.pop();
      out.push("", "## Hot path (granted commands)", "", "| verb | what it does | read/write |", "|---|---|---|", ...rows);
    }
  }
  // Collapse the blank runs that dropped units leave behind.
  const text = out.join("\n").replace(/\n{3,}/g, "\n\n").replace(/\s+$/, "");
  return text + "\n";
}

/** YAML double-quoted scalar (JSON string syntax is valid YAML). */
const q = (s: string) => JSON.stringify(s);

export function skillCopy(skill: Skill, pack: { id: string; version: string }, leads: string[], granted: Command[], w: Withheld): string {
  const fm = skill.frontmatter as Record<string, unknown>;
  const lines = ["---", `name: ${pack.id}`, `description: ${q(String(fm.description).trim())}`];
  for (const key of ["license", "compatibility"]) {
    if (typeof fm[key] === "string" && fm[key]) lines.push(`${key}: ${q(fm[key] as string)}`);
  }
  const meta: [string, string][] = [];
  if (fm.metadata && typeof fm.metadata === "object" && !Array.isArray(fm.metadata)) {
    for (const [k, v] of Object.entries(fm.metadata as Record<string, unknown>)) if (typeof v === "string" && !k.startsWith("hcp-")) meta.push([k, v]);
  }
  meta.push(["hcp-pack", pack.id], ["hcp-version", pack.version]);
  if (leads.length) meta.push(["hcp-leads", leads.join("\n")]);
  meta.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  lines.push("metadata:", ...meta.map(([k, v]) => `  ${/^[A-Za-z][\w-]*$/.test(k) ? k : q(k)}: ${q(v)}`), "---");
  const body = filterSkillBody(skill, granted, w);
  return `${lines.join("\n")}\n<!-- generated by hcpx from pack ${pack.id} ${pack.version}: edit the pack's SKILL.md, not this copy -->\n${body.startsWith("\n") ? "" : "\n"}${body}`;
}

// Skill copies for hosts: spec-valid Agent Skills frontmatter (name, description,
// metadata), the body with every mention of a withheld command taken out, and
// the hot-path table filtered to granted commands with the policy cell (and so
// the confirm marker) made to agree with policy.json.
//
// The rule (docs/pack-format.md#what-a-projection-leaves-out), exact so that
// nothing but a withheld command's own mentions goes:
// - its hot-path row (verb cell as code or emphasised) is removed; a granted
//   row keeps its place, with a mention of a withheld command in its cells
//   cut out;
// - in code blocks, a line naming it as `<pack> <verb>` (as in
//   `hcpx exec <pack> <verb>`), `<pack>.<verb>`, its tool name
//   `<pack>__<verb>`, or a dotted verb_key is removed — a bare word is not a
//   mention there (`hcpx exec db query` stays when `db.exec` is withheld); a
//   line continued with `\` and its continuation lines are one;
// - in the leads (short lists that reach the system prompt) each mention, a
//   bare word included (also `Purge`, `PURGE`), is cut out with its list
//   separator (`status, log, show` → `status, log`); a lead left with nothing
//   but its `<pack>:` prefix is dropped;
// - in the description (prose), each mention written as code (`show`),
//   qualified (`gitx show`, `gitx.show`), as a tool name or a dotted verb_key
//   is cut out the same way; a plain word is prose and stays ("show one note");
// - in body prose, a paragraph or list item that names it (in code, qualified,
//   dotted, or its tool name) is dropped, the rest stays.
import type { Command } from "../pack/model";
import type { Skill } from "../pack/skill";
import { toolName } from "../pack/model";
import { cellStates, policyCell, rowVerb } from "../pack/policycell";
import { neutralLine } from "../util/neutral";

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const BEFORE = "(?<![\\w-]|\\w\\.)";
const AFTER = "(?![\\w-]|\\.\\w)";

/** A regex finding `verb` as a whole token (`entry.add` does not contain the token `add`). */
export function tokenRe(verb: string, flags = ""): RegExp {
  return new RegExp(`${BEFORE}${esc(verb)}${AFTER}`, flags);
}

export interface Withheld {
  packId: string;
  verbs: string[];
  /** every verb of the pack (granted too): a mention next to one across a list separator is a list item */
  all?: string[];
}

/** A code line or inline code span naming `v`: `<pack> <verb>`, `<pack>.<verb>`, the tool name, a dotted verb; never a bare one-word verb. */
function codeNames(code: string, packId: string, v: string): boolean {
  if (code.includes(toolName(packId, v))) return true;
  if (tokenRe(`${packId} ${v}`).test(code) || tokenRe(`${packId}.${v}`).test(code)) return true;
  if (v.includes(".") && tokenRe(v).test(code)) return true;
  return new RegExp(`"verb"\\s*:\\s*"${esc(v)}"`).test(code);
}

/** An inline code span naming `v`: as code does, or the span is the verb itself (`show`, `show -- rev=…`). */
function spanNames(span: string, packId: string, v: string): boolean {
  return codeNames(span, packId, v) || span.trim().split(/\s+/)[0] === v;
}

/** Plain text naming `v`: qualified or dotted; with `bare`, a one-word verb as a word too. */
function plainRe(packId: string, v: string, bare: boolean): RegExp {
  const forms = [esc(toolName(packId, v)), `${esc(packId)}[ .]${esc(v)}`];
  if (bare || v.includes(".")) forms.push(esc(v));
  // a bare word as a sentence starts it, or shouted: `Purge is irreversible`, `PURGE needs confirm`
  if (bare) forms.push(esc(v.charAt(0).toUpperCase() + v.slice(1)), esc(v.toUpperCase()));
  return new RegExp(`${BEFORE}(?:${forms.join("|")})${AFTER}`, "g");
}

/**
 * True when `text` names a withheld command: its tool name, `<pack> <verb>` as
 * in `hcpx exec`, `<pack>.<verb>`, a dotted verb anywhere, a one-word verb as
 * an inline code span (`show`) — and with `prose`, a one-word verb as a bare
 * word. `code`: `text` is a line of a code block (see codeNames).
 */
export function namesWithheld(text: string, w: Withheld, opts: { prose?: boolean; code?: boolean } = {}): boolean {
  for (const v of w.verbs) {
    if (opts.code) {
      if (codeNames(text, w.packId, v)) return true;
      continue;
    }
    const parts = text.split(/(`[^`\n]*`)/);
    for (let i = 0; i < parts.length; i++) {
      if (
        i % 2 === 1
          ? spanNames(parts[i]!.slice(1, -1), w.packId, v)
          : plainRe(w.packId, v, opts.prose === true).test(parts[i]!)
      )
        return true;
    }
  }
  return false;
}

const MARK = "\u0000";

/**
 * `text` with every mention of a withheld command cut out, so that what is left
 * still says only true things:
 * - a mention that is a list item (next to another verb across `,` `and` `or`
 *   `/`, or alone after `label:` or `(`) goes with one adjacent separator:
 *   `a, b and c` loses `, b` (or `a, `, or ` and c`);
 * - any other mention (the subject of a clause: "delete needs confirm") takes
 *   its clause with it (up to the nearest `,` `;` `:` or sentence end), so that
 *   what the clause said of it is not left saying it of something else;
 * - a `label:` whose whole list went goes too ("confirm: edit_file" → "").
 * An inline code span naming one goes whole. `bare`: a one-word verb as a plain
 * word counts (leads, descriptions).
 */
export function removeMentions(text: string, w: Withheld, bare: boolean): string {
  if (!namesWithheld(text, w, { prose: bare })) return text;
  const parts = text.split(/(`[^`\n]*`)/);
  for (let i = 0; i < parts.length; i++) {
    for (const v of w.verbs) {
      if (i % 2 === 1) {
        if (spanNames(parts[i]!.slice(1, -1), w.packId, v)) parts[i] = MARK;
      } else parts[i] = parts[i]!.replace(plainRe(w.packId, v, bare), MARK);
    }
  }
  let t = parts.join("");
  const verbs = new Set([...(w.all ?? []), ...w.verbs]);
  // without the pack's verbs (a caller outside the projection), any word next to a separator counts as an item
  const isItem = (tok: string | undefined) =>
    tok !== undefined &&
    (w.all === undefined ||
      tok === MARK ||
      /^`[^`]*`$/.test(tok) ||
      verbs.has(tok) ||
      verbs.has(tok.replace(new RegExp(`^${esc(w.packId)}[ .]`), "")));
  const SEP_END = /(\s*[,/]\s*|\s+(?:and|or)\s+)$/;
  const SEP_START = /^(\s*[,/]\s*|\s+(?:and|or)\s+)/;
  const lastTok = (s: string) => /(`[^`]*`|\u0000|[\w-]+(?:\.[\w-]+)*)$/.exec(s)?.[1];
  const firstTok = (s: string) => /^(`[^`]*`|\u0000|[\w-]+(?:\.[\w-]+)*)/.exec(s)?.[1];
  for (let guard = 0; t.includes(MARK) && guard < 1000; guard++) {
    const at = t.indexOf(MARK);
    const left = t.slice(0, at);
    const right = t.slice(at + 1);
    const ls = SEP_END.exec(left);
    const rs = SEP_START.exec(right);
    if (ls && isItem(lastTok(left.slice(0, left.length - ls[0].length)))) {
      t = left.slice(0, left.length - ls[0].length) + right; // `a, b` → `a`
    } else if (rs && isItem(firstTok(right.slice(rs[0].length)))) {
      t = left + right.slice(rs[0].length); // `b, c` → `c`
    } else if (/(?:^|[:(]\s*)$/.test(left) && /^\s*(?:$|[,;.)\u2026])/.test(right)) {
      t = left + right.replace(/^\s*[,/]\s*/, ""); // alone after `label:` or `(`, or the whole text
    } else {
      // the subject of a clause: the clause goes, with the separator before it (or after it, at the start)
      const before = /(?:[,;:]\s*|[.!?]\s+|\(\s*)(?=[^,;:.!?(]*$)/.exec(left);
      const start = before ? before.index : 0;
      const end = at + 1 + clauseEnd(right);
      const closer = t[end];
      // between two separators: the one before stays, the one after goes; before a sentence end or `)`: the one before goes
      if (before && closer !== undefined && /[,;]/.test(closer))
        t = t.slice(0, start + before[0].length) + t.slice(end + 1).replace(/^\s+/, "");
      else if (before && /^[,;]/.test(before[0]) && closer !== ")") t = t.slice(0, start) + t.slice(end);
      else t = t.slice(0, before ? start + before[0].length : 0) + t.slice(end);
    }
  }
  // a label whose list went: `reads: a; confirm:` → `reads: a`; `(confirm: )` → `()`
  for (let guard = 0; guard < 100; guard++) {
    const before = t;
    t = t.replace(/(^|[;,]\s*|[.!?]\s+|\(\s*)[^.;:,()\n]*:\s*\u2026?\s*(?=$|[.;,)])/, (_m, pre: string) =>
      /^[;,]/.test(pre) ? "" : pre,
    );
    if (t === before) break;
  }
  // what cutting leaves behind: empty parentheses, doubled spaces, a space before punctuation
  return t
    .replace(/\(\s*[;,]?\s*\)/g, "")
    .replace(/\(\s*[;,]\s*/g, "(")
    .replace(/[ \t]{2,}/g, " ")
    .replace(/\s+([,.;:)])/g, "$1")
    .replace(/[,;]\s*([.)]|$)/g, "$1")
    .replace(/:\s*\./g, ".")
    .replace(/([.!?])\s*\./g, "$1")
    .replace(/^[\s,;.]+/, "")
    .trim();
}

/** Where the clause `s` starts ends: the first `,` `;` `:` `)` or sentence end outside parentheses (or its length). */
function clauseEnd(s: string): number {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === "(") depth++;
    else if (ch === ")" && depth > 0) depth--;
    else if (depth === 0 && (/[,;:)]/.test(ch) || (/[.!?]/.test(ch) && (i + 1 === s.length || /\s/.test(s[i + 1]!)))))
      return i;
  }
  return s.length;
}

/** True when a rewritten lead has nothing left but its `<pack>:` prefix and punctuation. */
function emptyLead(lead: string, packId: string): boolean {
  const rest = lead.replace(new RegExp(`^\\s*${esc(packId)}\\s*[:.]?`), "").replace(/\([^)]*\)/g, "");
  return !/[A-Za-z0-9]/.test(rest);
}

/** Leads with each mention of a withheld command cut out (a bare word counts: a lead is a short list). */
export function filterLeads(leads: string[], w: Withheld): string[] {
  const out: string[] = [];
  for (const raw of leads) {
    const l = raw.trim();
    if (!l) continue;
    const r = removeMentions(l, w, true);
    if (r !== l && emptyLead(r, w.packId)) continue;
    out.push(r);
  }
  return out;
}

/** The description as a projection shows it: mentions of withheld commands (as code, qualified, dotted) cut out; plain words stay. */
export function filterDescription(description: string, w: Withheld): string {
  return removeMentions(description.trim(), w, false);
}

function splitRow(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((c) => c.trim());
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
      const prev = out[out.length - 1];
      // a line continued with `\` and its continuation are one example: a mention in either drops both
      if (prev?.kind === "code" && prev.lines.length && /\\\s*$/.test(prev.lines[prev.lines.length - 1]!) && !fm)
        prev.lines.push(line);
      else out.push({ lines: [line], kind: "code" });
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

/** A cell of a granted hot-path row as the copy shows it (and a pass_through verb's tool description takes it): mentions of withheld commands cut out. */
export function rowCell(cell: string, w: Withheld): string {
  return removeMentions(cell, w, false);
}

/**
 * A hot-path row as the copy shows it: a mention of a withheld command cut out
 * of its cells; for a granted command `c`, its read/write cell made to state
 * what policy.json says, read as lint reads it (src/pack/policycell.ts) — a
 * row of two cells (no read/write cell) gets one. `cells`: splitRow(line), changed in place.
 */
function copyRow(line: string, cells: string[], c: Command | undefined, w: Withheld): string {
  let out = line;
  // a granted row that mentions a withheld command keeps its place, without the mention
  if (namesWithheld(line, w)) {
    for (let i = 1; i < cells.length; i++) cells[i] = rowCell(cells[i]!, w);
    out = `| ${cells.join(" | ")} |`;
  }
  if (!c || cells.length < 2) return out;
  const want = policyCell(c.policy);
  if (cells.length === 2) return `${out.trimEnd()}${out.trimEnd().endsWith("|") ? "" : " |"} ${want} |`;
  if (cellStates(cells[cells.length - 1], c.policy)) return out;
  // only the last cell is rewritten: the others (escaped pipes included) stay as written
  return out.replace(/\|([^|]*)\|(\s*)$/, `| ${want} |`);
}

/** A row given its read/write cell: the header and separator rows of its table (the rows before it in `out`) get a third cell too. */
function widenTable(out: string[]): void {
  let i = out.length;
  while (i > 0 && /^\s*\|/.test(out[i - 1]!)) i--;
  const delim = out[i + 1];
  if (i + 1 >= out.length || delim === undefined || !/^[\s|:-]+$/.test(delim)) return;
  const widen = (at: number, cell: string) => {
    const l = out[at]!.trimEnd();
    if (splitRow(l).length === 2) out[at] = `${l}${l.endsWith("|") ? "" : "|"}${cell}|`;
  };
  widen(i, " read/write ");
  widen(i + 1, "---");
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
      // the row's cells, split once (copyRow cuts mentions out of them in place: never their number)
      const cells = splitRow(u.lines[0]!);
      const verb = rowVerb(cells[0] ?? "");
      if (withheld.has(verb)) continue;
      const c = byVerb.get(verb);
      const line = copyRow(u.lines[0]!, cells, c, w);
      if (c && cells.length === 2) widenTable(out);
      out.push(line);
      if (c) lastRowIndex = out.length - 1;
      continue;
    }
    if (
      u.kind === "code"
        ? namesWithheld(u.lines.map((l) => l.replace(/\\\s*$/, " ").trim()).join(" "), w, { code: true })
        : u.kind === "text" && namesWithheld(u.lines.join("\n"), w)
    )
      continue;
    out.push(...u.lines);
  }
  const missing = granted.filter((c) => !rowVerbs.has(c.verb_key));
  if (missing.length) {
    const rows = missing.map(
      (c) => `| \`${c.verb_key}\` | ${c.summary.replace(/\|/g, "\\|")} | ${policyCell(c.policy)} |`,
    );
    if (lastRowIndex >= 0) out.splice(lastRowIndex + 1, 0, ...rows);
    else {
      while (out.length && !out[out.length - 1]!.trim()) out.pop();
      out.push(
        "",
        "## Hot path (granted commands)",
        "",
        "| verb | what it does | read/write |",
        "|---|---|---|",
        ...rows,
      );
    }
  }
  // Collapse the blank runs that dropped units leave behind.
  const text = out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd(); // (what /\s+$/ removed, without trying the pattern at every space of the body)
  return text + "\n";
}

/** YAML double-quoted scalar (JSON string syntax is valid YAML). */
const q = (s: string) => JSON.stringify(s);

/** A pack's text inside hcpx's `<!-- … -->` line: on it (line breaks escaped), no `--` (no early `-->`). */
const inComment = (s: string) => neutralLine(s).replace(/-(?=-)/g, "- ");

export function skillCopy(
  skill: Skill,
  pack: { id: string; version: string },
  leads: string[],
  granted: Command[],
  w: Withheld,
): string {
  const fm = skill.frontmatter as Record<string, unknown>;
  const lines = ["---", `name: ${pack.id}`, `description: ${q(filterDescription(String(fm.description), w))}`];
  for (const key of ["license", "compatibility"]) {
    if (typeof fm[key] === "string" && fm[key]) lines.push(`${key}: ${q(fm[key] as string)}`);
  }
  const meta: [string, string][] = [];
  if (fm.metadata && typeof fm.metadata === "object" && !Array.isArray(fm.metadata)) {
    for (const [k, v] of Object.entries(fm.metadata as Record<string, unknown>))
      if (typeof v === "string" && !k.startsWith("hcp-")) meta.push([k, v]);
  }
  meta.push(["hcp-pack", pack.id], ["hcp-version", pack.version]);
  if (leads.length) meta.push(["hcp-leads", leads.join("\n")]);
  meta.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  lines.push("metadata:", ...meta.map(([k, v]) => `  ${/^[A-Za-z][\w-]*$/.test(k) ? k : q(k)}: ${q(v)}`), "---");
  const body = filterSkillBody(skill, granted, w);
  return `${lines.join("\n")}\n<!-- generated by hcpx from pack ${pack.id} ${inComment(pack.version)}: edit the pack's SKILL.md, not this copy -->\n${body.startsWith("\n") ? "" : "\n"}${body}`;
}

// Pack text that lands in host files — the Skill (frontmatter leads and
// description, license, compatibility, metadata, body: copied to every host's
// skills dir, leads in the prompt block of CLAUDE.md / AGENTS.md / rule files),
// the surface's description and command summaries — must not break those
// files or hide text from whoever reviews them. Refused: the hcp block markers
// (anywhere: a block holding one could not be found or removed again), control
// characters other than tab and line breaks (NUL, ESC, DEL, C1: they corrupt a
// file or a terminal showing it), a lone CR, U+2028/U+2029 (line breaks to some
// readers, not to others), the bidi marks, embeddings, overrides and isolates
// (they make a reviewed diff show other text than the file holds), and what is
// invisible (zero-width characters, word joiner, a BOM inside text, the tag
// characters U+E0000–U+E007F: a model reads them, a reviewer never sees them).
// In what lands in an instructions file (the leads, the Skill's description,
// the surface's description and command summaries and descriptions) an import
// directive is refused too: `@path` at the start or after white space, which
// Claude Code and Gemini CLI read as a file to import (`@~/.ssh/id_rsa`).
// Both are checked where they are loaded — the Skill in ./skill.ts, the surface
// in ./load.ts (packRuleProblems) — so lint (`host_text_unsafe`, an error),
// generate, adopt, `hcpx mcp` and `hcpx exec` refuse such a pack alike; the
// host engine checks what a projection made of them again before planning
// anything (src/host/pack-text.ts).
import { CAPS, readTextFile } from "../util/readfile";
import type { Problem } from "../util/errors";
import { pathToString } from "../util/errors";
import { display } from "../util/paths";
import { locate } from "./json5";
import { leadLine } from "./leads";
import { IMPORT_PATH_START, UNSAFE_CHARS } from "../util/prose";

const MARKERS = ["<!-- hcp:begin -->", "<!-- hcp:end -->"];
/**
 * Control characters but tab and line breaks, a lone CR, U+2028/9, the bidi marks, embeddings, overrides
 * and isolates (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069: the set src/util/neutral.ts escapes), and
 * what is invisible: zero-width space, joiners (U+200B–U+200D), word joiner and invisible operators
 * (U+2060–U+2064), the BOM inside text (U+FEFF) and the tag characters (U+E0000–U+E007F, which spell text a
 * model reads and a reviewer never sees). The same set src/util/prose.ts drops from drafted text (UNSAFE_CHARS),
 * with the white space it folds.
 */
const BAD_CHAR = new RegExp(`${UNSAFE_CHARS}|[\\u000b\\u000c\\u2028\\u2029]|\\r(?!\\n)`);

let importRe: RegExp | undefined;
/**
 * An import directive: `@` at the start or after white space, then what starts a path (`~`, `/`, `.`, `\\`,
 * a letter, digit or `_`). Claude Code (CLAUDE.md) and Gemini CLI (GEMINI.md) read `@path` in an instructions
 * file as a file to import into the model's context (`@~/.ssh/id_rsa`). An e-mail address (`a@b.com`: no white
 * space before the `@`) is not one. Made on first use, like json5.ts's WIDE_KEY: a \p{…} class is
 * built from ICU's tables when the RegExp is created (~2.5 M instructions, callgrind), which every `hcpx exec`
 * paid at load (test/arch/regexp-load.test.ts).
 */
const IMPORT = (): RegExp => (importRe ??= new RegExp(`(?:^|\\s)(@${IMPORT_PATH_START}\\S*)`, "u"));
const IMPORT_HINT =
  "remove the @ before the path, or rephrase: Claude Code and Gemini CLI read @path in an instructions file (CLAUDE.md, GEMINI.md) as a file to import; an e-mail address (a@b.com) is fine";

export interface UnsafeText {
  index: number;
  what: string;
  /** what to do, when not the general HINT */
  hint?: string;
}

/** The name of a character BAD_CHAR found. */
function charName(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const u = `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
  if (cp === 0x0d) return "a carriage return not followed by a line feed";
  if (cp >= 0xe0000) return `the invisible tag character ${u}`;
  if ((cp >= 0x200b && cp <= 0x200d) || (cp >= 0x2060 && cp <= 0x2064) || cp === 0xfeff)
    return `the invisible character ${u}`;
  if (cp === 0x061c || cp === 0x200e || cp === 0x200f) return `the bidi mark ${u}`;
  return `the control character ${u}`;
}

/**
 * The first thing in `text` that would break a host file, or undefined. `imports`: the text lands in an
 * instructions file (a lead, a description, a summary), where an import directive is refused too.
 */
export function unsafeHostText(text: string, opts: { imports?: boolean } = {}): UnsafeText | undefined {
  let best: UnsafeText | undefined;
  for (const m of MARKERS) {
    const i = text.indexOf(m);
    if (i >= 0 && (!best || i < best.index)) best = { index: i, what: `the hcp block marker ${m}` };
  }
  const c = BAD_CHAR.exec(text);
  if (c && (!best || c.index < best.index)) best = { index: c.index, what: charName(c[0]) };
  // this runs at every hcpx exec's pack load: text without an @ never runs (or compiles) the Unicode pattern
  const imp = opts.imports && text.includes("@") ? IMPORT().exec(text) : null;
  if (imp) {
    const index = imp.index + imp[0].length - imp[1]!.length;
    const path = imp[1]!.length > 40 ? `${imp[1]!.slice(0, 39)}…` : imp[1]!;
    if (!best || index < best.index)
      best = {
        index,
        what: `the import directive ${path}: Claude Code and Gemini CLI read @path in an instructions file as a file to import`,
        hint: IMPORT_HINT,
      };
  }
  return best;
}

function lineColOf(text: string, index: number): { line: number; column: number } {
  const before = text.slice(0, index);
  const line = before.split("\n").length;
  return { line, column: index - before.lastIndexOf("\n") };
}

/** unsafeHostText's options, one object each (not one per text checked) */
const WITH_IMPORTS = { imports: true } as const;
const NO_IMPORTS = { imports: false } as const;
/** a command's texts that land in an instructions file; an input's texts a person or a model reads */
const TEXT_KEYS = ["summary", "description"] as const;
const INPUT_KEYS = ["message", "prompt"] as const;

const HINT =
  "remove it: this text is copied into host files (CLAUDE.md, AGENTS.md, rule files, Skill copies), where a marker, a control or an invisible character breaks them or hides text from whoever reviews them";

/** The same, for a text that reaches a tool's schema or a question rather than a host file. */
const SCHEMA_HINT =
  "remove it: this text reaches the model in every tool list (tools/list, the generated tool files) or the person in a question, where a marker, a control or an invisible character hides text from whoever reads or reviews it";

/** What of a loaded Skill the checks read (./skill.ts). */
export interface SkillTexts {
  frontmatter: Record<string, unknown>;
  /** the frontmatter block's text (between the --- lines) */
  frontmatterText: string;
  leads: string[];
}

/**
 * SKILL.md's problems (code `host_text_unsafe`, errors), checked where the Skill is loaded (./skill.ts), so
 * lint, generate, adopt and mcp refuse the same Skill: the file as a whole (a BOM that starts it aside), then,
 * when that is clean, each frontmatter value as YAML decoded it (an escape such as "\u200b" is the character
 * itself) — the description, each lead, license, compatibility, metadata and any other key — named by its
 * path. `skipLeads`: the paths of leads already refused (./leads.ts).
 */
export function skillTextProblems(file: string, text: string, skill: SkillTexts, skipLeads: Set<string>): Problem[] {
  const from = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const bad = unsafeHostText(from ? text.slice(from) : text);
  if (bad)
    return [
      {
        code: "host_text_unsafe",
        severity: "error",
        message: `SKILL.md holds ${bad.what}`,
        file,
        ...lineColOf(text, bad.index + from),
        hint: HINT,
      },
    ];
  return frontmatterProblems(file, skill, skipLeads);
}

/** The frontmatter's string values (and keys) under `segs`, at most 32 levels deep. */
function strings(v: unknown, segs: (string | number)[], out: [(string | number)[], string][], depth = 0): void {
  if (typeof v === "string") out.push([segs, v]);
  else if (depth >= 32 || v === null || typeof v !== "object") return;
  else if (Array.isArray(v)) v.forEach((x, i) => strings(x, [...segs, i], out, depth + 1));
  else
    for (const [k, x] of Object.entries(v)) {
      out.push([[...segs, k], k]);
      strings(x, [...segs, k], out, depth + 1);
    }
}

/** Each frontmatter value as YAML decoded it; an import directive is refused in the description and the leads (they land in instructions files). */
function frontmatterProblems(file: string, skill: SkillTexts, skipLeads: Set<string>): Problem[] {
  const lines = skill.frontmatterText.split(/\r?\n/);
  const keyLine = (key: string) => {
    const i = lines.findIndex((l) => l.startsWith(`${key}:`));
    return i >= 0 ? i + 2 : 2;
  };
  const asList = Array.isArray(skill.frontmatter.leads);
  const vals: { path: string; line: number; text: string; imports: boolean }[] = [];
  skill.leads.forEach((text, i) => {
    const path = asList ? `leads[${i}]` : "leads";
    if (!skipLeads.has(path)) vals.push({ path, line: leadLine(skill.frontmatterText, i), text, imports: true });
  });
  for (const [key, v] of Object.entries(skill.frontmatter)) {
    if (key === "leads") continue;
    const found: [(string | number)[], string][] = [];
    strings(v, [key], found);
    for (const [segs, text] of found)
      vals.push({ path: pathToString(segs), line: keyLine(key), text, imports: key === "description" });
  }
  const out: Problem[] = [];
  for (const { path, line, text, imports } of vals) {
    const bad = unsafeHostText(text, { imports });
    if (bad)
      out.push({
        code: "host_text_unsafe",
        severity: "error",
        message: `the Skill's ${path} holds ${bad.what}`,
        file,
        line,
        path,
        hint: bad.hint ?? HINT,
      });
  }
  return out;
}

/**
 * The surface's description and each command's summary/description (`host_text_unsafe`), placed in the pack
 * file; and the texts that reach a model or a person through a tool's schema or a question rather than an
 * instructions file (no @path rule there): each arg's description (every tool list and tools/list), an
 * input's form message (the question a person reads: src/mcp/inputs.ts) and sampling prompt, the command's
 * own and its prompt's (docs/inputs.md).
 */
export function surfaceTextProblems(
  surface: { description?: unknown; commands?: readonly unknown[] },
  surfaceFile: string,
): Problem[] {
  const out: Problem[] = [];
  let surfaceText: string | undefined;
  // each text checked where it is met, its path spelt out only for a find (a list of every text with its
  // path first was ~13 KB of objects a pack, checked twice a pack by generate: ~130 MB at 5,000 packs)
  const found = (text: unknown, imports: boolean): UnsafeText | undefined =>
    typeof text === "string" ? unsafeHostText(text, imports ? WITH_IMPORTS : NO_IMPORTS) : undefined;
  const report = (segs: (string | number)[], bad: UnsafeText, imports: boolean): void => {
    try {
      surfaceText ??= readTextFile(surfaceFile, display(surfaceFile), CAPS.pack);
    } catch {
      /* position unknown */
    }
    const pos = surfaceText !== undefined ? locate(surfaceText, segs) : undefined;
    out.push({
      code: "host_text_unsafe",
      severity: "error",
      message: `${pathToString(segs)} holds ${bad.what}`,
      file: display(surfaceFile),
      path: pathToString(segs),
      line: pos?.line,
      column: pos?.column,
      hint: bad.hint ?? (imports ? HINT : SCHEMA_HINT),
    });
  };
  const isMap = (o: unknown): o is Record<string, unknown> => o !== null && typeof o === "object" && !Array.isArray(o);
  const field = (o: unknown, k: string): unknown =>
    o !== null && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined;
  const inputTexts = (set: Record<string, unknown>, at: (string | number)[]): void => {
    for (const key of Object.keys(set))
      for (const k of INPUT_KEYS) {
        const bad = found(field(set[key], k), false);
        if (bad) report([...at, key, k], bad, false);
      }
  };
  let bad = found(surface.description, true);
  if (bad) report(["description"], bad, true);
  (surface.commands ?? []).forEach((c, i) => {
    for (const k of TEXT_KEYS) if ((bad = found(field(c, k), true))) report(["commands", i, k], bad, true);
    const args = field(c, "args");
    if (isMap(args))
      for (const name of Object.keys(args))
        if ((bad = found(field(args[name], "description"), false)))
          report(["commands", i, "args", name, "description"], bad, false);
    // an input's form message and sampling prompt: the command's own inputs, then its prompt's
    const own = field(c, "inputs");
    const prompted = field(field(c, "prompt"), "inputs");
    if (isMap(own)) inputTexts(own, ["commands", i, "inputs"]);
    if (isMap(prompted)) inputTexts(prompted, ["commands", i, "prompt", "inputs"]);
  });
  return out;
}

// Pack text that lands in host files — the Skill (frontmatter leads and
// description, body: copied to every host's skills dir, leads in the prompt
// block of CLAUDE.md / AGENTS.md / rule files), the surface's description and
// command summaries — must not break those files. Refused: the hcp block
// markers (anywhere: a block holding one could not be found or removed again),
// control characters other than tab and line breaks (NUL, ESC, DEL, C1: they
// corrupt a file or a terminal showing it), a lone CR, U+2028/U+2029 (line
// breaks to some readers, not to others), and the bidi embedding, override and
// isolate controls (they make a reviewed diff show other text than the file
// holds). In what lands in an instructions file (the leads, the Skill's
// description, the surface's description and command summaries and
// descriptions) an import directive is refused too: `@path` at the start or
// after white space, which Claude Code and Gemini CLI read as a file to import
// (`@~/.ssh/id_rsa`). Used by `hcpx lint` (rule `host_text_unsafe`, an error) and by the
// host engine, which refuses such a pack before planning anything.
import { CAPS, readTextFile } from "../util/readfile";
import type { Problem } from "../util/errors";
import { pathToString } from "../util/errors";
import { display } from "../util/paths";
import { locate } from "./json5";
import type { Pack } from "./model";

const MARKERS = ["<!-- hcp:begin -->", "<!-- hcp:end -->"];
const BAD_CHAR = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

/**
 * An import directive: `@` at the start or after white space, then what starts a path (`~`, `/`, `.`, `\\`,
 * a letter, digit or `_`). Claude Code (CLAUDE.md) and Gemini CLI (GEMINI.md) read `@path` in an instructions
 * file as a file to import into the model's context (`@~/.ssh/id_rsa`). An e-mail address (`a@b.com`: no white
 * space before the `@`) is not one.
 */
const IMPORT = /(?:^|\s)(@[~/.\\\p{L}\p{N}_]\S{0,39})/u;
const IMPORT_HINT =
  "remove the @ before the path, or rephrase: Claude Code and Gemini CLI read @path in an instructions file (CLAUDE.md, GEMINI.md) as a file to import; an e-mail address (a@b.com) is fine";

export interface UnsafeText {
  index: number;
  what: string;
  /** what to do, when not the general HINT */
  hint?: string;
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
  if (c && (!best || c.index < best.index)) {
    const ch = c[0].charCodeAt(0);
    const name =
      ch === 0x0d
        ? "a carriage return not followed by a line feed"
        : `the control character U+${ch.toString(16).toUpperCase().padStart(4, "0")}`;
    best = { index: c.index, what: name };
  }
  const imp = opts.imports ? IMPORT.exec(text) : null;
  if (imp) {
    const index = imp.index + imp[0].length - imp[1]!.length;
    if (!best || index < best.index)
      best = {
        index,
        what: `the import directive ${imp[1]!}…: Claude Code and Gemini CLI read @path in an instructions file as a file to import`,
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

const HINT =
  "remove it: this text is copied into host files (CLAUDE.md, AGENTS.md, rule files, Skill copies), where a marker or a control character breaks them";

/**
 * Problems (code `host_text_unsafe`, errors) for the pack texts that reach host
 * files. `skillText`: SKILL.md as read (read here when not given; an unreadable
 * one is left to the Skill's own checks).
 */
export function hostTextProblems(
  pack: Pack,
  skillText?: string,
  parsed?: { leads: string[]; description: string },
): Problem[] {
  let skill = skillText;
  if (skill === undefined) {
    try {
      skill = readTextFile(pack.skillFile, display(pack.skillFile), CAPS.skill);
    } catch {
      skill = undefined;
    }
  }
  const out = skill !== undefined ? skillProblems(pack, skill) : [];
  // the frontmatter's values as YAML decodes them (an escape such as "\u001b" is the character itself)
  if (parsed && !out.length) out.push(...frontmatterProblems(pack, skill, parsed));
  out.push(...surfaceProblems(pack));
  return out;
}

/** SKILL.md as a whole: a marker or control character anywhere in it. */
function skillProblems(pack: Pack, skill: string): Problem[] {
  const bad = unsafeHostText(skill);
  if (!bad) return [];
  return [
    {
      code: "host_text_unsafe",
      severity: "error",
      message: `SKILL.md holds ${bad.what}`,
      file: display(pack.skillFile),
      ...lineColOf(skill, bad.index),
      hint: HINT,
    },
  ];
}

/** The Skill's description and leads as YAML decoded them. */
function frontmatterProblems(
  pack: Pack,
  skill: string | undefined,
  parsed: { leads: string[]; description: string },
): Problem[] {
  const out: Problem[] = [];
  const fmLine = (key: string) => {
    const i = (skill ?? "").split(/\r?\n/).findIndex((l) => l.startsWith(`${key}:`));
    return i >= 0 ? i + 1 : undefined;
  };
  const vals: [string, string, string][] = [
    ["description", "description", parsed.description],
    ...parsed.leads.map((l, i): [string, string, string] => ["leads", `leads[${i}]`, l]),
  ];
  for (const [key, path, v] of vals) {
    const bad = unsafeHostText(v, { imports: true });
    if (bad)
      out.push({
        code: "host_text_unsafe",
        severity: "error",
        message: `the Skill's ${path} holds ${bad.what}`,
        file: display(pack.skillFile),
        line: fmLine(key),
        path,
        hint: bad.hint ?? HINT,
      });
  }
  return out;
}

/** The surface's description and each command's summary/description, placed in the pack file. */
function surfaceProblems(pack: Pack): Problem[] {
  const out: Problem[] = [];
  const texts: { segs: (string | number)[]; text: string | undefined }[] = [
    { segs: ["description"], text: pack.surface.description },
  ];
  (pack.surface.commands ?? []).forEach((c, i) => {
    const cmd = c as { summary?: unknown; description?: unknown };
    for (const k of ["summary", "description"] as const)
      if (typeof cmd[k] === "string") texts.push({ segs: ["commands", i, k], text: cmd[k] });
  });
  let surfaceText: string | undefined;
  for (const t of texts) {
    if (typeof t.text !== "string") continue;
    const bad = unsafeHostText(t.text, { imports: true });
    if (!bad) continue;
    try {
      surfaceText ??= readTextFile(pack.surfaceFile, display(pack.surfaceFile), CAPS.pack);
    } catch {
      /* position unknown */
    }
    const pos = surfaceText !== undefined ? locate(surfaceText, t.segs) : undefined;
    out.push({
      code: "host_text_unsafe",
      severity: "error",
      message: `${pathToString(t.segs)} holds ${bad.what}`,
      file: display(pack.surfaceFile),
      path: pathToString(t.segs),
      line: pos?.line,
      column: pos?.column,
      hint: bad.hint ?? HINT,
    });
  }
  return out;
}

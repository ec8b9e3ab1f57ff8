// SKILL.md: YAML frontmatter (name, description, leads) + a body whose hot-path
// table has one row per command: | `verb` | what it does | read/write |
import { HcpxError } from "../util/errors";
import { CAPS, fileId, readTextFile } from "../util/readfile";
import { display } from "../util/paths";
import { schemas, VERB_KEY_RE, type Schemas, type SkillFrontmatter } from "./schema";
import { validate } from "./validate";
import { simpleFrontmatter } from "./frontmatter";
import { leadProblems } from "./leads";
import { skillTextProblems } from "./hosttext";
import type { Pack } from "./model";
import { readPolicyCell, rowVerb } from "./policycell";
import { cachedValueOf, markValidated } from "./validcache";

/**
 * The `yaml` package's parse, for a frontmatter simpleFrontmatter declines (rare: a Skill's is a few plain
 * keys): a require() that esbuild bundles as a lazily run module, so a command that reads only plain ones
 * skips the package's start (cpu profile, adopt claude --write: ~0.4 ms). Node resolves it under vitest.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazily run bundled module (see above)
const parseYaml = (text: string): unknown => (require("yaml") as typeof import("yaml")).parse(text);

export interface HotPathRow {
  verb: string;
  /** 1-based line in SKILL.md */
  line: number;
  /** the raw line, as written */
  raw: string;
  cells: string[];
  /** `read` / `write` from the last cell (`| read |`, `| write, confirm |`), when present. */
  operation?: "read" | "write";
  /** true when the last cell carries a confirm marker (`confirm`, `⚠ confirm`, `needs confirm`). */
  confirm: boolean;
}

export interface Skill {
  file: string;
  text: string;
  frontmatter: SkillFrontmatter;
  /** raw frontmatter block text (between the --- lines) */
  frontmatterText: string;
  body: string;
  /** line number (1-based) of the first body line */
  bodyLine: number;
  leads: string[];
  rows: HotPathRow[];
}

/** The validation cache's kind for a SKILL.md's frontmatter (validcache.ts): the value its YAML parsed to. */
const FRONTMATTER: keyof Schemas = "SkillFrontmatterSchema";

/** A SKILL.md as read from its file: its id (path \0 identity) and when it was read (validcache.ts). */
export interface SkillRead {
  id: string;
  readAt: number;
}

/**
 * The Skill in `text` (read from `file`, as shown). With `read`, the frontmatter goes through the validation
 * cache (validcache.ts): a file that, as it is now, parsed and validated clean before gives the value
 * remembered then, without the YAML reader or the schemas (zod's start); the checks of its leads and text
 * and the table's rows run every time.
 */
export function parseSkill(text: string, file: string, read?: SkillRead): Skill {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(src);
  if (!m) {
    throw new HcpxError({
      code: "skill_frontmatter",
      message: "SKILL.md has no YAML frontmatter",
      file,
      line: 1,
      hint: "start the file with ---, name: <pack id>, description: …, leads: […], then ---",
    });
  }
  const data = frontmatterOf(m[1]!, file, read);
  const body = src.slice(m[0].length);
  const bodyLine = m[0].split("\n").length;
  const leadsRaw = data.leads;
  const leads =
    leadsRaw === undefined ? [] : Array.isArray(leadsRaw) ? leadsRaw : leadsRaw.split(/\r?\n/).filter((l) => l.trim());
  // each lead is one bounded line of every host's prompt block, and no text of the Skill holds a marker, a
  // control or an invisible character: refused here, so every command agrees (./leads.ts, ./hosttext.ts)
  const bad = leadProblems(leads, Array.isArray(leadsRaw), m[1]!, file);
  const values = data as unknown as Record<string, unknown>;
  const skipLeads = new Set(bad.flatMap((p) => (p.path ? [p.path] : [])));
  bad.push(...skillTextProblems(file, text, { frontmatter: values, frontmatterText: m[1]!, leads }, skipLeads));
  if (bad.length) throw new HcpxError(bad);
  const rows: HotPathRow[] = [];
  body.split(/\r?\n/).forEach((raw, i) => {
    const cells = splitRow(raw);
    if (!cells || cells.length < 2) return;
    const verb = rowVerb(cells[0]!);
    if (!VERB_KEY_RE.test(verb) || /^-+$/.test(cells[0]!)) return;
    if (/^(verb|command|verb_key)$/i.test(verb)) return; // header
    const { operation, confirm } = readPolicyCell(cells.length >= 3 ? cells[cells.length - 1]! : "");
    rows.push({ verb, line: bodyLine + i, raw, cells, operation, confirm });
  });
  return { file, text, frontmatter: data, frontmatterText: m[1]!, body, bodyLine, leads, rows };
}

function splitRow(line: string): string[] | undefined {
  const t = line.trim();
  if (!t.startsWith("|")) return undefined;
  const inner = t.replace(/^\|/, "").replace(/\|$/, "");
  return inner.split("|").map((c) => c.trim());
}

/**
 * The frontmatter block's value, read (YAML) and validated; with `read`, the value remembered when the file,
 * as it is now, did both clean before (validcache.ts): neither the YAML reader nor the schemas run then.
 */
function frontmatterOf(block: string, file: string, read: SkillRead | undefined): SkillFrontmatter {
  const remembered = read && cachedValueOf(FRONTMATTER, read.id, CAPS.skill, block);
  if (remembered) return remembered.value as SkillFrontmatter;
  let fm: unknown;
  try {
    fm = simpleFrontmatter(block) ?? parseYaml(block);
  } catch (e) {
    const err = e as Error & { linePos?: { line: number; col: number }[] };
    const pos = err.linePos?.[0];
    throw new HcpxError({
      code: "skill_frontmatter",
      message: `frontmatter is not valid YAML: ${err.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")}`,
      file,
      line: pos ? pos.line + 1 : 2,
      column: pos?.col,
    });
  }
  if (fm === null || typeof fm !== "object" || Array.isArray(fm)) {
    throw new HcpxError({
      code: "skill_frontmatter",
      message: "frontmatter must be a YAML mapping (name, description, leads)",
      file,
      line: 2,
    });
  }
  let v;
  try {
    v = validate(schemas().SkillFrontmatterSchema, fm, file, undefined);
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    // Point each problem at its frontmatter line (`key:` at the top level).
    const fmLines = block.split(/\r?\n/);
    throw new HcpxError(
      e.problems.map((p) => {
        const key = p.path?.split(/[.[]/)[0];
        const i = key ? fmLines.findIndex((l) => l.startsWith(`${key}:`)) : -1;
        return {
          ...p,
          line: i >= 0 ? i + 2 : 2,
          hint: p.hint ?? "fix the SKILL.md frontmatter (between the --- lines)",
        };
      }),
    );
  }
  if (read && v.warnings.length === 0) markValidated(FRONTMATTER, read.id, v.data, read.readAt, block);
  return v.data;
}

export function loadSkill(pack: Pack): Skill {
  const identity: { id?: string } = {};
  const readAt = Date.now();
  const text = readSkillText(pack.skillFile, identity);
  // readTextFile sets the identity whenever asked for it, as readJson5 takes it (json5.ts)
  return parseSkill(text, display(pack.skillFile), { id: fileId(pack.skillFile, identity.id!), readAt });
}

/** SKILL.md's text: a regular file of at most CAPS.skill bytes (src/util/readfile.ts); with `identity`, its identity too. */
export function readSkillText(file: string, identity?: { id?: string }): string {
  try {
    return readTextFile(file, display(file), CAPS.skill, identity);
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    throw new HcpxError(
      e.problems.map((p) => ({
        ...p,
        hint: p.hint ?? "every pack has a SKILL.md with frontmatter and a hot-path table",
      })),
    );
  }
}

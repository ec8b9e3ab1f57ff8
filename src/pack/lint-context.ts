// What a lint rule sees (src/pack/lint-rules.ts and each adapter entry's
// `lint`): the pack's surface and commands, the adapter entry of its kind, the
// options, the Skill (loaded once, on first ask), and the builders of a
// finding in surface.json, policy.json or SKILL.md with its line.
import { HcpxError, pathToString, type Problem } from "../util/errors";
import { display } from "../util/paths";
import { CAPS, readTextFile } from "../util/readfile";
import type { LintCode } from "../util/lint-codes";
import { locate } from "./json5";
import type { Pack, Project } from "./model";
import type { CommandSpec, SurfaceFile } from "./schema";
import { loadSkill, type Skill } from "./skill";
import { adapterOf, type AdapterEntry } from "./adapters/index";
import type { KindLintContext, LintRule, Seg } from "./adapters/types";

export type { Seg };
export type Severity = "error" | "warning";

export interface LintOptions {
  /** When linting a project's packs: check bare bins against sandbox.bins. */
  project?: Project;
}

/** The Skill as lint reads it: parsed, or absent with the problems of its loading. */
export interface SkillLoad {
  skill?: Skill;
  problems: Problem[];
}

export interface LintContext extends KindLintContext {
  pack: Pack;
  /** the entry of the pack's kind in the adapter table (undefined for a kind it does not know) */
  entry: AdapterEntry | undefined;
  opts: LintOptions;
  /** the Skill, loaded on the first call (its load errors become findings) */
  skill(): SkillLoad;
  /** a finding at a JSON path of policy.json */
  inPolicy(segs: Seg[], code: LintCode, severity: Severity, message: string, hint?: string): Problem;
  /** a finding at a line of SKILL.md (with the frontmatter key path, if any) */
  inSkill(
    line: number | undefined,
    code: LintCode,
    severity: Severity,
    message: string,
    hint?: string,
    path?: string,
  ): Problem;
}

/** A rule every kind shares: it reads the loaded pack. */
export type PackLintRule = LintRule<Pack, LintContext>;

function readTextSafe(file: string): string | undefined {
  try {
    return readTextFile(file, file, CAPS.pack);
  } catch {
    return undefined;
  }
}

/** The context of one lint run. `skill`: a parsed Skill; undefined → load it on first ask; null → no Skill rules. */
export function lintContext(pack: Pack, skill: Skill | null | undefined, opts: LintOptions): LintContext {
  const s: SurfaceFile = pack.surface;
  const texts = { surface: readTextSafe(pack.surfaceFile), policy: readTextSafe(pack.policyFile) };
  const files = { surface: display(pack.surfaceFile), policy: display(pack.policyFile) };
  const skillFile = display(pack.skillFile);
  const inFile =
    (which: "surface" | "policy") =>
    (segs: Seg[], code: LintCode, severity: Severity, message: string, hint?: string): Problem => {
      const text = texts[which];
      const pos = text !== undefined ? locate(text, segs) : undefined;
      const path = pathToString(segs) || undefined;
      return { code, severity, message, hint, file: files[which], path, line: pos?.line, column: pos?.column };
    };
  let loaded: SkillLoad | undefined;
  const specs: CommandSpec[] = s.commands ?? [];
  return {
    pack,
    surface: s,
    specs,
    passThrough: s.pass_through ?? s.wrap?.pass_through,
    ptPath: s.pass_through ? ["pass_through"] : ["wrap", "pass_through"],
    entry: adapterOf(s.kind),
    opts,
    at: inFile("surface"),
    inPolicy: inFile("policy"),
    inSkill: (line, code, severity, message, hint, path) => ({
      code,
      severity,
      message,
      hint,
      file: skillFile,
      line,
      path,
    }),
    skill: () => (loaded ??= skill === undefined ? loadSkillCaught(pack) : { skill: skill ?? undefined, problems: [] }),
  };
}

function loadSkillCaught(pack: Pack): SkillLoad {
  try {
    return { skill: loadSkill(pack), problems: [] };
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    return { problems: [...e.problems] };
  }
}

// The `hcpx pack add-verb <pack-dir>` use case: adds commands to an existing
// wrap pack: surface.json (the command), policy.json (its row) and SKILL.md
// (hot-path row, example line, a note for a write) in one step, editing the
// JSON5 files in place (comments and layout kept), through the one write door
// (the three land together or not at all). The specs are those of `pack new`
// (src/scaffold/spec.ts). The pack is linted after: an error fails the run.
// Nothing here prints.
import { basename } from "node:path";
import { HcpxError, fail, type Problem } from "../util/errors";
import { display } from "../util/paths";
import { baseForDir, guard, writeFiles } from "../util/door";
import { CAPS, readTextToEdit } from "../util/readfile";
import { arrayAppend, objectSet } from "../config/edit";
import { loadPack } from "../pack/load";
import { lintPackDir } from "../pack/lint";
import { parseSkill } from "../pack/skill";
import { readOnlyWordsDropped } from "../pack/skillsync";
import { adapterOf } from "../pack/adapters/index";
import {
  exampleLine,
  hotPathRow,
  policyRow,
  wrapCommand,
  wrapCommandObject,
  writeNote,
  type Cmd,
} from "../scaffold/pack";
import { parseVerbSpecs } from "../scaffold/spec";

/** What `pack add-verb` is asked: the pack, and the commands as `pack new`'s specs. */
export interface AddVerbOptions {
  dir: string;
  /** read commands (`verb=argv…`) */
  verb?: string[];
  /** write commands (`verb:land:confirm=argv…`) */
  write?: string[];
  land?: string;
  confirm?: boolean;
}

/** What was added, to which files, and what lint still says (warnings only: an error throws). */
export interface AddVerbReport {
  id: string;
  dir: string;
  cmds: Cmd[];
  /** the three files written (display paths) */
  files: string[];
  warnings: Problem[];
}

/** SKILL.md with the commands' rows, example lines and notes added (line-based; every other line kept). */
export function addToSkill(text: string, file: string, id: string, cmds: Cmd[]): string {
  const skill = parseSkill(text, file);
  const nl = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text.split(/\r?\n/);
  const fmEnd = lines.findIndex((l, i) => i > 0 && /^---\s*$/.test(l));
  const writes = cmds.filter((x) => x.operation === "write");
  // The scaffold's own words for a pack without writes, corrected when a write arrives.
  if (writes.length) readOnlyWordsDropped(lines, fmEnd);
  // 1. hot-path rows after the last row, or a new table at the end
  const rows = cmds.map(hotPathRow);
  const notes = [
    ...cmds
      .filter((x) => x.output === "json")
      .map((x) => `- \`${x.verb}\` prints JSON: its result is the parsed value.`),
    ...writes.map((x) => writeNote(id, x)),
  ];
  const inserts: { at: number; lines: string[] }[] = [];
  if (skill.rows.length) inserts.push({ at: skill.rows[skill.rows.length - 1]!.line, lines: rows });
  // 2. example lines after the last `hcpx exec <id> …` line of a code block
  let fence: string | undefined;
  let lastExample = -1;
  for (let i = fmEnd + 1; i < lines.length; i++) {
    const m = /^\s*(```+|~~~+)/.exec(lines[i]!);
    if (fence) {
      if (m && m[1]!.startsWith(fence)) fence = undefined;
      else if (new RegExp(`^\\s*(?:\\$\\s*)?hcpx exec ${id} `).test(lines[i]!)) lastExample = i;
    } else if (m) fence = m[1]!;
  }
  if (lastExample >= 0) inserts.push({ at: lastExample + 1, lines: cmds.map((x) => exampleLine(id, x)) });
  // 3. notes at the end of the `## Notes` section
  const notesAt = lines.findIndex((l, i) => i > fmEnd && /^##\s+Notes\s*$/i.test(l));
  if (notes.length && notesAt >= 0) {
    let end = notesAt + 1;
    for (let i = notesAt + 1; i < lines.length && !/^#{1,2}\s/.test(lines[i]!); i++) if (lines[i]!.trim()) end = i + 1;
    inserts.push({ at: end, lines: notes });
  }
  inserts.sort((a, b) => b.at - a.at);
  for (const ins of inserts) lines.splice(ins.at, 0, ...ins.lines);
  while (lines.length && lines[lines.length - 1] === "") lines.pop();
  if (!skill.rows.length)
    lines.push("", "## Hot path", "", "| verb | what it does | read/write |", "|---|---|---|", ...rows);
  if (notes.length && notesAt < 0) lines.push("", "## Notes", "", ...notes);
  return lines.join(nl) + nl;
}

/** Add the commands to the pack's three files, then lint it. */
export function addVerbs(opts: AddVerbOptions): AddVerbReport {
  const reads = opts.verb ?? [];
  const writes = opts.write ?? [];
  if (reads.length === 0 && writes.length === 0)
    fail("usage", "say which command to add: --verb for a read, --write for a write", {
      hint: `hcpx pack add-verb ${opts.dir} --write "commit:local:confirm=commit -m {{message}}"`,
    });
  const specs = parseVerbSpecs(reads, writes, { land: opts.land, confirm: opts.confirm });
  const pack = loadPack(opts.dir);
  if (!adapterOf(pack.surface.kind)?.capabilities.cliArgv || !pack.surface.wrap) {
    fail("usage", `pack '${pack.id}' is kind '${pack.surface.kind}'; add-verb adds argv commands to a wrap pack`, {
      hint: "edit surface.json, policy.json and SKILL.md together (docs/pack-format.md)",
    });
  }
  const have = new Set(pack.commands.map((x) => x.verb_key));
  for (const s of specs) {
    if (have.has(s.verb))
      fail("verb_exists", `pack '${pack.id}' already has a command '${s.verb}'; nothing written`, {
        file: display(pack.surfaceFile),
        hint: "choose another verb_key, or edit the command in surface.json",
      });
  }
  const name = basename(pack.surface.wrap.bin);
  const cliName = pack.surface.commands?.find((x) => x.cli?.[0] && !x.cli[0].includes("{{"))?.cli?.[0] ?? pack.id;
  const cmds = specs.map((s) => wrapCommand(name, s));

  // the files as they are now, through the one bounded reader; none may be a link leading out of the pack's base
  const base = baseForDir(pack.dir);
  for (const f of [pack.surfaceFile, pack.policyFile, pack.skillFile]) guard(base, f);
  let surfaceText = readTextToEdit(pack.surfaceFile, display(pack.surfaceFile), CAPS.pack);
  let policyText = readTextToEdit(pack.policyFile, display(pack.policyFile), CAPS.pack);
  const skillText = readTextToEdit(pack.skillFile, display(pack.skillFile), CAPS.skill);
  for (const x of cmds) {
    surfaceText = arrayAppend(surfaceText, ["commands"], wrapCommandObject(cliName, x));
    policyText = objectSet(policyText, ["rows"], x.verb, policyRow(x));
  }
  const newSkill = addToSkill(skillText, display(pack.skillFile), pack.id, cmds);
  // surface, policy and Skill land together or not at all
  writeFiles(base, [
    { abs: pack.surfaceFile, data: surfaceText },
    { abs: pack.policyFile, data: policyText },
    { abs: pack.skillFile, data: newSkill },
  ]);

  const { problems } = lintPackDir(pack.dir);
  const errors = problems.filter((p: Problem) => p.severity !== "warning");
  if (errors.length)
    throw new HcpxError(
      errors.map((p) => ({ ...p, hint: p.hint ?? "fix it, then run `hcpx lint`" })),
      1,
    );
  const files = [pack.surfaceFile, pack.policyFile, pack.skillFile].map((f) => display(f));
  return { id: pack.id, dir: pack.dir, cmds, files, warnings: problems };
}

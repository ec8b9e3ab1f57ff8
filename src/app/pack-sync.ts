// The `hcpx pack sync <pack-dir> [--check]` use case: carries policy.json (the
// source of truth) into SKILL.md after a review: each hot-path row's
// read/write cell, rows for commands without one, and an openapi pack's lead
// and "the Policy is inferred" line (src/pack/skillsync.ts). Every other line
// of the Skill stays. With `check`, nothing is written; otherwise the Skill is
// written through the one write door and the pack linted after (an error fails
// the run). Nothing here prints.
import { HcpxError, type Problem } from "../util/errors";
import { display } from "../util/paths";
import { baseForDir, guard, writeFile } from "../util/door";
import { CAPS, readTextToEdit } from "../util/readfile";
import { loadPack } from "../pack/load";
import { lintPackDir } from "../pack/lint";
import { syncSkill } from "../pack/skillsync";

export interface PackSyncReport {
  id: string;
  /** the pack's folder and its SKILL.md (display paths) */
  dir: string;
  file: string;
  /** the Skill does not say what policy.json says */
  changed: boolean;
  /** what differs (or was carried over), one line each */
  changes: string[];
  written: boolean;
  /** what lint still finds after a sync (warnings only: an error throws); none with `check` */
  warnings?: Problem[];
}

/** Compare the pack's SKILL.md with its policy.json and, unless `check`, write the Skill that says what the Policy says. */
export function syncPack(opts: { dir: string; check?: boolean }): PackSyncReport {
  const pack = loadPack(opts.dir);
  const base = baseForDir(pack.dir);
  guard(base, pack.skillFile);
  const file = display(pack.skillFile);
  const text = readTextToEdit(pack.skillFile, file, CAPS.skill);
  const r = syncSkill(text, file, pack);
  const changed = r.changes.length > 0;
  const report = {
    id: pack.id,
    dir: display(pack.dir),
    file,
    changed,
    changes: r.changes,
    written: changed && !opts.check,
  };
  if (opts.check) return report;
  if (changed) writeFile(base, pack.skillFile, r.text);
  // the pack after the sync: what lint still finds is said (the sync changes only what it names)
  const { problems } = lintPackDir(pack.dir);
  const errors = problems.filter((p: Problem) => p.severity !== "warning");
  if (errors.length)
    throw new HcpxError(
      errors.map((p) => ({ ...p, hint: p.hint ?? "fix it, then run `hcpx lint`" })),
      1,
    );
  return { ...report, warnings: problems };
}

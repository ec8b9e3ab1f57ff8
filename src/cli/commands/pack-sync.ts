// hcpx pack sync <pack-dir> [--check]
// Carries policy.json (the source of truth) into SKILL.md after a review: each
// hot-path row's read/write cell, rows for commands without one, and an openapi
// pack's lead and "the Policy is inferred" line (src/pack/skillsync.ts). Every
// other line of the Skill stays. --check writes nothing and exits 1 when the
// Skill does not say what policy.json says.
import { HcpxError, type Problem } from "../../util/errors";
import { display } from "../../util/paths";
import { baseForDir, guard, writeFile } from "../../util/door";
import { CAPS, readTextFile } from "../../util/readfile";
import { loadPack } from "../../pack/load";
import { lintPackDir } from "../../pack/lint";
import { syncSkill } from "../../pack/skillsync";
import { c, finish, makeOut, printWarnings } from "../output";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

/** `hcpx pack sync`'s options, as the options schema (../spec.ts) types them, with the global ones. */
export type SyncOpts = OptionsOf<"pack sync"> & GlobalOpts;

export async function run(dirArg: string, opts: SyncOpts): Promise<number> {
  const out = makeOut(opts);
  const pack = loadPack(dirArg);
  const base = baseForDir(pack.dir);
  guard(base, pack.skillFile);
  const file = display(pack.skillFile);
  const text = readTextFile(pack.skillFile, file, CAPS.skill);
  const r = syncSkill(text, file, pack);
  const changed = r.changes.length > 0;
  const data = { id: pack.id, file, changed, changes: r.changes, written: changed && !opts.check };
  const list = r.changes.map((l) => `  ${l}`);
  if (opts.check) {
    return finish(
      out,
      changed ? 1 : 0,
      data,
      changed
        ? {
            code: "skill_out_of_date",
            message: `${file} does not say what policy.json says (${r.changes.length} change${r.changes.length === 1 ? "" : "s"})`,
            hint: `run \`hcpx pack sync ${display(pack.dir)}\``,
          }
        : undefined,
      (col) =>
        changed
          ? [`${c.yellow(col, "out of date")} ${file}:`, ...list, `run \`hcpx pack sync ${display(pack.dir)}\``].join(
              "\n",
            )
          : `${c.green(col, "✓")} ${file} says what policy.json says`,
    );
  }
  if (changed) writeFile(base, pack.skillFile, r.text);
  // the pack after the sync: what lint still finds is said (the sync changes only what it names)
  const { problems } = lintPackDir(pack.dir);
  const errors = problems.filter((p: Problem) => p.severity !== "warning");
  if (errors.length)
    throw new HcpxError(
      errors.map((p) => ({ ...p, hint: p.hint ?? "fix it, then run `hcpx lint`" })),
      1,
    );
  printWarnings(problems, out);
  return finish(out, 0, { ...data, warnings: problems }, undefined, (col) =>
    changed
      ? [
          `${c.green(col, "✓")} ${file}: ${r.changes.length} change${r.changes.length === 1 ? "" : "s"} from policy.json`,
          ...list,
        ].join("\n")
      : `${c.green(col, "✓")} ${file} already says what policy.json says`,
  );
}

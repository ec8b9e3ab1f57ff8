// hcpx pack sync <pack-dir> [--check]
// Carries policy.json (the source of truth) into SKILL.md after a review: each
// hot-path row's read/write cell, rows for commands without one, and an openapi
// pack's lead and "the Policy is inferred" line (src/pack/skillsync.ts). Every
// other line of the Skill stays. --check writes nothing and exits 1 when the
// Skill does not say what policy.json says. The use case is src/app/pack-sync.ts;
// this renders its report.
import { syncPack } from "../../app/pack-sync";
import { c, finish, makeOut, printWarnings } from "../output";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

/** `hcpx pack sync`'s options, as the options schema (../spec.ts) types them, with the global ones. */
export type SyncOpts = OptionsOf<"pack sync"> & GlobalOpts;

export async function run(dirArg: string, opts: SyncOpts): Promise<number> {
  const out = makeOut(opts);
  const r = syncPack({ dir: dirArg, check: opts.check });
  const { file, changed } = r;
  const data = { id: r.id, file, changed, changes: r.changes, written: r.written };
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
            hint: `run \`hcpx pack sync ${r.dir}\``,
          }
        : undefined,
      (col) =>
        changed
          ? [`${c.yellow(col, "out of date")} ${file}:`, ...list, `run \`hcpx pack sync ${r.dir}\``].join("\n")
          : `${c.green(col, "✓")} ${file} says what policy.json says`,
    );
  }
  const problems = r.warnings ?? [];
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

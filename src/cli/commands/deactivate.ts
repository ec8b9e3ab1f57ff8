// hcpx deactivate <id>: remove the pack from hcp.config.json5 `packs` and the
// allow patterns that name only it (`<id>.…`), unless --keep-grants. The use
// case is src/app/activate.ts deactivate(); this renders its report.
import { deactivate } from "../../app/activate";
import { c, done, makeOut } from "../output";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

export async function run(id: string, opts: OptionsOf<"deactivate"> & GlobalOpts): Promise<number> {
  const out = makeOut(opts);
  const r = deactivate(id, opts);
  const { removedGrants } = r;
  done(out, { pack: id, removed: r.removed, removedGrants, config: r.config }, (col) =>
    [
      `${c.green(col, "✓")} deactivated '${id}' (${r.removed.join(", ")})`,
      ...(removedGrants.length ? [`  removed grants: ${removedGrants.join(", ")}`] : []),
    ].join("\n"),
  );
  return 0;
}

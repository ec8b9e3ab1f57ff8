// hcpx revoke <pattern…> [--deny]: remove exact allow patterns from
// hcp.config.json5 (with --deny, add them to grants.deny). The use case is
// src/app/grants.ts revoke(); this renders its report.
import { display } from "../../util/paths";
import { revoke } from "../../app/grants";
import { c, done, makeOut, printWarnings } from "../output";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

export async function run(patterns: string[], opts: OptionsOf<"revoke"> & GlobalOpts): Promise<number> {
  const out = makeOut(opts);
  const r = revoke(patterns, opts);
  const { removed, denied, warnings } = r;
  const cfg = { file: r.config };
  printWarnings(warnings, out);
  done(out, { removed, denied, config: cfg.file, warnings }, (col) =>
    [
      ...removed.map((p) => `${c.green(col, "✓")} revoked ${p}`),
      ...denied.map((p) => `${c.green(col, "✓")} denied ${p}`),
      ...(removed.length || denied.length ? [`  in ${display(cfg.file)}`] : []),
    ].join("\n"),
  );
  return 0;
}

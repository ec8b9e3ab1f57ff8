// hcpx grant <pattern…>: add allow patterns to hcp.config.json5 (a typo of an
// active pack's command is refused, a pattern for a pack not active is kept
// with a warning). The use case is src/app/grants.ts grant(); this renders its
// report.
import { display } from "../../util/paths";
import type { CommonOpts } from "../../config/common";
import { grant } from "../../app/grants";
import { c, done, makeOut, printWarnings } from "../output";

export async function run(patterns: string[], opts: CommonOpts): Promise<number> {
  const out = makeOut(opts);
  const r = grant(patterns, opts);
  const { added, unchanged, patterns: result, warnings } = r;
  const cfg = { file: r.config };
  printWarnings(warnings, out);
  done(out, { added, unchanged, patterns: result, config: cfg.file, warnings }, (col) =>
    [
      ...added.map((p) => `${c.green(col, "✓")} granted ${p}${matchSuffix(result, p)}`),
      ...unchanged.map((p) => `  ${p} was already granted`),
      ...(added.length ? [`  in ${display(cfg.file)}`] : []),
    ].join("\n"),
  );
  return 0;
}

function matchSuffix(result: { pattern: string; matches: string[] }[], p: string): string {
  const m = result.find((r) => r.pattern === p)?.matches ?? [];
  if (m.length === 0 || (m.length === 1 && m[0] === p)) return "";
  return ` (${m.length} command${m.length === 1 ? "" : "s"}: ${m.slice(0, 6).join(", ")}${m.length > 6 ? ", …" : ""})`;
}

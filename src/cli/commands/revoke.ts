// hcpx revoke <pattern…>: remove exact allow patterns from hcp.config.json5.
// A command granted only through a wildcard is not revoked silently: the error
// says which pattern grants it and how to deny it instead (`--deny`, which adds
// the pattern to grants.deny).
import { display } from "../../util/paths";
import { checkPatterns, matches } from "../../pack/grants";
import { arrayAppend, arrayRemove } from "../../config/edit";
import { openConfig, writeConfig } from "../../config/file";
import { warning } from "../../config/common";
import { HcpxError, type Problem } from "../../util/errors";
import { c, done, makeOut, printWarnings } from "../output";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

export async function run(patterns: string[], opts: OptionsOf<"revoke"> & GlobalOpts): Promise<number> {
  const out = makeOut(opts);
  checkPatterns(patterns);
  const cfg = openConfig(opts);
  const allow = cfg.data.grants?.allow ?? [];
  const deny = [...(cfg.data.grants?.deny ?? [])];
  let text = cfg.text;
  const removed: string[] = [];
  const denied: string[] = [];
  const warnings: Problem[] = [];
  const errors: Problem[] = [];
  for (const p of patterns) {
    if (opts.deny) {
      if (!deny.includes(p)) {
        text = arrayAppend(text, ["grants", "deny"], p);
        deny.push(p);
        denied.push(p);
      }
      if (allow.includes(p)) {
        text = arrayRemove(text, ["grants", "allow"], p);
        removed.push(p);
      }
      continue;
    }
    if (allow.includes(p)) {
      text = arrayRemove(text, ["grants", "allow"], p);
      removed.push(p);
      const still = allow.filter((a) => a !== p && matches(a, p.replace(/\.\*$/, ".x")));
      if (still.length && !p.endsWith(".*"))
        warnings.push(
          warning(
            "still_granted",
            `${p} is still granted by ${still.map((s) => `'${s}'`).join(", ")}`,
            `hcpx revoke --deny ${p}`,
          ),
        );
      continue;
    }
    const by = allow.filter((a) => matches(a, p.endsWith(".*") ? p.slice(0, -1) + "x" : p));
    if (by.length) {
      errors.push({
        code: "granted_by_wildcard",
        message: `'${p}' is not an allow pattern itself; it is granted by ${by.map((s) => `'${s}'`).join(", ")}`,
        hint: `to withhold it, deny it: hcpx revoke --deny ${p}`,
      });
    } else warnings.push(warning("not_granted", `'${p}' was not granted; nothing to revoke`));
  }
  if (errors.length) throw new HcpxError(errors);
  if (text !== cfg.text) writeConfig(cfg.file, text);
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

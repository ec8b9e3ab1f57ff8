// hcpx activate <pack-dir>: add the pack to hcp.config.json5 (path relative to
// the config) and grant its read commands, one `pack.verb` each. Writes are
// never granted here: the output says how (`hcpx grant <pack>.<verb>`). The use
// case is src/app/activate.ts; this renders its report.
import { resolve } from "node:path";
import { display } from "../../util/paths";
import type { CommonOpts } from "../../config/common";
import { activateDir } from "../../app/activate";
import { c, done, makeOut, printWarnings } from "../output";
import { commandWord, grantedByLines } from "../grant-lines";

export async function run(dirArg: string, opts: CommonOpts): Promise<number> {
  const out = makeOut(opts);
  const dir = resolve(dirArg);
  const r = await activateDir(dir, opts);
  const { pack, entry, granted, withheld, grantedBy } = r;
  const already = r.alreadyActive;
  const cfg = { file: r.config };
  const lint = { warnings: r.warnings };
  printWarnings(lint.warnings, out);
  done(
    out,
    {
      pack: pack.id,
      dir,
      entry,
      config: cfg.file,
      alreadyActive: !!already,
      granted,
      withheld,
      grantedBy,
      warnings: lint.warnings,
    },
    (col) => {
      const lines = [
        already
          ? `${c.green(col, "✓")} '${pack.id}' was already active (${entry})`
          : `${c.green(col, "✓")} activated '${pack.id}' (${entry}) in ${display(cfg.file)}`,
        granted.length
          ? `${c.green(col, "✓")} granted ${granted.length} read command(s): ${granted.slice(0, 12).join(", ")}${granted.length > 12 ? `, … and ${granted.length - 12} more (--json lists them all)` : ""}`
          : "  no new read grants needed",
      ];
      lines.push(...grantedByLines(pack.id, grantedBy));
      if (withheld.length) {
        const shown = withheld.slice(0, 12).map((w) => commandWord(pack.id, w));
        lines.push(
          `  not granted: ${shown.join(", ")}${withheld.length > shown.length ? `, … and ${withheld.length - shown.length} more (--json lists them all)` : ""}`,
        );
        lines.push(`  to grant one: hcpx grant ${pack.id}.${withheld[0]!.verb}`);
      }
      return lines.join("\n");
    },
  );
  return 0;
}

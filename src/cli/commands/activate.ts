// hcpx activate <pack-dir>: add the pack to hcp.config.json5 (path relative to
// the config) and grant its read commands, one `pack.verb` each. Writes are
// never granted here: the output says how (`hcpx grant <pack>.<verb>`). The use
// case is src/app/activate.ts; this renders its report.
import { resolve } from "node:path";
import { display } from "../../util/paths";
import type { CommonOpts } from "../../config/common";
import { activateDir } from "../../app/activate";
import { c, done, makeOut, printWarnings } from "../output";
import { commandWord, grantedByLines, inferredHint, inferredLines } from "../grant-lines";

export async function run(dirArg: string, opts: CommonOpts): Promise<number> {
  const out = makeOut(opts);
  const dir = resolve(dirArg);
  const r = await activateDir(dir, opts);
  const { pack, entry, granted, withheld, grantedBy, inferred } = r;
  const shownDir = display(dir);
  // a read withheld because its row is a guess has its own line: why, and what to do
  const other = withheld.filter((w) => !inferred.includes(`${pack.id}.${w.verb}`));
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
      ...(inferred.length ? { inferred: { commands: inferred, hint: inferredHint(shownDir, inferred[0]!) } } : {}),
      warnings: lint.warnings,
    },
    (col) => {
      const lines = [
        already
          ? `${c.green(col, "✓")} '${pack.id}' was already active (${entry})`
          : `${c.green(col, "✓")} activated '${pack.id}' (${entry}) in ${display(cfg.file)}`,
        granted.length
          ? `${c.green(col, "✓")} granted ${granted.length} read command(s): ${granted.slice(0, 12).join(", ")}${granted.length > 12 ? `, … and ${granted.length - 12} more (--json lists them all)` : ""}`
          : inferred.length
            ? "  no read granted"
            : "  no new read grants needed",
      ];
      lines.push(...grantedByLines(pack.id, grantedBy));
      const words = withheld.filter((w) => !other.includes(w)).map((w) => commandWord(pack.id, w));
      lines.push(...inferredLines(shownDir, inferred, words));
      if (other.length) {
        const shown = other.slice(0, 12).map((w) => commandWord(pack.id, w));
        lines.push(
          `  not granted: ${shown.join(", ")}${other.length > shown.length ? `, … and ${other.length - shown.length} more (--json lists them all)` : ""}`,
        );
        lines.push(`  to grant one: hcpx grant ${pack.id}.${other[0]!.verb}`);
      }
      return lines.join("\n");
    },
  );
  return 0;
}

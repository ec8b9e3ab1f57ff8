// `hcpx generate --as claude-plugin|gemini-extension|mcpb DIR [--check] [--json]`:
// the packs as a Claude Code plugin or a Gemini CLI extension. The use case
// (src/app/bundle.ts) plans and writes; this renders its report.
import { bundle } from "../../app/bundle";
import { display } from "../../util/paths";
import { done, makeOut, printWarnings } from "../output";

export async function run(
  kind: string,
  dir: string | undefined,
  opts: { check?: boolean; json?: boolean },
  globals: { config?: string },
): Promise<number> {
  const out = makeOut(opts);
  const r = await bundle({ kind, dir, check: opts.check, config: globals.config });
  const { plan, drift } = r;
  printWarnings(plan.warnings, out);
  if (opts.check) {
    const differ = [...new Set(drift.map((d) => d.path))];
    done(
      out,
      { kind, dir: display(r.dir), inSync: drift.length === 0, differ, drift, warnings: plan.warnings },
      drift.length
        ? `${kind} ${display(r.dir)}: out of date: ${drift.map((d) => `${d.path} (${d.kind})`).join(", ")}`
        : `${kind} ${display(r.dir)}: in sync`,
    );
    return drift.length ? 1 : 0;
  }
  printWarnings(plan.conflicts, out);
  const res = r.applied!;
  // --json: the warnings and conflicts the text run prints on stderr, in the envelope (as `hcpx generate` does)
  done(
    out,
    {
      kind,
      dir: display(r.dir),
      files: r.files,
      written: res.written,
      removed: res.deleted,
      conflicts: plan.conflicts,
      warnings: plan.warnings,
    },
    `${kind} written to ${display(r.dir)}: ${res.written.length} file(s) written, ${r.files.length - res.written.length} unchanged${res.deleted.length ? `, ${res.deleted.length} removed (no longer bundled): ${res.deleted.join(", ")}` : ""}`,
  );
  return 0;
}

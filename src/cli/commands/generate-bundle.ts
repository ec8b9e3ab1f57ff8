// `hcpx generate --as claude-plugin|gemini-extension|mcpb DIR [--check] [--json]`:
// the packs as a Claude Code plugin or a Gemini CLI extension (src/host/bundle.ts),
// planned and written like generate's out dir (src/plan/).
import { loadPacks, loadProject } from "../../pack/load";
import { fail } from "../../util/errors";
import { didYouMean } from "../../util/suggest";
import { listHosts } from "../../host/descriptor";
import { display } from "../../util/paths";
import { planBundle, renderBundle } from "../../host/bundle";
import { applyPlan } from "../../plan/apply";
import { driftOf } from "../../plan/drift";
import { done, makeOut, printWarnings } from "../output";

export async function run(kind: string, dir: string | undefined, opts: { check?: boolean; json?: boolean }, globals: { config?: string }): Promise<number> {
  const out = makeOut(opts);
  const bundles = listHosts("bundle");
  if (!bundles.includes(kind)) fail("usage", `unknown bundle kind '${kind}'`, { hint: `${didYouMean(kind, bundles)}--as ${bundles.join(" | ")}` });
  if (!dir) fail("usage", `--as ${kind} needs a directory`, { hint: `hcpx generate --as ${kind} ./hcp-packs` });
  const project = loadProject({ config: globals.config, user: "fallback" });
  const packs = loadPacks(project);
  const b = await renderBundle(kind, dir, project, packs);
  const plan = planBundle(kind, b.dir, b.files);
  printWarnings(plan.warnings, out);
  if (opts.check) {
    const drift = driftOf(plan);
    const differ = [...new Set(drift.map((d) => d.path))];
    done(out, { kind, dir: display(b.dir), inSync: drift.length === 0, differ, drift }, drift.length ? `${kind} ${display(b.dir)}: out of date: ${drift.map((d) => `${d.path} (${d.kind})`).join(", ")}` : `${kind} ${display(b.dir)}: in sync`);
    return drift.length ? 1 : 0;
  }
  printWarnings(plan.conflicts, out);
  const res = applyPlan(plan);
  done(out, { kind, dir: display(b.dir), files: b.files.map((f) => f.path), written: res.written, removed: res.deleted }, `${kind} written to ${display(b.dir)}: ${res.written.length} file(s) written, ${b.files.length - res.written.length} unchanged${res.deleted.length ? `, ${res.deleted.length} removed (no longer bundled): ${res.deleted.join(", ")}` : ""}`);
  return 0;
}

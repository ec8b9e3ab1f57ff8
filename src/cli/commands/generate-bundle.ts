// `hcpx generate --as claude-plugin|gemini-extension DIR [--check] [--json]`:
// the packs as a Claude Code plugin or a Gemini CLI extension (src/host/bundle.ts).
import { loadPacks, loadProject } from "../../pack/load";
import { fail } from "../../util/errors";
import { didYouMean } from "../../util/suggest";
import { listHosts } from "../../host/descriptor";
import { display } from "../../util/paths";
import { renderBundle, writeBundle } from "../../host/bundle";
import { readEntry } from "../../host/fsio";
import { join } from "node:path";
import { done, makeOut } from "../output";

export async function run(kind: string, dir: string | undefined, opts: { check?: boolean; json?: boolean }, globals: { config?: string }): Promise<number> {
  const out = makeOut(opts);
  const bundles = listHosts("bundle");
  if (!bundles.includes(kind)) fail("usage", `unknown bundle kind '${kind}'`, { hint: `${didYouMean(kind, bundles)}--as ${bundles.join(" | ")}` });
  if (!dir) fail("usage", `--as ${kind} needs a directory`, { hint: `hcpx generate --as ${kind} ./hcp-packs` });
  const project = loadProject({ config: globals.config });
  const packs = loadPacks(project);
  const b = await renderBundle(kind, dir, project, packs);
  if (opts.check) {
    const differ = b.files.filter((f) => {
      const e = readEntry(join(b.dir, f.path));
      return e.kind !== "file" || e.text !== f.content;
    });
    done(out, { kind, dir: display(b.dir), inSync: differ.length === 0, differ: differ.map((f) => f.path) }, differ.length ? `${kind} ${display(b.dir)}: out of date: ${differ.map((f) => f.path).join(", ")}` : `${kind} ${display(b.dir)}: in sync`);
    return differ.length ? 1 : 0;
  }
  const written = writeBundle(kind, b.dir, b.files);
  done(out, { kind, dir: display(b.dir), files: b.files.map((f) => f.path), written }, `${kind} written to ${display(b.dir)}: ${written.length} file(s) written, ${b.files.length - written.length} unchanged`);
  return 0;
}

// `hcpx generate --as claude-plugin DIR` / `--as gemini-extension DIR`: the
// projection packed as a Claude Code plugin or a Gemini CLI extension (MCP entry
// `hcpx mcp`, Skill copies, the prompt block as context). Bundles are host
// descriptors of kind "bundle" rendered by the same engine, paths relative to DIR.
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { Pack, Project } from "../pack/model";
import { buildProjection } from "../projection/build";
import type { PlannedFile } from "../projection/types";
import { HcpxError } from "../util/errors";
import { display } from "../util/paths";
import { listHosts, loadDescriptor } from "./descriptor";
import { planAdopt } from "./engine";
import { atomicWrite, guardPath, readEntry } from "./fsio";

const NAME_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export interface BundleResult {
  dir: string;
  files: PlannedFile[];
  written: string[];
}

export async function renderBundle(kind: string, dirArg: string, project: Project, packs: Pack[], opts: { command?: string } = {}): Promise<{ dir: string; files: PlannedFile[] }> {
  const bundles = listHosts("bundle");
  if (!bundles.includes(kind)) throw new HcpxError({ code: "bad_args", message: `unknown bundle kind '${kind}'`, hint: `--as ${bundles.join(" | ")}` });
  const desc = loadDescriptor(kind);
  const dir = resolve(dirArg);
  const name = basename(dir);
  if (!NAME_RE.test(name)) {
    throw new HcpxError({ code: "bad_args", message: `the ${desc.name} directory name '${name}' is not kebab-case`, file: display(dir), hint: "the directory name is the bundle's name: lower-case letters, digits and single dashes, e.g. ./hcp-packs" });
  }
  const skillsTarget = desc.scopes.project!.targets.find((t) => t.format === "dir-of-skills");
  const projection = buildProjection(project, packs, { skillsPath: skillsTarget ? String(skillsTarget.path) : "skills" });
  if (projection.skills.some((s) => s.packId === "hcp")) throw new HcpxError({ code: "bad_args", message: "a pack named 'hcp' collides with the bundle's own `hcp` skill", hint: "rename the pack" });
  const description = `HCP packs through hcpx: ${projection.packs.map((p) => p.pack.id).join(", ") || "none granted"}. Every call goes through the hcpx runtime (grants, confirm, binding).`;
  const plan = await planAdopt(project, [kind], () => projection, {
    scope: "project",
    preview: true,
    command: opts.command,
    bundle: { name, version: "1.0.0", description, author: project.principal.id },
  });
  const files = plan.changes.filter((c) => c.new !== undefined).map((c) => ({ path: c.path, content: c.new! }));
  return { dir, files };
}

/** Write a bundle into DIR: refuses a non-empty DIR that is not already a bundle of this kind. */
export function writeBundle(kind: string, dir: string, files: PlannedFile[]): string[] {
  const manifest = files[0] && files.find((f) => f.path.endsWith(".json"))!.path;
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new HcpxError({ code: "not_a_directory", message: "is a file, expected a directory", file: display(dir) });
    if (readdirSync(dir).length && manifest && !existsSync(join(dir, manifest))) {
      throw new HcpxError({ code: "not_ours", message: `is not empty and holds no ${manifest}`, file: display(dir), hint: `choose an empty directory for the ${kind}` });
    }
  }
  // nothing is written through a symlink out of DIR (the same guard as generate's out dir)
  const real = files.map((f) => {
    const g = guardPath(f.path, { dir, prefix: "", label: "the bundle directory" });
    if (!g.ok) throw new HcpxError({ code: "symlink_refused", message: `${f.path} ${g.reason}`, file: display(join(dir, f.path)), hint: "replace the symlink with a directory or a file of its own; hcpx writes nothing outside DIR" });
    return g.real;
  });
  const written: string[] = [];
  files.forEach((f, i) => {
    const e = readEntry(real[i]!);
    if (e.kind === "file" && e.text === f.content) return;
    atomicWrite(real[i]!, f.content);
    written.push(f.path);
  });
  return written;
}

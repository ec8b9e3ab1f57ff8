// `hcpx generate --as claude-plugin DIR` / `--as gemini-extension DIR`: the
// projection packed as a Claude Code plugin or a Gemini CLI extension (MCP entry
// `hcpx mcp`, Skill copies, the prompt block as context). Bundles are host
// descriptors of kind "bundle" rendered by the same engine, paths relative to DIR.
// DIR is a FilePlan like generate's out dir (src/plan/files.ts): its manifest,
// DIR/.hcpx-manifest.json, lets a later run delete what it no longer bundles
// (a withheld pack's Skill) and `--check` report it.
import { basename, join, resolve } from "node:path";
import type { Pack, Project } from "../pack/model";
import { buildProjection } from "../projection/build";
import type { PlannedFile } from "../projection/types";
import { HcpxError } from "../util/errors";
import { display } from "../util/paths";
import { listHosts, loadDescriptor } from "./descriptor";
import { planAdopt } from "./engine";
import { diskFs, type ReadFs } from "../plan/fs";
import { planFiles } from "../plan/files";
import type { FilePlan } from "../plan/types";

const NAME_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** What a bundle records of the files it wrote (src/plan/files.ts). */
export const BUNDLE_MANIFEST = ".hcpx-manifest.json";

export async function renderBundle(
  kind: string,
  dirArg: string,
  project: Project,
  packs: Pack[],
  opts: { command?: string } = {},
): Promise<{ dir: string; files: PlannedFile[] }> {
  const bundles = listHosts("bundle");
  if (!bundles.includes(kind))
    throw new HcpxError({
      code: "bad_args",
      message: `unknown bundle kind '${kind}'`,
      hint: `--as ${bundles.join(" | ")}`,
    });
  const desc = loadDescriptor(kind);
  const dir = resolve(dirArg);
  const name = basename(dir);
  if (!NAME_RE.test(name)) {
    throw new HcpxError({
      code: "bad_args",
      message: `the ${desc.name} directory name '${name}' is not kebab-case`,
      file: display(dir),
      hint: "the directory name is the bundle's name: lower-case letters, digits and single dashes, e.g. ./hcp-packs",
    });
  }
  const skillsTarget = desc.scopes.project!.targets.find((t) => t.format === "dir-of-skills");
  const projection = buildProjection(project, packs, {
    skillsPath: skillsTarget ? String(skillsTarget.path) : "skills",
  });
  if (projection.skills.some((s) => s.packId === "hcp"))
    throw new HcpxError({
      code: "bad_args",
      message: "a pack named 'hcp' collides with the bundle's own `hcp` skill",
      hint: "rename the pack",
    });
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

/** The plan of a bundle in DIR: refuses a DIR that is a file, or a non-empty DIR that is not already a bundle of this kind. */
export function planBundle(kind: string, dir: string, files: PlannedFile[], fs: ReadFs = diskFs): FilePlan {
  const manifest = files[0] && files.find((f) => f.path.endsWith(".json"))!.path;
  const e = fs.entry(dir);
  if (e.kind !== "absent" && e.kind !== "dir")
    throw new HcpxError({ code: "not_a_directory", message: "is a file, expected a directory", file: display(dir) });
  if (e.kind === "dir" && fs.list(dir).length && manifest && fs.entry(join(dir, manifest)).kind === "absent") {
    throw new HcpxError({
      code: "not_ours",
      message: `is not empty and holds no ${manifest}`,
      file: display(dir),
      hint: `choose an empty directory for the ${kind}`,
    });
  }
  // nothing is written through a symlink out of DIR (the same guard as generate's out dir)
  return planFiles(
    {
      files,
      dir,
      label: "the bundle directory",
      manifest: BUNDLE_MANIFEST,
      symlinkHint: "replace the symlink with a directory or a file of its own; hcpx writes nothing outside DIR",
    },
    fs,
  );
}

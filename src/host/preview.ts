// Host previews for `hcpx generate`: each host's project-scope files as adopt
// would create them in an empty project, under `hosts/<host>/<file>`. The MCP
// entry uses the portable `hcpx mcp`, so previews are machine-independent.
// Skill copies are left out: adopt writes the bytes of generate's skills/
// into the host's skills dir, and a copy per host would be a second and third
// set of the same files (2,000 more files at 1,000 packs).
import type { Project } from "../pack/model";
import type { PlannedFile, Projection } from "../projection/types";
import { planAdopt, type ProjectionFor } from "./engine";

/** `projectionFor(skillsPath)` rebuilds the projection so each host's prompt block names its own skills dir. */
export async function renderHostPreviews(
  projection: Projection,
  hosts: string[],
  project: Project,
  projectionFor?: ProjectionFor,
): Promise<PlannedFile[]> {
  const files: PlannedFile[] = [];
  for (const host of hosts) {
    const plan = await planAdopt(project, [host], projectionFor ?? (() => projection), {
      scope: "project",
      preview: true,
      skills: false,
    });
    for (const c of plan.changes)
      if (c.new !== undefined) files.push({ path: `hosts/${host}/${c.path}`, content: c.new });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

// What the sandbox keeps read-only besides hcpx's own files: the active packs' programs.
import type { Pack, Project } from "../pack/model";
import { loadPack } from "../pack/load";
import { adapterOf } from "../pack/adapters/index";
import { resolveBin } from "./wrap";

/**
 * The resolved programs of the project's active packs (a wrap pack's wrap.bin, an mcp pack's mcp.bin), for the
 * sandbox to keep read-only in the writable roots (ConfineContext.packBins): a relative bin lies in a root.
 * Asked for only when a call is confined. A pack that does not load, or whose bin does not resolve, runs
 * nothing, so it has nothing to keep. `packs`: the active packs that load, when the caller keeps them loaded
 * (`hcpx mcp`, ExecuteOptions.activePacks); else they are read here. The bins are resolved now either way.
 */
export function packBins(project: Project, packs: readonly Pack[] = loadablePacks(project)): string[] {
  const out: string[] = [];
  for (const pack of packs) {
    const named = binOf(pack);
    if (!named) continue;
    const bin = resolveBin(pack, project, named.bin, named.field);
    if (!("ok" in bin)) out.push(bin.path);
  }
  return out;
}

/** The project's active packs that load (packBins: one that does not runs nothing). */
export function loadablePacks(project: Project): Pack[] {
  const out: Pack[] = [];
  for (const dir of project.packDirs) {
    try {
      out.push(loadPack(dir));
    } catch {
      // runs nothing: nothing to keep
    }
  }
  return out;
}

/** The program a pack's kind starts, as surface.json names it, and its field (`<key>.bin`, the adapter table's capabilities.binIn). */
export function binOf(pack: Pack): { bin: string; field: string } | undefined {
  const binIn = adapterOf(pack.surface.kind)?.capabilities.binIn;
  const bin = binIn ? pack.surface[binIn]?.bin : undefined;
  return binIn && bin ? { bin, field: `${binIn}.bin` } : undefined;
}

// The start cache of `hcpx mcp` on stdio (issue 29): what the first
// initialize and tools/list need (the tool list as MCP carries it, the
// instructions, the packs served, the broken-pack lines), kept from the last
// start that built them, so a warm start stats the files the view was built
// from instead of reading, validating and rendering them. The full view (the
// packs, the Skills, the commands a call needs) is built only when something
// asks for it (view-cache.ts).
//
// An entry is served only while everything it was built from is as it was:
// - the key: this mcp bundle (its build hash: hcpx's version and code), the
//   shape, the working directory, --config, HCP_CONFIG, the user config
//   directory, HOME and USER;
// - the stamps (view-cache.ts): the identity (device, inode, size, mtime, ctime)
//   of the project config, the user config and each activated pack's
//   surface.json, policy.json and SKILL.md (the grants, the packs and the MCP
//   naming options are in the configs).
// A write changes a file's ctime, which no one can set back; but two writes
// within one tick of the clock the kernel stamps ctimes with may leave the
// same identity. So an entry is only written when every file it depends on
// was last changed RACY_MS (src/mcp/stamp.ts) before the start read it (as git treats a "racily
// clean" index): an edit after that read then has a later ctime.
//
// One file per key, `mcp-start/<slot>.json` under the cache root, framed and
// checked by src/util/cache.ts like the validation cache's entries; any
// problem reading or writing it only means building the view.
import { join } from "node:path";
import { prune, slotOf } from "../pack/validcache";
import { cacheRoot, readCache, writeCache } from "../util/cache";
import { userConfigDir } from "../util/paths";

/** The entry: what the first requests are answered from. */
export interface StartEntry {
  key: string;
  /** the stamps the view was built from (view-cache.ts configStamp/packsStamp) */
  config: string;
  packs: string;
  packDirs: string[];
  configFile?: string;
  listed: Record<string, unknown>[];
  instructions: string;
  /** pack id, description and prompt declarations of each pack served (the tool-list change key, listing.ts servedOf) */
  served: unknown[][];
  brokenLines: string[];
}

/** the largest entry read or written (a listing larger than this is built every start) */
const MAX_BYTES = 16 * 1024 * 1024;
const MAX_ENTRIES = 64;

/** The bundle's build hash, published by the loader (src/cli/load-command.ts); none when run from source. */
function bundleHash(): string | undefined {
  const h = (globalThis as Record<symbol, unknown>)[Symbol.for("hcpx.bundleHash.mcp")];
  return typeof h === "string" ? h : undefined;
}

/** The key of a start (undefined: no cache). */
export function startKey(shape: string, cwd: string, config: string | undefined): string | undefined {
  const build = bundleHash();
  if (!build || process.env.HCPX_NO_CACHE || (!process.env.HOME && !process.env.XDG_CACHE_HOME)) return undefined;
  return [
    build,
    shape,
    cwd,
    config ?? "",
    process.env.HCP_CONFIG ?? "",
    userConfigDir(),
    process.env.HOME ?? "",
    process.env.USER ?? "",
  ].join("\0");
}

const dir = () => join(cacheRoot(), "mcp-start");
const fileOf = (key: string) => join(dir(), `${slotOf(key)}.json`);

/** The entry of `key`, if there is a good one (its stamps are the caller's to check). */
export function readStart(key: string): StartEntry | undefined {
  try {
    const bytes = readCache(fileOf(key), MAX_BYTES);
    if (bytes === undefined) return undefined;
    const e = JSON.parse(bytes.toString("utf8")) as Partial<StartEntry> | null;
    if (
      !e ||
      e.key !== key ||
      typeof e.config !== "string" ||
      typeof e.packs !== "string" ||
      !Array.isArray(e.packDirs) ||
      !Array.isArray(e.listed) ||
      typeof e.instructions !== "string" ||
      !Array.isArray(e.served) ||
      !Array.isArray(e.brokenLines)
    )
      return undefined;
    if (
      !e.packDirs.every((d) => typeof d === "string") ||
      (e.configFile !== undefined && typeof e.configFile !== "string")
    )
      return undefined;
    return e as StartEntry;
  } catch {
    return undefined;
  }
}

/** Keep `e` for the next start (best effort). */
export function writeStart(e: StartEntry): void {
  try {
    const bytes = Buffer.from(JSON.stringify(e));
    if (bytes.length > MAX_BYTES) return;
    writeCache(fileOf(e.key), bytes);
    prune(dir(), MAX_ENTRIES);
  } catch {
    // a cache that cannot be written only means building the view next time
  }
}

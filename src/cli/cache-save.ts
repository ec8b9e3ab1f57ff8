// Writing a command bundle's V8 code cache (src/cli/load-command.ts save()):
// when no usable one was read (a first call without the shipped cache, another
// Node, a rejected or damaged one). A file of its own in dist/
// (cache-save.cjs, scripts/build.mjs), require()d only then: the write door
// and the cache framing it takes are ~4.6 KB the entry no longer carries,
// and V8 pre-parses all of the entry on every call (callgrind, warm `hcpx
// exec`: 137.2 -> 136.0 M instructions).
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Script } from "node:vm";
import { removeCache, writeCache } from "../util/cache";

/** Write `script`'s code cache to `cache` (the cache of bundle `name`) and remove earlier builds' caches of that bundle; throws on an I/O problem. */
export function saveCodeCache(name: string, cache: string, script: Script): void {
  writeCache(cache, script.createCachedData());
  // caches of earlier builds of this bundle are never read again (`exec-<hash>-…`, not `exec-schemas-…`)
  const dir = dirname(cache);
  const earlier = new RegExp(`^${name}-[0-9a-f]{16}-.*\\.bin$`);
  for (const f of readdirSync(dir)) if (earlier.test(f) && join(dir, f) !== cache) removeCache(join(dir, f));
}

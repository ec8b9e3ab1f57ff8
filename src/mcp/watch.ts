// The tool list of `hcpx mcp --http` follows the files it is built from: the
// project and user config (grants), and each active pack's files. fs.watch on
// their directories, debounced; when any principal's front rebuilds a changed
// tool list, `onChanged` tells the clients (src/mcp/server.ts serveHttp: the
// legacy GET streams and the 2026-07-28 subscriptions/listen streams).
import { watch, type FSWatcher } from "node:fs";
import type { McpFront } from "./front";

export function watchFronts(fronts: readonly McpFront[], onChanged: () => void, debounceMs = 100): { close(): void } {
  const watchers = new Map<string, FSWatcher>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const onFsEvent = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      // every front is refreshed (each principal's own view), then one announcement
      const changed = fronts.map((f) => f.refresh()).some(Boolean);
      if (changed && !closed) onChanged();
      sync();
    }, debounceMs);
    timer.unref();
  };
  function sync(): void {
    if (closed) return;
    // the fronts share the project: the union of what they read
    const want = new Map<string, Set<string>>();
    for (const f of fronts) for (const [dir, names] of f.watched()) want.set(dir, new Set([...(want.get(dir) ?? []), ...names]));
    for (const [dir, w] of watchers) {
      if (!want.has(dir)) {
        w.close();
        watchers.delete(dir);
      }
    }
    for (const [dir, names] of want) {
      if (watchers.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: false }, (_ev, file) => {
          if (!file || names.has(file.toString())) onFsEvent();
        });
        w.on("error", () => {
          w.close();
          watchers.delete(dir);
        });
        watchers.set(dir, w);
      } catch {
        // a missing directory (no user config): tools/list still re-reads it
      }
    }
  }
  sync();
  return {
    close: () => {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}

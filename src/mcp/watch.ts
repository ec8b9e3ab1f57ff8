// The tool list of `hcpx mcp` follows the files it is built from: the
// project and user config (grants), and each active pack's files. fs.watch on
// their directories, debounced; a change rebuilds the view (view-cache.ts
// refresh()) and, when the tool list changed, `onChanged` tells the clients.
//   stdio (watchFront): one front; every pack directory and its parent
//     watched lets a request skip the pack files' stat pass (setPacksWatched);
//   HTTP (watchFronts): one front per principal, the union of what they read;
//     onChanged reaches the legacy GET streams and the 2026-07-28
//     subscriptions/listen streams (src/mcp/server.ts serveHttp).
import { statSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import type { ViewCache } from "./view-cache";

/** stdio: watch what `front` reads, resynced after each rebuild (its onInstall); `onChanged` after a change of the tool list. */
export function watchFront(front: ViewCache, onChanged: () => void, debounceMs = 100): { close(): void } {
  const watchers = new Map<string, FSWatcher>();
  const inodes = new Map<string, number | undefined>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const onFsEvent = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (front.refresh()) onChanged();
      sync();
    }, debounceMs);
    timer.unref();
  };
  const sync = () => syncWatches(front, watchers, inodes, onFsEvent);
  front.onInstall = () => {
    if (!closed) setImmediate(sync);
  };
  sync();
  return {
    close: () => {
      closed = true;
      for (const w of watchers.values()) w.close();
      if (timer) clearTimeout(timer);
    },
  };
}

/** HTTP: watch what every principal's front reads; one `onChanged` when any front's tool list changed. */
export function watchFronts(fronts: readonly ViewCache[], onChanged: () => void, debounceMs = 100): { close(): void } {
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
    for (const f of fronts)
      for (const [dir, names] of f.watched()) want.set(dir, new Set([...(want.get(dir) ?? []), ...names]));
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

function inodeOf(dir: string): number | undefined {
  try {
    return statSync(dir).ino;
  } catch {
    return undefined;
  }
}

/**
 * Watch what the front's view was built from (front.watched()); tell the front
 * whether every pack directory is watched, so that a request may trust the
 * watches instead of a stat pass (view-cache.ts refresh()). `inodes_`: each
 * watched directory's inode when its watch was set.
 */
function syncWatches(
  front: ViewCache,
  watchers: Map<string, FSWatcher>,
  inodes_: Map<string, number | undefined>,
  onFsEvent: () => void,
): void {
  const want = front.watched();
  const trusted = front.packWatchDirs();
  for (const [dir, w] of watchers) {
    if (!want.has(dir)) {
      w.close();
      watchers.delete(dir);
    }
  }
  const lost = (dir: string) => {
    watchers.get(dir)?.close();
    watchers.delete(dir);
    if (trusted.has(dir)) front.setPacksWatched(false);
  };
  for (const [dir, names] of want) {
    // a directory replaced since its watch was set (the watch follows the old one): set it again
    if (watchers.has(dir) && trusted.has(dir) && inodes_.get(dir) !== inodeOf(dir)) lost(dir);
    if (watchers.has(dir)) continue;
    try {
      const w = watch(dir, { persistent: false }, (_ev, file) => {
        const name = file?.toString();
        if (name && !names.has(name)) return;
        // synchronously: a request read after this event must not be served the old view
        if (trusted.has(dir)) front.packsChanged();
        // a pack directory replaced (renamed over): its watch follows the old one, set it again
        if (name && watchers.has(join(dir, name))) lost(join(dir, name));
        onFsEvent();
      });
      w.on("error", () => lost(dir));
      watchers.set(dir, w);
      inodes_.set(dir, inodeOf(dir));
    } catch {
      // a missing directory (no user config): tools/list still re-reads it
    }
  }
  front.setPacksWatched([...trusted].every((d) => watchers.has(d)));
}

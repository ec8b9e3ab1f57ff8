// The tool list of `hcpx mcp` follows the files it is built from: the
// project and user config (grants), and each active pack's files. fs.watch on
// their directories, debounced; a change rebuilds the view (view-cache.ts
// refresh()) and, when the tool list changed, `onChanged` tells the clients.
//   stdio (watchFront): one front; every folder of its packs watched, when
//     the watches see every change of them (watch-plan.ts), lets a request
//     skip the pack files' stat pass (setPacksWatched);
//   HTTP (watchFronts): one front per principal, the union of what they read;
//     onChanged reaches the legacy GET streams and the 2026-07-28
//     subscriptions/listen streams (src/mcp/server.ts serveHttp).
import { statSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import type { ViewCache } from "./view-cache";
import type { WatchPlan } from "./watch-plan";

/** stdio: watch what `front` reads, resynced after each rebuild (its onInstall); `onChanged` after a change of the tool list. */
export function watchFront(front: ViewCache, onChanged: () => void, debounceMs = 100): { close(): void } {
  const state: Watching = { watchers: new Map(), inodes: new Map() };
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
  const sync = () => syncWatches(front, state, onFsEvent);
  front.onInstall = () => {
    if (!closed) setImmediate(sync);
  };
  sync();
  return {
    close: () => {
      closed = true;
      state.plan = undefined;
      for (const w of state.watchers.values()) w.close();
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
      for (const [dir, names] of f.watched().want) want.set(dir, new Set([...(want.get(dir) ?? []), ...names]));
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

/** watchFront's watches: each folder's, its inode when the watch was set, and what the last sync watched. */
interface Watching {
  watchers: Map<string, FSWatcher>;
  inodes: Map<string, number | undefined>;
  plan?: WatchPlan;
}

/**
 * Watch what the front's view was built from (front.watched()); tell the front
 * whether every folder of the packs is watched and the watches see every change
 * (watch-plan.ts), so that a request may trust them instead of a stat pass
 * (view-cache.ts refresh()). A watch set before reads the names it is for from
 * the last sync's plan: a folder's names change with the view (a pack added).
 */
function syncWatches(front: ViewCache, state: Watching, onFsEvent: () => void): void {
  const { watchers, inodes } = state;
  const plan = (state.plan = front.watched());
  for (const [dir, w] of watchers) {
    if (!plan.want.has(dir)) {
      w.close();
      watchers.delete(dir);
    }
  }
  const lost = (dir: string) => {
    watchers.get(dir)?.close();
    watchers.delete(dir);
    if (state.plan?.packFolders.has(dir)) front.setPacksWatched(false);
  };
  for (const dir of plan.want.keys()) {
    // a folder of the packs replaced since its watch was set (the watch follows the old one): set it again
    if (watchers.has(dir) && plan.packFolders.has(dir) && inodes.get(dir) !== inodeOf(dir)) lost(dir);
    if (watchers.has(dir)) continue;
    try {
      const w = watch(dir, { persistent: false }, (_ev, file) => {
        const name = file?.toString();
        const now = state.plan;
        if (!now || (name && !now.want.get(dir)?.has(name))) return;
        // synchronously: a request read after this event must not be served the old view
        if (now.packFolders.has(dir)) front.packsChanged();
        // a folder replaced (renamed over, a link repointed): its watch follows the old one, set it again
        // (the folders below it: by their inodes, at the sync this event brings)
        if (name && watchers.has(join(dir, name))) lost(join(dir, name));
        onFsEvent();
      });
      w.on("error", () => lost(dir));
      watchers.set(dir, w);
      inodes.set(dir, inodeOf(dir));
    } catch {
      // a missing directory (no user config): tools/list still re-reads it
    }
  }
  // Whether the watches see every change (plan.seen(): ~1 ms of lstats at 100 packs) is asked once the
  // watches are set (a link made after is an event) and the first requests had their turn (a start's, which
  // stat anyway: a watch newly set may have missed a change); meanwhile requests stat. Not when a newer sync
  // took over, or a watch was lost since.
  const all = () => state.plan === plan && [...plan.packFolders].every((d) => watchers.has(d));
  front.setPacksWatched(false);
  if (all())
    setImmediate(() => {
      if (all()) front.setPacksWatched(plan.seen());
    });
}

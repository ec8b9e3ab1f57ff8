// npm test's file order (vitest.config.ts sequence.sequencer). vitest starts the files that took longest in
// its last run first (its results cache, node_modules/.vite), and with no cache, the largest files first. A
// fresh clone (CI, a newcomer) has no cache: the waiting group's long sleepers then started late and the
// group ended at ~37 s instead of ~27-31 s; the whole run took 120.6 and 121.4 s against 96.8-114.7 s with
// the cache (stop 75, the 2-core machine). So a file vitest has no result for takes its duration from
// test/support/durations.json, the durations of a run kept in the repository (`node scripts/test-durations.mjs`
// writes it from vitest's cache after a run). Only the order changes: every file runs either way.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** A file's key in vitest's results cache and in durations.json: `<project>:<path from the root>` */
export function specKey(root: string, spec: TestSpecification): string {
  return `${spec.project.name}:${relative(root, spec.moduleId)}`;
}

/** durations.json: key → ms (a missing or unreadable file: none known) */
export function keptDurations(file: string): Map<string, number> {
  try {
    const o = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    return new Map(Object.entries(o).filter((e): e is [string, number] => typeof e[1] === "number"));
  } catch {
    return new Map();
  }
}

export class KeptDurationsSequencer extends BaseSequencer {
  static file = fileURLToPath(new URL("./durations.json", import.meta.url));

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const kept = keptDurations(KeptDurationsSequencer.file);
    const root = this.ctx.config.root;
    const cache = this.ctx.cache;
    const known = (s: TestSpecification) => {
      const k = specKey(root, s);
      const r = cache.getFileTestResults(k);
      return { failed: r?.failed === true, ms: r?.duration ?? kept.get(k), size: cache.getFileStats(k)?.size ?? 0 };
    };
    const info = new Map(files.map((s) => [s, known(s)]));
    return [...files].sort((a, b) => {
      const g = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (g !== 0) return g;
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      if (a.project.config.isolate !== b.project.config.isolate) return a.project.config.isolate ? -1 : 1;
      const x = info.get(a)!;
      const y = info.get(b)!;
      if (x.failed !== y.failed) return x.failed ? -1 : 1;
      // as vitest: a file with no duration first (new, so likely the one being worked on), then the longest
      if ((x.ms === undefined) !== (y.ms === undefined)) return x.ms === undefined ? -1 : 1;
      if (x.ms !== undefined && y.ms !== undefined && x.ms !== y.ms) return y.ms - x.ms;
      return y.size - x.size;
    });
  }
}

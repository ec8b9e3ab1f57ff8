// Writes test/support/durations.json: each npm test file's duration in vitest's last run (its results cache,
// node_modules/.vite/vitest/<hash>/results.json), to the nearest 100 ms, for test/support/sequencer.ts, which
// orders the files of a run with no cache of its own (a fresh clone) by them. Run it after a whole `npm test`;
// a file missing from it only runs in vitest's own order for new files. Keys are vitest's own (`<project>:<path>`,
// the projects of vitest.config.ts), taken as they are.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const dir = join(ROOT, "node_modules", ".vite", "vitest");
let newest;
try {
  for (const d of readdirSync(dir)) {
    const f = join(dir, d, "results.json");
    try {
      const t = statSync(f).mtimeMs;
      if (!newest || t > newest.t) newest = { f, t };
    } catch {
      // a folder without results
    }
  }
} catch {
  // no cache at all
}
if (!newest) {
  process.stderr.write(`test-durations: no vitest results under ${dir}: run npm test first\n`);
  process.exit(1);
}
const { results } = JSON.parse(readFileSync(newest.f, "utf8"));
const out = {};
for (const [key, r] of [...results].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  if (typeof r?.duration === "number" && /^[^:]+:test\//.test(key)) out[key] = Math.round(r.duration / 100) * 100;
const file = join(ROOT, "test", "support", "durations.json");
writeFileSync(file, JSON.stringify(out, null, 2) + "\n");
process.stdout.write(`test-durations: ${Object.keys(out).length} files from ${newest.f} into ${file}\n`);

#!/usr/bin/env node
// `npm run bench`: runs every bench/*.bench.mjs in order (or those named on the
// command line) and prints their figures. Benchmarks measure ratios side by
// side in one run; these machines are shared and noisy.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.mjs"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
for (const f of files) {
  process.stdout.write(`\n## ${f}\n`);
  const mod = await import(pathToFileURL(join(here, f)).href);
  if (typeof mod.default === "function") await mod.default();
}

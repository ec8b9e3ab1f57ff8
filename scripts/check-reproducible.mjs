#!/usr/bin/env node
// Two builds of the same sources ship the same bytes: dist/ is built (a no-op when it is up to date), built
// again from scratch (HCPX_BUILD_FORCE=1), and the two builds' stamps (dist/.build-stamp: a SHA-256 of every
// file in dist/, the shipped code caches included) are compared. The caches are the part that used to differ
// from build to build; scripts/build.mjs (cacheRunFlags) makes them under V8's --predictable.
// Run by .ci/run on its own, after `npm test`: a build in place while tests read dist/ (or write their own
// descriptors into hosts/, which adopt's bundle carries) would race them. Exit 1 names the files that differ.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Build (forced or not) and give the stamp's file hashes. */
function build(force) {
  const env = { ...process.env };
  if (force) env.HCPX_BUILD_FORCE = "1";
  else delete env.HCPX_BUILD_FORCE;
  const r = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { env, encoding: "utf8" });
  if (r.status !== 0) {
    process.stderr.write(`check-reproducible: the build failed (exit ${r.status ?? r.signal})\n${r.stderr}`);
    process.exit(1);
  }
  // anything the build says (a cache it could not make, a flag this Node rejects) is a difference to explain
  if (r.stderr.trim()) process.stderr.write(r.stderr);
  return JSON.parse(readFileSync(join(root, "dist", ".build-stamp"), "utf8")).files;
}

const first = build(false);
const second = build(true);
const names = [...new Set([...Object.keys(first), ...Object.keys(second)])].sort();
const differ = names.filter((n) => first[n] !== second[n]);
if (differ.length) {
  process.stderr.write(
    `check-reproducible: ${differ.length} of ${names.length} files in dist/ differ between two builds of the same sources:\n` +
      differ
        .map(
          (n) =>
            `  ${n}${first[n] === undefined ? " (only in the second)" : second[n] === undefined ? " (only in the first)" : ""}\n`,
        )
        .join(""),
  );
  process.exit(1);
}
process.stdout.write(`check-reproducible: two builds, the same ${names.length} files in dist/\n`);

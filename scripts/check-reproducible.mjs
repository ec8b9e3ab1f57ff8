#!/usr/bin/env node
// Two builds of the same sources ship the same bytes, in the same folder and in another: dist/ is built (a
// no-op when it is up to date), built again from scratch (HCPX_BUILD_FORCE=1), and built in a second
// checkout (the tracked files copied into .repro/ inside this one, node_modules hard-linked: the same bytes
// at other paths); the builds' stamps (dist/.build-stamp: a SHA-256 of every file in dist/, the shipped code
// caches included) are compared. The caches are the part that used to differ: from build to build (V8's
// random hash seed: scripts/build.mjs cacheRunFlags runs them under --predictable) and from folder to
// folder (the script name a cache keeps: src/cli/load-command.ts scriptName).
// Run by .ci/run on its own, after `npm test`: a build in place while tests read dist/ (or write their own
// descriptors into hosts/, which adopt's bundle carries) would race them. Exit 1 names the files that differ.
// Needs git, GNU tar and GNU cp (-al), as .ci/run's Linux machine has.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));

function fail(message) {
  process.stderr.write(`check-reproducible: ${message}\n`);
  process.exit(1);
}

/** Build in `dir` (forced or not) and give the stamp's file hashes. */
function build(dir, force) {
  const env = { ...process.env };
  if (force) env.HCPX_BUILD_FORCE = "1";
  else delete env.HCPX_BUILD_FORCE;
  const r = spawnSync(process.execPath, [join(dir, "scripts", "build.mjs")], { cwd: dir, env, encoding: "utf8" });
  if (r.status !== 0) fail(`the build in ${dir} failed (exit ${r.status ?? r.signal})\n${r.stderr}`);
  // anything the build says (a cache it could not make, a flag this Node rejects) is a difference to explain
  if (r.stderr.trim()) process.stderr.write(r.stderr);
  return JSON.parse(readFileSync(join(dir, "dist", ".build-stamp"), "utf8")).files;
}

/** A second checkout of this one's tracked files in .repro/ (same file system: node_modules hard-linked). */
function otherCheckout() {
  const dir = join(root, ".repro");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const listed = spawnSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" });
  if (listed.status !== 0) fail(`git ls-files failed: ${listed.stderr || listed.error} (run it in a git checkout)`);
  const copy = spawnSync("tar", ["--null", "-T", "-", "-cf", "-"], {
    cwd: root,
    input: listed.stdout,
    maxBuffer: 1 << 30,
  });
  if (copy.status !== 0) fail(`tar could not read the tracked files: ${copy.stderr}`);
  const put = spawnSync("tar", ["-xf", "-"], { cwd: dir, input: copy.stdout });
  if (put.status !== 0) fail(`tar could not write them into ${dir}: ${put.stderr}`);
  const link = spawnSync("cp", ["-al", join(root, "node_modules"), join(dir, "node_modules")], { encoding: "utf8" });
  if (link.status !== 0) fail(`cp -al node_modules failed: ${link.stderr}`);
  return dir;
}

/** The files whose hashes differ between two stamps' maps. */
function differing(a, b) {
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return names
    .filter((n) => a[n] !== b[n])
    .map(
      (n) => `  ${n}${a[n] === undefined ? " (only in the second)" : b[n] === undefined ? " (only in the first)" : ""}`,
    );
}

const first = build(root, false);
const checks = [["built again in the same folder", build(root, true)]];
const other = otherCheckout();
try {
  checks.push(["built in another folder (.repro/)", build(other, false)]);
} finally {
  rmSync(other, { recursive: true, force: true });
}
const count = Object.keys(first).length;
let bad = false;
for (const [how, files] of checks) {
  const d = differing(first, files);
  if (d.length) {
    bad = true;
    process.stderr.write(
      `check-reproducible: ${d.length} of ${count} files in dist/ differ when ${how}:\n${d.join("\n")}\n`,
    );
  }
}
if (bad) process.exit(1);
process.stdout.write(
  `check-reproducible: three builds (one again in place, one in another folder), the same ${count} files in dist/\n`,
);

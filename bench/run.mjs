#!/usr/bin/env node
// `npm run bench`: runs every bench/*.bench.mjs in order (or those named on the
// command line) and prints their figures, then one table of every goal: the
// two medians measured side by side, their ratio, the bound and the machine's
// load at the time. These machines are shared and noisy: ratios taken in one
// run, interleaved, are what the goals are stated in.
//
// The benchmarks write nothing into the real home directory: HOME and the XDG
// dirs point to a scratch directory for this process and every child. Nor
// anything that outlives the run in /tmp: TMPDIR (which os.tmpdir() reads at
// each call, and the children inherit) is one scratch folder for the run, HOME
// inside it, removed at the end (a whole run left six folders in /tmp before:
// the projects of the exec, lib, mcp-packs and sandbox benches, and the homes
// of mcp-packs and mcp-start).
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { goalSummary, machineSpeed } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.mjs"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
const run = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-bench-")));
process.env.TMPDIR = run;
const home = join(run, "home");
mkdirSync(home);
process.env.HOME = home;
process.env.XDG_CONFIG_HOME = join(home, ".config");
process.env.XDG_CACHE_HOME = join(home, ".cache");
process.env.XDG_DATA_HOME = join(home, ".local", "share");
process.env.XDG_STATE_HOME = join(home, ".local", "state");
process.stdout.write(
  `bench: HOME=${home} (scratch), node ${process.version}, NODE_EXTRA_CA_CERTS ${process.env.NODE_EXTRA_CA_CERTS ? "set on this machine" : "unset"}\n`,
);
const machine = machineSpeed();
process.stdout.write(`${machine}\n`);
try {
  for (const f of files) {
    process.stdout.write(`\n## ${f}\n`);
    const mod = await import(pathToFileURL(join(here, f)).href);
    if (typeof mod.default === "function") await mod.default();
  }
  const s = goalSummary();
  if (s) process.stdout.write(`\n## goals\n${s}\n${machine}\n`);
} finally {
  rmSync(run, { recursive: true, force: true });
}

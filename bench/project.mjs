// The projects the benches measure in: the repository's packs and bins in a scratch directory with
// a config (benchProject), and the one `hcpx exec` is measured in (execProject: bench/exec.bench.mjs,
// bench/lib.bench.mjs, bench/snapshot-probe.mjs) with the CommonJS floor, a zero-dependency
// script that only spawns the same bin and parses its JSON, written as CommonJS like exec's own
// bundle (an ES module floor costs ~20 M instructions more and flattered exec) and printing its
// line with fs.writeSync(1, …) as exec does (process.stdout costs ~1.8 M more). `floorSync` is
// the same work through spawnSync, the cheapest way in instructions (~14 M fewer), but not the
// goal's floor: a process blocked in spawnSync cannot pass a SIGTERM on to its bin (stopped, it
// leaves the bin running to its end), and passing a cancel on is part of exec's work
// (docs/design.md).
import { cpSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ledgerCopies } from "../test/support/ledger-copies.mjs";

export const REPO = dirname(dirname(fileURLToPath(import.meta.url)));

/** The environment the runtime gives a bin (and the floor gives it too): a short list, plus `extra`. */
export function minimalEnv(extra) {
  const env = {};
  for (const k of ["HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "NO_COLOR"])
    if (process.env[k] !== undefined) env[k] = process.env[k];
  for (const k of Object.keys(process.env)) if (k.startsWith("LC_")) env[k] = process.env[k];
  return { ...env, ...extra };
}

/** A scratch directory (`prefix`…) with the repository's packs and bins, and `config` as its hcp.config.json5. */
export function benchProject(prefix, config) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cpSync(join(REPO, "packs"), join(dir, "packs"), { recursive: true });
  cpSync(join(REPO, "bins"), join(dir, "bins"), { recursive: true });
  writeFileSync(join(dir, "hcp.config.json5"), JSON.stringify(config, null, 2));
  return dir;
}

/**
 * `n` more packs in `dir`/packs (copies of ledger, each with an id of its own: filler-0 …), for the rows that
 * measure a call with many packs active; returns their config paths.
 */
export function fillerPacks(dir, n) {
  return ledgerCopies(dir, n, "filler").map((id) => `./packs/${id}`);
}

/**
 * The project the mcp benches serve (mcp.bench.mjs, spawn-probe.mjs): calc-wrap, ledger and transit, all granted,
 * after `fillers` more active packs (fillerPacks).
 */
export function mcpProject(prefix, fillers = 0) {
  const dir = benchProject(prefix, {});
  const config = {
    packs: [...fillerPacks(dir, fillers), "./packs/calc-wrap", "./packs/ledger", "./packs/transit"],
    principal: { id: "bench", kind: "agent" },
    grants: { allow: ["calc-wrap.*", "ledger.*", "transit.*"] },
    sandbox: { roots: ["."], cwd: "." },
  };
  writeFileSync(join(dir, "hcp.config.json5"), JSON.stringify(config, null, 2));
  return dir;
}

/**
 * A scratch project with calc and calc-wrap active; `bin` is calc-wrap's bin, `floor` the CommonJS floor script,
 * `floorSync` the same through spawnSync.
 */
export function execProject() {
  const dir = benchProject("hcpx-bench-exec-", {
    packs: ["./packs/calc", "./packs/calc-wrap"],
    grants: { allow: ["calc.*", "calc-wrap.*"] },
    sandbox: { roots: ["."], cwd: "." },
  });
  const bin = join(dir, "bins", "calc.mjs");
  const binEnv = minimalEnv({ CALC_OUTPUT: "json" });
  const floor = join(dir, "floor.cjs");
  writeFileSync(
    floor,
    `const { spawn } = require("node:child_process");
const env = ${JSON.stringify(binEnv)};
const c = spawn(process.execPath, [${JSON.stringify(bin)}, "ping", "--json"], { env, stdio: ["ignore", "pipe", "pipe"] });
let out = "";
c.stdout.setEncoding("utf8").on("data", (d) => (out += d));
c.on("close", (code) => { const data = JSON.parse(out); require("node:fs").writeSync(1, JSON.stringify({ ok: code === 0, data }) + "\\n"); process.exitCode = code ? 1 : 0; });
`,
  );
  const floorSync = join(dir, "floor-sync.cjs");
  writeFileSync(
    floorSync,
    `const { spawnSync } = require("node:child_process");
const env = ${JSON.stringify(binEnv)};
const r = spawnSync(process.execPath, [${JSON.stringify(bin)}, "ping", "--json"], { env, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
const data = JSON.parse(r.stdout);
require("node:fs").writeSync(1, JSON.stringify({ ok: r.status === 0, data }) + "\\n");
process.exitCode = r.status ? 1 : 0;
`,
  );
  return { dir, bin, binEnv, floor, floorSync };
}

// A probe, not a goal: where `hcpx exec`'s wall time over its floor goes, stage by stage, in
// the process's own clock. `hcpx exec calc-wrap ping --json` and the CommonJS floor of
// bench/project.mjs (spawn the same bin, parse its JSON) run interleaved, each under a preload
// that notes `performance.now()` (ms since the process's time origin) at the main module's
// compile, exec's opening of its bundle and of its code cache and their `vm.Script`, `node:child_process` loaded, `spawn()` called
// and returned, the bin's `exit` and `close`, and the process's `exit`. The stages are the medians
// of the differences, run by run. NODE_EXTRA_CA_CERTS unset (the bench's honest figure), scratch
// HOME, the exec bench's warm call (the project settled: src/pack/validcache.ts's racy rule).
// docs/design.md ("Where exec's wall time goes") has the figures.
// Run after a build: `node bench/exec-timeline.mjs [runs, default 40]` (HCPX_DIST_BIN: another hcpx).
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { execProject, REPO } from "./project.mjs";
import { median, table, withoutCa } from "./lib.mjs";

const RUNS = Number(process.argv[2] ?? 40);
/** The marks each run must have: the floor has no bundle or code cache of its own (its stages from the main module to child_process are one). */
const SHARED_MARKS = ["main", "cpStart", "cp", "spawn", "spawned", "exit", "close", "end"];
const MARKS = { "hcpx exec": [...SHARED_MARKS, "bundle", "cache", "script", "scripted"], floor: SHARED_MARKS };
const HCPX = process.env.HCPX_DIST_BIN ?? join(REPO, "dist", "hcpx.cjs");

// the preload: one JSON line of marks on stderr at the process's exit (stdout is the envelope's)
const PRELOAD = `
const { performance } = require("node:perf_hooks");
const M = require("node:module");
const vm = require("node:vm");
const m = {};
const now = () => performance.now();
const compile = M.prototype._compile;
M.prototype._compile = function () { m.main ??= now(); return compile.apply(this, arguments); };
const fs = require("node:fs");
const open = fs.openSync;
fs.openSync = function (file) {
  if (typeof file === "string") {
    if (m.bundle === undefined && /[\\/]commands[\\/]exec\\.cjs$/.test(file)) m.bundle = now();
    else if (m.cache === undefined && /[\\/]exec-[0-9a-f]+-[^\\/]*\\.bin$/.test(file)) m.cache = now();
  }
  return open.apply(this, arguments);
};
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(src, o) { const a = now(); super(src, o); if (m.script === undefined) { m.script = a; m.scripted = now(); } }
};
function watch(cp) {
  if (cp.__probe) return;
  cp.__probe = true;
  const spawn = cp.ChildProcess.prototype.spawn;
  cp.ChildProcess.prototype.spawn = function () {
    m.spawn ??= now();
    const r = spawn.apply(this, arguments);
    m.spawned ??= now();
    this.once("exit", () => (m.exit ??= now()));
    this.once("close", () => (m.close ??= now()));
    return r;
  };
}
const loaded = (id, load) => {
  const child = /^(node:)?child_process$/.test(id) && m.cp === undefined;
  const a = now();
  const r = load();
  if (child) { m.cpStart = a; m.cp = now(); watch(r); }
  return r;
};
const load = M._load;
M._load = function (id) { return loaded(id, () => load.apply(this, arguments)); };
const builtin = process.getBuiltinModule;
process.getBuiltinModule = function (id) { return loaded(id, () => builtin.call(process, id)); };
process.on("exit", () => { m.end = now(); fs.writeSync(2, "PROBE" + JSON.stringify(m) + "\\n"); });
`;

const { dir, floor } = execProject();
try {
  const home = join(dir, "probe-home");
  mkdirSync(home);
  writeFileSync(join(dir, "preload.cjs"), PRELOAD);
  const env = withoutCa({ ...process.env, HOME: home, XDG_CACHE_HOME: join(home, ".cache") });
  delete env.XDG_CONFIG_HOME;
  // the exec bench's warm call: files changed within RACY_MS (3 s) are not vouched for by their stamp
  await new Promise((r) => setTimeout(r, 3100));
  const who = {
    "hcpx exec": [HCPX, "exec", "calc-wrap", "ping", "--json"],
    floor: [floor],
  };
  const runs = { "hcpx exec": [], floor: [] };
  for (let i = 0; i < 3 + RUNS; i++) {
    for (const [name, args] of Object.entries(who)) {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, ["--require", join(dir, "preload.cjs"), ...args], {
        cwd: dir,
        env,
        encoding: "utf8",
      });
      const wall = performance.now() - t0;
      const line = /^PROBE(.*)$/m.exec(r.stderr);
      if (r.status !== 0 || !line) throw new Error(`${name} failed (${r.status}): ${r.stderr.slice(0, 500)}`);
      const marks = JSON.parse(line[1]);
      // a mark the preload never saw (a bundle renamed, no code cache read) would leave its stage at 0
      // and the next one with its time: refused, not printed
      const missing = MARKS[name].filter((k) => typeof marks[k] !== "number");
      if (missing.length)
        throw new Error(`${name}: the preload saw no ${missing.join(", ")}: ${r.stderr.slice(0, 300)}`);
      if (i >= 3) runs[name].push({ ...marks, wall });
    }
  }
  // [stage, from, to]: a stage's time is the median over the runs of (to − from)
  const stages = [
    ["Node's start, to the main module", undefined, "main"],
    ["the entry (compiled without a cache), to the bundle's open", "main", "bundle"],
    ["the bundle read (and Node's fs functions compiled on first use)", "bundle", "cache"],
    ["exec's code cache read and checked", "cache", "script"],
    ["exec's code cache deserialized (vm.Script)", "script", "scripted"],
    ["to node:child_process required (exec: the bundle's top level)", "scripted", "cpStart"],
    ["node:child_process loaded", "cpStart", "cp"],
    ["to spawn() (exec: project, pack, grants, Policy, the bin's env)", "cp", "spawn"],
    ["spawn() itself", "spawn", "spawned"],
    ["the bin, to its exit", "spawned", "exit"],
    ["exit to close", "exit", "close"],
    ["close to the process's exit (exec: audit record, envelope)", "close", "end"],
  ];
  const stage = (name, from, to) =>
    median(
      runs[name].map((m) => {
        // the floor has no code cache: its stages from the main module to child_process are one
        const a = from === undefined ? 0 : (m[from] ?? m.main);
        const b = m[to] ?? m.main;
        return b - a;
      }),
    );
  const ms = (x) => `${x.toFixed(2)} ms`;
  const rows = [["stage (medians)", "hcpx exec", "floor", "exec − floor"]];
  for (const [label, from, to] of stages) {
    const e = stage("hcpx exec", from, to);
    const f = stage("floor", from, to);
    rows.push([label, ms(e), ms(f), ms(e - f)]);
  }
  const end = (name) => median(runs[name].map((m) => m.end));
  const wall = (name) => median(runs[name].map((m) => m.wall));
  rows.push([
    "process exit, since its time origin",
    ms(end("hcpx exec")),
    ms(end("floor")),
    ms(end("hcpx exec") - end("floor")),
  ]);
  rows.push([
    "wall, as the bench times it (spawnSync)",
    ms(wall("hcpx exec")),
    ms(wall("floor")),
    ms(wall("hcpx exec") - wall("floor")),
  ]);
  process.stdout.write(
    `${RUNS} runs each, interleaved (node ${process.version}, NODE_EXTRA_CA_CERTS unset; the preload's own hooks are in every figure):\n${table(rows)}\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

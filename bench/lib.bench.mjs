// The library (`import { openProject } from "hcpx"`, dist/lib/index.mjs)
// against `hcpx exec`:
//  1. Start-up: `node -e "import('hcpx')"` and a script that imports, opens
//     the project and makes one composite call, against `hcpx exec calc add`
//     (composite: no bin, so exec's whole time is its start path) and a bare
//     `node -e 0`. Interleaved wall-clock medians, and, where valgrind is
//     installed, callgrind instruction counts (they do not care how busy the
//     machine is; BENCH_CALLGRIND=0 skips them). Goal: loading the library
//     costs no more than exec's start path.
//  2. In-process: project.call("calc__add") (composite) against `hcpx exec
//     calc add` of the same command. Goal: ≥ 20× faster.
//  3. In-process wrap: project.call("calc-wrap__add") against spawning the
//     same bin directly from the same process (the bin's own Node start), and
//     `hcpx exec calc-wrap add` (a Node start for hcpx, then the bin's).
//     Goal: the in-process wrap call costs the bin's spawn and no Node start
//     of its own (≈ 1× the direct spawn).
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { execProject, REPO } from "./project.mjs";
import { fmt, goal, instructions, median, percentile, table, timeCommands } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS || 20);
const N = Number(process.env.BENCH_INPROC_RUNS || 40);
const LIB = join(REPO, "dist", "lib", "index.mjs");
const HCPX = process.env.HCPX_DIST_BIN ?? join(REPO, "dist", "hcpx.cjs"); // the bin (package.json)

function spawnBin(bin, args, env, cwd) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [bin, ...args], { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    c.stdout.setEncoding("utf8").on("data", (d) => (out += d));
    c.on("error", reject);
    c.on("close", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`bin exited ${code}`))));
  });
}

export default async function bench() {
  const { dir } = execProject(); // the exec bench's project: calc and calc-wrap active
  const openCall = join(dir, "open-call.mjs");
  writeFileSync(
    openCall,
    `const { openProject } = await import(${JSON.stringify(pathToFileURL(LIB).href)});
const p = await openProject({ cwd: ${JSON.stringify(dir)} });
const r = await p.call("calc__add", { a: 1, b: 2 });
if (!r.ok) { process.stderr.write(JSON.stringify(r)); process.exitCode = 1; }
`,
  );

  // 1. start-up
  const cmds = {
    "node -e 0": { cmd: process.execPath, args: ["-e", "0"], cwd: dir },
    "node -e \"import('hcpx')\"": { cmd: process.execPath, args: ["-e", "import('hcpx')"], cwd: REPO },
    "import + openProject + call": { cmd: process.execPath, args: [openCall], cwd: dir },
    "hcpx exec calc add": {
      cmd: process.execPath,
      args: [HCPX, "exec", "calc", "add", "--json", "--", "a=1", "b=2"],
      cwd: dir,
    },
  };
  const samples = timeCommands(cmds, { runs: RUNS, warmup: 3 });
  const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
  const exec = m["hcpx exec calc add"];
  const bare = m["node -e 0"];
  const rows = [["start", "median", "p90", "minus bare node", "vs exec"]];
  for (const [k, v] of Object.entries(samples))
    rows.push([k, fmt(m[k]), fmt(percentile(v, 90)), fmt(m[k] - bare), `${(m[k] / exec).toFixed(2)}×`]);
  process.stdout.write(`start-up (${RUNS} runs each, interleaved, wall clock):\n${table(rows)}\n`);
  const imp = m["node -e \"import('hcpx')\""];
  process.stdout.write(`beyond bare node: import('hcpx') ${fmt(imp - bare)}, hcpx exec calc add ${fmt(exec - bare)}\n`);
  goal("import('hcpx') ≤ hcpx exec calc add's start, wall", ["import('hcpx')", imp], ["hcpx exec", exec], { max: 1 });
  const hasValgrind = process.env.BENCH_CALLGRIND !== "0" && spawnSync("valgrind", ["--version"]).status === 0;
  if (hasValgrind) {
    const ir = {};
    // median of 3 runs each (medianCount in ./lib.mjs: one run's count moves with V8's random seeds)
    for (const [k, c] of Object.entries(cmds)) ir[k] = instructions(c.cmd, c.args, { cwd: c.cwd });
    const e = ir["hcpx exec calc add"];
    const b = ir["node -e 0"];
    const irows = [["start", "instructions, median of 3", "minus bare node", "vs exec"]];
    for (const [k, v] of Object.entries(ir))
      irows.push([
        k,
        v ? `${(v / 1e6).toFixed(0)} M` : "?",
        v && b ? `${((v - b) / 1e6).toFixed(0)} M` : "?",
        v && e ? `${(v / e).toFixed(2)}×` : "?",
      ]);
    process.stdout.write(`callgrind (one run each):\n${table(irows)}\n`);
    const i = ir["node -e \"import('hcpx')\""];
    if (i && e)
      goal("import('hcpx') ≤ hcpx exec calc add's start, instructions", ["import('hcpx')", i], ["hcpx exec", e], {
        max: 1,
        unit: "instr",
      });
  } else process.stdout.write("callgrind: skipped (no valgrind, or BENCH_CALLGRIND=0)\n");

  // 2 + 3. in-process calls through the library
  const { openProject } = await import(pathToFileURL(LIB).href);
  const project = await openProject({ cwd: dir });
  const bin = join(dir, "bins", "calc.mjs");
  // the env the runtime gives the bin (src/runtime/wrap.ts binEnv: locale basics + agent_env)
  const binEnv = { CALC_OUTPUT: "json" };
  for (const k of ["HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "NO_COLOR"])
    if (process.env[k] !== undefined) binEnv[k] = process.env[k];
  const t = { composite: [], wrap: [], spawn: [] };
  const time = async (key, f) => {
    const t0 = performance.now();
    await f();
    const dt = performance.now() - t0;
    if (key) t[key].push(dt);
  };
  const ok = (r) => {
    if (!r.ok) throw new Error(JSON.stringify(r));
  };
  for (let i = 0; i < 3 + N; i++) {
    const k = (name) => (i >= 3 ? name : undefined);
    await time(k("composite"), async () => ok(await project.call("calc__add", { a: 1, b: 2 })));
    await time(k("wrap"), async () => ok(await project.call("calc-wrap__add", { a: 1, b: 2 })));
    await time(k("spawn"), () => spawnBin(bin, ["add", "1", "2", "--json"], binEnv, dir));
  }
  const wrapExec = median(
    timeCommands(
      {
        w: { cmd: process.execPath, args: [HCPX, "exec", "calc-wrap", "add", "--json", "--", "a=1", "b=2"], cwd: dir },
      },
      { runs: Math.min(RUNS, 15), warmup: 2 },
    ).w,
  );
  const mc = median(t.composite);
  const mw = median(t.wrap);
  const ms = median(t.spawn);
  process.stdout.write(
    `\nin-process through the library (${N} calls each, interleaved):\n` +
      table([
        ["call", "median", "p90"],
        ["project.call calc__add (composite)", fmt(mc), fmt(percentile(t.composite, 90))],
        ["project.call calc-wrap__add (wrap)", fmt(mw), fmt(percentile(t.wrap, 90))],
        ["direct spawn of bins/calc.mjs add", fmt(ms), fmt(percentile(t.spawn, 90))],
        ["hcpx exec calc add (from above)", fmt(exec), ""],
        ["hcpx exec calc-wrap add", fmt(wrapExec), ""],
      ]) +
      `\nhcpx exec calc-wrap add / the library's wrap call: ${(wrapExec / mw).toFixed(2)}×\n`,
  );
  goal("library composite call ≥ 20× faster than hcpx exec calc add", ["hcpx exec", exec], ["call", mc], { min: 20 });
  goal("library wrap call = the bin's spawn, no Node start (≤ 1.15× a direct spawn)", ["call", mw], ["spawn", ms], {
    max: 1.15,
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await bench();

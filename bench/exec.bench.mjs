// `hcpx exec` start-up against its floor, and composite against wrap.
//  1. CLI, interleaved, ≥ 30 runs each: `hcpx exec calc-wrap ping --json` vs the
//     CommonJS floor (bench/project.mjs: a script that only spawns the same bin
//     and parses its JSON; goal ≤ 1.10×, wall and callgrind instructions), beside the same
//     script through spawnSync (cheaper, but it cannot pass a cancel on: not the goal's floor,
//     its ratio printed for the record), vs a direct spawn
//     of the bin; the same exec with 30 other packs active and the called one
//     in a directory not named like its id (goal ≤ 1.05× of one pack). Each
//     with NODE_EXTRA_CA_CERTS unset (the honest figure: loading that bundle
//     is most of a Node start, and the floor pays it too) and, where this
//     machine sets it, set. And the first call after install: the same exec
//     with hcpx's cache folder ($XDG_CACHE_HOME/hcpx: V8 code cache, validated
//     packs) emptied before every run, against a warm one (goal ≤ 1.3×); the
//     code cache shipped in dist/cache (scripts/build.mjs) is what it starts from.
//  2. In-process: execute() of calc ping (composite) vs calc-wrap ping (wrap),
//     N calls each, interleaved (goal: composite ≥ 20× faster).
// The bin gets the runtime's minimal env in all three CLI variants, so the
// comparison is the same work; the parent processes inherit this env (with
// NODE_EXTRA_CA_CERTS when set: Node 20 then loads the CA bundle at every start).
import { cpSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { build } from "esbuild";
import { execProject, fillerPacks, REPO } from "./project.mjs";
import { caModes, emptyCache, fmt, goal, instructions, median, percentile, table, timeCommands } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS || 30);
/** The same script through spawnSync (bench/project.mjs): the cheapest in instructions, but it cannot pass a cancel on. */
const SYNC = "spawnSync floor (cannot pass a cancel on)";

export default async function bench() {
  const { dir, bin, binEnv, floor, floorSync } = execProject();
  const hcpx = process.env.HCPX_DIST_BIN ?? join(REPO, "dist", "hcpx.cjs"); // the bin (package.json)
  // 30 more active packs, and the one called lives in a directory not named like
  // its id: exec must not parse the other 30 to find it. A folder of its own, not one inside
  // the 1-pack project: there every call also read that project's config as an enclosing one
  // (src/pack/nested.ts), ~2.1 M instructions of the row (docs/design.md), a cost of nesting, not of packs.
  const many = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-bench-many-")));
  cpSync(join(dir, "packs"), join(many, "packs"), { recursive: true });
  cpSync(join(dir, "bins"), join(many, "bins"), { recursive: true });
  cpSync(join(many, "packs", "calc-wrap"), join(many, "packs", "zz-calculator"), { recursive: true });
  rmSync(join(many, "packs", "calc-wrap"), { recursive: true });
  const extra = fillerPacks(many, 30);
  writeFileSync(
    join(many, "hcp.config.json5"),
    JSON.stringify({
      packs: [...extra, "./packs/zz-calculator"],
      grants: { allow: ["calc-wrap.*"] },
      sandbox: { roots: ["."], cwd: "." },
    }),
  );
  // A user's warm call reads files that have aged: the validation cache keeps no file changed within
  // RACY_MS (3 s) of its read (src/pack/validcache.ts), so the projects just written settle first.
  await new Promise((r) => setTimeout(r, 3100));
  for (const [mode, env] of caModes()) {
    const cold = emptyCache(join(dir, "cold-cache"), env);
    const samples = timeCommands(
      {
        "hcpx exec calc-wrap ping": {
          cmd: process.execPath,
          args: [hcpx, "exec", "calc-wrap", "ping", "--json"],
          cwd: dir,
          env,
        },
        "first call after install (empty cache)": {
          cmd: process.execPath,
          args: [hcpx, "exec", "calc-wrap", "ping", "--json"],
          cwd: dir,
          ...cold,
        },
        "hcpx exec, 31 packs active": {
          cmd: process.execPath,
          args: [hcpx, "exec", "calc-wrap", "ping", "--json"],
          cwd: many,
          env,
        },
        "CommonJS floor (spawn + parse)": { cmd: process.execPath, args: [floor], cwd: dir, env },
        [SYNC]: { cmd: process.execPath, args: [floorSync], cwd: dir, env },
        "direct spawn of the bin": { cmd: process.execPath, args: [bin, "ping", "--json"], cwd: dir, env: binEnv },
      },
      { runs: RUNS, warmup: 3 },
    );
    const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
    const base = m["CommonJS floor (spawn + parse)"];
    const direct = m["direct spawn of the bin"];
    const rows = [["variant", "median", "p90", "vs floor", "vs direct"]];
    for (const [k, v] of Object.entries(samples))
      rows.push([
        k,
        fmt(m[k]),
        fmt(percentile(v, 90)),
        `${(m[k] / base).toFixed(2)}×`,
        `${(m[k] / direct).toFixed(2)}×`,
      ]);
    process.stdout.write(`CLI, ${mode} (${RUNS} runs each, interleaved):\n${table(rows)}\n`);
    const exec = m["hcpx exec calc-wrap ping"];
    process.stdout.write(
      `not a goal: hcpx exec / ${SYNC}, wall ${(exec / m[SYNC]).toFixed(3)}× (the floor itself ${(base / m[SYNC]).toFixed(3)}×)\n`,
    );
    goal(`exec ≤ 1.10× CommonJS floor, wall, ${mode}`, ["hcpx exec", m["hcpx exec calc-wrap ping"]], ["floor", base], {
      max: 1.1,
    });
    goal(
      `first exec after install ≤ 1.3× a warm one, wall, ${mode}`,
      ["empty cache", m["first call after install (empty cache)"]],
      ["warm", m["hcpx exec calc-wrap ping"]],
      { max: 1.3 },
    );
    goal(
      `exec with 31 packs ≤ 1.05× with 1, wall, ${mode}`,
      ["31 packs", m["hcpx exec, 31 packs active"]],
      ["1 pack", m["hcpx exec calc-wrap ping"]],
      { max: 1.05 },
    );
    const ih = instructions(process.execPath, [hcpx, "exec", "calc-wrap", "ping", "--json"], { cwd: dir, env });
    if (ih !== undefined) {
      const iFloor = instructions(process.execPath, [floor], { cwd: dir, env });
      const iSync = instructions(process.execPath, [floorSync], { cwd: dir, env });
      const iMany = instructions(process.execPath, [hcpx, "exec", "calc-wrap", "ping", "--json"], { cwd: many, env });
      const iNode = instructions(process.execPath, ["-e", "0"], { env });
      const iOff = instructions(process.execPath, [hcpx, "exec", "calc-wrap", "ping", "--json"], {
        cwd: dir,
        env: { ...env, HCPX_AUDIT_LOG: "off" },
      });
      const iCold = instructions(process.execPath, [hcpx, "exec", "calc-wrap", "ping", "--json"], {
        cwd: dir,
        ...cold,
      });
      process.stdout.write(
        `instructions (callgrind, parent process only, median of 3; the floor is the CommonJS spawn + parse script): hcpx exec ${(ih / 1e6).toFixed(0)} M, audit log off ${(iOff / 1e6).toFixed(0)} M, first call after install ${(iCold / 1e6).toFixed(0)} M, 31 packs ${(iMany / 1e6).toFixed(0)} M, CommonJS floor ${(iFloor / 1e6).toFixed(0)} M, spawnSync floor ${(iSync / 1e6).toFixed(0)} M, node -e 0 ${(iNode / 1e6).toFixed(0)} M\n` +
          `not a goal: hcpx exec / ${SYNC}, instructions ${(ih / iSync).toFixed(3)}× (the floor itself ${(iFloor / iSync).toFixed(3)}×)\n`,
      );
      goal(`exec ≤ 1.10× CommonJS floor, instructions, ${mode}`, ["hcpx exec", ih], ["floor", iFloor], {
        max: 1.1,
        unit: "instr",
      });
      goal(
        `exec, HCPX_AUDIT_LOG=off, ≤ 1.10× CommonJS floor, instructions, ${mode}`,
        ["hcpx exec (audit off)", iOff],
        ["floor", iFloor],
        { max: 1.1, unit: "instr" },
      );
      goal(`first exec after install ≤ 1.3× a warm one, instructions, ${mode}`, ["empty cache", iCold], ["warm", ih], {
        max: 1.3,
        unit: "instr",
      });
      goal(`exec with 31 packs ≤ 1.05× with 1, instructions, ${mode}`, ["31 packs", iMany], ["1 pack", ih], {
        max: 1.05,
        unit: "instr",
      });
    } else process.stdout.write("instructions: skipped (valgrind not installed, or BENCH_VALGRIND=0)\n");
    process.stdout.write("\n");
  }

  // in-process: bundle the runtime (as dist does) and call execute()
  const entry = join(dir, "rt-entry.ts");
  writeFileSync(
    entry,
    `export { execute } from ${JSON.stringify(join(REPO, "src/runtime/execute.ts"))};\nexport { loadProject } from ${JSON.stringify(join(REPO, "src/pack/load.ts"))};\n`,
  );
  const outfile = join(dir, "rt.mjs");
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "warning",
  });
  const { execute, loadProject } = await import(pathToFileURL(outfile).href);
  const project = loadProject({ config: join(dir, "hcp.config.json5"), user: false });
  const N = Number(process.env.BENCH_INPROC_RUNS || 40);
  const t = { composite: [], wrap: [] };
  const call = async (kind) => {
    const t0 = performance.now();
    const r = await execute(project, {
      pack: kind === "composite" ? "calc" : "calc-wrap",
      verb: "add",
      args: { a: 1, b: 2 },
    });
    const dt = performance.now() - t0;
    if (!r.ok) throw new Error(`${kind}: ${JSON.stringify(r)}`);
    return dt;
  };
  for (let i = 0; i < 3; i++) {
    await call("composite");
    await call("wrap");
  }
  for (let i = 0; i < N; i++) {
    t.composite.push(await call("composite"));
    t.wrap.push(await call("wrap"));
  }
  const mc = median(t.composite);
  const mw = median(t.wrap);
  process.stdout.write(
    `in-process execute() (${N} calls each, interleaved; both include reading the pack's surface/policy):\n` +
      table([
        ["adapter", "median", "p90"],
        ["composite calc add", fmt(mc), fmt(percentile(t.composite, 90))],
        ["wrap calc-wrap add", fmt(mw), fmt(percentile(t.wrap, 90))],
      ]) +
      "\n",
  );
  goal("composite ≥ 20× faster than wrap (in-process execute())", ["wrap", mw], ["composite", mc], { min: 20 });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await bench();

// `hcpx exec` start-up against its floor, and composite against wrap.
//  1. CLI, interleaved, ≥ 30 runs each: `hcpx exec calc-wrap ping --json` vs a
//     zero-dependency Node script that only spawns the same bin and parses its
//     JSON (goal ≤ 1.15×), vs a direct spawn of the bin.
//  2. In-process: execute() of calc ping (composite) vs calc-wrap ping (wrap),
//     N calls each, interleaved (goal: composite ≥ 20× faster).
// The bin gets the runtime's minimal env in all three CLI variants, so the
// comparison is the same work; the parent processes inherit this env (with
// NODE_EXTRA_CA_CERTS when set: Node 20 then loads the CA bundle at every start).
import { cpSync, mkdtempSync, writeFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { build } from "esbuild";
import { fmt, median, percentile, table, timeCommands } from "./lib.mjs";

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));
const RUNS = Number(process.env.BENCH_RUNS || 30);

function minimalEnv(extra) {
  const env = {};
  for (const k of ["HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "NO_COLOR"]) if (process.env[k] !== undefined) env[k] = process.env[k];
  for (const k of Object.keys(process.env)) if (k.startsWith("LC_")) env[k] = process.env[k];
  return { ...env, ...extra };
}

export default async function bench() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-bench-exec-")));
  cpSync(join(REPO, "packs"), join(dir, "packs"), { recursive: true });
  cpSync(join(REPO, "bins"), join(dir, "bins"), { recursive: true });
  writeFileSync(join(dir, "hcp.config.json5"), JSON.stringify({ packs: ["./packs/calc", "./packs/calc-wrap"], grants: { allow: ["calc.*", "calc-wrap.*"] }, sandbox: { roots: ["."], cwd: "." } }));
  const bin = join(dir, "bins", "calc.mjs");
  const binEnv = minimalEnv({ CALC_OUTPUT: "json" });
  const floor = join(dir, "floor.mjs");
  writeFileSync(
    floor,
    `import { spawn } from "node:child_process";
const env = ${JSON.stringify(binEnv)};
const c = spawn(process.execPath, [${JSON.stringify(bin)}, "ping", "--json"], { env, stdio: ["ignore", "pipe", "pipe"] });
let out = "";
c.stdout.setEncoding("utf8").on("data", (d) => (out += d));
c.on("close", (code) => { const data = JSON.parse(out); process.stdout.write(JSON.stringify({ ok: code === 0, data }) + "\\n"); process.exitCode = code ? 1 : 0; });
`,
  );
  const hcpx = process.env.HCPX_DIST_BIN ?? join(REPO, "dist", "hcpx.mjs");
  const samples = timeCommands(
    {
      "hcpx exec calc-wrap ping": { cmd: process.execPath, args: [hcpx, "exec", "calc-wrap", "ping", "--json"], cwd: dir },
      "floor script (spawn + parse)": { cmd: process.execPath, args: [floor], cwd: dir },
      "direct spawn of the bin": { cmd: process.execPath, args: [bin, "ping", "--json"], cwd: dir, env: binEnv },
    },
    { runs: RUNS, warmup: 3 },
  );
  const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
  const base = m["floor script (spawn + parse)"];
  const direct = m["direct spawn of the bin"];
  const rows = [["variant", "median", "p90", "vs floor", "vs direct"]];
  for (const [k, v] of Object.entries(samples)) rows.push([k, fmt(m[k]), fmt(percentile(v, 90)), `${(m[k] / base).toFixed(2)}×`, `${(m[k] / direct).toFixed(2)}×`]);
  process.stdout.write(`CLI (${RUNS} runs each, interleaved; NODE_EXTRA_CA_CERTS ${process.env.NODE_EXTRA_CA_CERTS ? "set" : "unset"}):\n${table(rows)}\n`);
  const ratio = m["hcpx exec calc-wrap ping"] / base;
  process.stdout.write(`goal hcpx exec ≤ 1.15× floor: ${ratio.toFixed(2)}× ${ratio <= 1.15 ? "MET" : "NOT MET"}\n\n`);

  // in-process: bundle the runtime (as dist does) and call execute()
  const entry = join(dir, "rt-entry.ts");
  writeFileSync(entry, `export { execute } from ${JSON.stringify(join(REPO, "src/runtime/execute.ts"))};\nexport { loadProject } from ${JSON.stringify(join(REPO, "src/pack/load.ts"))};\n`);
  const outfile = join(dir, "rt.mjs");
  await build({ entryPoints: [entry], outfile, bundle: true, format: "esm", platform: "node", target: "node20", logLevel: "warning" });
  const { execute, loadProject } = await import(pathToFileURL(outfile).href);
  const project = loadProject({ config: join(dir, "hcp.config.json5"), user: false });
  const N = Number(process.env.BENCH_INPROC_RUNS || 40);
  const t = { composite: [], wrap: [] };
  const call = async (kind) => {
    const t0 = performance.now();
    const r = await execute(project, { pack: kind === "composite" ? "calc" : "calc-wrap", verb: "add", args: { a: 1, b: 2 } });
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
      `\ngoal composite ≥ 20× faster than wrap: ${(mw / mc).toFixed(1)}× ${mw / mc >= 20 ? "MET" : "NOT MET"}\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await bench();

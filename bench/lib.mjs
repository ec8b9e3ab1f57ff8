// Timing helpers for benchmarks: interleaved runs, medians, ratios.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { cpus, loadavg, tmpdir } from "node:os";
import { MCP_OPENING, mcpRequest, mcpStart } from "../test/support/mcp-lines.mjs";

export { MCP_OPENING, mcpStart };

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** Time commands interleaved (a b c a b c …) so drift hits all alike; a command's `before()` runs untimed before each of its runs. Returns ms samples per name. */
export function timeCommands(cmds, { runs = 20, warmup = 3 } = {}) {
  const samples = Object.fromEntries(Object.keys(cmds).map((k) => [k, []]));
  for (let i = 0; i < warmup + runs; i++) {
    for (const [name, c] of Object.entries(cmds)) {
      c.before?.(); // e.g. empty a cache: not timed
      const t0 = performance.now();
      const r = spawnSync(c.cmd, c.args, { cwd: c.cwd, env: c.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
      const dt = performance.now() - t0;
      if (r.status !== 0 && !c.allowFail) throw new Error(`${name} failed (${r.status}): ${r.stderr}`);
      if (i >= warmup) samples[name].push(dt);
    }
  }
  return samples;
}

/**
 * How fast this machine is, for the goals stated in absolute time (generate's 5 s, `npm test`'s 2 min): two
 * machines of the same kind (2 cores) ran the same build's generate at 5,000 packs in 5.4 and 2.3 s, a day
 * apart. `node -e 0` (CA bundle unset; median of 15, after 3 untimed) and a fixed allocation-heavy JavaScript
 * workload in this process, much like hcpx's own (objects built, printed and parsed as JSON; the least of 7:
 * its median moved 170-230 ms between runs minutes apart, with another program's noise).
 * The line bench/run.mjs prints at the start of a run; ratios need no such line, absolute figures do.
 */
export function machineSpeed() {
  const start = median(
    timeCommands({ node: { cmd: process.execPath, args: ["-e", "0"], env: withoutCa() } }, { runs: 15 }).node,
  );
  const work = () => {
    const t0 = performance.now();
    for (let r = 0; r < 4; r++) {
      const xs = [];
      for (let i = 0; i < 50_000; i++)
        xs.push({ id: `pack-${i}`, n: i, tags: ["a", "b", String(i % 7)], ok: i % 3 === 0 });
      if (JSON.parse(JSON.stringify(xs, null, 2)).length !== xs.length) throw new Error("machineSpeed: workload broke");
    }
    return performance.now() - t0;
  };
  work(); // compiled before it is timed
  const js = Math.min(...Array.from({ length: 7 }, work));
  return `machine: ${cpus().length} CPUs, \`node -e 0\` ${fmt(start)} (median of 15), a fixed JS workload ${fmt(js)} (least of 7); absolute figures move with these, ratios do not`;
}

export function fmt(ms) {
  return `${ms.toFixed(1)} ms`;
}

export function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => r.map((c, i) => String(c).padEnd(widths[i])).join("  ")).join("\n");
}

// ---- goals: every goal is a ratio of two medians measured side by side ----
const goals = [];

/** The machine's load while a figure was taken: 1-minute load average over CPUs. */
export function load() {
  return `load ${loadavg()[0].toFixed(1)} on ${cpus().length} CPUs`;
}

/**
 * Print and record one goal: `a` / `b` (each `[label, median ms]`) against a
 * bound, `max` (ratio ≤ max) or `min` (ratio ≥ min). `unit` for non-ms figures.
 */
export function goal(name, a, b, { max, min, unit = "ms" }) {
  const ratio = a[1] / b[1];
  const met = max !== undefined ? ratio <= max : ratio >= min;
  const bound = max !== undefined ? `≤ ${max}×` : `≥ ${min}×`;
  const show = (x) => (unit === "ms" ? fmt(x) : `${Math.round(x).toLocaleString("en")} ${unit}`);
  const line = {
    name,
    a: `${a[0]} ${show(a[1])}`,
    b: `${b[0]} ${show(b[1])}`,
    ratio: `${ratio.toFixed(3)}×`,
    bound,
    met,
    load: load(),
  };
  goals.push(line);
  process.stdout.write(
    `goal ${name}: ${line.a} / ${line.b} = ${line.ratio} (${bound}) ${met ? "MET" : "NOT MET"} · ${line.load}\n`,
  );
  return met;
}

/** Print and record an absolute goal (a median against a bound in ms, or in `unit`). */
export function goalAbs(name, label, ms, maxMs, { unit = "ms" } = {}) {
  const met = ms <= maxMs;
  const show = (x) => (unit === "ms" ? fmt(x) : `${x.toFixed(0)} ${unit}`);
  const line = {
    name,
    a: `${label} ${show(ms)}`,
    b: `bound ${show(maxMs)}`,
    ratio: `${(ms / maxMs).toFixed(3)}×`,
    bound: `≤ ${show(maxMs)}`,
    met,
    load: load(),
  };
  goals.push(line);
  process.stdout.write(`goal ${name}: ${line.a} (${line.bound}) ${met ? "MET" : "NOT MET"} · ${line.load}\n`);
  return met;
}

export function goalSummary() {
  if (!goals.length) return "";
  return table([
    ["goal", "measured", "against", "ratio", "bound", "", "machine"],
    ...goals.map((g) => [g.name, g.a, g.b, g.ratio, g.bound, g.met ? "MET" : "NOT MET", g.load]),
  ]);
}

/** Environment without NODE_EXTRA_CA_CERTS (Node 20 loads that bundle at every start). */
export function withoutCa(env = process.env) {
  const e = { ...env };
  delete e.NODE_EXTRA_CA_CERTS;
  return e;
}

/**
 * A run with an empty cache, as the first call after install has: `env` with XDG_CACHE_HOME at `dir`
 * (hcpx's caches: code, validation) and `before`, which empties it before each run (untimed). Spread
 * into a timeCommands or instructions entry.
 */
export function emptyCache(dir, env) {
  return { env: { ...env, XDG_CACHE_HOME: dir }, before: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A tools/list request of id `id` in `era` (the opening: MCP_OPENING, test/support/mcp-lines.mjs). */
export const mcpList = (era, id) => mcpRequest(era, id, "tools/list");

/** The CA modes to measure in: always unset (the honest figure); also set when this machine sets it. */
export function caModes(env = process.env) {
  const modes = [["NODE_EXTRA_CA_CERTS unset", withoutCa(env)]];
  if (env.NODE_EXTRA_CA_CERTS) modes.push(["NODE_EXTRA_CA_CERTS set", { ...env }]);
  return modes;
}

/**
 * The self cost (instructions) of the functions whose name contains `name` in a
 * callgrind output file: the cost lines under `fn=`, not the inclusive cost
 * lines that follow a `calls=` line. Names are compressed as `(id) name` once,
 * then `(id)`, in fn= and cfn= lines alike.
 */
export function selfCost(file, name) {
  const names = new Map();
  const named = (spec) => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(spec);
    if (!m) return spec;
    if (m[2] !== undefined) names.set(m[1], m[2]);
    return names.get(m[1]) ?? "";
  };
  let cur = "";
  let call = false;
  let total = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("fn=")) {
      cur = named(line.slice(3));
      call = false;
    } else if (line.startsWith("cfn=")) named(line.slice(4));
    else if (line.startsWith("calls=")) call = true;
    else if (/^[0-9+*-]/.test(line)) {
      if (call) call = false;
      else if (cur.includes(name)) total += Number(line.trim().split(/\s+/)[1] ?? 0);
    }
  }
  return total;
}

/**
 * One run of `cmd args` under callgrind: the instructions its own process
 * executed (not its children's) and its stdout; undefined when valgrind is not
 * installed or BENCH_VALGRIND=0. Without V8's hash-seed prime search
 * (`detail::sprp`, HashSeed::InitializeRoots): it tests random candidates, so
 * it costs 5–8 M instructions that vary run to run in every Node start, the
 * floor's too — noise, not work either side does.
 * `children`: also the processes `cmd` starts, except those with an argument
 * matching the pattern (valgrind's --trace-children-skip-by-arg: e.g. the
 * pack's bin, which the other rows do not count either), summed: for a
 * launcher script, the shell, what it runs and the program it execs.
 */
export function callgrind(cmd, args, { cwd, env, input, children } = {}) {
  if (process.env.BENCH_VALGRIND === "0") return undefined;
  const dir = mkdtempSync(join(tmpdir(), "hcpx-bench-cg-"));
  try {
    const out = join(dir, "callgrind.out");
    const trace =
      children === undefined
        ? [`--callgrind-out-file=${out}`]
        : [`--callgrind-out-file=${out}.%p`, "--trace-children=yes", `--trace-children-skip-by-arg=${children}`];
    const r = spawnSync("valgrind", ["--tool=callgrind", ...trace, cmd, ...args], {
      cwd,
      env,
      input,
      encoding: "utf8",
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    if (r.error) return undefined;
    const counts = [...(r.stderr ?? "").matchAll(/Collected\s*:\s*(\d+)/g)].map((m) => Number(m[1]));
    if (!counts.length)
      throw new Error(`callgrind gave no count for ${cmd} ${args.join(" ")}: ${r.stderr?.slice(-500)}`);
    if (children === undefined) return { count: counts[0] - selfCost(out, "detail::sprp"), stdout: r.stdout };
    const sprp = readdirSync(dir).reduce((a, f) => a + selfCost(join(dir, f), "detail::sprp"), 0);
    return { count: counts.reduce((a, b) => a + b, 0) - sprp, stdout: r.stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The median of `runs` counts (`count()`: one callgrind run's; undefined without valgrind). One run's count
 * moves with V8's random seeds: `hcpx mcp --config …`, 1 pack, legacy, five runs of one build gave
 * 319.5-345.4 M (stop 74); with --random-seed=1 the same start gives 345.1 M every time, with --hash-seed=1
 * 382.6 M. A fixed seed measures one start of the many users get, so the rows take the median of a few.
 */
export function medianCount(count, runs = 3) {
  const counts = [];
  for (let i = 0; i < runs; i++) {
    const n = count();
    if (n === undefined) return undefined;
    counts.push(n);
  }
  return median(counts);
}

/** Instructions of `cmd args` (callgrind above), median of `runs` (medianCount); undefined without valgrind. */
export function instructions(cmd, args, { cwd, env, runs = 3, before, children } = {}) {
  return medianCount(() => {
    before?.();
    return callgrind(cmd, args, { cwd, env, children })?.count;
  }, runs);
}

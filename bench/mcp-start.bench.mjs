// `hcpx mcp` start and tools/list (issue 29), driven by raw JSON-RPC lines over
// stdio (no client library in the timed path):
// - start → first tools/list answered, for the command lines adopt really
//   writes (`hcpx mcp --config <file>` and `hcpx mcp --shape per-command
//   --config <file>`), in both protocol eras (legacy: initialize first; modern
//   2026-07-28: server/discover, then a tools/list with the _meta envelope),
//   at 1 pack and 100 packs × 10 commands, against a bare server bundled from
//   the same SDK (v2, serveStdio, one tool) in the same era, interleaved.
//   Wall (load-dependent) and callgrind instructions (not on load, but on V8's random seeds: the
//   median of MCP_BENCH_CALLGRIND_RUNS, default 3, runs; BENCH_VALGRIND=0 skips them),
//   with a warm cache (HOME kept between starts: the V8 code cache, the validation cache and
//   the start cache, src/mcp/start-cache.ts).
// - the first start after install (an empty cache folder: the V8 code cache shipped in
//   dist/cache is read), 1 pack, against the warm start and without the shipped cache.
// - tools/list at 5,000 packs (p50, watching on, as a host starts it) and the
//   bytes of the single shape's tools/list at 5,000 packs (what a model sees).
// Run: `npm run bench -- mcp-start` (or `node bench/run.mjs mcp-start` after `npm run build`).
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import {
  callgrind,
  fmt,
  goal,
  goalAbs,
  MCP_OPENING,
  mcpList,
  mcpStart,
  median,
  medianCount,
  table,
  withoutCa,
} from "./lib.mjs";
import { syntheticProject } from "./generate.bench.mjs";
import { bareServer } from "./bare-sdk.mjs";

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));
const HCPX = process.env.HCPX_BENCH_BIN ?? join(REPO, "dist", "hcpx.cjs"); // the bin (package.json)
const STARTS = Number(process.env.MCP_BENCH_STARTS ?? 9);
const BIG = Number(process.env.MCP_BENCH_BIG ?? 5000);
const CALLGRIND_RUNS = Number(process.env.MCP_BENCH_CALLGRIND_RUNS ?? 3); // medianCount (./lib.mjs): why a median

/** A server on stdio, spoken to in raw lines: request(text, id) resolves with the response of that id. */
function open(args, cwd, env) {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ["pipe", "pipe", "ignore"] });
  let buf = "";
  const waiting = new Map();
  child.stdout.setEncoding("utf8").on("data", (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const l = buf.slice(0, i);
      buf = buf.slice(i + 1);
      let m;
      try {
        m = JSON.parse(l);
      } catch {
        continue;
      }
      if (m.id !== undefined && waiting.has(m.id)) {
        waiting.get(m.id)(m);
        waiting.delete(m.id);
      }
    }
  });
  let gone;
  const exited = new Promise((r) =>
    child.on("close", (code, sig) => {
      gone = `${args.join(" ")} exited (${code ?? sig})`;
      for (const w of waiting.values()) w(undefined, gone);
      waiting.clear();
      r();
    }),
  );
  return {
    // a server that exits before answering fails the bench (never a hang)
    request: (text, id) =>
      new Promise((resolve, reject) => {
        if (gone) return reject(new Error(gone));
        waiting.set(id, (m, err) => (err ? reject(new Error(err)) : resolve(m)));
        child.stdin.write(text);
      }),
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

/** Spawn → the first tools/list answered (ms); the answer's size in bytes. */
async function firstList(args, cwd, env, era) {
  const t0 = performance.now();
  const s = open(args, cwd, env);
  await s.request(MCP_OPENING[era], 1);
  const r = await s.request(mcpList(era, 2), 2);
  const dt = performance.now() - t0;
  await s.close();
  if (!r.result?.tools)
    throw new Error(`no tools/list answer from ${args.join(" ")}: ${JSON.stringify(r).slice(0, 300)}`);
  return { ms: dt, bytes: JSON.stringify(r.result.tools).length };
}

/** Instructions of one start answering the opening and a tools/list, the input given whole (the server exits at its end). */
function startInstructions(args, cwd, env, era) {
  const r = callgrind(process.execPath, args, { cwd, env, input: mcpStart(era) });
  if (r === undefined) return undefined;
  if (!r.stdout.includes('"id":2')) throw new Error(`callgrind: no answer for ${args.join(" ")}`);
  return r.count;
}

export default async function bench() {
  // a HOME of its own, and the environment whose caches and config are there
  const scratchHome = (prefix) => realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const homeEnv = (h) => ({
    ...withoutCa(),
    PATH: process.env.PATH ?? "",
    HOME: h,
    XDG_CACHE_HOME: join(h, ".cache"),
    XDG_CONFIG_HOME: join(h, ".config"),
  });
  const home = scratchHome("hcpx-bench-home-");
  const env = homeEnv(home);
  const bare = await bareServer();
  const projects = { 1: syntheticProject(1), 100: syntheticProject(100) };
  // the command lines adopt writes (src/host/engine.ts): the config named when the entry serves a given file
  const lines = {
    single: (dir) => [HCPX, "mcp", "--config", join(dir, "hcp.config.json5")],
    "per-command": (dir) => [HCPX, "mcp", "--shape", "per-command", "--config", join(dir, "hcp.config.json5")],
  };
  const cases = [];
  for (const era of ["legacy", "modern"]) {
    cases.push({ key: `bare ${era}`, era, args: [bare.file], cwd: bare.dir });
    for (const shape of ["single", "per-command"])
      for (const n of [1, 100])
        cases.push({ key: `${shape} ${n} ${era}`, era, shape, n, args: lines[shape](projects[n]), cwd: projects[n] });
  }
  const wall = Object.fromEntries(cases.map((c) => [c.key, []]));
  for (let i = 0; i < STARTS + 2; i++) {
    for (const c of cases) {
      const { ms } = await firstList(c.args, c.cwd, env, c.era);
      if (i >= 2) wall[c.key].push(ms);
    }
  }
  const ins = Object.fromEntries(
    cases.map((c) => [c.key, medianCount(() => startInstructions(c.args, c.cwd, env, c.era), CALLGRIND_RUNS)]),
  );
  const M = (x) => (x === undefined ? "-" : `${(x / 1e6).toFixed(0)} M`);
  const rows = [
    [
      "start → first tools/list (warm cache)",
      "era",
      `wall p50 of ${STARTS}`,
      "× bare",
      `instructions, median of ${CALLGRIND_RUNS}`,
      "× bare",
    ],
  ];
  for (const c of cases) {
    const b = `bare ${c.era}`;
    rows.push([
      c.shape
        ? `hcpx mcp ${c.shape === "single" ? "" : "--shape per-command "}--config …, ${c.n} pack${c.n > 1 ? "s × 10 commands" : ""}`
        : "bare bundled SDK server, 1 tool",
      c.era,
      fmt(median(wall[c.key])),
      c.shape ? `${(median(wall[c.key]) / median(wall[b])).toFixed(2)}×` : "",
      M(ins[c.key]),
      c.shape && ins[c.key] ? `${(ins[c.key] / ins[b]).toFixed(2)}×` : "",
    ]);
  }
  process.stdout.write(table(rows) + "\n");
  for (const c of cases.filter((x) => x.shape)) {
    const bound = c.n === 1 ? 1.2 : 1.5;
    const b = `bare ${c.era}`;
    goal(
      `mcp start → first tools/list, ${c.shape}, ${c.n} pack(s), ${c.era} (wall)`,
      ["hcpx mcp", median(wall[c.key])],
      ["bare", median(wall[b])],
      { max: bound },
    );
    if (ins[c.key] && ins[b])
      goal(
        `mcp start → first tools/list, ${c.shape}, ${c.n} pack(s), ${c.era} (instructions)`,
        ["hcpx mcp", ins[c.key]],
        ["bare", ins[b]],
        { max: bound, unit: "instructions" },
      );
  }

  // ---- a host's first start after install: no cache folder yet (a fresh container, CI, a new HOME) ----
  // the shipped V8 code cache (dist/cache, scripts/build.mjs) is read; the validation and start caches are
  // empty. Against the warm start above, as exec's first call is against its warm one (≤ 1.3×); and
  // without the shipped cache (HCPX_NO_SHIPPED_CACHE=1), what the user's first start would compile.
  const fresh = (extra = {}) => {
    const h = scratchHome("hcpx-bench-fresh-");
    return { h, env: { ...homeEnv(h), ...extra } };
  };
  const firstCases = cases.filter((c) => c.shape && c.n === 1);
  const firstRows = [
    [
      "first start after install → first tools/list",
      "era",
      "wall p50 of 5",
      `instructions, median of ${CALLGRIND_RUNS}`,
      "× warm",
      "without the shipped cache",
    ],
  ];
  for (const c of firstCases) {
    const ms = [];
    for (let i = 0; i < 5; i++) {
      const f = fresh();
      ms.push((await firstList(c.args, c.cwd, f.env, c.era)).ms);
      rmSync(f.h, { recursive: true, force: true });
    }
    // each run from an empty cache folder of its own
    const once = (extra) =>
      medianCount(() => {
        const f = fresh(extra);
        const n = startInstructions(c.args, c.cwd, f.env, c.era);
        rmSync(f.h, { recursive: true, force: true });
        return n;
      }, CALLGRIND_RUNS);
    const cold = once({});
    const unshipped = once({ HCPX_NO_SHIPPED_CACHE: "1" });
    firstRows.push([
      `hcpx mcp ${c.shape === "single" ? "" : "--shape per-command "}--config …, 1 pack`,
      c.era,
      fmt(median(ms)),
      M(cold),
      cold && ins[c.key] ? `${(cold / ins[c.key]).toFixed(2)}×` : "",
      M(unshipped),
    ]);
    if (cold && ins[c.key])
      goal(
        `mcp first start after install ≤ 1.3× a warm start, ${c.shape}, 1 pack, ${c.era} (instructions)`,
        ["first start", cold],
        ["warm", ins[c.key]],
        { max: 1.3, unit: "instructions" },
      );
  }
  process.stdout.write("\n" + table(firstRows) + "\n");

  // ---- tools/list at BIG packs, and what a model sees of the single shape ----
  const big = syntheticProject(BIG);
  const s = open([HCPX, "mcp"], big, env);
  await s.request(MCP_OPENING.legacy, 1);
  const first = await s.request(mcpList("legacy", 2), 2);
  const bytes = JSON.stringify(first.result.tools).length;
  const lists = [];
  for (let i = 0; i < 40; i++) {
    const t0 = performance.now();
    await s.request(mcpList("legacy", 3 + i), 3 + i);
    if (i >= 5) lists.push(performance.now() - t0);
  }
  await s.close();
  process.stdout.write(
    `\ntools/list at ${BIG} packs × 10 commands: p50 ${fmt(median(lists))} (of ${lists.length}); the single shape's tools/list is ${bytes.toLocaleString("en")} bytes\n`,
  );
  goalAbs(`tools/list at ${BIG} packs ≤ 5 ms (p50)`, "tools/list", median(lists), 5);
  // a size, not a time: in the goals table with the bound beside it (whatever the number of packs)
  goalAbs(`single-shape tools/list at ${BIG} packs ≤ 8,192 bytes`, "tools/list", bytes, 8192, { unit: "B" });
  for (const d of [bare.dir, big, ...Object.values(projects), home]) rmSync(d, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await bench();

// `hcpx mcp` benchmark: one server, driven by the SDK's real Client over stdio.
// - tools/call of a trivial wrap read (`calc-wrap ping`) through `hcp`, p50/p95
//   over ≥ 200 calls, interleaved with a direct spawn of the same bin with the
//   same argv from this process (goal: p50 ratio ≤ 1.05×), with the same call to a server whose
//   project has 100 more packs active (hcpx's own bound, as exec's 31 packs: ≤ 1.05× the 3-pack
//   call), and with a bare SDK v2 server whose tools/call spawns that bin the same way
//   (bare-sdk.mjs: the SDK's own cost of a call, a reference, not a goal);
// - a call that spawns nothing (unknown verb): the per-call cost of the server
//   itself (JSON-RPC, re-reading hcp.config.json5, loading the pack);
// - server start to ready (spawn → initialize answered), next to a bare Node start.
// Run: `npm run bench -- mcp` (or `node bench/run.mjs mcp` after `npm run build`).
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { bareServer } from "./bare-sdk.mjs";
import { fmt, goal, median, percentile, table } from "./lib.mjs";
import { mcpProject } from "./project.mjs";

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));
const HCPX = process.env.HCPX_BENCH_BIN ?? join(REPO, "dist", "hcpx.cjs"); // the bin (package.json)
const CALLS = Number(process.env.MCP_BENCH_CALLS ?? 300);
const STARTS = Number(process.env.MCP_BENCH_STARTS ?? 15);

const FILLERS = 100;

function scratch() {
  const dir = mcpProject("hcpx-bench-mcp-");
  const many = mcpProject("hcpx-bench-mcp-many-", FILLERS);
  const home = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-bench-home-")));
  return { dir, many, written: performance.now(), home };
}

async function connect(dir, home, args = [HCPX, "mcp"]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}),
    },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return client;
}

/** The floor: spawn the bin with the same argv from this process and parse its JSON. */
function direct(dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(dir, "bins", "calc.mjs"), "ping", "--json"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", CALC_OUTPUT: "json" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`calc exited ${code}`))));
  });
}

function bareNode() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    child.on("error", reject);
    child.on("close", resolve);
  });
}

async function time(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export default async function bench() {
  const { dir, many, written, home } = scratch();

  // ---- start to ready ----
  const starts = [];
  const nodes = [];
  for (let i = 0; i < STARTS + 2; i++) {
    let client;
    const t = await time(async () => {
      client = await connect(dir, home);
    });
    await client.close();
    const n = await time(bareNode);
    if (i >= 2) {
      starts.push(t);
      nodes.push(n);
    }
  }

  // ---- tools/call vs direct spawn vs a bare SDK server, interleaved ----
  // a user's packs have aged: a file changed within RACY_MS (3 s) is read again on every call (src/util/stamp.ts)
  await new Promise((r) => setTimeout(r, Math.max(0, 3100 - (performance.now() - written))));
  const client = await connect(dir, home);
  const manyClient = await connect(many, home);
  const bare = await bareServer({ callBin: true });
  const bareClient = await connect(dir, home, [bare.file]);
  const call = async () => {
    const r = await client.callTool({ name: "hcp", arguments: { pack: "calc-wrap", verb: "ping" } });
    if (r.isError || !r.structuredContent?.ok) throw new Error(`tools/call failed: ${JSON.stringify(r)}`);
  };
  const manyCall = async () => {
    const r = await manyClient.callTool({ name: "hcp", arguments: { pack: "calc-wrap", verb: "ping" } });
    if (r.isError || !r.structuredContent?.ok) throw new Error(`tools/call failed: ${JSON.stringify(r)}`);
  };
  const bareCall = async () => {
    const r = await bareClient.callTool({ name: "t", arguments: {} });
    if (r.isError || !r.structuredContent?.ok) throw new Error(`bare tools/call failed: ${JSON.stringify(r)}`);
  };
  const noSpawn = async () => {
    const r = await client.callTool({ name: "hcp", arguments: { pack: "calc-wrap", verb: "nope" } });
    if (r.structuredContent?.error?.code !== "unknown_verb")
      throw new Error(`expected unknown_verb: ${JSON.stringify(r)}`);
  };
  const listTools = async () => {
    await client.listTools();
  };
  const s = { mcp: [], many: [], direct: [], bare: [], noSpawn: [], listTools: [] };
  for (let i = 0; i < 20; i++) {
    await call();
    await manyCall();
    await direct(dir);
    await bareCall();
  }
  const sides = [
    ["mcp", call],
    ["many", manyCall],
    ["direct", () => direct(dir)],
    ["bare", bareCall],
  ];
  for (let i = 0; i < CALLS; i++) {
    // rotate the order so no side always runs first
    for (let k = 0; k < sides.length; k++) {
      const [key, fn] = sides[(i + k) % sides.length];
      s[key].push(await time(fn));
    }
    if (i % 3 === 0) s.noSpawn.push(await time(noSpawn));
    if (i % 10 === 0) s.listTools.push(await time(listTools));
  }
  await client.close();
  await manyClient.close();
  await bareClient.close();
  rmSync(bare.dir, { recursive: true, force: true });

  const row = (name, xs) => [name, String(xs.length), fmt(median(xs)), fmt(percentile(xs, 95))];
  process.stdout.write(
    table([
      ["", "n", "p50", "p95"],
      row("tools/call hcp calc-wrap.ping (via hcpx mcp)", s.mcp),
      row(`the same, ${FILLERS + 3} packs active`, s.many),
      row("direct spawn: node bins/calc.mjs ping --json", s.direct),
      row("tools/call of a bare SDK v2 server spawning that bin (reference)", s.bare),
      row("tools/call, nothing spawned (unknown verb)", s.noSpawn),
      row("tools/list (3 packs)", s.listTools),
      row("hcpx mcp start → initialize answered", starts),
      row("bare node -e '' (reference)", nodes),
    ]) + "\n",
  );
  const ratio = median(s.mcp) / median(s.direct);
  goal("tools/call p50 ≤ 1.05× a direct spawn", ["via hcpx mcp", median(s.mcp)], ["direct spawn", median(s.direct)], {
    max: 1.05,
  });
  goal(
    `tools/call p50 with ${FILLERS + 3} packs ≤ 1.05× with 3 (hcpx's own bound, after exec's 31 packs)`,
    [`${FILLERS + 3} packs`, median(s.many)],
    ["3 packs", median(s.mcp)],
    { max: 1.05 },
  );
  process.stdout.write(
    `reference, not a goal: a bare SDK v2 server spawning the same bin is ${(median(s.bare) / median(s.direct)).toFixed(3)}× the direct spawn; hcpx mcp is ${(median(s.mcp) / median(s.bare)).toFixed(3)}× that server\n`,
  );
  process.stdout.write(
    `server start over a bare node: +${fmt(median(starts) - median(nodes))} (start → first tools/list against a bare SDK server: bench/mcp-start.bench.mjs)\n\n`,
  );
  for (const d of [dir, many, home]) rmSync(d, { recursive: true, force: true });
  return {
    ratio,
    p50: median(s.mcp),
    p95: percentile(s.mcp, 95),
    direct: median(s.direct),
    bare: median(s.bare),
    start: median(starts),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) await bench();

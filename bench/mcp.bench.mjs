// `hcpx mcp` benchmark: one server, driven by the SDK's real Client over stdio.
// - tools/call of a trivial wrap read (`calc-wrap ping`) through `hcp`, p50/p95
//   over ≥ 200 calls, interleaved with a direct spawn of the same bin with the
//   same argv from this process (goal: p50 ratio ≤ 1.1×);
// - a call that spawns nothing (unknown verb): the per-call cost of the server
//   itself (JSON-RPC, re-reading hcp.config.json5, loading the pack);
// - server start to ready (spawn → initialize answered), next to a bare Node start.
// Run: `npm run bench -- mcp` (or `node bench/run.mjs mcp` after `npm run build`).
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { build } from "esbuild";
import { fmt, goal, goalAbs, median, percentile, table } from "./lib.mjs";
import { syntheticProject } from "./generate.bench.mjs";

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));
const HCPX = join(REPO, "dist", "hcpx.cjs"); // the bin (package.json)
const CALLS = Number(process.env.MCP_BENCH_CALLS ?? 300);
const STARTS = Number(process.env.MCP_BENCH_STARTS ?? 15);

function scratch() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-bench-mcp-")));
  cpSync(join(REPO, "packs"), join(dir, "packs"), { recursive: true });
  cpSync(join(REPO, "bins"), join(dir, "bins"), { recursive: true });
  const config = { packs: ["./packs/calc-wrap", "./packs/ledger", "./packs/transit"], principal: { id: "bench", kind: "agent" }, grants: { allow: ["calc-wrap.*", "ledger.*", "transit.*"] }, sandbox: { roots: ["."], cwd: "." } };
  writeFileSync(join(dir, "hcp.config.json5"), JSON.stringify(config, null, 2));
  const home = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-bench-home-")));
  return { dir, home };
}

async function connect(dir, home, args = [HCPX, "mcp"]) {
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: dir, env: { PATH: process.env.PATH ?? "", HOME: home, ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}) }, stderr: "ignore" });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return client;
}

/** The floor: spawn the bin with the same argv from this process and parse its JSON. */
function direct(dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(dir, "bins", "calc.mjs"), "ping", "--json"], { cwd: dir, env: { PATH: process.env.PATH ?? "", CALC_OUTPUT: "json" }, stdio: ["ignore", "pipe", "pipe"] });
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
  const { dir, home } = scratch();

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

  // ---- tools/call vs direct spawn, interleaved ----
  const client = await connect(dir, home);
  const call = async () => {
    const r = await client.callTool({ name: "hcp", arguments: { pack: "calc-wrap", verb: "ping" } });
    if (r.isError || !r.structuredContent?.ok) throw new Error(`tools/call failed: ${JSON.stringify(r)}`);
  };
  const noSpawn = async () => {
    const r = await client.callTool({ name: "hcp", arguments: { pack: "calc-wrap", verb: "nope" } });
    if (r.structuredContent?.error?.code !== "unknown_verb") throw new Error(`expected unknown_verb: ${JSON.stringify(r)}`);
  };
  const listTools = async () => {
    await client.listTools();
  };
  const s = { mcp: [], direct: [], noSpawn: [], listTools: [] };
  for (let i = 0; i < 20; i++) {
    await call();
    await direct(dir);
  }
  for (let i = 0; i < CALLS; i++) {
    // alternate the order so neither side always runs first
    if (i % 2) {
      s.mcp.push(await time(call));
      s.direct.push(await time(() => direct(dir)));
    } else {
      s.direct.push(await time(() => direct(dir)));
      s.mcp.push(await time(call));
    }
    if (i % 3 === 0) s.noSpawn.push(await time(noSpawn));
    if (i % 10 === 0) s.listTools.push(await time(listTools));
  }
  await client.close();

  const row = (name, xs) => [name, String(xs.length), fmt(median(xs)), fmt(percentile(xs, 95))];
  process.stdout.write(
    table([
      ["", "n", "p50", "p95"],
      row("tools/call hcp calc-wrap.ping (via hcpx mcp)", s.mcp),
      row("direct spawn: node bins/calc.mjs ping --json", s.direct),
      row("tools/call, nothing spawned (unknown verb)", s.noSpawn),
      row("tools/list (re-reads config + packs + Skills)", s.listTools),
      row("hcpx mcp start → initialize answered", starts),
      row("bare node -e '' (reference)", nodes),
    ]) + "\n",
  );
  const ratio = median(s.mcp) / median(s.direct);
  goal("tools/call p50 ≤ 1.05× a direct spawn", ["via hcpx mcp", median(s.mcp)], ["direct spawn", median(s.direct)], { max: 1.05 });
  process.stdout.write(`server start over a bare node: +${fmt(median(starts) - median(nodes))}\n\n`);
  await scale(home);
  return { ratio, p50: median(s.mcp), p95: percentile(s.mcp, 95), direct: median(s.direct), start: median(starts) };
}

/**
 * Start to first tools/list answered, against a bare server bundled from the
 * same SDK (v2, serveStdio) with one tool (the floor any MCP server in Node pays), at 1 and 100
 * packs, interleaved; and tools/list itself at 100 packs × 10 commands.
 */
async function scale(home) {
  const bareDir = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-bench-bare-")));
  const src = join(bareDir, "bare.mjs");
  writeFileSync(
    src,
    `import { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
// the SDK hcpx mcp is built on (v2), served the same way (both eras)
serveStdio(() => {
  const server = new Server({ name: "bare", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", async () => ({ tools: [{ name: "t", description: "a tool", inputSchema: { type: "object" } }] }));
  return server;
});
process.stdin.on("end", () => process.exit(0));
`,
  );
  const bare = join(bareDir, "bare.bundle.mjs");
  await build({ entryPoints: [src], outfile: bare, bundle: true, format: "esm", platform: "node", target: "node20", logLevel: "warning", nodePaths: [join(REPO, "node_modules")] });
  const one = scratch().dir;
  const hundred = syntheticProject(100);
  const firstList = async (dir, args) => {
    const t0 = performance.now();
    const c = await connect(dir, home, args);
    await c.listTools();
    const dt = performance.now() - t0;
    await c.close();
    return dt;
  };
  const t = { bare: [], one: [], hundred: [] };
  for (let i = 0; i < STARTS + 2; i++) {
    const b = await firstList(bareDir, [bare]);
    const o = await firstList(one, [HCPX, "mcp"]);
    const h = await firstList(hundred, [HCPX, "mcp"]);
    if (i >= 2) {
      t.bare.push(b);
      t.one.push(o);
      t.hundred.push(h);
    }
  }
  const c = await connect(hundred, home);
  const lists = [];
  for (let i = 0; i < 60; i++) lists.push(await time(() => c.listTools()));
  await c.close();
  process.stdout.write(
    table([
      ["start → first tools/list answered", `median of ${STARTS}`],
      ["bare bundled SDK server, 1 tool", fmt(median(t.bare))],
      ["hcpx mcp, 1 pack", fmt(median(t.one))],
      ["hcpx mcp, 100 packs × 10 commands", fmt(median(t.hundred))],
      ["tools/list at 100 packs (p50 of 60)", fmt(median(lists.slice(5)))],
    ]) + "\n",
  );
  goal("mcp start → first tools/list ≤ 1.2× bare SDK server, 1 pack", ["hcpx mcp", median(t.one)], ["bare", median(t.bare)], { max: 1.2 });
  goal("mcp start → first tools/list ≤ 1.5× bare SDK server, 100 packs", ["hcpx mcp", median(t.hundred)], ["bare", median(t.bare)], { max: 1.5 });
  goalAbs("tools/list at 100 packs ≤ 3 ms (p50)", "tools/list", median(lists.slice(5)), 3);
  for (const d of [bareDir, one, hundred]) rmSync(d, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await bench();

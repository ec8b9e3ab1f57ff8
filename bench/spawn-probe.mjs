// A probe, not a goal: what a tools/call's spawn costs the server that makes it. libuv forks on
// Linux, and child_process.spawn() returns once the child has exec'd, so the server waits for the
// fork (its anonymous memory's page tables copied) and the exec (that copy torn down). V8's heap is
// MADV_DONTFORK (the "dc" flag in /proc/<pid>/smaps), so what a fork copies is the rest: malloc'd
// memory (external strings and buffers, the arenas of V8's worker threads). For `hcpx mcp` and for
// the bare SDK v2 server of bench/bare-sdk.mjs, driven by the SDK's Client over stdio, calls
// alternating: each server's spawn() time (a preload wraps ChildProcess.prototype.spawn; p50 of the
// last 200) and the anonymous memory a fork copies and the one it does not, read from its smaps.
// docs/design.md ("A stdio tools/call") has the figures.
// Run after a build: `node bench/spawn-probe.mjs [calls, default 300]` (HCPX_BENCH_BIN: another hcpx).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { bareServer } from "./bare-sdk.mjs";
import { mcpProject, REPO } from "./project.mjs";
import { table } from "./lib.mjs";

const CALLS = Number(process.argv[2] ?? 300);
const HCPX = process.env.HCPX_BENCH_BIN ?? join(REPO, "dist", "hcpx.cjs");

// the preload: times spawn(), and on SIGUSR2 writes one JSON line to the report file
const PRELOAD = `
const { ChildProcess } = require("node:child_process");
const fs = require("node:fs");
const spawn = ChildProcess.prototype.spawn;
const times = [];
ChildProcess.prototype.spawn = function (o) {
  const t0 = process.hrtime.bigint();
  try { return spawn.call(this, o); } finally { times.push(Number(process.hrtime.bigint() - t0) / 1e3); }
};
process.on("SIGUSR2", () => {
  let copied = 0, kept = 0;
  for (const r of fs.readFileSync("/proc/self/smaps", "utf8").split(/\\n(?=[0-9a-f]+-)/)) {
    const anon = Number((/\\nAnonymous:\\s+(\\d+)/.exec(r) ?? [0, 0])[1]);
    if (/VmFlags:.*\\bdc\\b/.test(r)) kept += anon; else copied += anon;
  }
  const last = times.slice(-200).sort((a, b) => a - b);
  fs.appendFileSync(process.env.PROBE_REPORT, JSON.stringify({ who: process.env.PROBE_WHO, spawns: times.length,
    p50: last[last.length >> 1], copied, kept, external: process.memoryUsage().external >> 10 }) + "\\n");
});
`;

const dir = mcpProject("hcpx-bench-spawn-");
try {
  writeFileSync(join(dir, "preload.cjs"), PRELOAD);
  const report = join(dir, "report.jsonl");
  const connect = async (who, args) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--require", join(dir, "preload.cjs"), ...args],
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HOME: join(dir, "home"), PROBE_WHO: who, PROBE_REPORT: report },
      stderr: "ignore",
    });
    const client = new Client({ name: "probe", version: "1" });
    await client.connect(transport);
    return { client, transport };
  };
  const bare = await bareServer({ callBin: true });
  const hcpx = await connect("hcpx mcp", [HCPX, "mcp"]);
  const plain = await connect("bare SDK v2 server", [bare.file]);
  for (let i = 0; i < CALLS; i++) {
    const r = await hcpx.client.callTool({ name: "hcp", arguments: { pack: "calc-wrap", verb: "ping" } });
    if (!r.structuredContent?.ok) throw new Error(`hcpx tools/call failed: ${JSON.stringify(r)}`);
    const b = await plain.client.callTool({ name: "t", arguments: {} });
    if (!b.structuredContent?.ok) throw new Error(`bare tools/call failed: ${JSON.stringify(b)}`);
  }
  for (const s of [hcpx, plain]) process.kill(s.transport.pid, "SIGUSR2");
  await new Promise((r) => setTimeout(r, 500));
  const rows = [
    ["server", "spawns", "spawn() p50", "anon a fork copies", "anon in V8's heap (not copied)", "external"],
  ];
  const lines = readFileSync(report, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  for (const r of lines.sort((a, b) => (a.who === "hcpx mcp" ? -1 : b.who === "hcpx mcp" ? 1 : 0))) {
    rows.push([
      r.who,
      String(r.spawns),
      `${r.p50.toFixed(0)} µs`,
      `${r.copied} kB`,
      `${r.kept} kB`,
      `${r.external} kB`,
    ]);
  }
  process.stdout.write(`${CALLS} calls each, alternating (node ${process.version}):\n${table(rows)}\n`);
  await hcpx.client.close();
  await plain.client.close();
  rmSync(bare.dir, { recursive: true, force: true });
} finally {
  rmSync(dir, { recursive: true, force: true });
}

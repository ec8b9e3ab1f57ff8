// Existing MCP servers as packs (`hcpx pack from-mcp`): what the model sees,
// and what a call costs.
// - context cost: bytes of the tools/list a host puts in the model's context,
//   connecting @modelcontextprotocol/server-everything and server-filesystem
//   directly against `hcpx mcp` serving both as mcp packs (shape single: one
//   `hcp` tool + hcp__read_skill; shape per-command: one tool per granted
//   command), with the leads hcpx adds to the system prompt counted too;
// - a read through `hcpx exec` (a server started per call) against the same
//   tools/call made by a client that started the server itself.
// Run: `npm run bench -- mcp-packs` (or `node bench/run.mjs mcp-packs` after a build).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fmt, median, table } from "./lib.mjs";

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));
const HCPX = join(REPO, "dist", "hcpx.cjs"); // the bin (package.json)
const EVERYTHING = join(REPO, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const FILESYSTEM = join(REPO, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
const CALLS = Number(process.env.MCP_PACKS_BENCH_CALLS ?? 15);

async function client(command, args, cwd, env) {
  const transport = new StdioClientTransport({ command, args, cwd, env, stderr: "ignore" });
  const c = new Client({ name: "bench", version: "1" });
  await c.connect(transport);
  return c;
}

export default async function bench() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-bench-mcp-packs-")));
  const home = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-bench-home-")));
  const root = join(dir, "files");
  mkdirSync(root);
  writeFileSync(join(root, "a.txt"), "alpha\n");
  const env = { PATH: process.env.PATH ?? "", HOME: home };
  const hcpx = (...a) =>
    execFileSync(process.execPath, [HCPX, ...a], {
      cwd: dir,
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  hcpx("init", "--yes");
  hcpx("pack", "from-mcp", "--id", "everything", "--", "node", EVERYTHING, "stdio");
  hcpx("pack", "from-mcp", "--id", "fs", "--", "node", FILESYSTEM, root);
  hcpx("activate", "packs/everything");
  hcpx("activate", "packs/fs");
  hcpx("grant", "everything.*", "fs.*");

  // ---- context cost ----
  let direct = 0;
  let directTools = 0;
  for (const args of [
    [EVERYTHING, "stdio"],
    [FILESYSTEM, root],
  ]) {
    const c = await client(process.execPath, args, dir, env);
    const tools = (await c.listTools()).tools;
    direct += JSON.stringify(tools).length;
    directTools += tools.length;
    await c.close();
  }
  const shapes = {};
  for (const shape of ["single", "per-command"]) {
    const c = await client(process.execPath, [HCPX, "mcp", "--no-watch", "--shape", shape], dir, env);
    const tools = (await c.listTools()).tools;
    shapes[shape] = { bytes: JSON.stringify(tools).length, tools: tools.length };
    await c.close();
  }
  hcpx("generate", "--host", "none");
  const prompt = readFileSync(join(dir, ".hcp/generated/system-prompt.md"), "utf8").length;
  console.log(
    "context the model sees (JSON bytes of tools/list; the system-prompt block hcpx adds is counted with it):",
  );
  console.log(
    table([
      ["", "tools", "tools/list bytes", "+ prompt block", "vs direct"],
      ["the two servers, connected directly", String(directTools), String(direct), "-", "1.00×"],
      [
        "hcpx mcp (single: `hcp`)",
        String(shapes.single.tools),
        String(shapes.single.bytes),
        String(shapes.single.bytes + prompt),
        `${((shapes.single.bytes + prompt) / direct).toFixed(2)}×`,
      ],
      [
        "hcpx mcp --shape per-command",
        String(shapes["per-command"].tools),
        String(shapes["per-command"].bytes),
        String(shapes["per-command"].bytes + prompt),
        `${((shapes["per-command"].bytes + prompt) / direct).toFixed(2)}×`,
      ],
    ]),
  );

  // ---- a read: hcpx exec (server per call) vs a client that starts the server itself ----
  const viaExec = [];
  const viaClient = [];
  for (let i = 0; i < CALLS + 1; i++) {
    let t0 = performance.now();
    execFileSync(process.execPath, [HCPX, "exec", "fs", "list_directory", "--json", "--", `path=${root}`], {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const a = performance.now() - t0;
    t0 = performance.now();
    const c = await client(process.execPath, [FILESYSTEM, root], dir, env);
    await c.callTool({ name: "list_directory", arguments: { path: root } });
    await c.close();
    const b = performance.now() - t0;
    if (i > 0) {
      viaExec.push(a);
      viaClient.push(b);
    }
  }
  const served = await client(process.execPath, [HCPX, "mcp", "--no-watch"], dir, env);
  const viaServer = [];
  for (let i = 0; i < CALLS + 1; i++) {
    const t0 = performance.now();
    await served.callTool({ name: "hcp", arguments: { pack: "fs", verb: "list_directory", args: { path: root } } });
    if (i > 0) viaServer.push(performance.now() - t0);
  }
  await served.close();
  console.log(`\none read (fs list_directory), ${CALLS} runs, interleaved:`);
  console.log(
    table([
      ["", "p50"],
      ["start the server + initialize + tools/call (SDK client in this process)", fmt(median(viaClient))],
      ["hcpx exec fs list_directory (grant, Policy, args, server per call)", fmt(median(viaExec))],
      ["tools/call `hcp` through hcpx mcp (the server kept between calls)", fmt(median(viaServer))],
    ]),
  );
}

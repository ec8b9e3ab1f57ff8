// What a write of an mcp pack costs under sandbox.enforce "os" (not a goal: a figure stop 64 left
// unmeasured). An mcp pack's server is kept by `hcpx mcp` between calls, confined to what the pack's
// widest granted verb may do; a pack granted a write whose server must be confined for that write is
// started for each call and stopped after it (docs/sandbox.md). Here: one project, two mcp packs over the
// same server (@modelcontextprotocol/server-filesystem, over the project), `fsread` (a read:
// read_text_file) and `fswrite` (a local write: write_file), served by one `hcpx mcp` driven by the
// SDK's Client, its calls interleaved; the same project with the sandbox off beside it.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fmt, median, percentile, table } from "./lib.mjs";

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));
const HCPX = process.env.HCPX_BENCH_BIN ?? join(REPO, "dist", "hcpx.cjs");
const FILESYSTEM = join(REPO, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
const CALLS = Number(process.env.MCP_CONFINED_CALLS ?? 20);

/** A pack of kind mcp over server-filesystem: its one verb `go` calls `tool` with the operation `row`. */
function mcpPack(dir, id, tool, args, row) {
  const pack = join(dir, "packs", id);
  mkdirSync(pack, { recursive: true });
  const surface = {
    hcp: "1.1",
    id,
    version: "0.1.0",
    description: `server-filesystem's ${tool}`,
    kind: "mcp",
    mcp: { bin: "node", args: [FILESYSTEM, dir] },
    commands: [{ verb_key: "go", summary: tool, tool, args }],
  };
  writeFileSync(join(pack, "surface.json"), JSON.stringify(surface, null, 2));
  writeFileSync(join(pack, "policy.json"), JSON.stringify({ rows: { go: row } }, null, 2));
  const cell = row.operation === "read" ? "read" : "write";
  writeFileSync(
    join(pack, "SKILL.md"),
    `---\nname: ${id}\ndescription: server-filesystem's ${tool}\n---\n# ${id}\n\n| verb | what | policy |\n|---|---|---|\n| \`go\` | ${tool} | ${cell} |\n`,
  );
}

function project(prefix, sandbox) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const path = { path: { type: "string", required: true } };
  mcpPack(dir, "fsread", "read_text_file", path, { operation: "read" });
  mcpPack(
    dir,
    "fswrite",
    "write_file",
    { ...path, content: { type: "string", required: true } },
    {
      operation: "write",
      land: "local",
    },
  );
  writeFileSync(join(dir, "data.txt"), "data\n");
  const config = {
    packs: ["./packs/fsread", "./packs/fswrite"],
    grants: { allow: ["fsread.*", "fswrite.*"] },
    sandbox: { roots: ["."], cwd: ".", ...sandbox, bins: { node: process.execPath } },
  };
  writeFileSync(join(dir, "hcp.config.json5"), JSON.stringify(config, null, 2));
  return dir;
}

async function connect(dir) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [HCPX, "mcp"],
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? dir },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return client;
}

async function call(client, pack, args) {
  const t0 = performance.now();
  const r = await client.callTool({ name: "hcp", arguments: { pack, verb: "go", args } });
  const ms = performance.now() - t0;
  if (r.isError) throw new Error(`mcp-confined bench: ${pack} failed: ${JSON.stringify(r.content).slice(0, 300)}`);
  return ms;
}

export default async function bench() {
  const off = project("hcpx-bench-mcpc-off-", {});
  const on = project("hcpx-bench-mcpc-on-", { enforce: "os" });
  const clients = [];
  try {
    const probe = spawnSync(process.execPath, [HCPX, "exec", "fsread", "go", "--json", "--", "path=data.txt"], {
      cwd: on,
      encoding: "utf8",
    });
    if (probe.status !== 0) {
      process.stdout.write(
        `skipped: an mcp pack under enforce "os" fails here (${probe.stdout.trim().slice(0, 300)})\n`,
      );
      return;
    }
    const t = { "read, off": [], "write, off": [], "read, os": [], "write, os": [] };
    const cOff = await connect(off);
    clients.push(cOff);
    const cOn = await connect(on);
    clients.push(cOn);
    const read = (d) => ({ path: join(d, "data.txt") });
    const write = (d, i) => ({ path: join(d, `w-${i}.txt`), content: `${i}\n` });
    // warm: each server started once, the code loaded
    for (const [c, d] of [
      [cOff, off],
      [cOn, on],
    ]) {
      await call(c, "fsread", read(d));
      await call(c, "fswrite", write(d, "warm"));
    }
    for (let i = 0; i < CALLS; i++) {
      t["read, off"].push(await call(cOff, "fsread", read(off)));
      t["write, off"].push(await call(cOff, "fswrite", write(off, i)));
      t["read, os"].push(await call(cOn, "fsread", read(on)));
      t["write, os"].push(await call(cOn, "fswrite", write(on, i)));
    }
    const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]));
    const rows = [["tools/call of an mcp pack", "median", "p90", "vs the same call, off"]];
    for (const [k, v] of Object.entries(t))
      rows.push([k, fmt(m[k]), fmt(percentile(v, 90)), `${(m[k] / m[k.replace("os", "off")]).toFixed(2)}×`]);
    process.stdout.write(`hcpx mcp, ${CALLS} calls each, interleaved:\n${table(rows)}\n`);
    process.stdout.write(
      `not a goal: under os a write (its server started and stopped for the call) is ${(m["write, os"] / m["read, os"]).toFixed(2)}× a read (the kept server), ${fmt(m["write, os"] - m["read, os"])} more\n`,
    );
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    for (const d of [off, on]) rmSync(d, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await bench();

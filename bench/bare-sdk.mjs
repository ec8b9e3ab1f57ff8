// A bare MCP server on the SDK hcpx mcp is built on (v2, both eras, served by serveStdio as hcpx
// mcp is), bundled the same way: the reference the mcp benches compare hcpx mcp with.
// - one tool `t` (tools/list), for bench/mcp-start.bench.mjs;
// - `callBin`: its tools/call spawns `node bins/calc.mjs ping --json` in the server's cwd, exactly as
//   mcp.bench.mjs's direct spawn does, and answers the bin's JSON as hcpx does ({ok, data}, as text
//   and structuredContent) — no grants, policy, audit or redaction: the SDK's own cost of a tool call.
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));

const CALL_BIN = `
import { spawn } from "node:child_process";
import { join } from "node:path";
function runBin() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(process.cwd(), "bins", "calc.mjs"), "ping", "--json"], {
      env: { PATH: process.env.PATH ?? "", CALC_OUTPUT: "json" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error("calc exited " + code))));
  });
}
`;

/** Bundle the bare server into a scratch folder: { dir, file } (the caller removes dir). */
export async function bareServer({ callBin = false } = {}) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-bench-bare-")));
  const src = join(dir, "bare.mjs");
  writeFileSync(
    src,
    `import { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
${callBin ? CALL_BIN : ""}
serveStdio(() => {
  const server = new Server({ name: "bare", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", async () => ({ tools: [{ name: "t", description: "a tool", inputSchema: { type: "object" } }] }));
${
  callBin
    ? `  server.setRequestHandler("tools/call", async () => {
    const env = { ok: true, data: await runBin() };
    return { content: [{ type: "text", text: JSON.stringify(env) }], structuredContent: env, isError: false };
  });`
    : ""
}
  return server;
});
process.stdin.on("end", () => process.exit(0));
`,
  );
  const file = join(dir, "bare.bundle.mjs");
  await build({
    entryPoints: [src],
    outfile: file,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "warning",
    nodePaths: [join(REPO, "node_modules")],
  });
  return { dir, file };
}

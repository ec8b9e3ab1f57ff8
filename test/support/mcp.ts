// Start a stdio MCP server under the SDK's real Client, with its stderr kept
// for error messages (StdioClientTransport passes only a short env whitelist
// unless `env` is given, so callers give the whole env).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { PassThrough } from "node:stream";

export interface Connected {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
}

export async function connectMcp(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  name = "hcpx-test",
): Promise<Connected> {
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd, env, stderr: "pipe" });
  let err = "";
  (transport.stderr as PassThrough | null)?.setEncoding("utf8").on("data", (d: string) => (err += d));
  const client = new Client({ name, version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (e) {
    await new Promise((r) => setTimeout(r, 100)); // let the last stderr arrive
    throw new Error(`hcpx mcp did not start: ${(e as Error).message}\nstderr:\n${err}`);
  }
  return { client, transport, stderr: () => err };
}

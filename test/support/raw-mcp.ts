// A raw stdio session with `hcpx mcp` (or any MCP server), for tests whose subject is the process
// itself (its stdin, its exit): no client library, the JSON-RPC lines written by hand.

/** A legacy-era opening (protocol 2025-06-18): initialize (id 1), then initialized, each a line. */
export const RAW_OPENING = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
]
  .map((m) => JSON.stringify(m) + "\n")
  .join("");

/** Write the opening (above), then `request` as the call with id 2, a line on `stdin`. */
export function rawMcp(stdin: NodeJS.WritableStream, request: { method: string; params?: unknown }): void {
  stdin.write(RAW_OPENING);
  stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 2, ...request }) + "\n");
}

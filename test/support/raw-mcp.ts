// A raw stdio session with `hcpx mcp` (or any MCP server), for tests whose subject is the process
// itself (its stdin, its exit): no client library, the JSON-RPC lines written by hand.

/** Write initialize, initialized, then `request` as the call with id 2, each a line on `stdin`. */
export function rawMcp(stdin: NodeJS.WritableStream, request: { method: string; params?: unknown }): void {
  const send = (m: unknown) => stdin.write(JSON.stringify(m) + "\n");
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({ jsonrpc: "2.0", id: 2, ...request });
}

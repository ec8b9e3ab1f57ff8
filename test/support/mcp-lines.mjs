// The JSON-RPC lines a client writes to an MCP server on stdio, in either protocol era, for what
// speaks to `hcpx mcp` without a client library: the benches (bench/lib.mjs) and the tests whose
// subject is the process itself (./raw-mcp.ts, test/mcp/stdin-eof.test.ts). Plain JavaScript, so the
// benches run it as it is (types: ./mcp-lines.d.mts).

/** MCP's current protocol version (the modern era: server/discover, a _meta envelope on each request). */
const MODERN = "2026-07-28";
const clientInfo = { name: "raw", version: "1" };
const meta = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": clientInfo,
};

/** One JSON-RPC message as a stdio line. */
export const mcpLine = (o) => `${JSON.stringify({ jsonrpc: "2.0", ...o })}\n`;

/** A client's opening of a session, by era (legacy, protocol 2025-06-18: initialize, id 1, then initialized). */
export const MCP_OPENING = {
  legacy:
    mcpLine({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo } }) +
    mcpLine({ method: "notifications/initialized" }),
  modern: mcpLine({ id: 1, method: "server/discover", params: { _meta: meta } }),
};

/** A request of id `id` in `era` (the modern era's _meta added to its params). */
export const mcpRequest = (era, id, method, params = {}) =>
  mcpLine({ id, method, params: era === "modern" ? { ...params, _meta: meta } : params });

/** A host's start in `era`: the opening, then tools/list (id 2); a server given it whole ends with its input. */
export const mcpStart = (era) => MCP_OPENING[era] + mcpRequest(era, 2, "tools/list");

// A raw stdio session with `hcpx mcp` (or any MCP server), for tests whose subject is the process
// itself (its stdin, its exit): no client library, the JSON-RPC lines of ./mcp-lines.mjs.
import { MCP_OPENING, mcpLine } from "./mcp-lines.mjs";

/** A legacy-era opening (protocol 2025-06-18): initialize (id 1), then initialized, each a line. */
export const RAW_OPENING = MCP_OPENING.legacy;

/** Write the opening (above), then `request` as the call with id 2, a line on `stdin`. */
export function rawMcp(stdin: NodeJS.WritableStream, request: { method: string; params?: unknown }): void {
  stdin.write(RAW_OPENING);
  stdin.write(mcpLine({ id: 2, ...request }));
}

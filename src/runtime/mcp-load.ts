// The mcp adapter module, loaded when it is needed: for an `mcp` pack's call
// (runtime/adapters/index.ts) and for adopt's probe of a remote server
// (host/remote.ts, with the SDK's HTTP client). In dist/ it is a file of its own
// (MCP_ADAPTER, relative to the command bundle; see scripts/build.mjs), so the
// MCP SDK stays out of every bundle that does not use it; imported through
// dynamicImport() because exec's and adopt's bundles run from V8's code cache;
// from the sources (vitest) the module itself.
import { pathToFileURL } from "node:url";
import { dynamicImport } from "../util/dynamic-import";
import { MCP_ADAPTER } from "../util/build-info";

export async function loadMcpAdapter(): Promise<typeof import("./mcp-adapter")> {
  if (MCP_ADAPTER !== undefined) {
    const base = typeof __dirname === "string" ? pathToFileURL(`${__dirname}/`).href : import.meta.url;
    return (await dynamicImport(new URL(MCP_ADAPTER, base).href)) as typeof import("./mcp-adapter");
  }
  return import("./mcp-adapter");
}

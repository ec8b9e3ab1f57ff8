// `hcpx mcp [--shape single|per-command]`: serve the granted packs over stdio
// MCP. The SDK is loaded here, through import(), so no other command pays for it.
import { fail } from "../../util/errors";
import type { Shape } from "../../mcp/tools";
import { sayErrRaw } from "../output";

export interface McpOptions {
  config?: string;
  shape?: string;
  watch?: boolean;
  /** experimental: Streamable HTTP on 127.0.0.1:<port> (src/mcp/http.ts) */
  http?: string;
  /** the host that started this server (its approval rules may count under confirm "host") */
  host?: string;
}

const SHAPES = ["single", "per-command"];

export async function run(opts: McpOptions): Promise<number | void> {
  const shape = opts.shape ?? "single";
  if (!SHAPES.includes(shape)) {
    fail("usage", `unknown --shape '${shape}'`, { hint: "use --shape single (the one tool `hcp`, default) or --shape per-command (one tool per granted command)", exit: 64 });
  }
  if (opts.http !== undefined) {
    const port = Number(opts.http);
    if (!/^\d{1,5}$/.test(opts.http) || port > 65535) fail("usage", `--http takes a port number (0-65535), not '${opts.http}'`, { exit: 64 });
    const { serveHttp } = await import("../../mcp/server");
    await serveHttp({ shape: shape as Shape, config: opts.config, watch: opts.watch }, port);
    return;
  }
  if (process.stdin.isTTY) sayErrRaw("hcpx mcp: speaking MCP on stdin/stdout; start it from an MCP host (see `hcpx adopt`). Ctrl-D to stop.\n");
  const { serve } = await import("../../mcp/server");
  if (opts.host !== undefined && !/^[a-z][a-z0-9-]{0,31}$/.test(opts.host)) fail("usage", `--host takes a host id (e.g. claude), not '${opts.host}'`, { exit: 64 });
  // the host's approval check, only when a host is named (the plain `hcpx mcp` start path stays without it)
  const approval = opts.host !== undefined ? (await import("../../host/approval")).hostApproval(opts.host) : undefined;
  await serve({ shape: shape as Shape, config: opts.config, watch: opts.watch, hostApproval: approval, host: opts.host });
}

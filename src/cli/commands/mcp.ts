// `hcpx mcp [--shape single|per-command]`: serve the granted packs over stdio
// MCP. The SDK is loaded here, through import(), so no other command pays for it.
import { fail } from "../../util/errors";
import type { Shape } from "../../mcp/tools";
import { sayErrRaw } from "../output";
import { consoleTo } from "../../util/console";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

/** `hcpx mcp`'s options, as the options schema (../spec.ts) types them, with the global ones. */
export type McpOptions = OptionsOf<"mcp"> & GlobalOpts;

const SHAPES = ["single", "per-command"];

/** Why `--no-auth` off loopback is refused whatever else is given (--bind-public included), and what serves instead. */
const NO_AUTH_OFF_LOOPBACK =
  "serve 127.0.0.1 with --no-auth, or another address with --server-config (its principals authenticated) and --bind-public (docs/http.md)";

export async function run(opts: McpOptions): Promise<number | void> {
  const shape = opts.shape ?? "single";
  if (!SHAPES.includes(shape)) {
    fail("usage", `unknown --shape '${shape}'`, {
      hint: "use --shape single (the one tool `hcp`, default) or --shape per-command (one tool per granted command)",
      exit: 64,
    });
  }
  if (opts.http !== undefined) {
    const { host, port } = listenAddress(opts.http);
    const noAuth = opts.auth === false;
    const loopback = host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
    if (noAuth && opts.serverConfig !== undefined)
      fail("usage", "--no-auth and --server-config exclude each other", {
        hint: "the server config's principals are authenticated; --no-auth serves one unauthenticated caller on loopback",
        exit: 64,
      });
    if (noAuth && !loopback)
      fail("not_loopback", `--no-auth serves loopback only, not ${host}`, { hint: NO_AUTH_OFF_LOOPBACK, exit: 64 });
    if (!loopback && !opts.bindPublic)
      fail("not_loopback", `--http ${opts.http} binds ${host}, not loopback: add --bind-public to mean it`, {
        exit: 64,
      });
    if (opts.host !== undefined || opts.clientHost !== undefined) {
      const flag = opts.host !== undefined ? "--host" : "--client-host";
      fail("usage", `${flag} names the host that starts a stdio server; it does not go with --http`, {
        hint: "over HTTP each principal's confirm setting applies (docs/http.md)",
        exit: 64,
      });
    }
    if (!noAuth && opts.serverConfig === undefined)
      fail(
        "server_config_required",
        "--http needs --server-config FILE: every HTTP request is authenticated as a principal it names",
        { exit: 64 },
      );
    const { serveHttp } = await import("../../mcp/server");
    await serveHttp(
      { shape: shape as Shape, config: opts.config, watch: opts.watch },
      { host, port, public: opts.bindPublic, serverConfig: opts.serverConfig, noAuth },
    );
    return;
  }
  if (opts.serverConfig !== undefined || opts.bindPublic || opts.auth === false)
    fail("usage", "--server-config, --bind-public and --no-auth go with --http", { exit: 64 });
  if (process.stdin.isTTY)
    sayErrRaw(
      "hcpx mcp: speaking MCP on stdin/stdout; start it from an MCP host (see `hcpx adopt`). Ctrl-D to stop.\n",
    );
  const { serve } = await import("../../mcp/server");
  const HOST_ID = /^[a-z][a-z0-9-]{0,31}$/;
  if (opts.host !== undefined && !HOST_ID.test(opts.host))
    fail("usage", `--host takes a host id (e.g. claude), not '${opts.host}'`, { exit: 64 });
  const clientHosts = opts.clientHost?.split(",");
  if (clientHosts && !clientHosts.every((h) => HOST_ID.test(h)))
    fail("usage", `--client-host takes host ids separated by commas (e.g. claude), not '${opts.clientHost}'`, {
      exit: 64,
    });
  if (opts.host !== undefined && clientHosts)
    fail("usage", "--host and --client-host exclude each other", {
      hint: "--host: an entry one host reads; --client-host: an entry several hosts read (adopt writes the one that fits)",
      exit: 64,
    });
  // the host's approval check, only when a host is named (the plain `hcpx mcp` start path stays without it)
  const approval =
    opts.host !== undefined
      ? (await import("../../host/approval")).hostApproval(opts.host)
      : clientHosts
        ? (await import("../../host/approval")).clientHostApproval(clientHosts)
        : undefined;
  // stdout is the MCP stream: what a composite module prints with the console goes to stderr, through the exit
  consoleTo((text) => sayErrRaw(`hcpx mcp: ${text}`));
  await serve({
    shape: shape as Shape,
    config: opts.config,
    watch: opts.watch,
    hostApproval: approval,
    host: opts.host,
  });
}

/** `--http` takes `port`, `addr:port` or `[v6addr]:port` (default address 127.0.0.1). */
export function listenAddress(v: string): { host: string; port: number } {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(v);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535)
    fail("usage", `--http takes [address:]port (e.g. 8080, 127.0.0.1:8080, [::1]:8080), not '${v}'`, { exit: 64 });
  const h = m[1] ?? "127.0.0.1";
  return { host: h.startsWith("[") ? h.slice(1, -1) : h, port };
}

// `hcpx mcp --http <port>` (experimental, hidden): the same front (front.ts)
// and the same SDK server instances (sdk-server.ts) over Streamable HTTP,
// through the SDK v2's createMcpHandler (both eras per request: legacy
// stateless and 2026-07-28). Loopback only, with the SDK's Host and Origin
// validation against DNS rebinding. A minimal listener: what the conformance
// suite needs; the HTTP issue grows it (principals, shared signing key,
// limits, audit) — this module is its seam.
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, hostHeaderValidationResponse, localhostAllowedHostnames, originValidationResponse } from "@modelcontextprotocol/server";
import type { McpFront } from "./front";
import { buildServer, type InstanceHooks } from "./sdk-server";

export interface HttpOptions {
  front: McpFront;
  hooks: InstanceHooks;
  /** 0: any free port */
  port: number;
  /** only loopback addresses are accepted here */
  host?: string;
  path?: string;
}

export interface HttpListener {
  url: string;
  server: HttpServer;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export async function listenHttp(o: HttpOptions): Promise<HttpListener> {
  const host = o.host ?? "127.0.0.1";
  if (!LOOPBACK.has(host)) throw new Error(`hcpx mcp --http binds loopback only (127.0.0.1, ::1), not ${host}`);
  const path = o.path ?? "/mcp";
  const handler = createMcpHandler(({ era }) => buildServer(o.front, era, o.hooks), { onerror: (e) => o.hooks.log(`http: ${e.message}`) });
  const allowed = localhostAllowedHostnames();
  const server = createServer((req, res) => void handle(req, res));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const request = toRequest(req, host);
      const url = new URL(request.url);
      const guard = hostHeaderValidationResponse(request, allowed) ?? originValidationResponse(request, allowed);
      let response: Response;
      if (guard) response = guard;
      else if (url.pathname !== path) response = new Response("not found", { status: 404 });
      else response = await handler.fetch(request);
      await send(response, res);
    } catch (e) {
      o.hooks.log(`http: ${(e as Error).message}`);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("internal error");
    }
  }

  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(o.port, host, () => ok());
  });
  const a = server.address() as AddressInfo;
  const url = `http://${a.family === "IPv6" ? `[${a.address}]` : a.address}:${a.port}${path}`;
  return {
    url,
    server,
    close: async () => {
      await handler.close().catch(() => {});
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function toRequest(req: IncomingMessage, host: string): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else headers.set(k, v);
  }
  const ac = new AbortController();
  req.on("close", () => {
    if (!req.complete) ac.abort();
  });
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(`http://${req.headers.host ?? host}${req.url ?? "/"}`, { method, headers, ...(hasBody ? { body: streamOf(req), duplex: "half" } : {}), signal: ac.signal } as RequestInit);
}

function streamOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      req.on("data", (d: Buffer) => c.enqueue(new Uint8Array(d)));
      req.on("end", () => c.close());
      req.on("error", (e) => c.error(e));
    },
  });
}

async function send(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((v, k) => {
    const prev = headers[k];
    headers[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}

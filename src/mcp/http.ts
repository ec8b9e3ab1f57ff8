// `hcpx mcp --http [addr:]port`: the same front (front.ts) and the same SDK
// server instances (sdk-server.ts) over Streamable HTTP, through the SDK v2's
// createMcpHandler: 2026-07-28 requests statelessly, 2025-era clients through
// the SDK's stateless legacy leg. On loopback by default; another address
// only when the CLI was told so (--bind-public: TLS is the reverse proxy's).
//
// Every request, in this order: the Host and Origin checks (DNS rebinding);
// the Protected Resource Metadata (RFC 9728) for anyone; then the bearer
// token → a principal (auth.ts), or 401 with WWW-Authenticate naming the
// metadata (a principal the server config does not name now, served before or
// not: 403); a stream over its principal's own limit: 429 (principal-streams.ts); then the
// SDK handler, whose server instance serves that principal's front alone (its
// grants, its confirm, its limit of calls at once). The body is bounded
// (413 from the SDK) and the request must arrive in time (408 from Node).
// An open stream (a 2025-era GET, a 2026-07-28 subscriptions/listen) was let
// in once: at each announcement its token is checked again first, and the
// stream of one that no longer authenticates (removed, expired) is closed
// before anything is sent on the streams; a JWT's stream is closed when the
// JWT expires, announcement or not (open-streams.ts). A refused request (401,
// 403) and a stream the server closed are told to `refused` (the audit log's
// folded lines, refusals.ts).
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type Server,
} from "@modelcontextprotocol/server";
import type { McpFront } from "./front";
import { buildServer, type InstanceHooks } from "./sdk-server";
import { challenge, type Authenticator, type Refusal } from "./auth";
import { DEFAULT_KEEP_ALIVE_TIMEOUT_MS, MAX_STREAMS } from "./team-config";
import { HcpxError } from "../util/errors";
import { neutralLine } from "../util/neutral";
import { cancelledOnClose, postParsed, send, targetOf, toRequest } from "./http-bridge";
import { principalStreams, streamsRefused, type PrincipalStreams } from "./principal-streams";
import { isStream, namedNow, openStreams } from "./open-streams";

export interface HttpOptions {
  /** the front of each principal (undefined: the server config does not name it now); with `auth` absent (--no-auth, loopback only) the one front under "local" */
  fronts: {
    get(principal: string): McpFront | undefined;
    /** the server config loads and no longer names it (its front stays): its requests are 403, its open streams closed */
    removed?(principal: string): boolean;
  };
  hooks: InstanceHooks;
  /** 0: any free port */
  port: number;
  /** the address to bind (default 127.0.0.1); other than loopback only with `public` */
  host?: string;
  /** the CLI's --bind-public */
  public?: boolean;
  path?: string;
  /** absent: no authentication (loopback only) */
  auth?: Authenticator;
  /** each refused request (401, 403) and each stream the server closed, for the audit log (refusals.ts RefusalLog) */
  refused?: (r: Refusal) => void;
  /** the public URL of the endpoint (default: the listener's own URL) */
  resource?: string;
  /** the JWT issuer, listed as the metadata's authorization server */
  issuer?: string;
  /** Host names accepted besides loopback */
  allowedHosts?: string[];
  maxBodyBytes?: number;
  requestTimeoutMs?: number;
  /** how long an idle connection stays open (default 65 s: longer than a proxy's idle upstream connections) */
  keepAliveTimeoutMs?: number;
  /** one principal's open streams (both eras) at once; more: 429 (absent: only the server's own bound, MAX_STREAMS) */
  maxStreamsPerPrincipal?: number;
}

export interface HttpListener {
  url: string;
  resource: string;
  server: HttpServer;
  /** the tool (and Skill resource, and prompt) list changed: tell the clients on their open streams (both eras) */
  changed(): void;
  close(): Promise<void>;
}

/** A message that may quote the client (the SDK's refusals do) as one line of the log, bounded: no line is the client's. */
const logLine = (m: string) => neutralLine(m.length > 500 ? `${m.slice(0, 500)}…` : m);

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
export const isLoopback = (h: string) => LOOPBACK.has(h) || /^127\.\d+\.\d+\.\d+$/.test(h);
const PRM = "/.well-known/oauth-protected-resource";

export async function listenHttp(o: HttpOptions): Promise<HttpListener> {
  const host = o.host ?? "127.0.0.1";
  checkBind(o, host);
  const path = o.path ?? "/mcp";
  const instance = instanceOf(o);
  const maxBody = o.maxBodyBytes ?? 1024 * 1024;
  const handler = createMcpHandler(instance, {
    onerror: (e) => o.hooks.log(`http: ${logLine(e.message)}`),
    maxRequestBodySize: maxBody,
    maxSubscriptions: MAX_STREAMS, // the whole server's; each principal's are bounded before (principal-streams.ts)
  });
  let allowed = localhostAllowedHostnames();
  const server = nodeServer(o, (req, res) => void handle(req, res));
  let resource = "";
  let resourceUrl = new URL("http://127.0.0.1/");
  let metaUrl = "",
    meta = "";

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const target = targetOf(req);
      // what the client sent does not parse ("*", a Host with userinfo or spaces): 400, before anything else
      if (target instanceof Response) return await send(target, res);
      const pathname = target.pathname;
      // a POST to the endpoint: its body is read here once the request is let in (post())
      const held = req.method === "POST" && pathname === path;
      const request = toRequest(req, host, target, !held, held ? cancelledOnClose(req, res) : undefined);
      const guard = hostHeaderValidationResponse(request, allowed) ?? originValidationResponse(request, allowed);
      let response: Response | undefined;
      if (guard) response = guard;
      else if (pathname === PRM || pathname === PRM + path || pathname === PRM + resourceUrl.pathname) {
        response = metadataResponse(request, meta);
      } else if (pathname !== path) response = new Response("not found", { status: 404 });
      else if (!o.auth) response = await serve(req, res, request, held, undefined);
      else {
        const who = await authorize(o.auth, o, request, metaUrl, resourceUrl, req.socket.remoteAddress);
        response = who instanceof Response ? who : await serve(req, res, request, held, who);
        if (!(who instanceof Response) && response?.ok) open.watch(res, request, who.clientId, who.expiresAt);
      }
      // undefined: the client went away before its body was whole; nothing ran, no one to answer
      if (!response) return;
      const ended = streamEnded.get(response);
      await send(response, res, ended !== undefined).finally(() => open.done(res));
      ended?.();
    } catch (e) {
      o.hooks.log(`http: ${logLine((e as Error)?.message ?? String(e))}`);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("internal error");
    }
  }

  const { legacyStream, streamEnded, legacy } = legacyStreams(instance);
  const serve = endpointOf(handler, maxBody, legacyStream, principalStreams(o.maxStreamsPerPrincipal));
  const open = openStreams({ ...o, closed: o.refused });

  await new Promise<void>((ok, fail) => {
    server.once("error", (e) => fail(listenError(e, host, o.port)));
    server.listen(o.port, host, () => ok());
  });
  const a = server.address() as AddressInfo;
  const url = `http://${a.family === "IPv6" ? `[${a.address}]` : a.address}:${a.port}${path}`;
  resource = o.resource ?? url;
  const r = (resourceUrl = new URL(resource));
  ({ metaUrl, meta } = metadataOf(r, resource, o.issuer));
  allowed = [...new Set([...allowed, ...(isLoopback(host) ? [] : [host]), r.hostname, ...(o.allowedHosts ?? [])])];
  return {
    url,
    resource,
    server,
    // the tokens are checked first: a stream closed by recheck() is not told of this change
    changed: () => void open.recheck().then(() => tell(handler, legacy)),
    close: async () => {
      await handler.close().catch(() => {});
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A list changed: the 2026-07-28 subscriptions/listen streams (the SDK's) and the 2025-era GET streams' instances. */
function tell(handler: ReturnType<typeof createMcpHandler>, legacy: ReadonlySet<Server>): void {
  handler.notify.toolsChanged();
  handler.notify.resourcesChanged();
  handler.notify.promptsChanged();
  for (const server of legacy) {
    server.sendToolListChanged().catch(() => {});
    server.sendResourceListChanged().catch(() => {});
    server.sendPromptListChanged().catch(() => {});
  }
}

/** The Node listener: requests must arrive in time (408), idle connections outlive the proxy's. */
function nodeServer(o: HttpOptions, listener: (req: IncomingMessage, res: ServerResponse) => void): HttpServer {
  const timeout = o.requestTimeoutMs ?? 30_000;
  const server = createServer(
    {
      requestTimeout: timeout,
      headersTimeout: Math.min(timeout, 20_000),
      connectionsCheckingInterval: Math.min(1000, timeout),
    },
    listener,
  );
  server.keepAliveTimeout = o.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS; // the proxy closes idle connections first (team-config.ts)
  return server;
}

/** The address cannot be listened on: said with the address and what to do (a port taken, an address not this machine's); anything else is as it was. */
function listenError(e: Error, host: string, port: number): Error {
  const code = (e as NodeJS.ErrnoException).code;
  const at = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  if (code === "EADDRINUSE")
    return new HcpxError({ code: "address_in_use", message: `cannot listen on ${at}: the port is in use` });
  if (code === "EADDRNOTAVAIL")
    return new HcpxError({
      code: "address_unavailable",
      message: `cannot listen on ${at}: ${host} is not an address of this machine`,
    });
  return e;
}

function checkBind(o: HttpOptions, host: string): void {
  if (!isLoopback(host) && !o.public)
    throw new Error(
      `hcpx mcp --http binds loopback only (127.0.0.1, ::1), not ${host}, unless told otherwise (--bind-public)`,
    );
  if (!isLoopback(host) && !o.auth) throw new Error("hcpx mcp --http without authentication binds loopback only");
}

/** The Protected Resource Metadata (RFC 9728): its URL and its body. */
function metadataOf(r: URL, resource: string, issuer: string | undefined): { metaUrl: string; meta: string } {
  return {
    metaUrl: `${r.origin}${PRM}${r.pathname === "/" ? "" : r.pathname}`,
    meta: JSON.stringify({
      resource,
      ...(issuer ? { authorization_servers: [issuer] } : {}),
      bearer_methods_supported: ["header"],
      resource_name: "hcpx (HCP packs)",
    }),
  };
}

/** The metadata document for anyone: GET and HEAD only. */
function metadataResponse(request: Request, meta: string): Response {
  return request.method === "GET" || request.method === "HEAD"
    ? new Response(request.method === "HEAD" ? null : meta, {
        status: 200,
        headers: { "content-type": "application/json", "cache-control": "max-age=300" },
      })
    : new Response("method not allowed", { status: 405, headers: { allow: "GET, HEAD" } });
}

const ua = (request: Request) => ({ userAgent: request.headers.get("user-agent") });

/** The bearer token → the request's authInfo, or the refusal (told to `refused`): 401 (no valid token), 403 (a principal the server config does not name now). */
async function authorize(
  auth: Authenticator,
  { fronts, refused }: HttpOptions,
  request: Request,
  metaUrl: string,
  resourceUrl: URL,
  address: string | undefined,
) {
  const who = await auth.authenticate(request.headers.get("authorization"));
  if (!who.ok) {
    refused?.({ ...who, address, ...ua(request) });
    // the body is not read: a refused request costs nothing more
    return Response.json(
      { error: who.error, ...(who.description ? { error_description: who.description } : {}) },
      { status: 401, headers: { "www-authenticate": challenge(metaUrl, who) } },
    );
  }
  // not named now, served before or not (a config that does not load removes no one: fronts.removed)
  if (!namedNow(fronts, who.principal)) {
    const { principal } = who;
    refused?.({
      error: "unknown_principal",
      description: "not in the server config",
      principal,
      address,
      ...ua(request),
    });
    return Response.json(
      {
        error: "unknown_principal",
        error_description: `principal '${who.principal}' is not in the server config`,
      },
      { status: 403 },
    );
  }
  return {
    token: "",
    clientId: who.principal,
    scopes: [],
    ...(who.expiresAt ? { expiresAt: who.expiresAt } : {}),
    resource: resourceUrl,
    extra: { principal: who.principal },
  };
}

/** The server instance serving one request (or one legacy GET stream): the principal's front alone. */
function instanceOf(o: HttpOptions) {
  return ({
    era,
    authInfo,
    requestInfo,
  }: {
    era: "legacy" | "modern";
    authInfo?: { extra?: Record<string, unknown> };
    requestInfo?: Request;
  }): Server => {
    const principal = o.auth ? (authInfo?.extra?.principal as string | undefined) : "local";
    const front = principal !== undefined ? o.fronts.get(principal) : undefined;
    // the listener authenticated the request before the handler saw it: no front here is a bug, never a default
    if (!front || !principal) throw new Error("no principal for this request");
    const ua = requestInfo?.headers.get("user-agent") ?? undefined;
    return buildServer(front, era, o.hooks, { principal, ...(ua ? { client: ua.slice(0, 200) } : {}) });
  };
}

/**
 * The endpoint's answer to a request let in (allowed Host, authenticated): a stream over its principal's
 * limit is 429 (principal-streams.ts); a GET is a legacy stream; a POST its body read here (postParsed);
 * undefined when the client went away before its body was whole.
 */
function endpointOf(
  handler: ReturnType<typeof createMcpHandler>,
  maxBody: number,
  legacyStream: (request: Request, authInfo: AuthInfo | undefined) => Promise<Response>,
  streams: PrincipalStreams,
) {
  return (req: IncomingMessage, res: ServerResponse, request: Request, held: boolean, who?: AuthInfo) =>
    (who && isStream(request) ? streams.take(who.clientId, res) : undefined) ??
    (request.method === "GET"
      ? legacyStream(request, who)
      : held
        ? postParsed(handler, maxBody, req, request, who)
        : handler.fetch(request, who ? { authInfo: who } : undefined));
}

type Instance = (ctx: {
  era: "legacy";
  authInfo?: { extra?: Record<string, unknown> };
  requestInfo?: Request;
}) => Server;

/**
 * A 2025-era client's GET: the stream on which the server may speak first (2025-11-25 Streamable HTTP).
 * Served statelessly like the legacy POSTs (no session: any instance serves it), by the SDK's own
 * transport; the instance is kept (`legacy`) while the stream is open, so a tools/list_changed reaches it.
 */
function legacyStreams(instance: Instance) {
  const streamEnded = new WeakMap<Response, () => void>();
  const legacy = new Set<Server>();
  let streams = 0;
  async function legacyStream(
    request: Request,
    authInfo: { extra?: Record<string, unknown> } | undefined,
  ): Promise<Response> {
    // the whole server's, like the SDK's listen streams (maxSubscriptions); each principal's: principal-streams.ts
    if (streams >= MAX_STREAMS) return streamsRefused(503, -32603, `too many open streams (${MAX_STREAMS})`);
    const server = instance({ era: "legacy", authInfo, requestInfo: request });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    const r = await transport.handleRequest(request);
    if (r.ok && r.body) {
      legacy.add(server);
      streams++;
      streamEnded.set(r, () => {
        streams--;
        legacy.delete(server);
        void server.close().catch(() => {});
      });
    } else await server.close().catch(() => {});
    return r;
  }
  return { legacyStream, streamEnded, legacy };
}

// The Node listener's request and response as the Web Request and Response the
// MCP SDK's handler takes and gives (src/mcp/http.ts): headers copied, a body
// streamed — or, for a POST to the endpoint, read whole here (bounded) and
// handed over parsed, so the SDK neither clones the request nor reads its body
// again — and the answer streamed back, cancelled when the client goes away.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo, createMcpHandler } from "@modelcontextprotocol/server";

/** A request target as the URL parser reads it (dot segments resolved, percent-encoding kept): its path, and its path and query. */
export interface RequestTarget {
  pathname: string;
  /** the path and the query: what follows the host in the Request's URL */
  rest: string;
}

/**
 * The target of a request in origin form ("/mcp?x") or absolute form ("http://host/mcp", which a
 * proxy may send: its path is served; the Host header is what the Host check reads). Any other
 * ("*", authority form), one that does not parse, or a malformed Host header: the 400 that says so.
 */
export function targetOf(req: IncomingMessage): RequestTarget | Response {
  const host = req.headers.host;
  if (host !== undefined && !HOST_RE.test(host)) return badRequest("a malformed Host header");
  const t = req.url ?? "/";
  // the usual target ("/mcp"): nothing for the parser to do; anything else goes through it
  if (/^\/[A-Za-z0-9_-]*$/.test(t)) return { pathname: t, rest: t };
  const base = t.startsWith("/") ? `http://h${t}` : /^https?:\/\//i.test(t) ? t : undefined;
  if (base === undefined || !URL.canParse(base))
    return badRequest("the request target is neither a path nor http://host/path");
  const u = new URL(base);
  return { pathname: u.pathname, rest: u.pathname + u.search };
}

/** A Host header value: a name or an IPv4 address, or an IPv6 one in brackets, and an optional port (no userinfo, no spaces). */
const HOST_RE = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

const badRequest = (why: string) =>
  new Response(`bad request: ${why}\n`, { status: 400, headers: { "content-type": "text/plain" } });

/** Not a JSON body (empty, or not JSON): the SDK reads the bytes and says so itself. */
const NOT_JSON = Symbol("not JSON");
/** The SDK's own decoding of a body (readRequestBody: UTF-8, a leading BOM dropped, bad bytes replaced). */
const utf8 = new TextDecoder();

/** The body as the SDK would parse it: the JSON value, or NOT_JSON where the SDK finds none. */
function parseBody(bytes: Uint8Array): unknown {
  const text = utf8.decode(bytes);
  if (text.length === 0) return NOT_JSON;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/**
 * The body of `req`, read whole: at most `max` + 1 bytes are kept (more is over the limit, and the
 * rest is not kept); undefined when the request goes away before its end (ECONNRESET "aborted", or
 * Node's 408 for a body that does not arrive in time): then nothing runs.
 */
function bodyOf(req: IncomingMessage, max: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (d: Buffer) => {
      if (size > max) return;
      const room = max + 1 - size;
      const kept = d.length > room ? d.subarray(0, room) : d;
      chunks.push(kept);
      size += kept.length;
    });
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.on("error", () => resolve(undefined));
    req.on("close", () => {
      if (!req.complete) resolve(undefined);
    });
  });
}

/**
 * `target`: targetOf(req)'s, which also checked the Host header (a malformed one makes new Request throw).
 * `signal`: the request's (cancelledOnClose), for the SDK to stop the call when it aborts.
 */
export function toRequest(
  req: IncomingMessage,
  host: string,
  target: RequestTarget,
  withBody = true,
  signal?: AbortSignal,
): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else headers.set(k, v);
  }
  // Node keeps the first of several Authorization headers; a proxy may read another: all are kept
  // ("Bearer a, Bearer b"), which no token is, so such a request is refused whichever comes first
  const raw = req.rawHeaders;
  let auths: string[] | undefined;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === "authorization") (auths ??= []).push(raw[i + 1]!);
  if (auths && auths.length > 1) {
    headers.delete("authorization");
    for (const a of auths) headers.append("authorization", a);
  }
  const method = req.method ?? "GET";
  const hasBody = withBody && method !== "GET" && method !== "HEAD";
  // no signal of its own but a 2026-07-28 tools/call's (cancelledOnClose): a request that goes away
  // before its body is whole errors the body's stream (Node emits ECONNRESET "aborted" on req), so
  // the SDK's read of it fails and nothing runs; one that goes away later cancels the response's
  // stream (send). (An AbortController on every request, aborted only in the first case, was a
  // signal and its listener on every request.)
  return new Request(`http://${req.headers.host ?? host}${target.rest}`, {
    method,
    headers,
    ...(hasBody ? { body: streamOf(req), duplex: "half" } : {}),
    ...(signal ? { signal } : {}),
  } as RequestInit);
}

/**
 * A 2026-07-28 tools/call (its Mcp-Method header, which the SDK checks against the body): a signal
 * aborted when the client goes away before its answer is whole. That is the 2026-07-28 cancel (the
 * client aborts its request): the SDK closes the call's transport, which aborts the call, whose bin is
 * stopped. Its answer is one JSON body written at the end, so nothing else would notice before the
 * bin ends (a 2025-era call's answer is a stream from the start: send() cancels it). Anything else:
 * undefined, nothing added to the request's way.
 */
export function cancelledOnClose(req: IncomingMessage, res: ServerResponse): AbortSignal | undefined {
  if (req.headers["mcp-method"] !== "tools/call") return undefined;
  const ac = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) ac.abort(new Error("the client went away before the call's answer"));
  });
  return ac.signal;
}

/** The request's body: errored when the request goes away before its end (ECONNRESET "aborted"). */
function streamOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      req.on("data", (d: Buffer) => c.enqueue(new Uint8Array(d)));
      req.on("end", () => c.close());
      req.on("error", (e) => c.error(e));
    },
  });
}

/**
 * Write `response` to `res`. `stream`: a stream that stays open (a legacy GET stream): its headers
 * go out at once, not with its first event (the SDK's keep-alive, 15 s later) — until then the
 * client cannot tell that the stream is open.
 */
export async function send(response: Response, res: ServerResponse, stream = false): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((v, k) => {
    const prev = headers[k];
    headers[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  });
  res.writeHead(response.status, headers);
  if (stream) res.flushHeaders();
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

/**
 * A POST to the endpoint, its body read from the Node request (bounded): a JSON body goes to the
 * handler parsed (the SDK's `parsedBody`: it then neither clones the request nor reads its body
 * again); an empty, unparseable or too large one goes as the bytes read, for the SDK to answer
 * as it answers any (400, 413). Undefined when the client went away before its body was whole.
 */
export async function postParsed(
  handler: ReturnType<typeof createMcpHandler>,
  maxBody: number,
  req: IncomingMessage,
  request: Request,
  authInfo: AuthInfo | undefined,
): Promise<Response | undefined> {
  const bytes = await bodyOf(req, maxBody);
  if (!bytes) return undefined;
  const opts = authInfo ? { authInfo } : {};
  const parsed = bytes.length <= maxBody ? parseBody(bytes) : NOT_JSON;
  if (parsed !== NOT_JSON) return handler.fetch(request, { ...opts, parsedBody: parsed });
  const withBody = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: bytes,
    duplex: "half",
  } as RequestInit);
  return handler.fetch(withBody, opts);
}

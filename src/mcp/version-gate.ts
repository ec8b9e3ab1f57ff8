// Per request, as the 2026-07-28 spec says ("every request carries its
// protocol version, and the server accepts or rejects each request
// independently"): a request whose `_meta` names a protocol version hcpx does
// not serve gets UnsupportedProtocolVersionError (-32022) with the versions it
// does — also after the connection's opening, which the SDK's serveStdio
// classifies (it then passes later requests through to the pinned instance).
// A thin wrapper around the SDK's stdio transport. It also counts the
// requests read and not yet answered, so that `hcpx mcp` answers each of them
// before it exits at stdin's end (server.ts).
import type { JSONRPCMessage, Transport, TransportSendOptions } from "@modelcontextprotocol/server";

export const MODERN_VERSIONS = ["2026-07-28"];
const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";

export class VersionGate implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];

  /** requests read and not yet answered, by id (a count: a client may reuse an id) */
  private readonly open = new Map<string, number>();
  private waiters: (() => void)[] = [];
  /** the method of each request read and not answered (by id) */
  private readonly methods = new Map<string, string>();
  /** told the method of each request answered */
  onAnswered?: (method: string | undefined) => void;

  constructor(private readonly inner: Transport) {}

  /** Resolves once every request read so far is answered (or cancelled by the client). */
  answered(): Promise<void> {
    return this.open.size === 0 ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }

  /** how many requests read are not answered yet */
  unanswered(): number {
    let n = 0;
    for (const c of this.open.values()) n += c;
    return n;
  }

  private settle(id: unknown): void {
    const k = idKey(id);
    const n = this.open.get(k);
    if (n === undefined) return;
    const method = this.methods.get(k);
    if (n > 1) this.open.set(k, n - 1);
    else {
      this.open.delete(k);
      this.methods.delete(k);
    }
    this.onAnswered?.(method);
    if (this.open.size === 0) for (const w of this.waiters.splice(0)) w();
  }

  start(): Promise<void> {
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (e) => this.onerror?.(e);
    this.inner.onmessage = (message, extra) => {
      const m = message as { id?: unknown; method?: unknown; params?: { _meta?: Record<string, unknown> } };
      const claim = m.params?._meta?.[VERSION_KEY];
      if (
        m.id !== undefined &&
        typeof m.method === "string" &&
        claim !== undefined &&
        !MODERN_VERSIONS.includes(claim as string)
      ) {
        const requested = typeof claim === "string" ? claim : "unknown";
        void this.inner
          .send({
            jsonrpc: "2.0",
            id: m.id as string | number,
            error: {
              code: -32022,
              message: `Unsupported protocol version: ${requested}`,
              data: { supported: MODERN_VERSIONS, requested },
            },
          } as JSONRPCMessage)
          .catch((e: unknown) => this.onerror?.(e as Error));
        return;
      }
      // a request waits for its answer; subscriptions/listen is a stream the server ends only when it closes
      if (m.id !== undefined && typeof m.method === "string" && m.method !== "subscriptions/listen") {
        this.open.set(idKey(m.id), (this.open.get(idKey(m.id)) ?? 0) + 1);
        this.methods.set(idKey(m.id), m.method);
      }
      // a request the client cancelled gets no answer
      if (m.method === "notifications/cancelled") {
        const id = (m.params as { requestId?: unknown } | undefined)?.requestId;
        if (id !== undefined) this.settle(id);
      }
      this.onmessage?.(message, extra);
    };
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const r = message as { id?: unknown; method?: unknown };
    const sent = this.inner.send(message, options);
    // a response (an id and no method) handed to the transport: the request is answered (the exit waits for stdout to drain)
    if (r.id !== undefined && r.method === undefined) this.settle(r.id);
    return sent;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

const idKey = (id: unknown): string => `${typeof id}:${String(id)}`;

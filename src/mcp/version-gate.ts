// Per request, as the 2026-07-28 spec says ("every request carries its
// protocol version, and the server accepts or rejects each request
// independently"): a request whose `_meta` names a protocol version hcpx does
// not serve gets UnsupportedProtocolVersionError (-32022) with the versions it
// does — also after the connection's opening, which the SDK's serveStdio
// classifies (it then passes later requests through to the pinned instance).
// A thin wrapper around the SDK's stdio transport; nothing else changes.
import type { JSONRPCMessage, Transport, TransportSendOptions } from "@modelcontextprotocol/server";

export const MODERN_VERSIONS = ["2026-07-28"];
const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";

export class VersionGate implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];

  constructor(private readonly inner: Transport) {}

  start(): Promise<void> {
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (e) => this.onerror?.(e);
    this.inner.onmessage = (message, extra) => {
      const m = message as { id?: unknown; method?: unknown; params?: { _meta?: Record<string, unknown> } };
      const claim = m.params?._meta?.[VERSION_KEY];
      if (m.id !== undefined && typeof m.method === "string" && claim !== undefined && !MODERN_VERSIONS.includes(claim as string)) {
        const requested = typeof claim === "string" ? claim : "unknown";
        void this.inner
          .send({ jsonrpc: "2.0", id: m.id as string | number, error: { code: -32022, message: `Unsupported protocol version: ${requested}`, data: { supported: MODERN_VERSIONS, requested } } } as JSONRPCMessage)
          .catch((e: unknown) => this.onerror?.(e as Error));
        return;
      }
      this.onmessage?.(message, extra);
    };
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

// Each principal's open streams on `hcpx mcp --http` (src/mcp/http.ts), both
// eras together: a 2025-era GET and a 2026-07-28 subscriptions/listen. The
// server's own bounds (MAX_STREAMS for the GETs, the SDK's maxSubscriptions for
// the listens) are the whole server's, which one principal could fill alone:
// so each principal's are counted here, in the listener, before the SDK sees
// the request, at most limits.max_streams_per_principal (docs/http.md,
// "Per-principal limits"). One Map entry per principal with a stream open.

export type PrincipalStreams = ReturnType<typeof principalStreams>;

/** `max` absent: no bound per principal (--no-auth: one caller). */
export function principalStreams(max: number | undefined) {
  const open = new Map<string, number>();
  return {
    /**
     * A stream request of `principal`: counted until `res` closes, however it ends (the client gone,
     * the stream closed, the SDK's refusal of what was no stream after all): undefined; or, over its
     * limit, the 429 that says so.
     */
    take(principal: string, res: { once(event: "close", f: () => void): unknown }): Response | undefined {
      if (max === undefined) return undefined;
      const n = open.get(principal) ?? 0;
      if (n >= max) return tooManyStreams(principal, max);
      open.set(principal, n + 1);
      res.once("close", () => {
        const left = open.get(principal)! - 1;
        if (left > 0) open.set(principal, left);
        else open.delete(principal);
      });
      return undefined;
    },
  };
}

/** Over the principal's own limit: 429 (the body is not read). */
function tooManyStreams(principal: string, max: number): Response {
  return streamsRefused(
    429,
    -32000,
    `too many open streams: principal '${principal}' has ${max} open, its limit (limits.max_streams_per_principal = ${max}); close one of its streams (a GET or a subscriptions/listen) first`,
    { limit: "limits.max_streams_per_principal", max },
  );
}

/** A stream refused for a bound of open streams (a principal's: 429; the whole server's: 503): Retry-After, a JSON-RPC error. */
export function streamsRefused(status: 429 | 503, code: number, message: string, data?: unknown): Response {
  return Response.json(
    { jsonrpc: "2.0", id: null, error: { code, message, ...(data !== undefined ? { data } : {}) } },
    { status, headers: { "retry-after": "5" } },
  );
}

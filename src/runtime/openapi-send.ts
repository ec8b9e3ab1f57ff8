// Sending an openapi command's request (./openapi.ts is the adapter) and
// reading its answer, within the pack's timeout and the caller's cancel:
// redirects are followed (at most 5) only to the same origin, and an answer
// over STDOUT_CAP bytes is not read further.
import { failure, type Envelope } from "./envelope";
import { shownUrl } from "./openapi-base";
import type { Built } from "./openapi-request";
import { STDOUT_CAP, cancelled } from "./wrap";
import { abortSignalOf, type CallSignal } from "./cancel";

const MAX_REDIRECTS = 5;

/** One request's deadline and cancel, and how messages name it. */
export interface Exchange {
  /** `GET /pets/{id}` */
  label: string;
  timeoutMs: number;
  /** aborted by the timeout, or when the caller cancels the call (execute()'s signal) */
  signal: AbortSignal;
  /** the caller's cancel */
  cancel: CallSignal | undefined;
  /** where the base URL came from (for a hint) */
  from: string;
}

export function exchange(label: string, timeoutMs: number, cancel: CallSignal | undefined, from: string): Exchange {
  const signal = cancel
    ? AbortSignal.any([AbortSignal.timeout(timeoutMs), abortSignalOf(cancel)])
    : AbortSignal.timeout(timeoutMs);
  return { label, timeoutMs, signal, cancel, from };
}

// the request may have reached the service: an aborted request is not an undone one
const wasCancelled = (x: Exchange) =>
  x.cancel?.aborted
    ? cancelled(x.label, x.cancel, true, {}, "its HTTP request was aborted; the service may already have acted on it")
    : undefined;

/** Sends `req` with `method`, following same-origin redirects: the final answer, its body not yet read. */
export async function send(
  req: Built,
  method: string,
  x: Exchange,
): Promise<{ res: Response; error?: undefined } | { error: Envelope }> {
  let url = req.url;
  let body = req.body;
  const headers = { ...req.headers };
  for (let hop = 0; ; hop++) {
    let res: Response;
    try {
      res = await fetch(url, { method, headers, body, signal: x.signal, redirect: "manual" });
    } catch (e) {
      return { error: unreachable(e, url, x) };
    }
    if (![301, 302, 303, 307, 308].includes(res.status)) return { res };
    const loc = res.headers.get("location");
    await res.body?.cancel().catch(() => {});
    if (!loc) return { res };
    const next = redirectTarget(loc, res.status, url, hop, x);
    if (!(next instanceof URL)) return { error: next };
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
      method = method === "HEAD" ? "HEAD" : "GET";
      body = undefined;
      delete headers["content-type"];
    }
    url = next;
  }
}

/** Why fetch threw: the caller's cancel, the timeout, or the service out of reach. */
function unreachable(e: unknown, url: URL, x: Exchange): Envelope {
  // (the URL carries no userinfo: it went to the Authorization header, so no message can hold it)
  const err = e as Error & { cause?: { code?: string; message?: string } };
  const c = wasCancelled(x);
  if (c) return c;
  if (err.name === "TimeoutError" || err.name === "AbortError")
    return failure("timeout", `${x.label} got no answer within ${x.timeoutMs} ms`, { timeout_ms: x.timeoutMs });
  return failure(
    "http_error",
    `${x.label}: could not reach ${shownUrl(url.origin)}: ${err.cause?.code ?? err.cause?.message ?? err.message}`,
    { status: null, hint: `is the service running? (base URL from ${x.from})` },
  );
}

/** Where the redirect answering hop `hop` (0: the first request) goes: the same origin, no credentials, at most MAX_REDIRECTS followed; else the failure. */
function redirectTarget(loc: string, status: number, url: URL, hop: number, x: Exchange): URL | Envelope {
  let next: URL;
  try {
    next = new URL(loc, url);
  } catch {
    return failure("http_error", `${x.label} answered ${status} with a Location that is not a URL; not followed`, {
      status,
    });
  }
  if (next.origin !== url.origin || next.username || next.password) {
    return failure(
      "http_error",
      `${x.label} answered ${status}: a redirect to another origin (${shownUrl(next.origin)}) or with credentials in it; not followed, so the credentials stay with ${url.origin}`,
      {
        status,
        location: shownUrl(next),
        hint: "if that server is meant, point the pack's base URL at it (openapi.base_url or its env override)",
      },
    );
  }
  if (hop >= MAX_REDIRECTS)
    return failure("http_error", `${x.label}: more than ${MAX_REDIRECTS} redirects; stopped`, { status });
  return next;
}

async function readCapped(res: Response): Promise<{ bytes: Buffer; truncated: boolean }> {
  if (!res.body) return { bytes: Buffer.alloc(0), truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > STDOUT_CAP) {
      await reader.cancel().catch(() => {});
      return { bytes: Buffer.alloc(0), truncated: true };
    }
    chunks.push(value);
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}

/** The answer's body, whole: at most STDOUT_CAP bytes, within the timeout and the caller's cancel. */
export async function readAnswer(
  res: Response,
  x: Exchange,
): Promise<{ bytes: Buffer; error?: undefined } | { error: Envelope }> {
  let read: { bytes: Buffer; truncated: boolean };
  try {
    read = await readCapped(res);
  } catch (e) {
    const err = e as Error;
    const c = wasCancelled(x);
    if (c) return { error: c };
    if (err.name === "TimeoutError" || err.name === "AbortError")
      return {
        error: failure("timeout", `${x.label}: the answer did not complete within ${x.timeoutMs} ms`, {
          timeout_ms: x.timeoutMs,
        }),
      };
    return {
      error: failure("http_error", `${x.label}: reading the answer failed: ${err.message}`, { status: res.status }),
    };
  }
  if (read.truncated)
    return {
      error: failure("output_too_large", `${x.label}: the answer is larger than ${STDOUT_CAP} bytes`, {
        limit_bytes: STDOUT_CAP,
        status: res.status,
      }),
    };
  return { bytes: read.bytes };
}

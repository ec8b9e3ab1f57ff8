// The openapi adapter: the runtime sends each command as an HTTP request
// itself (Node's fetch): `http.path` with {name} from path args, query args,
// a JSON body from body args, header args, and the Binding as the declared
// auth header. Base URL: $HCP_<PACK_ID>_BASE_URL (id upper-cased, '-' → '_')
// overrides openapi.base_url.
import type { Command, Pack } from "../pack/model";
import type { ArgValues } from "./args";
import type { Envelope } from "./execute";
import { DEFAULT_TIMEOUT_MS, STDOUT_CAP, cancelled } from "./wrap";

const failure = (code: string, message: string, extra: Record<string, unknown> = {}): Envelope => ({ ok: false, error: { code, message, ...extra } });

export function baseUrlEnvName(packId: string): string {
  return `HCP_${packId.toUpperCase().replace(/-/g, "_")}_BASE_URL`;
}

export function placement(cmd: Command, name: string): "path" | "query" | "body" | "header" {
  const spec = cmd.args[name]!;
  if (spec.in) return spec.in;
  if (cmd.http && cmd.http.path.includes(`{${name}}`)) return "path";
  return cmd.http && ["GET", "HEAD", "DELETE"].includes(cmd.http.method) ? "query" : "body";
}

async function readCapped(res: Response): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: "", truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > STDOUT_CAP) {
      await reader.cancel().catch(() => {});
      return { text: "", truncated: true };
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks).toString("utf8"), truncated: false };
}

export async function runOpenapi(pack: Pack, cmd: Command, values: ArgValues, runtimeEnv: NodeJS.ProcessEnv, cancel?: AbortSignal): Promise<Envelope> {
  const spec = pack.surface.openapi;
  if (!spec) return failure("bad_pack", `pack ${pack.id} is kind openapi but has no openapi section`);
  if (!cmd.http) return failure("bad_pack", `${cmd.verb_key} has no http { method, path }`, { hint: "each openapi command names its operation in http" });
  const envName = baseUrlEnvName(pack.id);
  const base = runtimeEnv[envName] || spec.base_url;
  if (!base) return failure("bad_pack", `pack ${pack.id} has no openapi.base_url`, { hint: `set openapi.base_url in surface.json or ${envName} in the environment` });
  if (!/^https?:\/\//i.test(base)) return failure("bad_pack", `base URL ${base} is not http(s)`);
  let path = cmd.http.path;
  const query = new URLSearchParams();
  const body: Record<string, unknown> = {};
  const headers: Record<string, string> = { accept: "application/json" };
  let hasBody = false;
  for (const [name, v] of Object.entries(values)) {
    switch (placement(cmd, name)) {
      case "path":
        path = path.split(`{${name}}`).join(encodeURIComponent(String(v)));
        break;
      case "query":
        query.append(name, String(v));
        break;
      case "header":
        headers[name.toLowerCase()] = String(v);
        break;
      case "body":
        body[name] = v;
        hasBody = true;
        break;
    }
  }
  const left = /\{([^}]+)\}/.exec(path);
  if (left) return failure("bad_args", `the path ${cmd.http.path} needs '${left[1]}'`, { arg: left[1] });
  const method = cmd.http.method;
  if (!hasBody && ["POST", "PUT", "PATCH"].includes(method)) hasBody = true;
  if (hasBody) headers["content-type"] = "application/json";
  const auth = spec.auth;
  const token = auth ? runtimeEnv[auth.env] : undefined;
  if (auth && token) headers[auth.header.toLowerCase()] = auth.scheme ? `${auth.scheme} ${token}` : token;
  const qs = query.toString();
  const url = base.replace(/\/+$/, "") + path + (qs ? `?${qs}` : "");
  const timeoutMs = spec.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const label = `${method} ${cmd.http.path}`;
  let res: Response;
  const signal = cancel ? AbortSignal.any([AbortSignal.timeout(timeoutMs), cancel]) : AbortSignal.timeout(timeoutMs);
  const wasCancelled = () => (cancel?.aborted ? cancelled(label, cancel, true) : undefined);
  try {
    res = await fetch(url, { method, headers, body: hasBody ? JSON.stringify(body) : undefined, signal, redirect: "follow" });
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    const c = wasCancelled();
    if (c) return c;
    if (err.name === "TimeoutError" || err.name === "AbortError") return failure("timeout", `${label} got no answer within ${timeoutMs} ms`, { timeout_ms: timeoutMs });
    return failure("http_error", `${label}: could not reach ${base}: ${err.cause?.code ?? err.cause?.message ?? err.message}`, { status: null, hint: `is the service running? (base URL from ${runtimeEnv[envName] ? envName : "openapi.base_url"})` });
  }
  let read: { text: string; truncated: boolean };
  try {
    read = await readCapped(res);
  } catch (e) {
    const err = e as Error;
    const c = wasCancelled();
    if (c) return c;
    if (err.name === "TimeoutError" || err.name === "AbortError") return failure("timeout", `${label}: the answer did not complete within ${timeoutMs} ms`, { timeout_ms: timeoutMs });
    return failure("http_error", `${label}: reading the answer failed: ${err.message}`, { status: res.status });
  }
  if (read.truncated) return failure("output_too_large", `${label}: the answer is larger than ${STDOUT_CAP} bytes`, { limit_bytes: STDOUT_CAP, status: res.status });
  let parsed: unknown;
  let isJson = false;
  if (read.text.trim()) {
    try {
      parsed = JSON.parse(read.text);
      isJson = true;
    } catch {
      /* not JSON */
    }
  }
  if (!res.ok) {
    const p = parsed as { message?: unknown; error?: unknown } | undefined;
    const inner = isJson && p && typeof p === "object" ? (typeof p.message === "string" ? p.message : typeof p.error === "string" ? p.error : typeof (p.error as { message?: unknown })?.message === "string" ? ((p.error as { message: string }).message) : undefined) : undefined;
    const extra: Record<string, unknown> = { status: res.status, body: read.text.length > 500 ? read.text.slice(0, 500) + "…" : read.text };
    if ((res.status === 401 || res.status === 403) && auth && !token) extra.hint = `set ${auth.env} in the environment (the pack's Binding)`;
    return failure("http_error", `${label} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ""}${inner ? `: ${inner}` : ""}`, extra);
  }
  if (!read.text.trim()) return { ok: true, data: null };
  return { ok: true, data: isJson ? parsed : { text: read.text } };
}

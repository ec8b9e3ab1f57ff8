// The openapi adapter: the runtime sends each command as an HTTP request
// itself (Node's fetch), from what `hcpx pack from-openapi` wrote into the
// surface (the document itself is never read here): `http.path` with {name}
// from path args, query / header / cookie args serialized in their OpenAPI
// style, a body in the operation's media type (JSON, form-urlencoded,
// multipart text fields; none when the operation has none), the Accept the
// operation answers with, and the credentials its `security` names, each from
// a Binding env name.
//
// Where a request goes is exactly what the grant says (docs/security.md):
// - a path parameter never changes the path: its value is percent-encoded
//   (`/`, `\`, `?`, `#`, `%` included) and a segment that would be empty, `.`
//   or `..` is refused before anything is sent;
// - redirects are followed (at most 5) only to the same origin; a redirect to
//   another origin is an error and is not followed, so a Binding header, query
//   key or cookie never reaches another origin;
// - a base URL's userinfo (user:password) is sent as HTTP Basic, never in the
//   URL, and is a secret: execute() redacts it from every output.
//
// Base URL: $HCP_<PACK_ID>_BASE_URL (id upper-cased, '-' → '_') replaces every
// server URL of the pack (openapi.base_url and the operations' own); a
// relative openapi.base_url ("/api/v3") is resolved against it.
import type { SchemeSpec } from "../pack/schema";
import type { Command, Pack } from "../pack/model";
import type { AdapterCall } from "./adapters/types";
import { argText, type ArgValue, type ArgValues } from "./args";
import { failure, type Envelope } from "./envelope";
import type { ErrorCode } from "../util/errors";
import { DEFAULT_TIMEOUT_MS, MAX_OUTPUT_NESTING, STDOUT_CAP, cancelled, parseOutput } from "./wrap";

const MAX_REDIRECTS = 5;

export function baseUrlEnvName(packId: string): string {
  return `HCP_${packId.toUpperCase().replace(/-/g, "_")}_BASE_URL`;
}

export type Placement = "path" | "query" | "body" | "header" | "cookie";

export function placement(cmd: Command, name: string): Placement {
  const spec = cmd.args[name]!;
  if (spec.in) return spec.in;
  if (cmd.http && cmd.http.path.includes(`{${name}}`)) return "path";
  return cmd.http && ["GET", "HEAD", "DELETE"].includes(cmd.http.method) ? "query" : "body";
}

/** A URL for messages: no userinfo, no query. */
export function shownUrl(u: URL | string): string {
  try {
    const x = typeof u === "string" ? new URL(u) : new URL(u.href);
    x.username = "";
    x.password = "";
    x.search = "";
    x.hash = "";
    return x.href.replace(/\/$/, "");
  } catch {
    return String(u).replace(/\/\/[^/@]*@/, "//***@");
  }
}

/** The secret parts of a URL's userinfo (user, password, both, raw and decoded): for redaction. */
export function userinfoSecrets(url: string | undefined): string[] {
  if (!url || !url.includes("@")) return [];
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#@]*)@/i.exec(url);
  if (!m) return [];
  const raw = m[1]!;
  const out = new Set<string>([raw]);
  const dec = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const colon = raw.indexOf(":");
  const user = dec(colon < 0 ? raw : raw.slice(0, colon));
  const pass = colon < 0 ? "" : dec(raw.slice(colon + 1));
  out.add(dec(raw));
  if (pass) {
    out.add(pass);
    out.add(`${user}:${pass}`);
  }
  if (user.length >= 3) out.add(user);
  return [...out].filter(Boolean);
}

/** Every server URL the pack may use (for redaction of their userinfo). */
export function packUrls(pack: Pack<"openapi">, env: NodeJS.ProcessEnv): string[] {
  const urls = new Set<string>();
  for (const u of [env[baseUrlEnvName(pack.id)], pack.surface.openapi.base_url]) if (u) urls.add(u);
  for (const c of pack.commands) if (c.http?.base_url) urls.add(c.http.base_url);
  return [...urls];
}

/** The Binding env names of the pack's security schemes. */
export function schemeEnvNames(pack: Pack<"openapi">): string[] {
  const out: string[] = [];
  for (const s of Object.values(pack.surface.openapi.schemes ?? {})) {
    if (s.type === "basic") out.push(s.username_env, s.password_env);
    else out.push(s.env);
  }
  return out;
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

class RequestError extends Error {
  constructor(
    message: string,
    readonly arg?: string,
    readonly code: ErrorCode = "bad_args",
  ) {
    super(message);
  }
}

// RFC 3986 unreserved stays; everything else is percent-encoded (encodeURIComponent leaves !'()* too).
const enc = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

type Scalar = string | number | boolean | null;
const isObj = (v: ArgValue): v is { [k: string]: never } => v !== null && typeof v === "object" && !Array.isArray(v);
const scalarText = (v: unknown): string => (v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));

/** Path parameter (simple / label / matrix), already encoded. */
function pathValue(name: string, v: ArgValue, style: string, explode: boolean): string {
  const items = Array.isArray(v) ? v.map((x) => enc(scalarText(x))) : undefined;
  const pairs = isObj(v) ? Object.entries(v).map(([k, x]) => [enc(k), enc(scalarText(x))] as const) : undefined;
  if (style === "label") {
    if (items) return "." + items.join(explode ? "." : ",");
    if (pairs) return "." + pairs.map(([k, x]) => (explode ? `${k}=${x}` : `${k},${x}`)).join(explode ? "." : ",");
    return "." + enc(scalarText(v));
  }
  if (style === "matrix") {
    const n = enc(name);
    if (items) return explode ? items.map((x) => `;${n}=${x}`).join("") : `;${n}=${items.join(",")}`;
    if (pairs)
      return explode
        ? pairs.map(([k, x]) => `;${k}=${x}`).join("")
        : `;${n}=${pairs.map(([k, x]) => `${k},${x}`).join(",")}`;
    return `;${n}=${enc(scalarText(v))}`;
  }
  if (items) return items.join(",");
  if (pairs) return pairs.map(([k, x]) => (explode ? `${k}=${x}` : `${k},${x}`)).join(",");
  return enc(scalarText(v));
}

/** Query parameter pairs (form / spaceDelimited / pipeDelimited / deepObject), encoded. */
function queryPairs(name: string, v: ArgValue, style: string, explode: boolean): string[] {
  const n = enc(name);
  if (Array.isArray(v)) {
    const items = v.map((x) => enc(scalarText(x)));
    if (style === "spaceDelimited") return [`${n}=${items.join("%20")}`];
    if (style === "pipeDelimited") return [`${n}=${items.join("|")}`];
    return explode ? items.map((x) => `${n}=${x}`) : [`${n}=${items.join(",")}`];
  }
  if (isObj(v)) {
    const entries = Object.entries(v as Record<string, unknown>);
    if (style === "deepObject")
      return entries.flatMap(([k, x]) =>
        Array.isArray(x)
          ? x.map((y) => `${n}%5B${enc(k)}%5D=${enc(scalarText(y))}`)
          : [`${n}%5B${enc(k)}%5D=${enc(scalarText(x))}`],
      );
    return explode
      ? entries.map(([k, x]) => `${enc(k)}=${enc(scalarText(x))}`)
      : [`${n}=${entries.map(([k, x]) => `${enc(k)},${enc(scalarText(x))}`).join(",")}`];
  }
  return [`${n}=${enc(scalarText(v as Scalar))}`];
}

/** Header value (simple style). */
function headerValue(v: ArgValue, explode: boolean): string {
  if (Array.isArray(v)) return v.map(scalarText).join(",");
  if (isObj(v))
    return Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => (explode ? `${k}=${scalarText(x)}` : `${k},${scalarText(x)}`))
      .join(",");
  return argText(v);
}

function checkHeaderText(name: string, s: string): void {
  // eslint-disable-next-line no-control-regex -- CR, LF, NUL and other controls would split or end the header
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(s))
    throw new RequestError(
      `argument '${name}' contains a control character (a line break?), which cannot be sent in a header`,
      name,
    );
  if (/[^\u0000-\u00ff]/.test(s))
    throw new RequestError(`argument '${name}' contains characters a header cannot carry (only Latin-1)`, name);
}

interface Built {
  url: URL;
  headers: Record<string, string>;
  body?: string | FormData;
  cookies: string[];
}

/** The effective base URL: env override, else the operation's own server, else openapi.base_url. */
function baseOf(
  pack: Pack<"openapi">,
  cmd: Command,
  env: NodeJS.ProcessEnv,
): { base?: URL; from: string; error?: Envelope } {
  const spec = pack.surface.openapi;
  const envName = baseUrlEnvName(pack.id);
  const override = env[envName];
  const packBase = spec.base_url;
  const opBase = cmd.http?.base_url;
  const parse = (u: string, rel?: string): URL | undefined => {
    try {
      return rel === undefined ? new URL(u) : new URL(u, rel);
    } catch {
      return undefined;
    }
  };
  let base: URL | undefined;
  let from: string;
  const isAbs = (u: string) => /^[a-z][a-z0-9+.-]*:/i.test(u);
  if (override) {
    from = envName;
    const o = parse(override);
    if (!o)
      return {
        from,
        error: failure("bad_pack", `${envName} is not a URL`, {
          hint: `set ${envName} to an http(s) URL such as http://127.0.0.1:8080`,
        }),
      };
    // a relative pack base_url keeps its path under the override's origin
    base = packBase && !isAbs(packBase) && !opBase ? parse(joinPath(o, packBase)) : o;
  } else {
    from = opBase ? "the operation's server URL" : "openapi.base_url";
    const chosen = opBase ?? packBase;
    if (!chosen)
      return {
        from,
        error: failure("bad_pack", `pack ${pack.id} has no openapi.base_url`, {
          hint: `set openapi.base_url in surface.json or ${envName} in the environment`,
        }),
      };
    if (!isAbs(chosen)) {
      if (!packBase || !isAbs(packBase))
        return {
          from,
          error: failure("bad_pack", `the server URL of ${pack.id} is relative (${chosen}): it needs an origin`, {
            hint: `set ${envName} to the server's origin, e.g. https://api.example.com (the path ${chosen} is kept)`,
          }),
        };
      base = parse(chosen, packBase);
    } else base = parse(chosen);
  }
  if (!base) return { from, error: failure("bad_pack", `the base URL of ${pack.id} (from ${from}) is not a URL`) };
  if (base.protocol !== "http:" && base.protocol !== "https:")
    return { from, error: failure("bad_pack", `base URL ${shownUrl(base)} is not http(s)`) };
  return { base, from };
}

function joinPath(origin: URL, path: string): string {
  return `${origin.href.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

function buildRequest(
  pack: Pack<"openapi">,
  cmd: Command,
  values: ArgValues,
  base: URL,
  env: NodeJS.ProcessEnv,
): Built {
  const http = cmd.http!;
  const headers: Record<string, string> = { accept: http.accept ?? "application/json" };
  const query: string[] = [];
  const cookies: string[] = [];
  const bodyFields: [string, ArgValue][] = [];
  let whole: ArgValue | undefined;
  const pathVals = new Map<string, string>();
  for (const [name, v] of Object.entries(values)) {
    const spec = cmd.args[name]!;
    const wire = spec.name ?? name;
    const where = placement(cmd, name);
    switch (where) {
      case "path":
        pathVals.set(name, pathValue(wire, v, spec.style ?? "simple", spec.explode ?? false));
        break;
      case "query":
        query.push(...queryPairs(wire, v, spec.style ?? "form", spec.explode ?? true));
        break;
      case "header": {
        const s = headerValue(v, spec.explode ?? false);
        checkHeaderText(name, s);
        headers[wire.toLowerCase()] = s;
        break;
      }
      case "cookie":
        cookies.push(`${wire}=${enc(headerValue(v, false))}`);
        break;
      case "body":
        if (http.body?.whole === name) whole = v;
        else bodyFields.push([wire, v]);
        break;
    }
  }
  // the path: template segments stay; a segment a value fills is never empty, '.' or '..'
  const segs = http.path.split("/").map((seg) => {
    if (!seg.includes("{")) return seg;
    let out = "";
    let last = 0;
    for (const m of seg.matchAll(/\{([^}]+)\}/g)) {
      out += seg.slice(last, m.index);
      const raw = m[1]!;
      const key = raw.replace(/^[.;]/, "").replace(/\*$/, "");
      const v = pathVals.get(key);
      if (v === undefined) throw new RequestError(`the path ${http.path} needs '${key}'`, key);
      out += v;
      last = m.index! + m[0].length;
    }
    out += seg.slice(last);
    if (out === "" || out === "." || out === "..") {
      const names = [...seg.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      throw new RequestError(
        `argument '${names[0]}' would make the path segment ${JSON.stringify(out)}${out ? " (a dot segment, which changes the endpoint)" : " (empty)"}; nothing was sent`,
        names[0],
      );
    }
    return out;
  });
  const basePath = base.pathname.replace(/\/+$/, "");
  const url = new URL(base.href);
  url.username = "";
  url.password = "";
  url.hash = "";
  // pathname set from already encoded text: the URL parser keeps it (no dot segment can be in it)
  url.pathname = basePath + segs.join("/");
  // credentials: the first security alternative whose Binding values are all set
  applySecurity(pack, cmd, env, headers, query, cookies);
  if (base.username || base.password) {
    const user = decodeURIComponent(base.username);
    const pass = decodeURIComponent(base.password);
    headers.authorization ??= `Basic ${Buffer.from(`${user}:${pass}`, "utf8").toString("base64")}`;
  }
  const baseQuery = base.search.replace(/^\?/, "");
  const qs = [baseQuery, ...query].filter(Boolean).join("&");
  url.search = qs ? `?${qs}` : "";
  if (cookies.length) headers.cookie = cookies.join("; ");
  // the body
  let body: string | FormData | undefined;
  const media = http.body?.media ?? (bodyFields.length ? "application/json" : undefined);
  const hasBody = whole !== undefined || bodyFields.length > 0 || http.body?.required === true;
  if (media && hasBody) {
    if (media === "application/json") {
      body = JSON.stringify(whole !== undefined ? whole : Object.fromEntries(bodyFields));
      headers["content-type"] = "application/json";
    } else if (media === "application/x-www-form-urlencoded") {
      const fields =
        whole !== undefined && isObj(whole) ? Object.entries(whole as Record<string, ArgValue>) : bodyFields;
      const pairs: string[] = [];
      for (const [k, v] of fields) {
        if (Array.isArray(v)) for (const x of v) pairs.push(`${enc(k)}=${enc(scalarText(x))}`);
        else pairs.push(`${enc(k)}=${enc(scalarText(v))}`);
      }
      body = pairs.join("&");
      headers["content-type"] = "application/x-www-form-urlencoded";
    } else {
      const fd = new FormData();
      const fields =
        whole !== undefined && isObj(whole) ? Object.entries(whole as Record<string, ArgValue>) : bodyFields;
      for (const [k, v] of fields) {
        if (Array.isArray(v)) for (const x of v) fd.append(k, scalarText(x));
        else if (isObj(v)) fd.append(k, new Blob([JSON.stringify(v)], { type: "application/json" }));
        else fd.append(k, scalarText(v));
      }
      body = fd; // fetch sets the multipart content type with its boundary
    }
  }
  return { url, headers, body, cookies };
}

/** The credentials of the operation's security requirement (OR of AND lists), from the Binding. */
function applySecurity(
  pack: Pack<"openapi">,
  cmd: Command,
  env: NodeJS.ProcessEnv,
  headers: Record<string, string>,
  query: string[],
  cookies: string[],
): void {
  const spec = pack.surface.openapi;
  const schemes = spec.schemes ?? {};
  const req = cmd.http?.security ?? spec.security;
  if (req === undefined) {
    const auth = spec.auth;
    const token = auth ? env[auth.env] : undefined;
    if (auth && token) headers[auth.header.toLowerCase()] = auth.scheme ? `${auth.scheme} ${token}` : token;
    return;
  }
  const ready = (name: string): boolean => {
    const s = schemes[name];
    if (!s) return false;
    return s.type === "basic" ? !!env[s.username_env] && env[s.password_env] !== undefined : !!env[s.env];
  };
  const alt = req.find((names) => names.length > 0 && names.every(ready));
  if (!alt) return; // none complete: sent without credentials (an anonymous alternative, or a 401 with a hint)
  for (const name of alt) apply(schemes[name]!, env, headers, query, cookies);
}

function apply(
  s: SchemeSpec,
  env: NodeJS.ProcessEnv,
  headers: Record<string, string>,
  query: string[],
  cookies: string[],
): void {
  if (s.type === "bearer") headers.authorization = `Bearer ${env[s.env]}`;
  else if (s.type === "basic")
    headers.authorization = `Basic ${Buffer.from(`${env[s.username_env]}:${env[s.password_env] ?? ""}`, "utf8").toString("base64")}`;
  else if (s.in === "header") headers[s.name.toLowerCase()] = env[s.env]!;
  else if (s.in === "query") query.push(`${enc(s.name)}=${enc(env[s.env]!)}`);
  else cookies.push(`${s.name}=${enc(env[s.env]!)}`);
}

/** The Binding env names to set for this command (for a 401/403 hint). */
function neededEnv(pack: Pack<"openapi">, cmd: Command, env: NodeJS.ProcessEnv): string[] {
  const spec = pack.surface.openapi;
  const req = cmd.http?.security ?? spec.security;
  if (req === undefined) return spec.auth && !env[spec.auth.env] ? [spec.auth.env] : [];
  const alt = req.find((a) => a.length > 0);
  if (!alt) return [];
  return alt.flatMap((n) => {
    const s = spec.schemes?.[n];
    if (!s) return [];
    return (s.type === "basic" ? [s.username_env, s.password_env] : [s.env]).filter((e) => !env[e]);
  });
}

const TEXTUAL =
  /^(text\/|application\/(.+\+)?(json|xml|yaml|x-yaml|javascript|x-www-form-urlencoded|graphql|problem\+json|csv|x-ndjson|ld\+json)\b)/i;

/** The openapi adapter (the table: ./adapters/index.ts). */
export async function runOpenapi({
  pack,
  cmd,
  values,
  env: runtimeEnv,
  signal: cancel,
}: AdapterCall<"openapi">): Promise<Envelope> {
  const spec = pack.surface.openapi;
  if (!cmd.http)
    return failure("bad_pack", `${cmd.verb_key} has no http { method, path }`, {
      hint: "each openapi command names its operation in http",
    });
  const b = baseOf(pack, cmd, runtimeEnv);
  if (b.error) return b.error;
  const base = b.base!;
  let built: Built;
  try {
    built = buildRequest(pack, cmd, values, base, runtimeEnv);
  } catch (e) {
    if (e instanceof RequestError) return failure(e.code, e.message, { arg: e.arg });
    throw e;
  }
  let method = cmd.http.method;
  const label = `${method} ${cmd.http.path}`;
  const timeoutMs = spec.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  // aborted by the timeout, or when the caller cancels the call (execute()'s signal)
  const signal = cancel ? AbortSignal.any([AbortSignal.timeout(timeoutMs), cancel]) : AbortSignal.timeout(timeoutMs);
  const wasCancelled = () => (cancel?.aborted ? cancelled(label, cancel, true) : undefined);
  let url = built.url;
  let body = built.body;
  const headers = { ...built.headers };
  let res: Response;
  for (let hop = 0; ; hop++) {
    try {
      res = await fetch(url, { method, headers, body, signal, redirect: "manual" });
    } catch (e) {
      // (the URL carries no userinfo: it went to the Authorization header, so no message can hold it)
      const err = e as Error & { cause?: { code?: string; message?: string } };
      const c = wasCancelled();
      if (c) return c;
      if (err.name === "TimeoutError" || err.name === "AbortError")
        return failure("timeout", `${label} got no answer within ${timeoutMs} ms`, { timeout_ms: timeoutMs });
      return failure(
        "http_error",
        `${label}: could not reach ${shownUrl(url.origin)}: ${err.cause?.code ?? err.cause?.message ?? err.message}`,
        { status: null, hint: `is the service running? (base URL from ${b.from})` },
      );
    }
    if (![301, 302, 303, 307, 308].includes(res.status)) break;
    const loc = res.headers.get("location");
    await res.body?.cancel().catch(() => {});
    if (!loc) break;
    let next: URL;
    try {
      next = new URL(loc, url);
    } catch {
      return failure("http_error", `${label} answered ${res.status} with a Location that is not a URL; not followed`, {
        status: res.status,
      });
    }
    if (next.origin !== url.origin || next.username || next.password) {
      return failure(
        "http_error",
        `${label} answered ${res.status}: a redirect to another origin (${shownUrl(next.origin)}) or with credentials in it; not followed, so the credentials stay with ${url.origin}`,
        {
          status: res.status,
          location: shownUrl(next),
          hint: "if that server is meant, point the pack's base URL at it (openapi.base_url or its env override)",
        },
      );
    }
    if (hop + 1 >= MAX_REDIRECTS)
      return failure("http_error", `${label}: more than ${MAX_REDIRECTS} redirects; stopped`, { status: res.status });
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
      method = method === "HEAD" ? "HEAD" : "GET";
      body = undefined;
      delete headers["content-type"];
    }
    url = next;
  }
  let read: { bytes: Buffer; truncated: boolean };
  try {
    read = await readCapped(res);
  } catch (e) {
    const err = e as Error;
    const c = wasCancelled();
    if (c) return c;
    if (err.name === "TimeoutError" || err.name === "AbortError")
      return failure("timeout", `${label}: the answer did not complete within ${timeoutMs} ms`, {
        timeout_ms: timeoutMs,
      });
    return failure("http_error", `${label}: reading the answer failed: ${err.message}`, { status: res.status });
  }
  if (read.truncated)
    return failure("output_too_large", `${label}: the answer is larger than ${STDOUT_CAP} bytes`, {
      limit_bytes: STDOUT_CAP,
      status: res.status,
    });
  const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const textual = !type || TEXTUAL.test(type) || /charset=/i.test(res.headers.get("content-type") ?? "");
  const text = textual ? read.bytes.toString("utf8") : "";
  let parsed: unknown;
  let isJson = false;
  if (textual && text.trim() && (!type || /json/.test(type))) {
    const r = parseOutput(text);
    if (r.ok) {
      parsed = r.value;
      isJson = true;
    } else if (r.deep)
      return failure("bad_output", `${label}: the answer is JSON ${r.why}, more than hcpx passes on`, {
        limit_depth: MAX_OUTPUT_NESTING,
        status: res.status,
      });
  }
  if (!res.ok) {
    const p = parsed as { message?: unknown; error?: unknown } | undefined;
    const inner =
      isJson && p && typeof p === "object"
        ? typeof p.message === "string"
          ? p.message
          : typeof p.error === "string"
            ? p.error
            : typeof (p.error as { message?: unknown })?.message === "string"
              ? (p.error as { message: string }).message
              : undefined
        : undefined;
    const shown = textual ? text : `(${read.bytes.length} bytes of ${type})`;
    const extra: Record<string, unknown> = {
      status: res.status,
      body: shown.length > 500 ? shown.slice(0, 500) + "…" : shown,
    };
    const need = res.status === 401 || res.status === 403 ? neededEnv(pack, cmd, runtimeEnv) : [];
    if (need.length) extra.hint = `set ${need.join(" and ")} in the environment (the pack's Binding)`;
    return failure(
      "http_error",
      `${label} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ""}${inner ? `: ${inner}` : ""}`,
      extra,
    );
  }
  if (!textual) return { ok: true, data: { binary: { bytes: read.bytes.length, content_type: type } } };
  if (!text.trim()) return { ok: true, data: null };
  return { ok: true, data: isJson ? parsed : { text } };
}

// An openapi command's HTTP request (./openapi.ts is the adapter), built from
// the validated args: each arg where the operation puts it (path, query,
// header, cookie, body) in its OpenAPI style, the path's segments checked
// (never empty, `.` or `..`), the credentials of the operation's security from
// the Binding, and the body in the operation's media type. Nothing is sent here.
import type { SchemeSpec } from "../pack/schema";
import type { Command, Pack } from "../pack/model";
import { argText, type ArgValue, type ArgValues } from "./args";
import type { ErrorCode } from "../util/errors";
import { strictPercent as enc } from "../util/percent"; // RFC 3986: every character but the unreserved ones

export type Placement = "path" | "query" | "body" | "header" | "cookie";

export function placement(cmd: Command, name: string): Placement {
  const spec = cmd.args[name]!;
  if (spec.in) return spec.in;
  if (cmd.http && cmd.http.path.includes(`{${name}}`)) return "path";
  return cmd.http && ["GET", "HEAD", "DELETE"].includes(cmd.http.method) ? "query" : "body";
}

export class RequestError extends Error {
  constructor(
    message: string,
    readonly arg?: string,
    readonly code: ErrorCode = "bad_args",
  ) {
    super(message);
  }
}

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
  // CR, LF, NUL and other controls would split or end the header
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(s))
    throw new RequestError(
      `argument '${name}' contains a control character (a line break?), which cannot be sent in a header`,
      name,
    );
  if (/[^\u0000-\u00ff]/.test(s))
    throw new RequestError(`argument '${name}' contains characters a header cannot carry (only Latin-1)`, name);
}

export interface Built {
  url: URL;
  headers: Record<string, string>;
  body?: string | FormData;
  cookies: string[];
}

/** The args by where they go, each serialized in its style (the headers start with the Accept). */
interface Placed {
  headers: Record<string, string>;
  query: string[];
  cookies: string[];
  pathVals: Map<string, string>;
  bodyFields: [string, ArgValue][];
  whole: ArgValue | undefined;
}

/** Each arg to its place, in the order of `values`. */
function placeArgs(cmd: Command, values: ArgValues): Placed {
  const http = cmd.http!;
  const p: Placed = {
    headers: { accept: http.accept ?? "application/json" },
    query: [],
    cookies: [],
    pathVals: new Map(),
    bodyFields: [],
    whole: undefined,
  };
  for (const [name, v] of Object.entries(values)) {
    const spec = cmd.args[name]!;
    const wire = spec.name ?? name;
    const where = placement(cmd, name);
    switch (where) {
      case "path":
        p.pathVals.set(name, pathValue(wire, v, spec.style ?? "simple", spec.explode ?? false));
        break;
      case "query":
        p.query.push(...queryPairs(wire, v, spec.style ?? "form", spec.explode ?? true));
        break;
      case "header": {
        const s = headerValue(v, spec.explode ?? false);
        checkHeaderText(name, s);
        p.headers[wire.toLowerCase()] = s;
        break;
      }
      case "cookie":
        p.cookies.push(`${wire}=${enc(headerValue(v, false))}`);
        break;
      case "body":
        if (http.body?.whole === name) p.whole = v;
        else p.bodyFields.push([wire, v]);
        break;
    }
  }
  return p;
}

/** The path: template segments stay; a segment a value fills is never empty, '.' or '..'. */
function fillPath(path: string, pathVals: Map<string, string>): string {
  const segs = path.split("/").map((seg) => {
    if (!seg.includes("{")) return seg;
    let out = "";
    let last = 0;
    for (const m of seg.matchAll(/\{([^}]+)\}/g)) {
      out += seg.slice(last, m.index);
      const raw = m[1]!;
      const key = raw.replace(/^[.;]/, "").replace(/\*$/, "");
      const v = pathVals.get(key);
      if (v === undefined) throw new RequestError(`the path ${path} needs '${key}'`, key);
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
  return segs.join("/");
}

/** The body in the operation's media type (none when it has none and no arg goes there); sets its content type. */
function requestBody(cmd: Command, p: Placed, headers: Record<string, string>): string | FormData | undefined {
  const http = cmd.http!;
  const { whole, bodyFields } = p;
  const media = http.body?.media ?? (bodyFields.length ? "application/json" : undefined);
  const hasBody = whole !== undefined || bodyFields.length > 0 || http.body?.required === true;
  if (!media || !hasBody) return undefined;
  if (media === "application/json") {
    const body = JSON.stringify(whole !== undefined ? whole : Object.fromEntries(bodyFields));
    headers["content-type"] = "application/json";
    return body;
  }
  const fields = whole !== undefined && isObj(whole) ? Object.entries(whole as Record<string, ArgValue>) : bodyFields;
  if (media === "application/x-www-form-urlencoded") {
    const pairs: string[] = [];
    for (const [k, v] of fields) {
      if (Array.isArray(v)) for (const x of v) pairs.push(`${enc(k)}=${enc(scalarText(x))}`);
      else pairs.push(`${enc(k)}=${enc(scalarText(v))}`);
    }
    const body = pairs.join("&");
    headers["content-type"] = "application/x-www-form-urlencoded";
    return body;
  }
  const fd = new FormData();
  for (const [k, v] of fields) {
    if (Array.isArray(v)) for (const x of v) fd.append(k, scalarText(x));
    else if (isObj(v)) fd.append(k, new Blob([JSON.stringify(v)], { type: "application/json" }));
    else fd.append(k, scalarText(v));
  }
  return fd; // fetch sets the multipart content type with its boundary
}

/** The request of `cmd` with `values` against `base`: throws a RequestError for an arg that cannot be sent. */
export function buildRequest(
  pack: Pack<"openapi">,
  cmd: Command,
  values: ArgValues,
  base: URL,
  env: NodeJS.ProcessEnv,
): Built {
  const p = placeArgs(cmd, values);
  const path = fillPath(cmd.http!.path, p.pathVals);
  const { headers, query, cookies } = p;
  const basePath = base.pathname.replace(/\/+$/, "");
  const url = new URL(base.href);
  url.username = "";
  url.password = "";
  url.hash = "";
  // pathname set from already encoded text: the URL parser keeps it (no dot segment can be in it)
  url.pathname = basePath + path;
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
  const body = requestBody(cmd, p, headers);
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
export function neededEnv(pack: Pack<"openapi">, cmd: Command, env: NodeJS.ProcessEnv): string[] {
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

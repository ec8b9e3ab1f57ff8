// What the document declares around its operations: servers, the
// --include/--exclude filters over them, and security schemes.
import type { SchemeSpec } from "../pack/schema";
import { isObj } from "../util/is";
import { type Json } from "./types";
import { envPrefix } from "./names";
import { derefInternal } from "./schema";

// ---- servers ----

export function serverUrl(s: unknown): string | undefined {
  if (!isObj(s) || typeof s.url !== "string") return undefined;
  let u = s.url.trim();
  const vars = isObj(s.variables) ? s.variables : {};
  u = u.replace(/\{([^}]+)\}/g, (m, name: string) => {
    const v = vars[name];
    return isObj(v) && v.default !== undefined ? String(v.default) : m;
  });
  return u;
}

export function resolveServer(u: string, origin: string | undefined, notes: string[], where: string): string {
  let out = u;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(u) && origin) {
    try {
      out = new URL(u, origin).href;
    } catch {
      /* keep it relative */
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(out)) {
    const x = new URL(out);
    x.username = "";
    x.password = "";
    out = x.href;
    notes.push(
      `${where}: the server URL carried a user name and password; removed (give credentials through the Binding)`,
    );
  }
  if (out.includes("{")) notes.push(`${where}: server URL variable without a default left in ${out}`);
  return out.length > 1 ? out.replace(/\/+$/, "") : out;
}

// ---- filters ----

function globRe(glob: string, pathLike: boolean): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      re += ".*";
      i++;
    } else if (c === "*") re += pathLike ? "[^/]*" : ".*";
    else if (c === "?") re += pathLike ? "[^/]" : ".";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`, pathLike ? "" : "i");
}

export function matcher(
  patterns: string[] | undefined,
): ((op: { tags: string[]; path: string; operationId?: string }) => boolean) | undefined {
  if (!patterns?.length) return undefined;
  const tests = patterns.map((p) => {
    const m = /^(tag|path|op):(.*)$/.exec(p);
    if (m?.[1] === "tag") {
      const re = globRe(m[2]!, false);
      return (o: { tags: string[] }) => o.tags.some((t) => re.test(t));
    }
    if (m?.[1] === "path" || (!m && p.startsWith("/"))) {
      const re = globRe(m ? m[2]! : p, true);
      return (o: { path: string }) => re.test(o.path);
    }
    const re = globRe(m ? m[2]! : p, false);
    return (o: { tags: string[]; operationId?: string }) =>
      (o.operationId !== undefined && re.test(o.operationId)) || (!m && o.tags.some((t) => re.test(t)));
  });
  return (o) => tests.some((t) => t(o as never));
}

// ---- security ----

export function importSchemes(doc: Json, id: string, notes: string[]): Record<string, SchemeSpec> {
  const raw = isObj(doc.components) && isObj(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  const entries = Object.entries(raw).map(([name, s]) => [name, derefInternal(doc, s)] as const);
  const kind = (s: unknown) => (!isObj(s) ? "?" : s.type === "http" ? String(s.scheme).toLowerCase() : String(s.type));
  const count = new Map<string, number>();
  for (const [, s] of entries) {
    const k = kind(s) === "oauth2" || kind(s) === "openidconnect" || kind(s) === "openIdConnect" ? "bearer" : kind(s);
    count.set(k, (count.get(k) ?? 0) + 1);
  }
  const P = envPrefix(id);
  const tag = (name: string) =>
    name
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "");
  const out: Record<string, SchemeSpec> = {};
  const used = new Set<string>();
  const env = (base: string) => {
    let e = base;
    for (let n = 2; used.has(e); n++) e = `${base}_${n}`;
    used.add(e);
    return e;
  };
  for (const [name, s] of entries) {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
      notes.push(`security scheme '${name}': the name is not usable; left out`);
      continue;
    }
    if (!isObj(s)) continue;
    const k = kind(s);
    if (k === "bearer" || k === "oauth2" || k === "openidconnect") {
      const many = (count.get("bearer") ?? 0) > 1;
      out[name] = { type: "bearer", env: env(many ? `${P}_${tag(name)}_TOKEN` : `${P}_TOKEN`) };
      if (k !== "bearer")
        notes.push(
          `security scheme '${name}' (${String(s.type)}): sent as a bearer token from ${out[name].type === "bearer" ? (out[name] as { env: string }).env : ""}; get the token yourself (no OAuth flow here)`,
        );
    } else if (k === "basic") {
      const many = (count.get("basic") ?? 0) > 1;
      const pre = many ? `${P}_${tag(name)}` : P;
      out[name] = { type: "basic", username_env: env(`${pre}_USERNAME`), password_env: env(`${pre}_PASSWORD`) };
    } else if (
      k === "apiKey" &&
      typeof s.name === "string" &&
      (s.in === "header" || s.in === "query" || s.in === "cookie")
    ) {
      const many = (count.get("apiKey") ?? 0) > 1;
      out[name] = { type: "apiKey", in: s.in, name: s.name, env: env(many ? `${P}_${tag(name)}` : `${P}_API_KEY`) };
    } else
      notes.push(
        `security scheme '${name}' (${k}) is not supported (apiKey, http bearer/basic, oauth2/openIdConnect as bearer): operations that need only it are sent without credentials`,
      );
  }
  return out;
}

export function importSecurity(req: unknown, schemes: Record<string, SchemeSpec>): string[][] | undefined {
  if (!Array.isArray(req)) return undefined;
  const alts: string[][] = [];
  for (const r of req) {
    if (!isObj(r)) continue;
    const names = Object.keys(r);
    if (names.every((n) => Object.hasOwn(schemes, n))) alts.push(names);
  }
  return alts;
}

export const sameReq = (a: string[][] | undefined, b: string[][] | undefined) =>
  JSON.stringify(a) === JSON.stringify(b);

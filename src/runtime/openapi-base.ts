// Where an openapi command's request goes (./openapi.ts is the adapter): the
// effective base URL ($HCP_<PACK_ID>_BASE_URL, the operation's own server,
// openapi.base_url), and what of the pack's URLs and Binding is secret, for
// execute()'s redaction (./adapters/index.ts).
import type { Command, Pack } from "../pack/model";
import { failure, type Envelope } from "./envelope";

export function baseUrlEnvName(packId: string): string {
  return `HCP_${packId.toUpperCase().replace(/-/g, "_")}_BASE_URL`;
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

/** A base URL's credential (decoded): its password, or its user when it has no password (a token given as the user). */
export function userinfoKey(url: string | undefined): string[] {
  const raw = (url && /^[a-z][a-z0-9+.-]*:\/\/([^/?#@]*)@/i.exec(url)?.[1]) || "";
  const colon = raw.indexOf(":");
  const key = (colon < 0 ? "" : raw.slice(colon + 1)) || (colon < 0 ? raw : raw.slice(0, colon));
  try {
    return key ? [decodeURIComponent(key)] : [];
  } catch {
    return [key];
  }
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

/** The effective base URL: env override, else the operation's own server, else openapi.base_url. */
export function baseOf(
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

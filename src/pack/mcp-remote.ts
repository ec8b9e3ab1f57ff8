// The rules of a remote MCP server's surface (`mcp.url`, `mcp.headers`), shared
// by the pack loader (a pack breaking them never runs), `hcpx pack from-mcp
// --url` and `hcpx import <host>` (which refuse to write one). A credential
// comes from the Binding only: a header that carries one is `{ env, scheme }`,
// never a literal in pack text; a URL carries no user:password and no
// credential in its query. The messages never quote the offending value.

/** Header names that carry a credential whatever their value. */
const CREDENTIAL_HEADER =
  /^(authorization|proxy-authorization|cookie)$|auth|token|secret|passw|api[-_]?key|x-api|session|credential|signature|private/i;
/** Query parameter names that carry a credential. */
const CREDENTIAL_PARAM = /auth|token|secret|passw|api[-_]?key|^key$|session|credential|sig(nature)?$|^code$|access/i;
/** A literal value that is a credential whatever its header's name. */
const CREDENTIAL_VALUE = /^(bearer|basic|token|digest)\s+\S/i;

/** A header whose literal value would be a secret in pack text (refused: header_literal_secret). */
export function isCredentialHeader(name: string, value: string): boolean {
  return CREDENTIAL_HEADER.test(name) || CREDENTIAL_VALUE.test(value.trim());
}

export type McpHeaderSpec = string | { env: string; scheme?: string };

/** The Binding names a remote server's headers read. */
export function headerEnvNames(headers: Record<string, McpHeaderSpec> | undefined): string[] {
  return Object.values(headers ?? {}).flatMap((h) => (typeof h === "string" ? [] : [h.env]));
}

/** What is wrong with a remote server's URL, if anything (the URL is not quoted: it may carry a secret). */
export function urlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "is not a URL";
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    return `is ${u.protocol.replace(/:$/, "")}:, not http or https`;
  if (u.username || u.password)
    return "carries a user:password: a credential comes from the Binding (mcp.headers), never from pack text";
  for (const k of u.searchParams.keys())
    if (CREDENTIAL_PARAM.test(k))
      return `carries '${k}' in its query, a credential: pass it as a header from the Binding (mcp.headers) instead`;
  if (u.hash) return "has a #fragment";
  return undefined;
}

/** The headers to send, from the runtime env; `missing` names the Binding variables that are not set (nothing is sent then). */
export function headerValues(
  headers: Record<string, McpHeaderSpec> | undefined,
  env: NodeJS.ProcessEnv,
): { headers: Record<string, string>; missing: string[] } {
  const out: Record<string, string> = {};
  const missing: string[] = [];
  for (const [name, h] of Object.entries(headers ?? {})) {
    if (typeof h === "string") {
      out[name] = h;
      continue;
    }
    const v = env[h.env];
    if (v === undefined || v === "") missing.push(h.env);
    else out[name] = h.scheme ? `${h.scheme} ${v}` : v;
  }
  return { headers: out, missing };
}

/**
 * A `--header NAME=VALUE` option: VALUE `env:VAR` or `<Scheme> env:VAR` is the
 * Binding's variable (with a scheme word before it); anything else is a
 * literal, refused when it is a credential. Throws a message (without the value).
 */
export function parseHeaderOption(opt: string): [string, McpHeaderSpec] {
  const eq = opt.indexOf("=");
  const name = eq > 0 ? opt.slice(0, eq).trim() : "";
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/.test(name))
    throw new Error(`--header takes NAME=VALUE, like "Authorization=Bearer env:TOKEN"`);
  const value = opt.slice(eq + 1).trim();
  const m = /^(?:([A-Za-z][A-Za-z0-9._-]{0,31})\s+)?env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(value);
  if (m) return [name, m[1] ? { env: m[2]!, scheme: m[1] } : { env: m[2]! }];
  if (isCredentialHeader(name, value)) throw new LiteralSecret(name);
  return [name, value];
}

/** A literal credential where only a Binding reference may be (its value is never in the message). */
export class LiteralSecret extends Error {
  constructor(readonly header: string) {
    super(
      `the header ${header} has a literal credential value: hcpx never writes a secret into a pack (the value is not shown)`,
    );
  }
}

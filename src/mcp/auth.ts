// Who is calling `hcpx mcp --http`: a bearer token → a principal of the
// server config (src/mcp/team-config.ts), or a refusal that says why.
//   - a static token (`hcpx token add`, "hcpx_…"): its sha256 against the
//     tokens file's hashes (constant-time compare);
//   - a JWT from the team's identity provider: verified by `jose` against the
//     IdP's JWKS (signature, issuer, audience = this server's resource URL,
//     expiry (required) and not-before), its subject claim naming the principal.
// No home-made crypto: node:crypto hashes, jose verifies.
import { createRemoteJWKSet, jwtVerify, errors as joseErrors } from "jose";
import { principalOfToken, TOKEN_PREFIX, type ServerConfig } from "./team-config";

export type AuthResult =
  | { ok: true; principal: string; expiresAt?: number }
  | { ok: false; status: 401; error: "invalid_request" | "invalid_token"; description?: string };

export interface Authenticator {
  authenticate(authorization: string | null): Promise<AuthResult>;
}

const JWT_RE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** `tokens`: the token table as it is now (re-read when the tokens file changes: a removed token stops at once). */
/** `subjectOf`: a JWT subject's principal as the server config says now (default: as it was at start). */
export function authenticator(
  cfg: ServerConfig,
  tokens: () => Map<string, string>,
  resource: string,
  subjectOf: (sub: string) => string | undefined = (sub) => cfg.subjects.get(sub),
): Authenticator {
  const jwt = cfg.jwt;
  const jwks = jwt
    ? createRemoteJWKSet(new URL(jwt.jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000 })
    : undefined;
  const audience = jwt?.audience ?? resource;
  return {
    async authenticate(header) {
      if (header === null || header === "") return { ok: false, status: 401, error: "invalid_request" };
      const m = /^Bearer +([\x21-\x7e]+)$/i.exec(header.trim());
      if (!m)
        return {
          ok: false,
          status: 401,
          error: "invalid_request",
          description: "the Authorization header must be `Bearer <token>`",
        };
      const token = m[1]!;
      if (token.startsWith(TOKEN_PREFIX)) {
        const principal = principalOfToken(tokens(), token);
        return principal
          ? { ok: true, principal }
          : { ok: false, status: 401, error: "invalid_token", description: "unknown token" };
      }
      if (!jwt || !jwks || !JWT_RE.test(token))
        return { ok: false, status: 401, error: "invalid_token", description: "unknown token" };
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(token, jwks, {
          issuer: jwt.issuer,
          audience,
          ...(jwt.algorithms ? { algorithms: jwt.algorithms } : {}),
          // a token without an expiry would authenticate for ever (RFC 9068: an access token carries exp)
          requiredClaims: ["exp"],
          clockTolerance: 30,
        }));
      } catch (e) {
        return { ok: false, status: 401, error: "invalid_token", description: jwtWhy(e) };
      }
      const sub = payload[jwt.claim];
      const principal = typeof sub === "string" ? subjectOf(sub) : undefined;
      if (!principal)
        return {
          ok: false,
          status: 401,
          error: "invalid_token",
          description: `the token's ${jwt.claim} is no principal of this server`,
        };
      return { ok: true, principal, ...(typeof payload.exp === "number" ? { expiresAt: payload.exp } : {}) };
    },
  };
}

function jwtWhy(e: unknown): string {
  if (e instanceof joseErrors.JWTExpired) return "the token has expired";
  if (e instanceof joseErrors.JWTClaimValidationFailed)
    return e.claim === "exp" && e.reason === "missing"
      ? "the token has no expiry (exp)"
      : e.claim === "aud"
        ? "the token is for another audience (not this server)"
        : e.claim === "iss"
          ? "the token is from another issuer"
          : `the token's ${e.claim} claim is not valid`;
  if (e instanceof joseErrors.JWKSNoMatchingKey || e instanceof joseErrors.JWSSignatureVerificationFailed)
    return "the token's signature does not verify";
  if (e instanceof joseErrors.JWKSTimeout || e instanceof joseErrors.JWKSInvalid)
    return "the identity provider's keys could not be read";
  return "the token is not valid";
}

/** The `WWW-Authenticate` value of a 401 (RFC 6750 §3, RFC 9728 §5.1). */
export function challenge(metadataUrl: string, r?: { error?: string; description?: string }): string {
  const q = (v: string) => `"${v.replace(/["\\]/g, "")}"`;
  const parts = [`resource_metadata=${q(metadataUrl)}`];
  if (r?.error && r.error !== "invalid_request")
    parts.unshift(`error=${q(r.error)}`, ...(r.description ? [`error_description=${q(r.description)}`] : []));
  return `Bearer ${parts.join(", ")}`;
}

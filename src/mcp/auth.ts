// Who is calling `hcpx mcp --http`: a bearer token → a principal of the
// server config (src/mcp/team-config.ts), or a refusal that says why.
//   - a static token (`hcpx token add`, "hcpx_…"): its sha256 against the
//     tokens file's hashes (constant-time compare);
//   - a JWT from the team's identity provider: verified by `jose` against the
//     IdP's JWKS (signature, issuer, audience = this server's resource URL,
//     expiry (required), not-before, and the age since `iat` when
//     jwt.max_age_s is set), of an access token's type (typ: none, JWT or
//     at+jwt; RFC 8725 §3.11), its subject claim naming the principal.
// No home-made crypto: node:crypto hashes, jose verifies.
import { createRemoteJWKSet, jwtVerify, errors as joseErrors } from "jose";
import { principalOfToken, TOKEN_PREFIX, type ServerConfig } from "./team-config";

export type AuthResult =
  /** `expiresAt` (a JWT's): the second from which this server takes the token no more, but for CLOCK_TOLERANCE_S (its exp, or iat + jwt.max_age_s when sooner) */
  | { ok: true; principal: string; expiresAt?: number }
  | { ok: false; status: 401; error: "invalid_request" | "invalid_token"; description?: string };

/** A refused authentication as http.ts authorize() tells it (for the audit log, refusals.ts): the 401's error and description, the client's address and User-Agent. */
export interface AuthRefusal {
  error: string;
  description?: string;
  address?: string;
  userAgent?: string | null;
}

/** What http.ts tells the audit log (refusals.ts): a 401 (no principal); a 403 (`principal`, whom the config does not name now); a stream the server closed (`principal`, `openMs`). */
export interface Refusal extends AuthRefusal {
  principal?: string;
  /** a closed stream: how long it was open */
  openMs?: number;
}

export interface Authenticator {
  authenticate(authorization: string | null): Promise<AuthResult>;
}

const JWT_RE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The clock skew allowed on a JWT's exp, nbf and iat (seconds): a token is refused from exp + this on (jose's clockTolerance). */
export const CLOCK_TOLERANCE_S = 30;

/**
 * The JWT header types (`typ`) of an access token: none, a plain JWT, or RFC 9068's `at+jwt`. Compared as
 * media types (RFC 7515 §4.1.9: case-insensitive, "application/" implied), so `application/at+jwt` and `JWT`
 * are among them. Any other type (`dpop+jwt`, `logout+jwt`, `secevent+jwt`, an ID token's own) is a token
 * made for another use, refused even when the identity provider signed it (RFC 8725 §3.11).
 */
const ACCESS_TYPES = new Set(["application/jwt", "application/at+jwt"]);
const accessType = (typ: unknown) =>
  typ === undefined ||
  (typeof typ === "string" && ACCESS_TYPES.has((typ.includes("/") ? typ : `application/${typ}`).toLowerCase()));

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
        let protectedHeader: { typ?: unknown };
        ({ payload, protectedHeader } = await jwtVerify(token, jwks, {
          issuer: jwt.issuer,
          audience,
          ...(jwt.algorithms ? { algorithms: jwt.algorithms } : {}),
          // a token without an expiry would authenticate for ever (RFC 9068: an access token carries exp)
          requiredClaims: ["exp"],
          // jose then requires iat too, and refuses a token issued longer ago (or in the future)
          ...(jwt.maxAgeS !== undefined ? { maxTokenAge: jwt.maxAgeS } : {}),
          clockTolerance: CLOCK_TOLERANCE_S,
        }));
        // checked once the signature verifies: the reason said is about a token the issuer made
        if (!accessType(protectedHeader.typ))
          return { ok: false, status: 401, error: "invalid_token", description: OTHER_TYPE };
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
      const until = expiresAt(payload, jwt.maxAgeS);
      return { ok: true, principal, ...(until !== undefined ? { expiresAt: until } : {}) };
    },
  };
}

/** The refusal of a JWT of another type than an access token's (the type itself is not said: a header may not carry it as it is). */
const OTHER_TYPE = "the token is of another type (typ), not an access token";

/**
 * When this server stops taking a verified token (but for the clock tolerance), as jose decides it: at its
 * exp, or when sooner a second after its iat + max age (jose takes a token exactly max age old).
 */
function expiresAt(payload: Record<string, unknown>, maxAgeS: number | undefined): number | undefined {
  const exp = typeof payload.exp === "number" ? payload.exp : undefined;
  const aged = maxAgeS !== undefined && typeof payload.iat === "number" ? payload.iat + maxAgeS + 1 : undefined;
  return exp === undefined ? aged : aged === undefined ? exp : Math.min(exp, aged);
}

function jwtWhy(e: unknown): string {
  if (e instanceof joseErrors.JWTExpired)
    return e.claim === "iat" ? "the token is older than this server takes (jwt.max_age_s)" : "the token has expired";
  if (e instanceof joseErrors.JWTClaimValidationFailed)
    return (
      CLAIM_WHY.get(`${e.claim} ${e.reason}`) ?? CLAIM_WHY.get(e.claim) ?? `the token's ${e.claim} claim is not valid`
    );
  if (e instanceof joseErrors.JWKSNoMatchingKey || e instanceof joseErrors.JWSSignatureVerificationFailed)
    return "the token's signature does not verify";
  if (e instanceof joseErrors.JWKSTimeout || e instanceof joseErrors.JWKSInvalid)
    return "the identity provider's keys could not be read";
  return "the token is not valid";
}

/** A claim jose refused ("<claim> <reason>", or the claim for any reason): why, as the 401 says it. */
const CLAIM_WHY = new Map([
  ["exp missing", "the token has no expiry (exp)"],
  ["iat missing", "the token has no issue time (iat), which jwt.max_age_s needs"],
  ["iat check_failed", "the token's issue time (iat) is in the future"],
  ["aud", "the token is for another audience (not this server)"],
  ["iss", "the token is from another issuer"],
]);

/** The `WWW-Authenticate` value of a 401 (RFC 6750 §3, RFC 9728 §5.1). */
export function challenge(metadataUrl: string, r?: { error?: string; description?: string }): string {
  const q = (v: string) => `"${v.replace(/["\\]/g, "")}"`;
  const parts = [`resource_metadata=${q(metadataUrl)}`];
  if (r?.error && r.error !== "invalid_request")
    parts.unshift(`error=${q(r.error)}`, ...(r.description ? [`error_description=${q(r.description)}`] : []));
  return `Bearer ${parts.join(", ")}`;
}

/** setTimeout's longest delay (~24.8 days); a longer one would fire at once */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * Calls `expired` once a JWT that expires at `expiresAt` (seconds, AuthResult's) is refused (from
 * expiresAt + CLOCK_TOLERANCE_S on, as jose refuses it), on a timer that keeps no process alive;
 * returns what cancels it. An open stream is so closed when its token expires, not at the next
 * announcement (http.ts openStreams).
 */
export function whenExpired(expiresAt: number, expired: () => void): () => void {
  const at = (expiresAt + CLOCK_TOLERANCE_S) * 1000;
  let timer: NodeJS.Timeout;
  const wait = (ms: number) => void (timer = setTimeout(check, Math.min(Math.max(ms, 0), MAX_DELAY_MS)).unref());
  // a timer may fire a little early (libuv's clock lags Date.now()), or was armed for less than all: wait for the rest
  const check = () => (Date.now() >= at ? expired() : wait(at - Date.now()));
  wait(at - Date.now());
  return () => clearTimeout(timer);
}

// The team server's configuration (`hcpx mcp --http … --server-config FILE`,
// docs/http.md) and the files it keeps in the user's state directory: the
// static bearer tokens (their hashes only), the requestState signing key and
// the spent confirm answers. Loaded only by `hcpx mcp --http` and `hcpx
// token`: nothing here is on `hcpx exec`'s path.
//
// The config fails closed like every hcpx file: JSON5 read by the one reader
// (a duplicate key is an error), every key known (a typo is an error, with the
// key it most likely meant), and at start two principals that one token or one
// JWT subject would map to is an error, as is a token of a principal the
// config does not name.
// size: the team server's config (principals, tokens, JWT, request-state key, spent store) in one reader so that it fails closed in one place; 263 lines over
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import * as z from "zod/mini";
import { checkPattern } from "../pack/grants";
import { confirmField } from "../pack/schema-kinds";
import { locate, parseJson5, readJson5 } from "../pack/json5";
import type { ConfirmMode, Grants } from "../pack/model";
import { validate } from "../pack/validate";
import { mkdirs, removeFile, writeFile, writeNewFile, type Base } from "../util/door";
import { acquireLock } from "../util/fsio";
import { HcpxError, type Problem } from "../util/errors";
import { home } from "../util/paths";
import { CAPS, readTextIfExists } from "../util/readfile";
import { Stamped, stampOf } from "./stamp";

export const PRINCIPAL_RE = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const ENV_RE = /^[A-Z_][A-Z0-9_]*$/;

/** Open streams of the whole server at once, each era's (src/mcp/http.ts; the SDK's default maxSubscriptions). */
export const MAX_STREAMS = 1024;

const str = () => z.string().check(z.minLength(1));
/** jwt.max_age_s at most a year: an access token older than that is no bound worth a setting */
const MAX_AGE_MAX_S = 365 * 24 * 3600;
const GrantsSchema = z.strictObject({ allow: z.array(str()), deny: z.optional(z.array(str())) });
const PrincipalSchema = z.strictObject({
  /** JWT subjects (the `principal_claim` of a verified token) that are this principal */
  subjects: z.optional(z.array(str())),
  grants: GrantsSchema,
  confirm: confirmField(),
});
export const ServerConfigSchema = z.strictObject({
  $schema: z.optional(str()),
  /** the public URL of the MCP endpoint (behind the proxy): the JWT audience and the metadata's `resource` */
  resource: z.optional(str()),
  /** Host header names accepted besides loopback (the proxy's public name) */
  allowed_hosts: z.optional(z.array(str())),
  limits: z.optional(
    z.strictObject({
      max_body_bytes: z.optional(z.number().check(z.int(), z.gte(1024), z.lte(64 * 1024 * 1024))),
      request_timeout_ms: z.optional(z.number().check(z.int(), z.gte(100), z.lte(600_000))),
      /** how long an idle connection is kept open: longer than the proxy keeps its idle upstream connections */
      keep_alive_timeout_ms: z.optional(z.number().check(z.int(), z.gte(1000), z.lte(3_600_000))),
      /** open streams (2025-era GET, 2026-07-28 subscriptions/listen) of one principal at once: at most the server's own bound */
      max_streams_per_principal: z.optional(z.number().check(z.int(), z.gte(1), z.lte(MAX_STREAMS))),
      /** tool calls of one principal running at once */
      max_calls_per_principal: z.optional(z.number().check(z.int(), z.gte(1), z.lte(1024))),
    }),
  ),
  request_state: z.optional(
    z.strictObject({
      key_file: z.optional(str()),
      key_env: z.optional(z.string().check(z.regex(ENV_RE, "an environment variable name, e.g. HCPX_STATE_KEY"))),
      spent_dir: z.optional(str()),
    }),
  ),
  tokens_file: z.optional(str()),
  jwt: z.optional(
    z.strictObject({
      issuer: str(),
      jwks_url: str(),
      /** default: `resource` */
      audience: z.optional(str()),
      /** the claim naming the subject (default "sub") */
      principal_claim: z.optional(str()),
      algorithms: z.optional(z.array(str())),
      /** when set: a token must carry iat and be no older than this (seconds) */
      max_age_s: z.optional(z.number().check(z.int(), z.gte(1), z.lte(MAX_AGE_MAX_S))),
    }),
  ),
  principals: z.record(z.string(), PrincipalSchema),
});
export type ServerConfigFile = z.infer<typeof ServerConfigSchema>;

export interface PrincipalSpec {
  id: string;
  grants: Grants;
  confirm?: { by: ConfirmMode; timeoutMs?: number };
}

export interface ServerConfig {
  file: string;
  resource?: string;
  allowedHosts: string[];
  maxBodyBytes: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** one principal's open streams at once (over: 429) */
  maxStreamsPerPrincipal: number;
  /** one principal's tool calls running at once (over: refused, too_many_calls) */
  maxCallsPerPrincipal: number;
  keyFile?: string;
  keyEnv?: string;
  spentDir?: string;
  tokensFile: string;
  jwt?: {
    issuer: string;
    jwksUrl: string;
    audience?: string;
    claim: string;
    algorithms?: string[];
    /** a token older than this (seconds since its iat) is refused */
    maxAgeS?: number;
  };
  principals: Map<string, PrincipalSpec>;
  /** JWT subject → principal */
  subjects: Map<string, string>;
}

export const DEFAULT_MAX_BODY = 1024 * 1024;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/**
 * An idle connection is closed after this: longer than a proxy keeps its idle
 * upstream connections (nginx's upstream keepalive_timeout, 60 s; an AWS ALB's
 * idle timeout, 60 s), so the proxy always closes first. Node's own default
 * (5 s) lets nginx send a request on a connection at the instant the server
 * closes it: a reset, and a POST that nginx does not retry (docs/http.md).
 */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 65_000;
/**
 * One principal's open streams at once (docs/http.md, "Per-principal limits"): a client keeps one
 * (a GET or a subscriptions/listen) and two for a moment while it reconnects, so 32 is a person's
 * many agents and windows; and 32 principals at their limit still fit under the server's MAX_STREAMS.
 */
const DEFAULT_MAX_STREAMS_PER_PRINCIPAL = 32;
/**
 * One principal's tool calls running at once, each of which may start a process: an agent calls a
 * few tools in parallel, so 16 is several agents of one person at full speed, while one principal
 * can keep no more than 16 processes of the server's machine busy.
 */
const DEFAULT_MAX_CALLS_PER_PRINCIPAL = 16;

/** `$XDG_STATE_HOME/hcpx` or `~/.local/state/hcpx`, with the base its writes are guarded by. */
export function stateDir(): { dir: string; base: Base } {
  const xdg = process.env.XDG_STATE_HOME;
  if (xdg && isAbsolute(xdg)) return { dir: join(xdg, "hcpx"), base: { dir: xdg, label: "$XDG_STATE_HOME" } };
  const h = home();
  return { dir: join(h, ".local", "state", "hcpx"), base: { dir: h, label: "$HOME" } };
}

export function defaultTokensFile(): string {
  return join(stateDir().dir, "tokens.json");
}

const isLoopbackHost = (h: string) => h === "127.0.0.1" || h === "localhost" || h === "[::1]" || h === "::1";

/** https, or http on a loopback host (tests, a local issuer). */
function urlProblem(v: string): string | undefined {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return `'${v}' is not an absolute URL`;
  }
  if (u.protocol === "https:") return undefined;
  if (u.protocol === "http:" && isLoopbackHost(u.hostname)) return undefined;
  return `'${v}' must be an https URL (http only on 127.0.0.1/localhost)`;
}

/** Read, validate and check a server config: every problem at once, with file, path and line. */
export function loadServerConfig(file: string, shown = file): ServerConfig {
  const doc = readJson5(file, shown, CAPS.config);
  const { data } = validate(ServerConfigSchema, doc.value, doc.file, doc.text);
  return checkServerConfig(data, resolve(file), doc.file, doc.text);
}

/** The same for a config given as text (tests). */
export function parseServerConfig(text: string, file: string): ServerConfig {
  const doc = parseJson5(text, file);
  const { data } = validate(ServerConfigSchema, doc.value, doc.file, doc.text);
  return checkServerConfig(data, resolve(file), file, text);
}

/** Reports a problem of the config at a JSON path (its line and column found in the text). */
type At = (path: (string | number)[], code: Problem["code"], message: string, hint?: string) => void;

function checkServerConfig(d: ServerConfigFile, abs: string, shown: string, text: string): ServerConfig {
  const problems: Problem[] = [];
  const at: At = (path, code, message, hint) => {
    const pos = locate(text, path);
    problems.push({
      code,
      message,
      file: shown,
      path: path.join("."),
      line: pos?.line,
      column: pos?.column,
      ...(hint ? { hint } : {}),
      severity: "error",
    });
  };
  checkSections(d, at);
  const { principals, subjects } = checkPrincipals(d, at);
  if (problems.length) throw new HcpxError(problems);
  return serverConfig(d, abs, principals, subjects);
}

/** resource, request_state and jwt: each URL https (http on loopback only), one requestState key, a JWT audience. */
function checkSections(d: ServerConfigFile, at: At): void {
  if (d.resource !== undefined) {
    const why = urlProblem(d.resource);
    if (why) at(["resource"], "schema", why, "the public URL of the MCP endpoint, e.g. https://mcp.example.com/mcp");
  }
  if (d.request_state?.key_file !== undefined && d.request_state.key_env !== undefined)
    at(["request_state"], "schema", "give the requestState key once: key_file or key_env, not both");
  if (d.jwt) {
    const why = urlProblem(d.jwt.jwks_url);
    if (why) at(["jwt", "jwks_url"], "schema", why);
    if (d.jwt.audience === undefined && d.resource === undefined)
      at(
        ["jwt"],
        "schema",
        "a JWT's audience must be this server: set `resource` (the public URL) or jwt.audience",
        'e.g. resource: "https://mcp.example.com/mcp"',
      );
  }
}

/** Each principal: its id, its grant patterns, its JWT subjects (a subject is one principal); their specs. */
function checkPrincipals(
  d: ServerConfigFile,
  at: At,
): { principals: Map<string, PrincipalSpec>; subjects: Map<string, string> } {
  const principals = new Map<string, PrincipalSpec>();
  const subjects = new Map<string, string>();
  const patternProblem = (g: string, path: (string | number)[]) => {
    try {
      checkPattern(g);
    } catch (e) {
      if (!(e instanceof HcpxError)) throw e;
      at(path, "bad_pattern", e.problems[0]!.message, e.problems[0]!.hint);
    }
  };
  for (const [id, p] of Object.entries(d.principals)) {
    if (!PRINCIPAL_RE.test(id))
      at(
        ["principals", id],
        "schema",
        `'${id}' is not a principal id`,
        "1-64 of letters, digits and . _ @ -, starting with a letter or digit",
      );
    p.grants.allow.forEach((g, i) => patternProblem(g, ["principals", id, "grants", "allow", i]));
    (p.grants.deny ?? []).forEach((g, i) => patternProblem(g, ["principals", id, "grants", "deny", i]));
    if (p.subjects?.length && !d.jwt)
      at(
        ["principals", id, "subjects"],
        "schema",
        "subjects are JWT subjects, but there is no `jwt` section",
        "add jwt: {issuer, jwks_url} or remove subjects",
      );
    (p.subjects ?? []).forEach((s, i) => {
      const other = subjects.get(s);
      if (other !== undefined && other !== id)
        at(
          ["principals", id, "subjects", i],
          "principal_overlap",
          `subject '${s}' maps to two principals: '${other}' and '${id}'`,
          "a subject is one principal: remove it from one of them",
        );
      else if (other === id)
        at(
          ["principals", id, "subjects", i],
          "principal_overlap",
          `subject '${s}' is listed twice for '${id}'`,
          "remove one",
        );
      subjects.set(s, id);
    });
    principals.set(id, principalSpec(id, p));
  }
  return { principals, subjects };
}

function principalSpec(id: string, p: ServerConfigFile["principals"][string]): PrincipalSpec {
  const c =
    p.confirm === undefined
      ? undefined
      : typeof p.confirm === "string"
        ? { by: p.confirm }
        : { by: p.confirm.by, ...(p.confirm.timeout_ms !== undefined ? { timeoutMs: p.confirm.timeout_ms } : {}) };
  return {
    id,
    grants: { allow: p.grants.allow, deny: p.grants.deny ?? [] },
    ...(c ? { confirm: c } : {}),
  };
}

/** The checked config with its defaults; its files resolved against the config's directory (`~/` from home). */
function serverConfig(
  d: ServerConfigFile,
  abs: string,
  principals: Map<string, PrincipalSpec>,
  subjects: Map<string, string>,
): ServerConfig {
  const dir = dirname(abs);
  const rel = (p: string | undefined) =>
    p === undefined ? undefined : resolve(dir, p.startsWith("~/") ? join(home(), p.slice(2)) : p);
  return {
    file: abs,
    ...(d.resource !== undefined ? { resource: d.resource } : {}),
    allowedHosts: d.allowed_hosts ?? [],
    maxBodyBytes: d.limits?.max_body_bytes ?? DEFAULT_MAX_BODY,
    requestTimeoutMs: d.limits?.request_timeout_ms ?? DEFAULT_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: d.limits?.keep_alive_timeout_ms ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    maxStreamsPerPrincipal: d.limits?.max_streams_per_principal ?? DEFAULT_MAX_STREAMS_PER_PRINCIPAL,
    maxCallsPerPrincipal: d.limits?.max_calls_per_principal ?? DEFAULT_MAX_CALLS_PER_PRINCIPAL,
    keyFile: rel(d.request_state?.key_file),
    keyEnv: d.request_state?.key_env,
    spentDir: rel(d.request_state?.spent_dir),
    tokensFile: rel(d.tokens_file) ?? defaultTokensFile(),
    ...(d.jwt
      ? {
          jwt: {
            issuer: d.jwt.issuer,
            jwksUrl: d.jwt.jwks_url,
            audience: d.jwt.audience,
            claim: d.jwt.principal_claim ?? "sub",
            algorithms: d.jwt.algorithms,
            ...(d.jwt.max_age_s !== undefined ? { maxAgeS: d.jwt.max_age_s } : {}),
          },
        }
      : {}),
    principals,
    subjects,
  };
}

// ---- static bearer tokens: the hashes, in the user's state directory ----

const TokensSchema = z.strictObject({
  version: z.literal(1),
  tokens: z.array(
    z.strictObject({
      principal: str(),
      sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/, "a sha256 in hex")),
      created: z.optional(z.string()),
    }),
  ),
});
export type TokenEntry = z.infer<typeof TokensSchema>["tokens"][number];

export const TOKEN_PREFIX = "hcpx_";
export const tokenHash = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");

export function readTokens(file: string): TokenEntry[] {
  const text = readTextIfExists(file, file, CAPS.config);
  if (text === undefined) return [];
  try {
    const doc = parseJson5(text, file);
    return validate(TokensSchema, doc.value, file, text).data.tokens;
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    // the generic hints name the pack format; the tokens file is the team server's
    throw new HcpxError(e.problems.map((p) => ({ ...p, hint: p.hint ? `${p.hint}; ${TOKENS_HINT}` : TOKENS_HINT })));
  }
}

const TOKENS_HINT =
  "the tokens file is { version: 1, tokens: [{ principal, sha256, created }] }, written by `hcpx token add` (docs/http.md, Authentication and Files)";

function writeTokens(file: string, tokens: TokenEntry[]): void {
  writeFile(baseFor(file), file, JSON.stringify({ version: 1, tokens }, null, 2) + "\n", { mode: 0o600 });
}

function baseFor(file: string): Base {
  const s = stateDir();
  return file.startsWith(s.dir + "/") ? s.base : { dir: dirname(file), label: "the tokens file's directory" };
}

/** A new token for `principal` (printed once by the CLI); only its hash is kept. */
export function addToken(file: string, principal: string, replace: boolean): string {
  return locked(file, () => addTokenLocked(file, principal, replace));
}

/** Two `hcpx token` runs at once: one waits for the other (a read-modify-write never loses an entry). */
function locked<T>(file: string, f: () => T): T {
  mkdirs(baseFor(file), dirname(file));
  const release = acquireLock(`${file}.lock`, `${file}.lock`, "hcpx token");
  try {
    return f();
  } finally {
    release();
  }
}

function addTokenLocked(file: string, principal: string, replace: boolean): string {
  const tokens = readTokens(file);
  const had = tokens.some((t) => t.principal === principal);
  if (had && !replace)
    throw new HcpxError({
      code: "exists",
      message: `principal '${principal}' has a token already`,
      file,
      hint: "`hcpx token add <principal> --force` replaces it (the old token stops working); `hcpx token remove` removes it",
    });
  const token = TOKEN_PREFIX + randomBytes(32).toString("base64url");
  writeTokens(file, [
    ...tokens.filter((t) => t.principal !== principal),
    { principal, sha256: tokenHash(token), created: new Date().toISOString() },
  ]);
  return token;
}

export function removeToken(file: string, principal: string): boolean {
  return locked(file, () => {
    const tokens = readTokens(file);
    const rest = tokens.filter((t) => t.principal !== principal);
    if (rest.length === tokens.length) return false;
    writeTokens(file, rest);
    return true;
  });
}

/** Token hash → principal, checked against the config: a token of an unknown principal, or one hash for two, is an error. */
export function tokenTable(cfg: ServerConfig, atStart = true): Map<string, string> {
  const out = new Map<string, string>();
  const problems: Problem[] = [];
  for (const t of readTokens(cfg.tokensFile)) {
    const other = out.get(t.sha256);
    if (other !== undefined && other !== t.principal)
      problems.push({
        code: "principal_overlap",
        message: `one token maps to two principals: '${other}' and '${t.principal}'`,
        file: cfg.tokensFile,
        hint: "`hcpx token remove` one of them and add it again",
        severity: "error",
      });
    // at start a stray token stops the server; later, the server config may name its principal by now (or no longer):
    // such a token authenticates, and each call is decided on the server config as it is then (unknown_principal)
    if (atStart && !cfg.principals.has(t.principal))
      problems.push({
        code: "unknown_principal",
        message: `a token is for principal '${t.principal}', which the server config does not name`,
        file: cfg.tokensFile,
        hint: `add '${t.principal}' to principals in ${cfg.file}, or \`hcpx token remove ${t.principal} --server-config ${cfg.file}\``,
        severity: "error",
      });
    out.set(t.sha256, t.principal);
  }
  if (problems.length) throw new HcpxError(problems);
  return out;
}

/** Constant-time lookup of a presented static token. */
export function principalOfToken(table: Map<string, string>, token: string): string | undefined {
  const h = createHash("sha256").update(token, "utf8").digest();
  let found: string | undefined;
  // every hash compared, each in constant time: how long it takes says nothing of which token matched
  for (const [k, p] of hashesOf(table)) if (timingSafeEqual(k, h)) found = p;
  return found;
}

/** A token table's hashes as bytes, decoded once per table (a table is replaced, never changed, when the file changes). */
const decoded = new WeakMap<Map<string, string>, [Buffer, string][]>();
function hashesOf(table: Map<string, string>): [Buffer, string][] {
  let d = decoded.get(table);
  if (!d)
    decoded.set(
      table,
      (d = [...table].map(([k, p]) => [Buffer.from(k, "hex"), p] as [Buffer, string]).filter(([k]) => k.length === 32)),
    );
  return d;
}

// ---- the requestState key and the spent answers ----

const KEY_MIN = 32;

/**
 * The requestState signing key: from the config (`key_file` / `key_env`: what
 * several instances share), else the user's own key file, created owner-only
 * on first use. A key is at least 32 characters (`openssl rand -hex 32`).
 */
export function requestStateKey(cfg: Pick<ServerConfig, "keyFile" | "keyEnv"> | undefined): {
  key: Uint8Array;
  source: string;
} {
  if (cfg?.keyEnv) {
    const v = process.env[cfg.keyEnv]?.trim();
    if (!v)
      throw new HcpxError({
        code: "bad_state_key",
        message: `request_state.key_env names $${cfg.keyEnv}, which is not set`,
      });
    if (v.length < KEY_MIN)
      throw new HcpxError({ code: "bad_state_key", message: `$${cfg.keyEnv} is shorter than ${KEY_MIN} characters` });
    return { key: Buffer.from(v, "utf8"), source: `$${cfg.keyEnv}` };
  }
  if (cfg?.keyFile) return { key: readKeyFile(cfg.keyFile, false), source: cfg.keyFile };
  const s = stateDir();
  const file = join(s.dir, "request-state.key");
  if (readTextIfExists(file, file, 4096) === undefined) {
    try {
      writeNewFile(s.base, file, randomBytes(32).toString("hex") + "\n", 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
  return { key: readKeyFile(file, true), source: file };
}

function readKeyFile(file: string, ours: boolean): Uint8Array {
  // another instance may be writing it this instant: a short key is read again, briefly
  for (let i = 0; ; i++) {
    const v = readTextIfExists(file, file, 4096, { ownerOnly: true })?.trim();
    if (v === undefined)
      throw new HcpxError({
        code: "bad_state_key",
        message: "the requestState key file does not exist",
        file,
        hint: "create it: `openssl rand -hex 32 > FILE && chmod 600 FILE`",
      });
    const mode = statSync(file).mode & 0o077;
    if (mode)
      throw new HcpxError({
        code: "bad_state_key",
        message: "the requestState key file is readable or writable by others",
        file,
        hint: `chmod 600 ${file}`,
      });
    if (v.length >= KEY_MIN) return Buffer.from(v, "utf8");
    if (!ours || i >= 20)
      throw new HcpxError({
        code: "bad_state_key",
        message: `the requestState key is shorter than ${KEY_MIN} characters`,
        file,
        hint: "`openssl rand -hex 32` makes one",
      });
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
}

const NONCE_RE = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * Spent confirm answers shared by every instance that sees `dir` (one file
 * per answered state, created exclusively: the second instance to try finds
 * it). Default: the state directory; instances on several machines name a
 * shared directory in the config.
 */
export function spentStore(dir: string | undefined): (nonce: string, exp: number) => boolean {
  const s = stateDir();
  const where = dir ?? join(s.dir, "spent");
  const base: Base = dir ? { dir, label: "request_state.spent_dir" } : s.base;
  let lastSweep = 0;
  return (nonce, exp) => {
    if (!NONCE_RE.test(nonce) || !Number.isSafeInteger(exp)) return false;
    const now = Date.now();
    if (now - lastSweep > 60_000) {
      lastSweep = now;
      sweep(where, base, now);
    }
    try {
      writeNewFile(base, join(where, `${nonce}.${exp}`), "", 0o600);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw e;
    }
  };
}

function sweep(dir: string, base: Base, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const exp = Number(n.slice(n.lastIndexOf(".") + 1));
    if (Number.isFinite(exp) && exp + 60_000 < now) {
      try {
        removeFile(base, join(dir, n));
      } catch {
        /* another instance swept it */
      }
    }
  }
}

/**
 * The token table, re-read when the tokens file changes (one stat per
 * request). A tokens file that no longer reads or checks authenticates no
 * static token (fail closed) until it is fixed; `log` says why, once.
 */
export function liveTokenTable(cfg: ServerConfig, log: (msg: string) => void): () => Map<string, string> {
  // stamped as the front's files are (src/mcp/stamp.ts): a tokens file changed within the last seconds is read on every request
  let stamp = stampOf([cfg.tokensFile]);
  let table = tokenTable(cfg);
  let said = "";
  return () => {
    const now = stampOf([cfg.tokensFile]);
    if (now !== undefined && now === stamp) return table;
    stamp = now;
    try {
      table = tokenTable(cfg, false);
      said = "";
    } catch (e) {
      table = new Map();
      const msg =
        e instanceof HcpxError
          ? e.problems.map((p) => `${p.file ?? ""}: ${p.message}`).join("; ")
          : (e as Error).message;
      if (msg !== said) log(`tokens file not used, no static token authenticates until it is fixed: ${msg}`);
      said = msg;
    }
    return table;
  };
}

/**
 * The server config as its file says now, for the principals' grants and
 * `confirm` (docs/http.md "Changing the server config"): read again when the
 * file's stamp changes (src/mcp/stamp.ts, which never vouches for a file
 * changed within the last seconds). A config that no longer reads or checks
 * refuses every call (fail closed) until it is fixed; a principal no longer in
 * it is answered 403 (`removed`, http.ts); one added is served from its next request (its
 * tokens and JWT subjects authenticate). What the listener was started with
 * (tokens file, JWT issuer, keys, limits, resource, hosts) needs a restart;
 * `log` says once why a config is not used.
 */
export function liveServerConfig(
  cfg: ServerConfig,
  log: (msg: string) => void,
): {
  file: string;
  subject(sub: string): string | undefined;
  named(id: string): PrincipalSpec | undefined;
  /** the server config loads now and does not name `id` (one that does not load removes no one) */
  removed(id: string): boolean;
  principal(id: string): () => PrincipalSpec;
} {
  const kept = new Stamped<ServerConfig>();
  let said = "";
  let addedSaid = "";
  const current = (): ServerConfig => {
    let now: ServerConfig;
    try {
      now = kept.get([cfg.file], () => loadServerConfig(cfg.file));
    } catch (e) {
      const problems: Problem[] =
        e instanceof HcpxError
          ? e.problems
          : [{ code: "io_error", message: (e as Error)?.message ?? String(e), file: cfg.file, severity: "error" }];
      const first = problems.find((p) => p.severity !== "warning") ?? problems[0]!;
      const msg = `${first.file ?? cfg.file}${first.line ? `:${first.line}` : ""}: ${first.message}`;
      if (msg !== said) log(`server config no longer loads, every call is refused until it is fixed: ${msg}`);
      said = msg;
      throw new HcpxError({
        ...first,
        message: `the server config no longer loads, so no call is served until it is fixed: ${first.message}`,
        hint: first.hint ?? "fix the server config (docs/http.md)",
        severity: "error",
      });
    }
    if (said) log("server config loads again");
    said = "";
    const added = [...now.principals.keys()].filter((id) => !cfg.principals.has(id));
    const news = added.length ? `principal(s) ${added.join(", ")} added` : "";
    if (news && news !== addedSaid) log(`server config: ${news}; served from their next request`);
    addedSaid = news;
    return now;
  };
  return {
    file: cfg.file,
    subject: (sub) => subjectNow(sub, cfg, () => nowOr(current, undefined)),
    named: (id) => nowOr(() => current().principals.get(id), undefined),
    removed: (id) => nowOr(() => !current().principals.has(id), false),
    principal: (id) => () => {
      const p = current().principals.get(id);
      if (!p)
        throw new HcpxError({
          code: "unknown_principal",
          message: `principal '${id}' is no longer in the server config, so its calls are refused`,
          file: cfg.file,
          hint: `add '${id}' back to principals, or \`hcpx token remove ${id} --server-config ${cfg.file}\``,
          severity: "error",
        });
      return p;
    },
  };
}

/**
 * A JWT subject's principal as the server config says now, as `hcpx token remove` does for a token:
 * a subject taken off a principal that is still there authenticates no more. A subject of a principal
 * since removed still names it (whose requests are answered 403, unknown_principal: http.ts), and so
 * does any subject of the start while the config does not load (every call is refused then).
 */
function subjectNow(sub: string, start: ServerConfig, now: () => ServerConfig | undefined): string | undefined {
  const cfg = now();
  const was = start.subjects.get(sub);
  if (!cfg) return was;
  return cfg.subjects.get(sub) ?? (was !== undefined && !cfg.principals.has(was) ? was : undefined);
}

function nowOr<T>(get: () => T, otherwise: T): T {
  try {
    return get();
  } catch {
    return otherwise;
  }
}

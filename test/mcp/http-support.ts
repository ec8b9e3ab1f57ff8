// Shared parts of the `hcpx mcp --http` tests (test/mcp/http-*.test.ts): a
// real `hcpx mcp --http 0` child on 127.0.0.1 with a server config, raw
// 2026-07-28 requests over fetch, and a local JWT issuer (jose) serving its
// JWKS on 127.0.0.1.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import { HCPX } from "../support/cli";
import { tmp } from "../support/hcpx";
import { ledgerProject, writeConfig, type Ledgered } from "./support";

export const MODERN = "2026-07-28";

/** A 2026-07-28 tools/list request's body, for the tests that write raw HTTP (one a request is refused or answered by). */
export const RAW_LIST_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/list",
  params: {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    },
  },
});

export interface Served {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop: () => Promise<void>;
}

export interface TeamProject extends Ledgered {
  state: string;
  serverConfig: string;
  env: Record<string, string>;
}

/** A ledger project (project grants ledger.*, confirm by person) and a server config beside it. */
export function teamProject(
  server: Record<string, unknown>,
  opts: { confirm?: unknown; packs?: string[]; allow?: string[] } = {},
): TeamProject {
  const p = ledgerProject({ packs: opts.packs ?? ["ledger"] });
  writeConfig(p.config, {
    packs: (opts.packs ?? ["ledger"]).map((x) => `./packs/${x}`),
    principal: { id: "dev", kind: "agent" },
    grants: { allow: opts.allow ?? ["ledger.*"], deny: [] },
    sandbox: { bins: {}, roots: ["."], cwd: "." },
    confirm: opts.confirm ?? { by: "person" },
  });
  const state = tmp("hcpx-http-state-");
  const serverConfig = join(p.dir, "server.json5");
  writeFileSync(serverConfig, JSON.stringify(server, null, 2));
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: p.home,
    XDG_STATE_HOME: state,
    NO_COLOR: "1",
    LEDGER_FILE: p.ledger,
    LEDGER_NOW: "2026-01-01T00:00:00Z",
  };
  return { ...p, state, serverConfig, env };
}

/** `hcpx token add <principal>`: the token printed once. */
export function addToken(p: TeamProject, principal: string, extra: string[] = []): string {
  const r = spawnSync(
    process.execPath,
    [HCPX, "token", "add", principal, "--server-config", p.serverConfig, "--json", ...extra],
    { cwd: p.dir, env: p.env, encoding: "utf8" },
  );
  if (r.status !== 0) throw new Error(`token add failed: ${r.stdout}${r.stderr}`);
  return (JSON.parse(r.stdout) as { data: { token: string } }).data.token;
}

/** `hcpx token remove <principal>` for the project's server config (it must succeed). */
export function removeToken(p: TeamProject, principal: string): void {
  const r = spawnSync(process.execPath, [HCPX, "token", "remove", principal, "--server-config", p.serverConfig], {
    cwd: p.dir,
    env: p.env,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`token remove failed: ${r.stdout}${r.stderr}`);
}

export function serve(
  p: { dir: string; env: Record<string, string> },
  args: string[],
  env: Record<string, string> = {},
): Promise<Served> {
  const child = spawn(process.execPath, [HCPX, "mcp", "--http", "0", ...args], {
    cwd: p.dir,
    env: { ...p.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const stop = () =>
    new Promise<void>((r) => {
      if (child.exitCode !== null || child.signalCode !== null) return r();
      child.on("close", () => r());
      child.kill("SIGTERM");
    });
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`hcpx mcp --http did not start:\n${err}`)), 30_000);
    child.stderr!.on("data", () => {
      const m = / at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
      if (m) {
        clearTimeout(t);
        resolve({ url: m[1]!, child, stderr: () => err, stop });
      }
    });
    child.on("close", (code) => {
      clearTimeout(t);
      reject(Object.assign(new Error(`hcpx mcp --http exited (${code}):\n${err}`), { code, stderr: err }));
    });
  });
}

/** Run `hcpx mcp --http` expecting it to refuse to start: its exit code and stderr. */
export function refusal(
  p: { dir: string; env: Record<string, string> },
  args: string[],
): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [HCPX, "mcp", ...args], {
    cwd: p.dir,
    env: p.env,
    encoding: "utf8",
    timeout: 30_000,
  });
  return { status: r.status, stderr: r.stderr };
}

/** An open stream's text as read so far, whether (and when) it ended, and its cancel. */
export interface Stream {
  got: () => string;
  ended: () => boolean;
  /** when the stream ended (Date.now()), if it did */
  endedAt: () => number | undefined;
  cancel: () => Promise<void>;
}

/** Reads a response's stream on its own (a GET stream, a subscriptions/listen) until it ends. */
export function readStream(res: Response): Stream {
  const reader = res.body!.getReader();
  let got = "";
  let endedAt: number | undefined;
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        got += new TextDecoder().decode(value);
      }
    } catch {
      // the connection was closed
    }
    endedAt = Date.now();
  })();
  return {
    got: () => got,
    ended: () => endedAt !== undefined,
    endedAt: () => endedAt,
    cancel: () => reader.cancel().catch(() => {}),
  };
}

/** A 2026-07-28 subscriptions/listen request for the tool list, raw: the response (its stream, or the refusal). */
export const listenRequest = (url: string, token: string): Promise<Response> =>
  fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": "subscriptions/listen",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "subscriptions/listen",
      params: {
        notifications: { toolsListChanged: true },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
        },
      },
    }),
  });

let rid = 0;
/** One raw 2026-07-28 JSON-RPC request over HTTP (the _meta envelope, elicitation declared). */
export async function modern(
  url: string,
  token: string | undefined,
  method: string,
  params: Record<string, unknown> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      // Mcp-Name mirrors params.name (tools/call, prompts/get) or params.uri (resources/read)
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
      ...(typeof params.uri === "string" ? { "mcp-name": params.uri } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++rid,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
        },
      },
    }),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  if (text) {
    const data = res.headers.get("content-type")?.includes("text/event-stream")
      ? (text
          .split("\n")
          .filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5))
          .pop() ?? "{}")
      : text;
    body = JSON.parse(data) as Record<string, unknown>;
  }
  return { status: res.status, body, headers: res.headers };
}

/** A JWT issuer on 127.0.0.1: its JWKS at /jwks.json, and a signer. */
export async function testIssuer(): Promise<{
  issuer: string;
  jwksUrl: string;
  /** `exp: null`: a token without an expiry; `iat: null`: without an issue time; `typ`: the header's type (default none) */
  sign: (
    claims: Record<string, unknown>,
    opts?: { exp?: number | string | null; aud?: string; iat?: number | null; typ?: string },
  ) => Promise<string>;
  close: () => Promise<void>;
}> {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  const server: Server = createServer((req, res) => {
    if (req.url === "/jwks.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    jwksUrl: `${issuer}/jwks.json`,
    sign: async (claims, o = {}) => {
      const j = new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", kid: "k1", ...(o.typ !== undefined ? { typ: o.typ } : {}) })
        .setIssuer(issuer);
      if (o.iat !== null) j.setIssuedAt(o.iat);
      if (o.aud) j.setAudience(o.aud);
      if (o.exp !== null) j.setExpirationTime(o.exp ?? "5m");
      return j.sign(privateKey);
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export { tmp };

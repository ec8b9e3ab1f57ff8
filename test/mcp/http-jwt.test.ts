// `hcpx mcp --http`'s JWTs and refused requests (docs/http.md, docs/audit.md):
// a JWT of another type than an access token's (typ: dpop+jwt, logout+jwt,
// …) is refused, one typed JWT or at+jwt (any case, "application/" or not) or
// untyped is taken; with jwt.max_age_s a token must carry iat and be no older
// (a bad value stops the start); and every refused authentication (401) is in
// the audit log, which `hcpx log` reads: its reason, the client's address and
// User-Agent (neutralised), folded so that a flood of 401s writes about a line
// a second, not a line a request.
import { request } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseServerConfig } from "../../src/mcp/team-config";
import { HcpxError } from "../../src/util/errors";
import { runHcpx } from "../support/hcpx";
import { until } from "../support/until";
import { modern, serve, teamProject, testIssuer, type Served, type TeamProject } from "./http-support";
import type { AuditRecord } from "../../src/runtime/audit";

const RESOURCE = "https://mcp.team.test/mcp";
const carol = { subjects: ["carol@team.test"], grants: { allow: ["ledger.balance"] } };

/** A line of the audit log (src/runtime/audit.ts), as the tests read it back. */
type Rec = AuditRecord;

describe("jwt.max_age_s in the server config", () => {
  const config = (jwt: Record<string, unknown>) =>
    JSON.stringify({
      resource: RESOURCE,
      jwt: { issuer: "https://idp.test", jwks_url: "https://idp.test/jwks", ...jwt },
      principals: { carol },
    });

  it("takes a whole number of seconds; fails closed on any other value, and on a key it does not know", () => {
    expect(parseServerConfig(config({ max_age_s: 300 }), "server.json5").jwt?.maxAgeS).toBe(300);
    expect(parseServerConfig(config({}), "server.json5").jwt?.maxAgeS).toBeUndefined();
    for (const bad of [0, -5, 1.5, "300", null, 10 ** 12, true]) {
      const e = (() => {
        try {
          parseServerConfig(config({ max_age_s: bad }), "server.json5");
        } catch (x) {
          return x;
        }
      })();
      expect(e, String(bad)).toBeInstanceOf(HcpxError);
      expect((e as HcpxError).problems[0]!.path, String(bad)).toBe("jwt.max_age_s");
    }
    // no jwt.types: the types taken are fixed (docs/http.md)
    expect(() => parseServerConfig(config({ types: ["dpop+jwt"] }), "server.json5")).toThrow(/unknown key 'types'/);
  });
});

describe("hcpx mcp --http: a JWT's type and age", () => {
  let iss: Awaited<ReturnType<typeof testIssuer>>;
  let s: Served;
  let aged: Served;
  beforeAll(async () => {
    iss = await testIssuer();
    const jwt = { issuer: iss.issuer, jwks_url: iss.jwksUrl };
    const p = teamProject({ resource: RESOURCE, jwt, principals: { carol } });
    const q = teamProject({ resource: RESOURCE, jwt: { ...jwt, max_age_s: 600 }, principals: { carol } });
    [s, aged] = await Promise.all([
      serve(p, ["--server-config", p.serverConfig], { HCPX_AUDIT_LOG: "off" }),
      serve(q, ["--server-config", q.serverConfig], { HCPX_AUDIT_LOG: "off" }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([s?.stop(), aged?.stop()]);
    await iss?.close();
  });

  const status = async (server: Served, jwt: string) => {
    const r = await modern(server.url, jwt, "tools/list");
    return { status: r.status, why: r.headers.get("www-authenticate") ?? "" };
  };

  it("an access token's type is taken (none, JWT, at+jwt, any case, with application/ or not); any other is refused, though the issuer signed it", async () => {
    for (const typ of [undefined, "JWT", "jwt", "at+jwt", "AT+JWT", "application/at+jwt", "application/jwt"]) {
      const jwt = await iss.sign({ sub: "carol@team.test" }, { aud: RESOURCE, ...(typ ? { typ } : {}) });
      expect((await status(s, jwt)).status, String(typ)).toBe(200);
    }
    for (const typ of [
      "dpop+jwt",
      "logout+jwt",
      "secevent+jwt",
      "id_token+jwt",
      "application/dpop+jwt",
      "JOSE",
      "at+jwt2",
      "",
    ]) {
      const jwt = await iss.sign({ sub: "carol@team.test" }, { aud: RESOURCE, typ });
      const r = await status(s, jwt);
      expect(r.status, typ).toBe(401);
      expect(r.why, typ).toContain(
        'error="invalid_token", error_description="the token is of another type (typ), not an access token"',
      );
    }
  });

  it("with jwt.max_age_s: a token issued longer ago, or with no iat, is refused; a fresh one is taken", async () => {
    const now = Math.floor(Date.now() / 1000);
    const fresh = await iss.sign({ sub: "carol@team.test" }, { aud: RESOURCE });
    const old = await iss.sign({ sub: "carol@team.test" }, { aud: RESOURCE, iat: now - 3600, exp: now + 600 });
    const undated = await iss.sign({ sub: "carol@team.test" }, { aud: RESOURCE, iat: null });
    const ahead = await iss.sign({ sub: "carol@team.test" }, { aud: RESOURCE, iat: now + 3600, exp: now + 7200 });
    expect((await status(aged, fresh)).status).toBe(200);
    for (const [jwt, why] of [
      [old, "the token is older than this server takes (jwt.max_age_s)"],
      [undated, "the token has no issue time (iat), which jwt.max_age_s needs"],
      [ahead, "the token's issue time (iat) is in the future"],
    ] as const) {
      const r = await status(aged, jwt);
      expect(r.status, why).toBe(401);
      expect(r.why).toContain(`error_description="${why}"`);
    }
    // without max_age_s, the same old and undated tokens are taken (their exp is what counts)
    expect((await status(s, old)).status).toBe(200);
    expect((await status(s, undated)).status).toBe(200);
  });
});

/** One request through node:http, whose client sends a header fetch refuses (a C1 control in it); its status. */
function rawRequest(url: string, headers: Record<string, string>): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: "POST", headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end("{}");
  });
}

describe("hcpx mcp --http: refused authentications in the audit log", () => {
  let p: TeamProject;
  let s: Served;
  let audit: string;
  const refusals = () =>
    readFileSync(audit, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Rec)
      .filter((r) => r.decision === "unauthenticated");
  beforeAll(async () => {
    p = teamProject({ principals: { alice: { grants: { allow: ["ledger.*"] } } } });
    s = await serve(p, ["--server-config", p.serverConfig]);
    audit = join(p.state, "hcpx", "audit.jsonl");
  }, 60_000);
  afterAll(async () => s?.stop());

  it("a 401 is one line: no principal, no tool, its reason, the client's address and User-Agent (one neutral line); hcpx log shows it", async () => {
    // a User-Agent with a C1 control (U+009B, the one-byte CSI: "clear the screen" as 9B 32 4A)
    expect(await rawRequest(s.url, { "content-type": "application/json", "user-agent": "probe/1 \u009b2J" })).toBe(401);
    expect(await until(() => refusals().length === 1, 5_000)).toBe(true);
    const [rec] = refusals();
    expect(rec).toMatchObject({
      principal: "(unknown)",
      via: "http",
      tool: "(none)",
      decision: "unauthenticated",
      result: "invalid_request",
      refused: { reason: "no token", address: "127.0.0.1", count: 1 },
      duration_ms: 0,
    });
    expect(rec!.client).toMatch(/^probe\/1 \S*\\x9b2J$/);
    expect(rec!.client).not.toMatch(/[\u0080-\u009f]/);
    expect(Date.now() - Date.parse(rec!.time)).toBeLessThan(60_000);

    const logEnv = { ...p.env };
    const all = JSON.parse((await runHcpx(["log", "--json"], { cwd: p.dir, env: logEnv })).stdout) as {
      ok: boolean;
      data: { records: Rec[]; skipped: number };
    };
    expect(all.ok).toBe(true);
    expect(all.data.skipped).toBe(0);
    expect(all.data.records.filter((r) => r.decision === "unauthenticated")).toEqual([rec]);
    // the filters: a principal's calls leave them out, "(unknown)" shows them alone
    for (const [who, n] of [
      ["alice", 0],
      ["(unknown)", 1],
    ] as const) {
      const r = await runHcpx(["log", "--principal", who, "--json"], { cwd: p.dir, env: logEnv });
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { data: { records: Rec[] } }).data.records).toHaveLength(n);
    }
    const text = await runHcpx(["log", "--principal", "(unknown)"], { cwd: p.dir, env: logEnv });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/http \(unknown\)\/probe\/1 \S*\\x9b2J unauthenticated/);
    expect(text.stdout).toContain("unauthenticated invalid_request (no token) from 127.0.0.1");
    expect(text.stdout).not.toMatch(/[\u0080-\u009f]/);
  });

  it("a flood of 401s leaves about a line a second per reason and address, each counting the refusals folded in", async () => {
    const before = refusals().length;
    const n = 400;
    const t0 = Date.now();
    for (let i = 0; i < n; i += 50)
      await Promise.all(
        Array.from({ length: 50 }, () => modern(s.url, "hcpx_flood", "tools/list").then((r) => r.status)),
      ).then((codes) => expect(new Set(codes)).toEqual(new Set([401])));
    const seconds = (Date.now() - t0) / 1000;
    // the last second's count is written at its end
    const flood = () => refusals().slice(before);
    const counted = () => flood().reduce((a, r) => a + r.refused!.count, 0);
    expect(await until(() => counted() === n, 5_000)).toBe(true);
    const lines = flood();
    expect(lines.every((r) => r.refused?.reason === "unknown token" && r.refused.address === "127.0.0.1")).toBe(true);
    // the first at once (count 1), then one per second at most
    expect(lines[0]!.refused?.count).toBe(1);
    expect(lines.length).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
    expect(lines.length).toBeLessThan(n / 10);
  }, 60_000);
});

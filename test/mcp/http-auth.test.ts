// `hcpx mcp --http` authenticates every request (docs/http.md): no token →
// 401 with WWW-Authenticate naming the Protected Resource Metadata (RFC 9728,
// served at both well-known forms); a wrong, expired or wrong-audience token
// → 401 invalid_token; a static token (`hcpx token add`) or a JWT from a local
// test issuer (jose, JWKS on 127.0.0.1) → its principal, which sees and calls
// only its granted tools, with the v1 and v2 SDK clients over real HTTP. `hcpx token list` and two
// adds run in this process (test/support/inproc.ts); the servers, the adds racing, a usage error are processes.
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HCPX } from "../support/cli";
import { runInProcess } from "../support/inproc";
import {
  addToken,
  MODERN,
  modern,
  RAW_LIST_BODY,
  removeToken,
  serve,
  teamProject,
  testIssuer,
  type Served,
  type TeamProject,
} from "./http-support";

/** `hcpx ...args` in this process, in the project with its own environment (as spawnSync gives it). */
const inProject = (p: TeamProject, args: string[]) => runInProcess(args, { cwd: p.dir, env: p.env, pureEnv: true });

const auth = (token: string) => ({ requestInit: { headers: { authorization: `Bearer ${token}` } } });
const env = (r: unknown) =>
  (r as { structuredContent: { ok: boolean; error?: { code: string; message: string } } }).structuredContent;

describe("hcpx mcp --http: static tokens, two principals", () => {
  let p: TeamProject;
  let s: Served;
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    p = teamProject(
      {
        principals: {
          alice: { grants: { allow: ["ledger.balance"] } },
          bob: { grants: { allow: ["ledger.*"] }, confirm: "agent" },
        },
      },
      { confirm: "host" },
    );
    alice = addToken(p, "alice");
    bob = addToken(p, "bob");
    s = await serve(p, ["--server-config", p.serverConfig, "--shape", "per-command"]);
  }, 60_000);
  afterAll(async () => s?.stop());

  it("keeps only the tokens' hashes, owner-only, in the state directory", async () => {
    const file = join(p.state, "hcpx", "tokens.json");
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(alice);
    expect(text).not.toContain(bob);
    const kept = (JSON.parse(readFileSync(file, "utf8")) as { tokens: { principal: string; sha256: string }[] }).tokens;
    const sha256 = (t: string) => createHash("sha256").update(t, "utf8").digest("hex");
    expect(kept.map((t) => [t.principal, t.sha256])).toEqual([
      ["alice", sha256(alice)],
      ["bob", sha256(bob)],
    ]);
    expect(statSync(file).mode & 0o077).toBe(0);
    const key = join(p.state, "hcpx", "request-state.key");
    expect(statSync(key).mode & 0o077).toBe(0);
    const list = await inProject(p, ["token", "list", "--json"]);
    expect(list.stdout).not.toContain(alice);
    expect(
      (JSON.parse(list.stdout) as { data: { tokens: { principal: string }[] } }).data.tokens.map((t) => t.principal),
    ).toEqual(["alice", "bob"]);
  });

  it("no token: 401 with WWW-Authenticate naming the resource metadata, which is served at both well-known paths", async () => {
    const r = await modern(s.url, undefined, "tools/list");
    expect(r.status).toBe(401);
    const origin = new URL(s.url).origin;
    expect(r.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const m = await fetch(origin + path);
      expect(m.status).toBe(200);
      expect(await m.json()).toMatchObject({ resource: s.url, bearer_methods_supported: ["header"] });
    }
  });

  it("a wrong token: 401 invalid_token; nothing is served", async () => {
    for (const t of ["hcpx_not-a-token", "garbage", alice.slice(0, -2) + "xx"]) {
      const r = await modern(s.url, t, "tools/list");
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toMatch(
        /^Bearer error="invalid_token", error_description="unknown token", resource_metadata="/,
      );
    }
    // the v2 client gets no tool list either
    const c = new ClientV2({ name: "v2", version: "1" }, { versionNegotiation: { mode: "auto" } });
    await expect(c.connect(new HttpV2(new URL(s.url), auth("hcpx_wrong")))).rejects.toThrow();
  });

  it("each principal sees only its granted tools and can call only them (v2 client, modern era)", async () => {
    const seen: Record<string, string[]> = {};
    for (const [who, token] of [
      ["alice", alice],
      ["bob", bob],
    ] as const) {
      const c = new ClientV2({ name: "v2", version: "1" }, { versionNegotiation: { mode: "auto" } });
      await c.connect(new HttpV2(new URL(s.url), auth(token)));
      expect(c.getProtocolEra()).toBe("modern");
      seen[who] = (await c.listTools()).tools.map((t) => t.name);
      const bal = await c.callTool({ name: "ledger__balance", arguments: { account: "checking" } });
      expect(env(bal).ok).toBe(true);
      await c.close();
    }
    expect(seen.alice).toEqual(["ledger__balance", "hcp__read_skill"]);
    expect(seen.bob!.length).toBeGreaterThan(3);
    expect(seen.bob).toContain("ledger__entry_add");
  });

  it("a principal without the grant cannot call the tool, by name or through hcp (v1 client, legacy era)", async () => {
    const before = readFileSync(p.ledger, "utf8");
    const c = new ClientV1({ name: "v1", version: "1" });
    await c.connect(new HttpV1(new URL(s.url), auth(alice)));
    const r = await c.callTool({ name: "ledger__entry_add", arguments: { account: "checking", amount: 1, memo: "x" } });
    expect(r.isError).toBe(true);
    expect(env(r).error?.code).toBe("unknown_verb");
    await c.close();
    expect(readFileSync(p.ledger, "utf8")).toBe(before);
    // bob may: his confirm "agent" is not stricter than the project's "host", which wins; a client that cannot be asked confirms with confirm: true
    const b = new ClientV1({ name: "v1", version: "1" });
    await b.connect(new HttpV1(new URL(s.url), auth(bob)));
    const w = await b.callTool({
      name: "ledger__entry_add",
      arguments: { account: "checking", amount: 1, memo: "x", confirm: true },
    });
    expect(env(w).ok).toBe(true);
    await b.close();
    expect(readFileSync(p.ledger, "utf8")).not.toBe(before);
  });

  it("the single tool hcp: a verb not granted to that principal is answered as one the pack does not have", async () => {
    const s2 = await serve(p, ["--server-config", p.serverConfig]);
    try {
      const r = await modern(s2.url, alice, "tools/call", {
        name: "hcp",
        arguments: { pack: "ledger", verb: "entry.add", args: { account: "checking", amount: 1, memo: "x" } },
      });
      expect(r.status).toBe(200);
      const e = (r.body.result as { structuredContent: { error: { code: string; message: string } } }).structuredContent
        .error;
      expect(e.code).toBe("unknown_verb");
      expect(e.message).toBe("pack ledger has no command 'entry.add'");
    } finally {
      await s2.stop();
    }
  });

  it("several Authorization headers are refused (401 invalid_request), whichever comes first", async () => {
    const port = Number(new URL(s.url).port);
    const body = RAW_LIST_BODY;
    const send = (auths: string[]) =>
      new Promise<string>((resolve, reject) => {
        const sock = connect(port, "127.0.0.1", () => {
          const head = [
            "POST /mcp HTTP/1.1",
            `Host: 127.0.0.1:${port}`,
            ...auths.map((a) => `Authorization: Bearer ${a}`),
            "Content-Type: application/json",
            "Accept: application/json, text/event-stream",
            `MCP-Protocol-Version: ${MODERN}`,
            "Mcp-Method: tools/list",
            `Content-Length: ${body.length}`,
            "Connection: close",
          ];
          sock.write([...head, "", body].join("\r\n"));
        });
        let got = "";
        sock.setEncoding("utf8").on("data", (d: string) => (got += d));
        sock.on("close", () => resolve(got));
        sock.on("error", reject);
        setTimeout(() => sock.destroy(), 5_000);
      });
    expect(await send([alice])).toMatch(/^HTTP\/1\.1 200/);
    for (const auths of [
      [alice, "hcpx_other"],
      ["hcpx_other", alice],
      [alice, bob],
      [alice, alice],
    ]) {
      const r = await send(auths);
      expect(r, auths.join(" ")).toMatch(/^HTTP\/1\.1 401/);
      expect(r).toContain('"error":"invalid_request"');
    }
  });

  it("a removed token stops at the next request", async () => {
    const t = addToken(p, "alice", ["--force"]);
    expect((await modern(s.url, t, "tools/list")).status).toBe(200);
    expect((await modern(s.url, alice, "tools/list")).status).toBe(401); // replaced by --force
    removeToken(p, "alice");
    expect((await modern(s.url, t, "tools/list")).status).toBe(401);
    expect((await modern(s.url, bob, "tools/list")).status).toBe(200);
  });
});

describe("hcpx token", () => {
  it("add needs the server config that names the principal: without it, a usage error and no token kept", async () => {
    const p = teamProject({ principals: { alice: { grants: { allow: ["ledger.*"] } } } });
    const r = spawnSync(process.execPath, [HCPX, "token", "add", "bob", "--json"], {
      cwd: p.dir,
      env: p.env,
      encoding: "utf8",
    });
    expect(r.status).toBe(64);
    const e = (JSON.parse(r.stdout) as { error: { code: string; message: string; hint: string } }).error;
    expect(e.code).toBe("usage");
    expect(e.message).toContain("--server-config");
    const list = await inProject(p, ["token", "list", "--json"]);
    expect((JSON.parse(list.stdout) as { data: { tokens: unknown[] } }).data.tokens).toEqual([]);
    // with it: a principal it does not name is refused, one it names gets its token
    const named = (id: string) => inProject(p, ["token", "add", id, "--server-config", p.serverConfig, "--json"]);
    expect(JSON.parse((await named("bob")).stdout).error.code).toBe("unknown_principal");
    expect((await named("alice")).code).toBe(0);
  });

  it("concurrent adds lose no token (the tokens file is edited under a lock)", async () => {
    const ids = Array.from({ length: 8 }, (_, i) => `p${i}`);
    const p = teamProject({
      principals: Object.fromEntries(ids.map((id) => [id, { grants: { allow: ["ledger.*"] } }])),
    });
    const { spawn } = await import("node:child_process");
    const codes = await Promise.all(
      ids.map(
        (id) =>
          new Promise<number | null>((r) =>
            spawn(process.execPath, [HCPX, "token", "add", id, "--server-config", p.serverConfig], {
              cwd: p.dir,
              env: p.env,
              stdio: "ignore",
            }).on("close", r),
          ),
      ),
    );
    expect(codes).toEqual(ids.map(() => 0));
    const list = await inProject(p, ["token", "list", "--json"]);
    expect(
      (JSON.parse(list.stdout) as { data: { tokens: { principal: string }[] } }).data.tokens
        .map((t) => t.principal)
        .sort(),
    ).toEqual(ids);
  }, 60_000);
});

describe("hcpx mcp --http: JWTs from the team's identity provider", () => {
  let iss: Awaited<ReturnType<typeof testIssuer>>;
  let p: TeamProject;
  let s: Served;
  const RESOURCE = "https://mcp.team.test/mcp";
  beforeAll(async () => {
    iss = await testIssuer();
    p = teamProject({
      resource: RESOURCE,
      jwt: { issuer: iss.issuer, jwks_url: iss.jwksUrl },
      principals: { carol: { subjects: ["carol@team.test"], grants: { allow: ["ledger.balance"] } } },
    });
    s = await serve(p, ["--server-config", p.serverConfig]);
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    await iss?.close();
  });

  it("publishes the issuer as the authorization server and names the public metadata URL", async () => {
    const r = await modern(s.url, undefined, "tools/list");
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toBe(
      'Bearer resource_metadata="https://mcp.team.test/.well-known/oauth-protected-resource/mcp"',
    );
    const m = await fetch(new URL(s.url).origin + "/.well-known/oauth-protected-resource/mcp");
    expect(await m.json()).toMatchObject({ resource: RESOURCE, authorization_servers: [iss.issuer] });
  });

  it("a valid JWT is its subject's principal (v2 and v1 clients)", async () => {
    const jwt = await iss.sign({ sub: "carol@team.test" }, { aud: RESOURCE });
    const c = new ClientV2({ name: "v2", version: "1" }, { versionNegotiation: { mode: "auto" } });
    await c.connect(new HttpV2(new URL(s.url), auth(jwt)));
    expect(
      env(
        await c.callTool({
          name: "hcp",
          arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } },
        }),
      ).ok,
    ).toBe(true);
    const denied = env(
      await c.callTool({
        name: "hcp",
        arguments: { pack: "ledger", verb: "entry.add", args: { account: "checking", amount: 1, memo: "x" } },
      }),
    );
    expect(denied.error?.code).toBe("unknown_verb");
    await c.close();
    const l = new ClientV1({ name: "v1", version: "1" });
    await l.connect(new HttpV1(new URL(s.url), auth(jwt)));
    expect((await l.listTools()).tools.map((t) => t.name)).toEqual(["hcp", "hcp__read_skill"]);
    await l.close();
  });

  it("an expired, never-expiring, wrong-audience, unknown-subject or foreign-signed JWT is refused with the reason", async () => {
    const cases: [string, string][] = [
      [
        await iss.sign({ sub: "carol@team.test" }, { aud: RESOURCE, exp: Math.floor(Date.now() / 1000) - 3600 }),
        "the token has expired",
      ],
      // no exp: it would never expire
      [await iss.sign({ sub: "carol@team.test" }, { aud: RESOURCE, exp: null }), "the token has no expiry (exp)"],
      [
        await iss.sign({ sub: "carol@team.test" }, { aud: "https://other.test/mcp" }),
        "the token is for another audience (not this server)",
      ],
      [
        await iss.sign({ sub: "mallory@team.test" }, { aud: RESOURCE }),
        "the token's sub is no principal of this server",
      ],
    ];
    const other = await testIssuer();
    try {
      // signed by another key under the same issuer name: the JWKS has no such key
      const forged = await other.sign({ sub: "carol@team.test", iss: iss.issuer }, { aud: RESOURCE });
      cases.push([forged, "the token's signature does not verify"]);
      for (const [jwt, why] of cases) {
        const r = await modern(s.url, jwt, "tools/list");
        expect(r.status).toBe(401);
        expect(r.headers.get("www-authenticate")).toContain(`error="invalid_token", error_description="${why}"`);
      }
    } finally {
      await other.close();
    }
  });
});

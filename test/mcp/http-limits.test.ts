// `hcpx mcp --http` fails closed (docs/http.md): loopback unless
// --bind-public; no unauthenticated serving but --no-auth on loopback; a
// server config that is wrong in any way stops the start with file, path,
// line and what to do; a body over the limit gets 413, a request that does
// not arrive in time 408; a Binding value can never be supplied or read by a
// client.
import { connect } from "node:net";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addLeakyPack } from "./support";
import { addToken, MODERN, modern, refusal, serve, teamProject, type Served, type TeamProject } from "./http-support";

type Env = { ok: boolean; error?: { code: string; message: string } };
import { until } from "../support/until";

// `hcpx mcp` takes no --json (its stdout is the protocol): a refusal at start is
// its exit code and the stderr a person reads to fix it, so these assert on that text.
describe("hcpx mcp --http: where and whether it serves", () => {
  it("refuses another address without --bind-public, unauthenticated serving without --no-auth, and --no-auth off loopback", () => {
    const p = teamProject({ principals: { alice: { grants: { allow: ["ledger.*"] } } } });
    const a = refusal(p, ["--http", "0.0.0.0:0", "--server-config", p.serverConfig]);
    expect(a.status).toBe(64);
    expect(a.stderr).toMatch(/binds 0\.0\.0\.0, not loopback: add --bind-public/);
    const b = refusal(p, ["--http", "0"]);
    expect(b.status).toBe(64);
    expect(b.stderr).toMatch(/--http needs --server-config FILE/);
    const c = refusal(p, ["--http", "0.0.0.0:0", "--no-auth", "--bind-public"]);
    expect(c.status).toBe(64);
    expect(c.stderr).toMatch(/--no-auth serves loopback only/);
    // the hint does not ask for the --bind-public that was given: it says what serves
    expect(c.stderr).not.toMatch(/needs --bind-public/);
    expect(c.stderr).toMatch(/serve 127\.0\.0\.1 with --no-auth, or another address with --server-config/);
    const d = refusal(p, ["--http", "nope"]);
    expect(d.status).toBe(64);
    expect(refusal(p, ["--http", "0", "--server-config", p.serverConfig, "--host", "claude"]).stderr).toMatch(
      /--host .* does not go with --http/,
    );
    expect(refusal(p, ["--server-config", p.serverConfig]).stderr).toMatch(/go with --http/);
  });

  it("a server config with an unknown key, a duplicate key, overlapping principals or a stray token does not start", async () => {
    const p = teamProject({ principals: { alice: { grants: { allow: ["ledger.*"] } } } });
    const cases: [string, RegExp][] = [
      [
        '{ principals: { alice: { grants: { allow: ["ledger.*"] }, confrim: "person" } } }',
        /unknown key 'confrim'.*\n?.*did you mean 'confirm'/,
      ],
      [
        '{ principals: { alice: { grants: { allow: ["ledger.*"] } }, alice: { grants: { allow: [] } } } }',
        /the key 'alice' appears twice in one object/,
      ],
      [
        '{ jwt: { issuer: "https://idp.test", jwks_url: "https://idp.test/jwks" }, resource: "https://mcp.test/mcp", principals: { a: { subjects: ["s1"], grants: { allow: ["ledger.*"] } }, b: { subjects: ["s1"], grants: { allow: ["ledger.balance"] } } } }',
        /subject 's1' maps to two principals: 'a' and 'b'/,
      ],
      [
        '{ jwt: { issuer: "https://idp.test", jwks_url: "http://idp.test/jwks" }, resource: "https://mcp.test/mcp", principals: {} }',
        /must be an https URL/,
      ],
      ['{ principals: { alice: { grants: { allow: ["ledger"] } } } }', /'ledger' is not a grant pattern/],
    ];
    for (const [text, want] of cases) {
      writeFileSync(p.serverConfig, text);
      const r = refusal(p, ["--http", "0", "--server-config", p.serverConfig]);
      expect(r.status, text).toBe(1);
      expect(r.stderr, text).toMatch(want);
      expect(r.stderr).toContain("server.json5");
    }
    // a shared key file others may read, or a key_env that is not set
    const key = join(p.dir, "team.key");
    writeFileSync(key, "k".repeat(64), { mode: 0o644 });
    writeFileSync(
      p.serverConfig,
      JSON.stringify({ request_state: { key_file: key }, principals: { alice: { grants: { allow: ["ledger.*"] } } } }),
    );
    const k = refusal(p, ["--http", "0", "--server-config", p.serverConfig]);
    expect(k.status).toBe(1);
    expect(k.stderr).toMatch(/the requestState key file is readable or writable by others/);
    writeFileSync(
      p.serverConfig,
      JSON.stringify({
        request_state: { key_env: "NO_SUCH_KEY_VAR" },
        principals: { alice: { grants: { allow: ["ledger.*"] } } },
      }),
    );
    expect(refusal(p, ["--http", "0", "--server-config", p.serverConfig]).stderr).toMatch(
      /names \$NO_SUCH_KEY_VAR, which is not set/,
    );
    // a token of a principal the config does not name
    writeFileSync(
      p.serverConfig,
      JSON.stringify({
        principals: { alice: { grants: { allow: ["ledger.*"] } }, bob: { grants: { allow: ["ledger.*"] } } },
      }),
    );
    addToken(p, "bob");
    writeFileSync(p.serverConfig, JSON.stringify({ principals: { alice: { grants: { allow: ["ledger.*"] } } } }));
    const r = refusal(p, ["--http", "0", "--server-config", p.serverConfig]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/a token is for principal 'bob', which the server config does not name/);
    // a tokens file that does not check: its hint is the tokens file's (docs/http.md), not the pack format's
    writeFileSync(
      join(p.state, "hcpx", "tokens.json"),
      JSON.stringify({ version: 1, tokens: [{ principal: "alice" }] }),
    );
    const t = refusal(p, ["--http", "0", "--server-config", p.serverConfig]);
    expect(t.status).toBe(1);
    expect(t.stderr).toContain("tokens.json");
    expect(t.stderr).toContain("docs/http.md");
    expect(t.stderr).not.toContain("pack-format");
  });
});

describe("hcpx mcp --http: limits", () => {
  let p: TeamProject;
  let s: Served;
  let token: string;
  beforeAll(async () => {
    p = teamProject({
      limits: { max_body_bytes: 4096, request_timeout_ms: 500 },
      principals: { alice: { grants: { allow: ["ledger.*"] } } },
    });
    token = addToken(p, "alice");
    s = await serve(p, ["--server-config", p.serverConfig]);
  }, 60_000);
  afterAll(async () => s?.stop());

  it("a body over max_body_bytes: 413, nothing parsed", async () => {
    const ok = await modern(s.url, token, "tools/call", {
      name: "hcp",
      arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } },
    });
    expect(ok.status).toBe(200);
    const big = await modern(s.url, token, "tools/call", {
      name: "hcp",
      arguments: { pack: "ledger", verb: "balance", args: { account: "x".repeat(8000) } },
    });
    expect(big.status).toBe(413);
  });

  it("a request whose body does not arrive within request_timeout_ms: 408", async () => {
    const u = new URL(s.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const sock = connect(Number(u.port), "127.0.0.1", () => {
        sock.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${u.port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`,
        );
      });
      let got = "";
      sock.setEncoding("utf8").on("data", (d: string) => (got += d));
      sock.on("close", () => resolve(got));
      sock.on("error", reject);
      setTimeout(() => sock.destroy(), 10_000);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it("a client that goes away before its body is whole: nothing runs, nothing is recorded, the server serves on", async () => {
    const audit = join(p.state, "hcpx", "audit.jsonl");
    const lines = () => (existsSync(audit) ? readFileSync(audit, "utf8").split("\n").filter(Boolean).length : 0);
    const before = lines();
    const u = new URL(s.url);
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "hcp", arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } } },
    });
    await new Promise<void>((resolve, reject) => {
      const sock = connect(Number(u.port), "127.0.0.1", () => {
        sock.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${u.port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, -2)}`,
          () => setTimeout(() => sock.destroy(), 100),
        );
      });
      sock.on("close", () => resolve());
      sock.on("error", reject);
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(lines()).toBe(before);
    const ok = await modern(s.url, token, "tools/call", {
      name: "hcp",
      arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } },
    });
    expect(ok.status).toBe(200);
    expect(lines()).toBe(before + 1);
  });
});

describe("hcpx mcp --http: input nested too deep", () => {
  it("is refused (bad_args) and recorded, never an internal error without a record", async () => {
    const p = teamProject({ principals: { alice: { grants: { allow: ["ledger.*"] } } } });
    const token = addToken(p, "alice");
    const s = await serve(p, ["--server-config", p.serverConfig]);
    const audit = join(p.state, "hcpx", "audit.jsonl");
    const records = () =>
      existsSync(audit)
        ? readFileSync(audit, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { decision: string; result: string })
        : [];
    try {
      for (const depth of [3000, 100_000]) {
        // the body as text: a value this deep is more than JSON.stringify takes
        const marker = '"DEEP"';
        const text = JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "hcp",
            arguments: { pack: "ledger", verb: "balance", args: { account: "DEEP" } },
            _meta: {
              "io.modelcontextprotocol/protocolVersion": MODERN,
              "io.modelcontextprotocol/clientCapabilities": {},
              "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
            },
          },
        }).replace(marker, "[".repeat(depth) + "]".repeat(depth));
        const res = await fetch(s.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": MODERN,
            "mcp-method": "tools/call",
            "mcp-name": "hcp",
            authorization: `Bearer ${token}`,
          },
          body: text,
        });
        const body = (await res.json()) as { error?: unknown; result?: { structuredContent: Env } };
        expect(body.error, JSON.stringify(body.error)).toBeUndefined();
        expect(body.result?.structuredContent.error?.code).toBe("bad_args");
        expect(body.result?.structuredContent.error?.message).toContain("nested deeper than");
      }
      expect(await until(() => records().length === 2, 5_000)).toBe(true);
      expect(records().map((x) => [x.decision, x.result])).toEqual([
        ["refused", "bad_args"],
        ["refused", "bad_args"],
      ]);
    } finally {
      await s.stop();
    }
  }, 30_000);
});

describe("hcpx mcp --http: Binding values stay on the server", () => {
  it("a client cannot supply a Binding value nor read one", async () => {
    const p = teamProject(
      { principals: { alice: { grants: { allow: ["leaky.*", "ledger.*"] } } } },
      { packs: ["ledger"], allow: ["ledger.*", "leaky.*"] },
    );
    addLeakyPack(p.dir);
    writeFileSync(
      p.config,
      JSON.stringify({
        packs: ["./packs/ledger", "./packs/leaky"],
        principal: { id: "dev", kind: "agent" },
        grants: { allow: ["ledger.*", "leaky.*"], deny: [] },
        sandbox: { bins: {}, roots: ["."], cwd: "." },
      }),
    );
    const token = addToken(p, "alice");
    const SECRET = "tok-5ecr3t-http-a7f9c1e2b3";
    const s = await serve(p, ["--server-config", p.serverConfig], { LEAKY_TOKEN: SECRET });
    try {
      const seen: unknown[] = [];
      const ok = await modern(s.url, token, "tools/call", { name: "hcp", arguments: { pack: "leaky", verb: "ok" } });
      seen.push(ok.body);
      expect((ok.body.result as { structuredContent: { ok: boolean } }).structuredContent.ok).toBe(true);
      seen.push(
        (await modern(s.url, token, "tools/call", { name: "hcp", arguments: { pack: "leaky", verb: "fail" } })).body,
      );
      // supplying the Binding as an arg, or any env, is refused: the verb declares no such arg
      for (const args of [{ LEAKY_TOKEN: "mine" }, { env: { LEAKY_TOKEN: "mine" } }]) {
        const r = await modern(s.url, token, "tools/call", {
          name: "hcp",
          arguments: { pack: "leaky", verb: "ok", args },
        });
        const env = (r.body.result as { structuredContent: { ok: boolean; error?: { code: string } } })
          .structuredContent;
        expect(env.ok).toBe(false);
        expect(env.error?.code).toBe("bad_args");
        seen.push(r.body);
      }
      const extra = await modern(s.url, token, "tools/call", {
        name: "hcp",
        arguments: { pack: "leaky", verb: "ok", env: { LEAKY_TOKEN: "mine" } },
      });
      expect(
        (extra.body.result as { structuredContent: { error: { code: string } } }).structuredContent.error.code,
      ).toBe("bad_args");
      seen.push(
        (await modern(s.url, token, "tools/list")).body,
        (await modern(s.url, token, "resources/read", { uri: "skill://leaky/SKILL.md" })).body,
      );
      const all = JSON.stringify(seen);
      expect(all).toContain("***");
      expect(all).not.toContain(SECRET);
      expect(all).not.toContain("mine\\n");
      expect(s.stderr()).not.toContain(SECRET);
    } finally {
      await s.stop();
    }
  });
});

describe("the team server is not on `hcpx exec`'s path", () => {
  it("exec's bundles hold none of it (jose, the tokens, the key, the metadata); the mcp bundle does", async () => {
    const { readFileSync } = await import("node:fs");
    const { REPO } = await import("../support/hcpx");
    const marks = [
      "ERR_JWKS_NO_MATCHING_KEY",
      "request-state.key",
      "tokens.json",
      "/.well-known/oauth-protected-resource",
    ];
    const mcp = readFileSync(join(REPO, "dist", "commands", "mcp.cjs"), "utf8");
    for (const m of marks) expect(mcp, m).toContain(m);
    for (const f of [join("commands", "exec.cjs"), "hcpx.cjs"]) {
      const text = readFileSync(join(REPO, "dist", f), "utf8");
      for (const m of marks) expect(text, `${f}: ${m}`).not.toContain(m);
    }
  });
});

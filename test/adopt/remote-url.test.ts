// Issue 24 §4: `hcpx adopt <host> --url <url> [--token-env NAME]` writes each
// host's documented remote entry (descriptor data: hosts/<host>.json5
// `entry.remoteFields`), the token only as the host's reference to the
// variable; a host without a documented remote shape is refused by name; the
// approval rules, prompt block and Skills are written as for a local entry;
// `--check` reaches the URL over real loopback HTTP (a running `hcpx mcp
// --http`, a server that answers 401, nothing listening).
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { parse as parseJsonc } from "jsonc-parser";
import { afterAll, describe, expect, it } from "vitest";
import { HCPX } from "../support/cli";
import { scratch as scratchChild } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt and doctor (what they decide, write and probe) as function calls in this process (test/support/inproc.ts); the servers they talk to stay processes */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

type Json = Record<string, unknown>;
const TOKEN_VALUE = "tok-VALUE-never-written-7f3a";
const URL0 = "http://127.0.0.1:9/mcp";

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill("SIGTERM");
});

describe("adopt --url", () => {
  it("writes each host's remote entry in its documented shape, the token as the host's variable reference; rules, block and Skills as for a local entry", async () => {
    const s = scratch();
    const r = await s.run(
      [
        "adopt",
        "claude",
        "codex",
        "gemini",
        "cursor",
        "vscode",
        "--url",
        URL0,
        "--token-env",
        "HCP_TOKEN",
        "--write",
        "--json",
      ],
      { HCP_TOKEN: TOKEN_VALUE },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const json = (p: string) => parseJsonc(s.read(p)) as Json;
    expect((json(".mcp.json").mcpServers as Json).hcp).toEqual({
      type: "http",
      url: URL0,
      headers: { Authorization: "Bearer ${HCP_TOKEN}" },
    });
    expect((json(".cursor/mcp.json").mcpServers as Json).hcp).toEqual({
      url: URL0,
      headers: { Authorization: "Bearer ${env:HCP_TOKEN}" },
    });
    expect((json(".vscode/mcp.json").servers as Json).hcp).toEqual({
      type: "http",
      url: URL0,
      headers: { Authorization: "Bearer ${env:HCP_TOKEN}" },
    });
    expect((json(".gemini/settings.json").mcpServers as Json).hcp).toEqual({
      httpUrl: URL0,
      headers: { Authorization: "Bearer $HCP_TOKEN" },
    });
    const codex = (parseToml(s.read(".codex/config.toml")) as { mcp_servers: { hcp: Json } }).mcp_servers.hcp;
    expect(codex.url).toBe(URL0);
    expect(codex.bearer_token_env_var).toBe("HCP_TOKEN");
    expect(codex.command).toBeUndefined();
    // Codex's approval rules are in the entry; nothing listens at URL0, so hcpx knows none of its tools: every tool
    // prompts (this checkout's packs are not the server's: test/adopt/remote-rules.test.ts)
    expect(codex.default_tools_approval_mode).toBe("prompt");
    expect(codex.tools).toEqual({ hcp__read_skill: { approval_mode: "approve" } });
    // the other rules (none per tool, for the same reason), the prompt block and the Skills, as for a local entry
    const perms = json(".claude/settings.json").permissions as { allow: string[]; ask?: string[] };
    expect(perms.allow).toEqual(["mcp__hcp__hcp__read_skill"]);
    expect(perms.ask ?? []).toEqual([]);
    expect(s.read("CLAUDE.md")).toContain("hcp:begin");
    expect(existsSync(join(s.dir, ".claude", "skills"))).toBe(true);
    // the token's value is nowhere
    for (const f of [
      ".mcp.json",
      ".cursor/mcp.json",
      ".vscode/mcp.json",
      ".gemini/settings.json",
      ".codex/config.toml",
      ".hcp/adopted.json",
    ])
      expect(s.read(f)).not.toContain(TOKEN_VALUE);
    // without --token-env: no header at all, no empty reference
    const s2 = scratch();
    expect((await s2.adopt("claude", "--url", URL0, "--write")).code).toBe(0);
    expect(((parseJsonc(s2.read(".mcp.json")) as Json).mcpServers as Json).hcp).toEqual({ type: "http", url: URL0 });
  });

  it("refuses a host whose remote shape is not documented, naming it; a URL with a credential; a bad variable name; --token-env without --url", async () => {
    const s = scratch();
    const r = await s.adopt("claude", "zed", "--url", URL0, "--json");
    expect(r.code).toBe(64);
    const env = JSON.parse(r.stdout) as { ok: boolean; error: { code: string; message: string } };
    expect(env.ok).toBe(false);
    expect(env.error.code).toBe("remote_unsupported");
    expect(env.error.message).toMatch(/Zed \(zed\)/);
    expect(existsSync(join(s.dir, ".mcp.json"))).toBe(false); // nothing written for the others either
    const cred = await s.adopt("claude", "--url", "https://alice:hunter2@hcp.example.com/mcp", "--json");
    expect(cred.code).toBe(64);
    expect(cred.stdout).not.toContain("hunter2");
    expect((await s.adopt("claude", "--url", URL0, "--token-env", "HCP-TOKEN", "--json")).code).toBe(64);
    expect((await s.adopt("claude", "--token-env", "HCP_TOKEN", "--json")).code).toBe(64);
    expect((await s.adopt("claude", "--url", "file:///etc/passwd", "--json")).code).toBe(64);
  });

  it("--check reaches the URL: a running hcpx mcp --http lists its tools (in sync); 401 is 'not authenticated'; nothing listening is 'not reachable'", async () => {
    const s = scratch();
    // the team's server: hcpx mcp --http on loopback, serving the scratch project's packs
    const child = spawn(process.execPath, [HCPX, "mcp", "--http", "0", "--no-auth"], {
      cwd: s.dir,
      env: { ...s.env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    children.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let err = "";
      child.stderr!.setEncoding("utf8").on("data", (d: string) => {
        err += d;
        const m = / at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.on("close", () => reject(new Error(err)));
    });
    expect((await s.adopt("claude", "--url", url, "--token-env", "HCP_TOKEN", "--write")).code).toBe(0);
    const ok = await s.run(["adopt", "claude", "--url", url, "--token-env", "HCP_TOKEN", "--check", "--json"], {
      HCP_TOKEN: TOKEN_VALUE,
    });
    expect(ok.code, ok.stdout).toBe(0);
    expect((JSON.parse(ok.stdout) as { data: { health: unknown[] } }).data.health).toEqual([]);

    // a server that wants a token it was not given
    const locked = createServer((req, res) => {
      req.resume();
      res
        .writeHead(401, {
          "www-authenticate": 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
        })
        .end();
    });
    await new Promise<void>((r) => locked.listen(0, "127.0.0.1", () => r()));
    const lockedUrl = `http://127.0.0.1:${(locked.address() as AddressInfo).port}/mcp`;
    try {
      expect((await s.adopt("claude", "--url", lockedUrl, "--token-env", "HCP_TOKEN", "--write")).code).toBe(0);
      const denied = await s.run(
        ["adopt", "claude", "--url", lockedUrl, "--token-env", "HCP_TOKEN", "--check", "--json"],
        { HCP_TOKEN: TOKEN_VALUE },
      );
      expect(denied.code).toBe(1);
      const e = JSON.parse(denied.stdout) as {
        ok: boolean;
        error: { details: { health: { code: string; message: string }[] } };
      };
      expect(e.ok).toBe(false);
      expect(e.error.details.health.map((h) => h.code)).toEqual(["remote_unauthorized"]);
      expect(e.error.details.health[0]!.message).toMatch(/HTTP 401 with the token in HCP_TOKEN/);
      expect(denied.stdout).not.toContain(TOKEN_VALUE);
    } finally {
      locked.close();
    }

    // nothing listening any more
    child.kill("SIGTERM");
    await new Promise((r) => child.once("close", r));
    const gone = await s.run(["adopt", "claude", "--url", url, "--token-env", "HCP_TOKEN", "--check", "--json"], {
      HCP_TOKEN: TOKEN_VALUE,
    });
    expect(gone.code).toBe(1);
    // (the entry on disk is the 401 server's: drift too; the reachability finding is what matters here)
    expect(
      (JSON.parse(gone.stdout) as { error: { details: { health: { code: string }[] } } }).error.details.health.map(
        (h) => h.code,
      ),
    ).toEqual(["remote_unreachable"]);
  }, 90_000);

  it("a block a local host and a remote one share (AGENTS.md: opencode local, Codex --url) names no shell route and no shape; --check of either is in sync", async () => {
    const s = scratch({ hcpxOnPath: true });
    const local = await s.adopt("opencode", "--write");
    expect(local.code, local.stdout + local.stderr).toBe(0);
    expect(s.read("AGENTS.md")).toMatch(/hcpx exec <pack> <verb>/); // opencode alone: its shell runs hcpx
    const remote = await s.adopt("codex", "--url", URL0, "--write");
    expect(remote.code, remote.stdout + remote.stderr).toBe(0);
    const block = s.read("AGENTS.md");
    expect(block).not.toMatch(/exec <pack> <verb>|--confirm/);
    expect(block).not.toContain("<pack>__<verb>");
    expect(block).toContain("is a remote hcpx server");
    expect(block).toContain("hcp__read_skill");
    for (const host of ["opencode", "codex"]) {
      const c = await s.adopt(host, "--check");
      expect(c.code, `${host}: ${c.stdout}${c.stderr}`).toBe(0);
    }
  }, 60_000);

  it("no pack here: the block of a remote entry still says the server's tools are the route, never 'no pack commands are granted'", async () => {
    const s = scratch({ packs: [] });
    const r = await s.adopt("claude", "--url", URL0, "--write");
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const block = s.read("CLAUDE.md");
    expect(block).not.toContain("No pack commands are granted");
    expect(block).toContain("is a remote hcpx server");
    expect(block).toContain("hcp__read_skill");
    expect(block).not.toMatch(/exec <pack> <verb>/);
  }, 60_000);

  it("no hcpx project here at all (the server is another machine's): --url writes the remote entry and its block", async () => {
    const s = scratch();
    rmSync(join(s.dir, "hcp.config.json5"));
    const r = await s.adopt("claude", "--url", URL0, "--token-env", "HCP_TOKEN", "--write");
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(((parseJsonc(s.read(".mcp.json")) as Json).mcpServers as Json).hcp).toEqual({
      type: "http",
      url: URL0,
      headers: { Authorization: "Bearer ${HCP_TOKEN}" },
    });
    expect(s.read("CLAUDE.md")).toContain("is a remote hcpx server");
    // no note about a local command the remote entry does not run
    expect(r.stdout + r.stderr).not.toMatch(/machine-specific|this machine's paths|hcpx\.cjs mcp/);
    // without --url it is still the project's config that adopt needs
    expect((await s.adopt("cursor", "--write")).stderr).toMatch(/no hcp\.config\.json5/);
  }, 60_000);
});

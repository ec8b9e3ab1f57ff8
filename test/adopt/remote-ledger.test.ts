// Issue 24 §4: `adopt <host> --url` is recorded in the ledger (the URL and the
// token variable's name, never a value), so a later `adopt --check`, a re-run
// and `doctor` without --url compare the host's file with the remote entry,
// not with the local command. The ledger is the repository's word: a URL read
// from it is compared and shown, never contacted (no request, no token): hcpx
// reaches only a URL named on its own command line (docs/remote-hosts.md).
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { scratch as scratchChild } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt and doctor (what they decide, write and probe) as function calls in this process (test/support/inproc.ts); the servers they talk to stay processes */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

type Json = Record<string, unknown>;
const TOKEN_VALUE = "tok-VALUE-never-written-91c2";

/** A loopback server that records every request it gets and answers 401. */
async function recorder(): Promise<{ url: string; seen: IncomingHttpHeaders[]; close: () => void }> {
  const seen: IncomingHttpHeaders[] = [];
  const srv = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    res.writeHead(401).end();
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/mcp`, seen, close: () => srv.close() };
}

describe("adopt --url in the ledger", () => {
  it("records the URL and the token variable's name; --check, a re-run and doctor without --url compare with the remote entry and contact nothing", async () => {
    const s = scratch();
    const srv = await recorder();
    try {
      const w = await s.run(["adopt", "claude", "--url", srv.url, "--token-env", "HCP_TOKEN", "--write"], {
        HCP_TOKEN: TOKEN_VALUE,
      });
      expect(w.code, w.stdout + w.stderr).toBe(0);
      const ledger = JSON.parse(s.read(".hcp/adopted.json")) as { hosts: Record<string, Json> };
      expect(ledger.hosts.claude!.remote).toEqual({ url: srv.url, tokenEnv: "HCP_TOKEN" });
      expect(s.read(".hcp/adopted.json")).not.toContain(TOKEN_VALUE);
      // the write reached the URL named on its command line, with the variable named there (to list the tools its
      // rules are written from: here a 401, so none); from here on the URL is only the ledger's word
      expect(srv.seen.length).toBeGreaterThan(0);
      expect(srv.seen.every((h) => h.authorization === `Bearer ${TOKEN_VALUE}`)).toBe(true);
      srv.seen.length = 0;

      // --check without --url: in sync (the remote entry is what hcpx would write), the URL named
      const c = await s.run(["adopt", "claude", "--check", "--json"], { HCP_TOKEN: TOKEN_VALUE });
      expect(c.code, c.stdout).toBe(0);
      const cj = JSON.parse(c.stdout) as { data: { inSync: boolean; notes: string[] } };
      expect(cj.data.inSync).toBe(true);
      expect(cj.data.notes.join("\n")).toContain(srv.url);

      // a re-run without --url keeps the remote entry (nothing to change)
      const again = await s.run(["adopt", "claude", "--write", "--json"], { HCP_TOKEN: TOKEN_VALUE });
      expect(again.code, again.stdout).toBe(0);
      expect((JSON.parse(again.stdout) as { data: { written: string[] } }).data.written).toEqual([]);
      expect(((JSON.parse(s.read(".mcp.json")) as Json).mcpServers as Json).hcp).toEqual({
        type: "http",
        url: srv.url,
        headers: { Authorization: "Bearer ${HCP_TOKEN}" },
      });

      // doctor without --url: the host is in sync with its remote entry; the URL is named, not probed
      const d = await s.run(["doctor", "--json"], { HCP_TOKEN: TOKEN_VALUE });
      const dj = JSON.parse(d.stdout) as {
        ok: boolean;
        data?: { checks: { id: string; status: string; message: string }[] };
        error?: { details: { checks: { id: string; status: string; message: string }[] } };
      };
      const checks = (dj.data ?? dj.error!.details).checks;
      const host = checks.find((x) => x.id === "host:claude")!;
      expect(host.status, host.message).toBe("ok");
      expect(host.message).toContain(srv.url);
      expect(host.message).toMatch(/not contacted/);
      // the recorded URL got no request at all (and so no token)
      expect(srv.seen).toEqual([]);
      expect(d.stdout).not.toContain(TOKEN_VALUE);
    } finally {
      srv.close();
    }
  }, 60_000);

  it("a recorded remote that is not a plain http(s) URL or a variable name is ignored with a warning naming the ledger entry", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "--url", "http://127.0.0.1:9/mcp", "--write")).code).toBe(0);
    const ledger = JSON.parse(s.read(".hcp/adopted.json")) as { hosts: Record<string, Json> };
    for (const bad of [
      { url: "https://bob:pw@evil.example/mcp" },
      { url: "file:///etc/passwd" },
      { url: "http://127.0.0.1:9/mcp", tokenEnv: "A B" },
      { url: "http://127.0.0.1:9/mcp", token: "x" },
    ]) {
      ledger.hosts.claude!.remote = bad;
      s.write(".hcp/adopted.json", JSON.stringify(ledger));
      const r = await s.run(["adopt", "claude", "--check", "--json"]);
      const env = JSON.parse(r.stdout) as {
        data?: { warnings: { code: string; path: string }[] };
        error?: { details: { warnings: { code: string; path: string }[] } };
      };
      const warnings = (env.data ?? env.error!.details).warnings;
      expect(
        warnings.some((x) => x.code === "ledger_entry_ignored" && x.path === "hosts.claude.remote"),
        JSON.stringify(bad) + r.stdout,
      ).toBe(true);
      expect(r.stdout).not.toContain("pw@");
    }
  }, 60_000);

  it("a remote planted in the ledger, which the host's own file does not name, is never written: a re-adopt writes the local entry", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    const local = ((JSON.parse(s.read(".mcp.json")) as Json).mcpServers as Json).hcp;
    const ledger = JSON.parse(s.read(".hcp/adopted.json")) as { hosts: Record<string, Json> };
    ledger.hosts.claude!.remote = { url: "https://evil.example/mcp", tokenEnv: "GITHUB_TOKEN" };
    s.write(".hcp/adopted.json", JSON.stringify(ledger));
    const r = await s.run(["adopt", "claude", "--write", "--json"]);
    expect(r.code, r.stdout).toBe(0);
    expect(s.read(".mcp.json")).not.toContain("evil.example");
    expect(s.read(".mcp.json")).not.toContain("GITHUB_TOKEN");
    expect(((JSON.parse(s.read(".mcp.json")) as Json).mcpServers as Json).hcp).toEqual(local);
  }, 60_000);
});

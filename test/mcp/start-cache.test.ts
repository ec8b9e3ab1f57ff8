// Issue 29: `hcpx mcp` on stdio takes the packs' validated files from the
// validation cache (as hcpx exec does), so a start does not parse and
// validate every pack again. A pack edited since — even to the same size —
// is read and validated again: an edit that breaks it is refused, not served
// from the cache. `hcpx mcp --http` takes them from the same cache: each call
// reads its pack again, and without the cache every call ran zod over it.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { ledgerProject, startMcp, writeConfig } from "./support";
import { serve } from "./http-support";

describe("hcpx mcp start: the validation cache", () => {
  it("a pack broken after a start that filled the cache is broken at the next start", async () => {
    const p = ledgerProject({ packs: ["ledger", "transit"], allow: ["ledger.*", "transit.*"] });
    const first = await startMcp(p, { args: ["--no-watch"] });
    expect((await first.client.listTools()).tools.find((t) => t.name === "hcp")!.description).toContain("- transit:");
    await first.close();
    // the start filled the cache (surface.json and policy.json of each pack)
    expect(readdirSync(join(p.home, ".cache", "hcpx", "validated")).length).toBeGreaterThanOrEqual(4);
    const file = join(p.dir, "packs", "transit", "policy.json");
    const text = readFileSync(file, "utf8");
    // same size: "read" → "reed" is no operation
    const bad = text.replace('"read"', '"reed"');
    expect(bad.length).toBe(text.length);
    expect(bad).not.toBe(text);
    writeFileSync(file, bad);
    const second = await startMcp(p, { args: ["--no-watch"] });
    const hcp = (await second.client.listTools()).tools.find((t) => t.name === "hcp")!.description!;
    expect(hcp).not.toContain("- transit:");
    expect(hcp).toContain("Not served, broken");
    await second.close();
  });

  it("hcpx mcp --http fills the same cache, and a pack broken since is refused, not served from it", async () => {
    const p = ledgerProject({ packs: ["ledger"] });
    writeConfig(p.config, { packs: ["./packs/ledger"], principal: { id: "test", kind: "agent" }, grants: { allow: ["ledger.*"], deny: [] }, sandbox: { bins: {}, roots: ["."], cwd: "." } });
    const env = { PATH: process.env.PATH ?? "", HOME: p.home, LEDGER_FILE: p.ledger, HCPX_AUDIT_LOG: "off" };
    const s = await serve({ dir: p.dir, env }, ["--no-auth"]);
    try {
      const c = new ClientV2({ name: "v2", version: "1" }, { versionNegotiation: { mode: "auto" } });
      await c.connect(new HttpV2(new URL(s.url)));
      const call = async () => (await c.callTool({ name: "hcp", arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } } })).structuredContent as { ok: boolean; error?: { code: string } };
      expect((await call()).ok).toBe(true);
      expect(readdirSync(join(p.home, ".cache", "hcpx", "validated")).length).toBeGreaterThanOrEqual(2);
      const file = join(p.dir, "packs", "ledger", "policy.json");
      const text = readFileSync(file, "utf8");
      const bad = text.replace('"read"', '"reed"');
      expect(bad.length).toBe(text.length);
      writeFileSync(file, bad);
      const r = await call();
      expect(r.ok).toBe(false);
      await c.close();
    } finally {
      await s.stop();
    }
  });
});

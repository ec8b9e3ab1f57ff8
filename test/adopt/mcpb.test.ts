// `hcpx generate --as mcpb DIR` (issue 27 §1): an MCP Bundle for Claude Desktop, manifest.json +
// server/index.js, checked by the official packer/validator (@anthropic-ai/mcpb, a pinned
// devDependency): `mcpb validate` accepts the manifest, `mcpb pack` makes the .mcpb, and the bundle's
// server, started the way Claude Desktop starts it (node ${__dirname}/server/index.js), serves hcp.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { connectMcp } from "../support/mcp";
import { tmp } from "../support/hcpx";
import { scratch } from "./helpers";

const MCPB = join(import.meta.dirname, "..", "..", "node_modules", ".bin", "mcpb");
const mcpb = (...args: string[]) => spawnSync(MCPB, args, { encoding: "utf8", timeout: 60_000 });

describe("generate --as mcpb", () => {
  it("manifest.json passes `mcpb validate`, `mcpb pack` packs the bundle (without hcpx's own record), and its server serves the packs", async () => {
    const s = scratch({ hcpxOnPath: true });
    const dir = join(tmp("hcpx-mcpb-"), "hcp-packs");
    const r = await s.run(["generate", "--as", "mcpb", dir]);
    expect(r.code, r.stderr).toBe(0);
    const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as {
      manifest_version: string;
      name: string;
      author: { name: string };
      server: { type: string; entry_point: string; mcp_config: { command: string; args: string[] } };
    };
    expect(m).toMatchObject({
      manifest_version: "0.3",
      name: "hcp-packs",
      server: {
        type: "node",
        entry_point: "server/index.js",
        mcp_config: { command: "node", args: ["${__dirname}/server/index.js"] },
      },
    });
    expect(existsSync(join(dir, m.server.entry_point))).toBe(true);

    const v = mcpb("validate", join(dir, "manifest.json"));
    expect(v.status, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toMatch(/Manifest schema validation passes/);
    const out = join(tmp("hcpx-mcpb-out-"), "hcp-packs.mcpb");
    const p = mcpb("pack", dir, out);
    expect(p.status, p.stdout + p.stderr).toBe(0);
    const un = join(tmp("hcpx-mcpb-un-"), "x");
    const u = mcpb("unpack", out, un);
    expect(u.status, u.stdout + u.stderr).toBe(0);
    expect(readdirSync(un, { recursive: true }).map(String).sort()).toEqual([
      "manifest.json",
      "server",
      join("server", "index.js"),
    ]);

    // Claude Desktop: `node ${__dirname}/server/index.js`, in the bundle's directory
    const env = { ...(s.env as Record<string, string>) };
    const c = await connectMcp([join(dir, "server", "index.js")], s.dir, env);
    try {
      const tools = await c.client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain("hcp");
      const res = await c.client.callTool({ name: "hcp", arguments: { pack: "ledger", verb: "accounts", args: {} } });
      expect(JSON.stringify(res.content), c.stderr()).toMatch(/\\"ok\\":true/);
    } finally {
      await c.client.close();
    }
  }, 120_000); // a harness bound: five processes (generate, validate, pack, unpack, the MCP server) on a loaded machine

  it("an invalid manifest is what `mcpb validate` refuses (the check can fail)", () => {
    const dir = tmp("hcpx-mcpb-bad-");
    const f = join(dir, "manifest.json");
    writeFileSync(
      f,
      JSON.stringify({
        manifest_version: "0.3",
        name: "x",
        version: "1.0.0",
        description: "d",
        author: { name: "a" },
        server: { type: "node" },
      }),
    );
    const v = mcpb("validate", f);
    expect(v.status).not.toBe(0);
  });
});

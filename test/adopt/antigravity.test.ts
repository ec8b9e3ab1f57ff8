// Antigravity is two products (issue 27 §1): the IDE (`antigravity`) and the CLI (`antigravity-cli`,
// alias `agy`). They share the project's .agents/mcp_config.json, AGENTS.md and .agents/skills, and the
// user's ~/.gemini/config/mcp_config.json; the CLI's user Skills are its own (~/.gemini/antigravity-cli/skills).
// Adopting both writes each shared file once (one entry, one block), both record it, and a removal in
// either order gives every byte back.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDescriptor } from "../../src/host/descriptor";
import { scratch as scratchChild, snapshot, userConfigFromProject } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

const USERS = '{\n  // mine\n  "mcpServers": {\n    "mine": { "command": "mine-server", "args": [] }\n  }\n}\n';
type Ledger = { hosts: Record<string, { entries: { path: string; key?: string[] }[] }> };
const HOSTS = ["antigravity", "antigravity-cli"];

describe("Antigravity IDE and Antigravity CLI: the shared files written once", () => {
  it("the CLI is its own descriptor (`agy` its alias); the MCP files are the same target in both, the user Skills are not", () => {
    const ide = loadDescriptor("antigravity");
    const cli = loadDescriptor("antigravity-cli");
    expect(loadDescriptor("agy")).toBe(cli);
    const mcp = (d: typeof ide, scope: "project" | "user") => d.scopes[scope]!.targets.find((t) => t.id === "mcp")!;
    for (const scope of ["project", "user"] as const) expect(mcp(cli, scope)).toEqual(mcp(ide, scope));
    const skills = (d: typeof ide) => d.scopes.user!.targets.find((t) => t.id === "skills")!.path;
    expect(skills(cli)).toBe("~/.gemini/antigravity-cli/skills");
    expect(skills(ide)).not.toBe(skills(cli));
  });

  for (const order of [HOSTS, [...HOSTS].reverse()]) {
    it(`project scope: adopted together, one entry, one AGENTS.md block; removed ${order.join(" then ")}: as before`, async () => {
      const s = scratch({ packs: ["ledger"] });
      s.write(".agents/mcp_config.json", USERS);
      s.write("AGENTS.md", "# Agents\n");
      const before = snapshot(s.dir);
      const w = await s.adopt(...HOSTS, "--write");
      expect(w.code, w.stderr).toBe(0);
      const text = s.read(".agents/mcp_config.json");
      expect(text.match(/"hcp"/g)).toHaveLength(1);
      expect(text.startsWith("{\n  // mine\n")).toBe(true);
      expect(s.read("AGENTS.md").match(/<!-- hcp:begin -->/g)).toHaveLength(1);
      const ledger = JSON.parse(s.read(".hcp/adopted.json")) as Ledger;
      for (const h of HOSTS)
        expect(
          ledger.hosts[h]!.entries.find((e) => e.path === ".agents/mcp_config.json"),
          h,
        ).toMatchObject({ key: ["mcpServers", "hcp"] });
      // a second run of either changes no byte
      const once = snapshot(s.dir);
      for (const h of HOSTS) expect((await s.adopt(h, "--write")).code, h).toBe(0);
      expect(snapshot(s.dir)).toEqual(once);
      for (const h of HOSTS) expect((await s.adopt(h, "--check")).code, h).toBe(0);
      for (const h of order) {
        const r = await s.adopt(h, "--remove", "--write");
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout + r.stderr).not.toMatch(/warning/);
      }
      expect(snapshot(s.dir)).toEqual(before);
    });

    it(`user scope: adopted one at a time, ~/.gemini/config/mcp_config.json holds one entry; each has its Skills dir; removed ${order.join(" then ")}: as before`, async () => {
      const s = scratch({ packs: ["ledger"] });
      userConfigFromProject(s);
      s.write("~/.gemini/config/mcp_config.json", USERS);
      s.write("~/.gemini/GEMINI.md", "# mine\n");
      const before = snapshot(s.home);
      for (const h of HOSTS) {
        const w = await s.adopt(h, "--scope", "user", "--write");
        expect(w.code, w.stderr).toBe(0);
      }
      expect(s.read("~/.gemini/config/mcp_config.json").match(/"hcp-user"/g)).toHaveLength(1);
      // the one file all three read gets no block from either (Gemini CLI's adopt puts one in)
      expect(s.read("~/.gemini/GEMINI.md")).toBe("# mine\n");
      expect(existsSync(join(s.home, ".gemini", "antigravity-cli", "skills"))).toBe(true);
      expect(existsSync(join(s.home, ".gemini", "antigravity", "skills"))).toBe(true);
      for (const h of HOSTS) expect((await s.adopt(h, "--scope", "user", "--check")).code, h).toBe(0);
      for (const h of order) {
        const r = await s.adopt(h, "--scope", "user", "--remove", "--write");
        expect(r.code, r.stderr).toBe(0);
        // the entry stays while the other product still reads it
        if (h === order[0]) expect(s.read("~/.gemini/config/mcp_config.json")).toContain('"hcp-user"');
      }
      const after = snapshot(s.home);
      // the user config hcpx serves is written by the test, not adopt: compare everything else
      expect(after).toEqual(before);
    });
  }

  it("--detected tells them apart: `agy` on PATH or ~/.gemini/antigravity-cli is the CLI; a project's .agents/agents/ is the CLI's", async () => {
    const s = scratch({ packs: ["ledger"] });
    mkdirSync(join(s.dir, ".agents", "agents"), { recursive: true });
    const r = await s.adopt("--detected", "--json");
    expect((JSON.parse(r.stdout) as { data: { hosts: string[] } }).data.hosts).toEqual(["antigravity-cli"]);
  });
});

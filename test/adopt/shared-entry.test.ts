// One MCP entry several hosts read: Claude Code, GitHub Copilot CLI and Qoder all read the
// project's .mcp.json `mcpServers.hcp` (hosts/claude.json5, copilot.json5, qoder.json5; seen
// with each program, test/hosts/HOST-PROBES.md). adopt writes the entry once, every host
// records it, a removal in any order restores the file byte for byte, and a host never
// replaces the entry another host placed with a different one.
import { describe, expect, it } from "vitest";
import { scratch as scratchChild, snapshot } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here; the real processes stay where the process is the subject */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

const USERS =
  '{\n  "mcpServers": {\n    "mine": { "command": "mine-server", "args": ["--x"] }\n  },\n  "other": true\n}\n';
const HOSTS = ["claude", "copilot", "qoder"];
const rotations = HOSTS.map((_, i) => [...HOSTS.slice(i), ...HOSTS.slice(0, i)]);

describe("adopt: one .mcp.json entry for Claude Code, Copilot CLI and Qoder", () => {
  for (const pre of [undefined, USERS]) {
    it(`adopted in one run, removed one host at a time in every rotation: the project is as before (${pre ? "the user's .mcp.json" : "no .mcp.json"})`, async () => {
      for (const order of rotations) {
        const s = scratch({ packs: ["ledger"] });
        if (pre) s.write(".mcp.json", pre);
        const before = snapshot(s.dir);
        const w = await s.adopt(...HOSTS, "--write");
        expect(w.code, w.stderr).toBe(0);
        const mcp = JSON.parse(s.read(".mcp.json")) as { mcpServers: Record<string, unknown> };
        expect(Object.keys(mcp.mcpServers)).toEqual(pre ? ["mine", "hcp"] : ["hcp"]);
        const ledger = JSON.parse(s.read(".hcp/adopted.json")) as {
          hosts: Record<string, { entries: { path: string; key?: string[]; created: boolean }[] }>;
        };
        for (const h of HOSTS) {
          const e = ledger.hosts[h]!.entries.find((x) => x.path === ".mcp.json");
          // every host that reads the entry records it, with what the first host knew about the file
          expect(e, h).toMatchObject({ key: ["mcpServers", "hcp"], created: !pre });
        }
        for (const h of HOSTS) expect((await s.adopt(h, "--check")).code, h).toBe(0);
        for (const h of order) {
          const r = await s.adopt(h, "--remove", "--write");
          expect(r.code, r.stderr).toBe(0);
          expect(r.stdout + r.stderr).not.toMatch(/warning/);
        }
        expect(snapshot(s.dir), order.join(" then ")).toEqual(before);
      }
    });
  }

  it("adopted in separate runs (claude, then copilot, then qoder) and removed in the same order: as before", async () => {
    const s = scratch({ packs: ["ledger"] });
    s.write(".mcp.json", USERS);
    const before = snapshot(s.dir);
    for (const h of HOSTS) expect((await s.adopt(h, "--write")).code, h).toBe(0);
    const once = s.read(".mcp.json");
    for (const h of HOSTS) expect((await s.adopt(h, "--write")).code, h).toBe(0);
    expect(s.read(".mcp.json")).toBe(once);
    for (const h of HOSTS) expect((await s.adopt(h, "--remove", "--write")).code, h).toBe(0);
    expect(snapshot(s.dir)).toEqual(before);
  });

  it("copilot would write a different entry than the one claude placed (another --command): refused, naming the file, the line and both hosts; nothing written", async () => {
    const s = scratch({ packs: ["ledger"], hcpxOnPath: true });
    expect((await s.adopt("claude", "--write", "--command", "hcpx mcp")).code).toBe(0);
    const mid = snapshot(s.dir);
    const r = await s.adopt("copilot", "--write", "--json", "--command", "env HCPX_DEBUG=1 hcpx mcp");
    expect(r.code).not.toBe(0);
    const env = JSON.parse(r.stdout) as {
      ok: boolean;
      error: { code: string; message: string; hint: string; details?: unknown };
    };
    expect(env.ok).toBe(false);
    expect(env.error).toMatchObject({ code: "host_conflict", file: ".mcp.json", line: 3 });
    expect(env.error.message).toMatch(/claude's .*copilot would write a different one/);
    expect(env.error.hint).toMatch(/hcpx adopt claude copilot --write/);
    expect(snapshot(s.dir)).toEqual(mid);
    // the same command for both: one entry, both in sync
    expect((await s.adopt("copilot", "--write", "--command", "hcpx mcp")).code).toBe(0);
    const c = await s.adopt("claude", "copilot", "--check", "--use-recorded-command");
    expect(c.code, c.stdout).toBe(0);
  });
});

describe("adopt: one AGENTS.md block for hosts whose shells differ (Droid and Kilo run `hcpx exec`, Auggie's shell cannot)", () => {
  it("adopted one at a time: the block Auggie's adopt rewrites is recorded for every host; a group --write changes no byte; a removal in any order gives AGENTS.md back without a 'changed since' warning", async () => {
    const order = ["auggie", "droid", "kilo"];
    const s = scratch({ packs: ["ledger"] });
    s.write("AGENTS.md", "# Agents\n\nThe user's notes.\n");
    const before = snapshot(s.dir);
    for (const h of ["droid", "kilo"]) expect((await s.adopt(h, "--write")).code).toBe(0);
    expect(s.read("AGENTS.md")).toContain("hcpx.cjs exec");
    expect((await s.adopt("auggie", "--write")).code).toBe(0);
    // Auggie reads AGENTS.md too and its shell cannot run the route: the one block no longer offers it
    expect(s.read("AGENTS.md")).not.toContain("hcpx.cjs exec");
    const ledger = JSON.parse(s.read(".hcp/adopted.json")) as {
      hosts: Record<string, { entries: { path: string; kind: string; sha256: string }[] }>;
    };
    const shas = ["droid", "kilo", "auggie"].map(
      (h) => ledger.hosts[h]!.entries.find((e) => e.path === "AGENTS.md")!.sha256,
    );
    expect(new Set(shas).size, JSON.stringify(shas)).toBe(1);
    const mid = snapshot(s.dir);
    expect((await s.adopt("droid", "kilo", "auggie", "--write")).code).toBe(0);
    expect(snapshot(s.dir)).toEqual(mid);
    for (const h of order) {
      const r = await s.adopt(h, "--remove", "--write");
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr, h).not.toMatch(/warning/);
    }
    expect(snapshot(s.dir)).toEqual(before);
  });
});

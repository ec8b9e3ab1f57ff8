// Issue 26 §2, beyond Claude Code: every host with an MCP entry in both scopes
// names its user-scope server apart from the project's (descriptor `servers`),
// so the two entries coexist (no "conflicting scopes", the project's entry does
// not hide the user's packs), and every rule of the user scope names the user's
// server: `mcp__hcp-user__…`, `mcp_hcp-user_…`, `hcp-user:…`, `…_hcp-user`.
// status says which server each adopted host's scope is served by.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listHosts, loadDescriptor, type Target } from "../../src/host/descriptor";
import { writeUserConfig } from "../support/userconfig";
import { scratch as scratchChild } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

const entryOf = (scope: "project" | "user", h: string) => loadDescriptor(h).scopes[scope]?.targets.find((t) => t.entry);
const both = listHosts().filter((h) => entryOf("project", h) && entryOf("user", h));

/** Every rule pattern of a target, as strings (object rules: their string fields). */
function patterns(t: Target): string[] {
  const rule = (r: unknown): string[] =>
    typeof r === "string" ? [r] : r && typeof r === "object" ? Object.values(r).flatMap(rule) : [];
  return [
    ...Object.values(t.items ?? {}).flatMap((l) => (l ?? []).flatMap(rule)),
    ...(t.members ? [t.members.pattern, ...(t.members.always ?? [])] : []),
  ];
}
/** The server names a pattern holds (the served tool `hcp__read_skill` and `hcpx` are not server names). */
const serverWords = (p: string) =>
  [...p.replaceAll("hcp__read_skill", "\0").matchAll(/(?<=^|[_:])(hcp(?:-[a-z]+)?)(?=[_:]|$)/g)].map((m) => m[1]);

describe("per-scope server names", () => {
  it("there are many hosts with both scopes", () => expect(both.length).toBeGreaterThan(10));
  for (const h of both) {
    it(`${h}: the user-scope server is named apart, and its rules name it`, () => {
      const p = entryOf("project", h)!.key!.at(-1);
      const u = entryOf("user", h)!.key!.at(-1);
      expect(u).not.toBe(p);
      for (const t of loadDescriptor(h).scopes.user!.targets)
        for (const pat of patterns(t)) for (const w of serverWords(pat)) expect(w, `${h} ${t.id}: ${pat}`).toBe(u);
      for (const t of loadDescriptor(h).scopes.project!.targets)
        for (const pat of patterns(t)) for (const w of serverWords(pat)) expect(w, `${h} ${t.id}: ${pat}`).toBe(p);
    });
  }

  it(
    "the user-scope prompt block names the server the model sees there (hcp-user), the project's names hcp",
    { timeout: 60_000 },
    async () => {
      const s = scratch();
      writeUserConfig(s.home, {
        packs: [join(s.dir, "packs/notes")],
        grants: { allow: ["notes.*"], deny: [] },
        sandbox: { roots: [s.dir], cwd: s.dir, bins: {} },
      });
      expect((await s.adopt("claude", "--write")).code).toBe(0);
      const u = await s.adopt("claude", "--scope", "user", "--write");
      expect(u.code, u.stderr + u.stdout).toBe(0);
      const userBlock = readFileSync(join(s.home, ".claude/CLAUDE.md"), "utf8");
      expect(userBlock).toMatch(/tool of the hcp-user MCP server/);
      expect(userBlock).not.toMatch(/the hcp MCP (server|entry)/);
      expect(userBlock).not.toContain("${server}");
      if (/is not on PATH here/.test(userBlock)) expect(userBlock).toMatch(/the command the hcp-user MCP entry runs/);
      expect(s.read("CLAUDE.md")).toMatch(/tool of the hcp MCP server/);
    },
  );

  it(
    "Cursor and Auggie in both scopes: two entries side by side, the user's rules on hcp-user; status names the server per scope",
    { timeout: 90_000 },
    async () => {
      const s = scratch();
      writeUserConfig(s.home, {
        packs: [join(s.dir, "packs/notes")],
        grants: { allow: ["notes.*"], deny: [] },
        sandbox: { roots: [s.dir], cwd: s.dir, bins: {} },
      });
      for (const h of ["cursor", "auggie"]) {
        const a = await s.adopt(h, "--write");
        expect(a.code, a.stderr + a.stdout).toBe(0);
        const u = await s.adopt(h, "--scope", "user", "--write");
        expect(u.code, u.stderr + u.stdout).toBe(0);
      }
      expect(Object.keys(JSON.parse(s.read(".cursor/mcp.json")).mcpServers)).toEqual(["hcp"]);
      expect(Object.keys(JSON.parse(readFileSync(join(s.home, ".cursor/mcp.json"), "utf8")).mcpServers)).toEqual([
        "hcp-user",
      ]);
      const allow = JSON.parse(readFileSync(join(s.home, ".cursor/permissions.json"), "utf8")).mcpAllowlist as string[];
      expect(allow).toContain("hcp-user:notes__list");
      expect(allow).toContain("hcp-user:hcp__read_skill");
      const aug = readFileSync(join(s.home, ".augment/settings.json"), "utf8");
      expect(aug).toContain('"hcp__read_skill_hcp-user"');
      expect(aug).toContain('"notes__list_hcp-user"');
      expect(aug).not.toMatch(/_hcp"/);
      const st = JSON.parse((await s.run(["status", "--json"])).stdout).data;
      const row = (h: string, scope: string) =>
        st.hosts.find((x: { host: string; scope: string }) => x.host === h && x.scope === scope);
      expect(row("cursor", "project").server).toBe("hcp");
      expect(row("cursor", "user").server).toBe("hcp-user");
      const text = (await s.run(["status"])).stdout;
      expect(text).toMatch(/cursor\s+user\s+hcp-user\s/);
    },
  );
});

// Issue 26 §4: hints that are safe to follow, host gates that are explained,
// hand edits that stay. `adopt all --check` names exactly the hosts it checked
// in its hint; `all --write` where hosts are adopted already (it would add every
// other host) is refused and writes nothing; every host's approval gate or what
// a gated write relies on there (descriptor gate.person) is said by adopt; a
// hand edit in hcpx's own block or file survives a re-adopt until --force.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listHosts, loadDescriptor } from "../../src/host/descriptor";
import { scratch as scratchChild, snapshot } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here; the real processes stay where the process is the subject */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

const json = (r: { stdout: string }) =>
  JSON.parse(r.stdout) as {
    ok: boolean;
    data?: Record<string, unknown>;
    error?: { code: string; message: string; hint?: string };
  };

function dropTransit(dir: string): void {
  const cfg = join(dir, "hcp.config.json5");
  writeFileSync(
    cfg,
    readFileSync(cfg, "utf8")
      .replace('"./packs/transit"', "")
      .replace(/,\s*\]/, "]"),
  );
}

describe("hints that are safe to follow", () => {
  it("`adopt all --check` hints at exactly the hosts it checked, never `all`", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "cursor", "--write")).code).toBe(0);
    dropTransit(s.dir);
    const r = await s.adopt("all", "--check", "--json");
    expect(r.code).toBe(1);
    expect(json(r).error!.hint).toBe("run `hcpx adopt claude cursor --write`");
    const text = await s.adopt("all", "--check");
    expect(text.stdout).toContain("run `hcpx adopt claude cursor --write`");
    expect(text.stdout).not.toContain("adopt all --write");
  });

  it("`adopt all --write` where hosts are adopted: refused (it would add every other host), nothing written", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    const before = snapshot(s.dir);
    const r = await s.adopt("all", "--write", "--json");
    expect(r.code).toBe(64);
    expect(json(r).error).toMatchObject({ code: "all_adds_hosts" });
    expect(json(r).error!.hint).toContain("hcpx adopt claude --write");
    expect(snapshot(s.dir)).toEqual(before);
  });
});

describe("host gates explained", () => {
  it(
    "adopt says, for every host and scope, how the person approves the server or what a gated write relies on",
    { timeout: 120_000 },
    async () => {
      const s = scratch();
      for (const host of listHosts()) {
        const d = loadDescriptor(host);
        // every scope the host has says it (Claude Desktop has only a user scope)
        for (const scope of ["project", "user"] as const)
          if (d.scopes[scope])
            expect(d.gate?.person?.[scope], `${host}: hosts/${host}.json5 gate.person.${scope}`).toBeTruthy();
        if (!d.scopes.project) continue;
        const said = d.gate?.person?.project;
        const r = await s.adopt(host, "--json");
        expect(r.code, r.stderr + r.stdout).toBe(0);
        expect(json(r).data!.notes, host).toContain(`${d.name}: ${said}`);
      }
      const notes = async (host: string) =>
        ((json(await s.adopt(host, "--json")).data!.notes as string[]) ?? []).join("\n");
      expect(await notes("claude")).toContain("Pending approval");
      expect(await notes("qwen")).toContain("qwen mcp approve hcp");
      expect(await notes("copilot")).toContain("trusted_folders");
      expect(await notes("codex")).toContain("trust");
      for (const h of ["vscode", "windsurf"]) expect(await notes(h)).toMatch(/a gated write relies on hcpx's confirm/);
      // Cursor got an MCP allow-list of the reads (issue 27): its own prompt asks for a gated write
      expect(await notes("cursor")).toMatch(/gated writes are not, so Cursor asks before each/);
    },
  );
});

describe("a hand edit in hcpx's own block or file stays until --force", () => {
  it("re-adopt keeps the edited block and Skill copy (a warning; --check shows it); --force replaces them", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    s.write("CLAUDE.md", s.read("CLAUDE.md").replace("### ledger", "### ledger (my note: ask before any transfer)"));
    s.write(".claude/skills/ledger/SKILL.md", s.read(".claude/skills/ledger/SKILL.md") + "\nMy own line.\n");
    dropTransit(s.dir); // the projection changes: the block would be rewritten
    const w = await s.adopt("claude", "--write");
    expect(w.code, w.stderr + w.stdout).toBe(0);
    expect(w.stdout).toMatch(/warning: CLAUDE\.md: the hcp block was edited since hcpx wrote it: kept/);
    expect(s.read("CLAUDE.md")).toContain("my note: ask before any transfer");
    expect(s.read(".claude/skills/ledger/SKILL.md")).toContain("My own line.");
    expect(existsSync(join(s.dir, ".claude/skills/transit"))).toBe(false); // the rest of the plan is applied
    expect((await s.adopt("claude", "--check")).code).toBe(1);
    const f = await s.adopt("claude", "--write", "--force");
    expect(f.code, f.stderr).toBe(0);
    expect(s.read("CLAUDE.md")).not.toContain("my note");
    expect(s.read("CLAUDE.md")).not.toContain("### transit");
    expect(s.read(".claude/skills/ledger/SKILL.md")).not.toContain("My own line.");
    expect((await s.adopt("claude", "--check")).code).toBe(0);
  });
});

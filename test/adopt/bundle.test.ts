// `hcpx generate --as claude-plugin|gemini-extension DIR` and the host previews
// of `hcpx generate`. With the hosts' CLIs installed (scripts/install-hosts.sh),
// the bundles are also checked by `claude plugin validate` / `gemini extensions validate`.
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { tmp } from "../support/hcpx";
import { scratch as scratchChild, snapshot } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here; the real processes stay where the process is the subject */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

// the host programs the hosts suite installs, as npm test's config names them (test/support/suite-setup.ts)
const HOSTS_BIN = join(process.env.HCPX_HOSTS_DIR!, "node_modules", ".bin");

function skillsOk(dir: string): void {
  for (const name of readdirSync(join(dir, "skills"))) {
    const t = readFileSync(join(dir, "skills", name, "SKILL.md"), "utf8");
    const fm = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(t)![1]!) as { name: string; description: string };
    expect(fm.name).toBe(name); // Agent Skills: name equals the directory
    expect(fm.description.length).toBeGreaterThan(0);
    expect(fm.description.length).toBeLessThanOrEqual(1024);
  }
}

describe("generate --as", () => {
  it("claude-plugin: .claude-plugin/plugin.json (kebab name, version string, hcp MCP server), skills incl. the prompt block", async () => {
    const s = scratch();
    const dir = join(tmp("hcpx-bundle-"), "hcp-packs");
    const r = await s.run(["generate", "--as", "claude-plugin", dir]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const m = JSON.parse(readFileSync(join(dir, ".claude-plugin", "plugin.json"), "utf8"));
    expect(m.name).toBe("hcp-packs");
    expect(typeof m.version).toBe("string");
    expect(m.mcpServers.hcp).toEqual({ command: "hcpx", args: ["mcp"] });
    expect(readdirSync(join(dir, "skills")).sort()).toEqual(["hcp", "ledger", "transit"]);
    expect(readFileSync(join(dir, "skills", "hcp", "SKILL.md"), "utf8")).toContain("<!-- hcp:prompt sha256:");
    skillsOk(dir);
    const snap = snapshot(dir, { mtimes: true });
    expect((await s.run(["generate", "--as", "claude-plugin", dir])).code).toBe(0);
    expect(snapshot(dir, { mtimes: true })).toEqual(snap); // idempotent
    expect((await s.run(["generate", "--as", "claude-plugin", dir, "--check"])).code).toBe(0);
    if (existsSync(join(HOSTS_BIN, "claude"))) {
      const v = spawnSync(join(HOSTS_BIN, "claude"), ["plugin", "validate", dir], {
        env: { ...process.env, HOME: s.home },
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(v.stdout + v.stderr).toContain("Validation passed");
      expect(v.status).toBe(0);
    }
  });

  it("gemini-extension: gemini-extension.json named like its directory, contextFileName GEMINI.md, skills", async () => {
    const s = scratch();
    const dir = join(tmp("hcpx-bundle-"), "hcp-ext");
    const r = await s.run(["generate", "--as", "gemini-extension", dir]);
    expect(r.code).toBe(0);
    const m = JSON.parse(readFileSync(join(dir, "gemini-extension.json"), "utf8"));
    expect(m).toMatchObject({
      name: "hcp-ext",
      version: "1.0.0",
      contextFileName: "GEMINI.md",
      mcpServers: { hcp: { command: "hcpx", args: ["mcp"] } },
    });
    expect(readFileSync(join(dir, "GEMINI.md"), "utf8")).toMatch(/^<!-- hcp:prompt sha256:[0-9a-f]{16} -->/);
    skillsOk(dir);
    if (existsSync(join(HOSTS_BIN, "gemini"))) {
      const v = spawnSync(join(HOSTS_BIN, "gemini"), ["extensions", "validate", dir], {
        env: { ...process.env, HOME: s.home },
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(v.status).toBe(0);
    }
  });

  it("refuses a directory name that is not kebab-case, and a non-empty directory that is not a bundle", async () => {
    const s = scratch();
    const bad = await s.run(["generate", "--as", "gemini-extension", join(tmp("hcpx-bundle-"), "Bad_Name"), "--json"]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).error).toMatchObject({ code: "bad_args", file: expect.stringMatching(/Bad_Name$/) });
    expect(JSON.parse(bad.stdout).error.message).toMatch(/'Bad_Name' is not kebab-case/);
    const full = join(tmp("hcpx-bundle-"), "full");
    mkdirSync(full);
    writeFileSync(join(full, "x.txt"), "mine\n");
    const r = await s.run(["generate", "--as", "claude-plugin", full, "--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: "not_ours", file: full });
    expect(JSON.parse(r.stdout).error.message).toMatch(/is not empty and holds no \.claude-plugin\/plugin\.json/);
  });

  it("a withheld pack's Skill is removed on the next run; --check reports it until then; a Skill someone changed is left in place (theirs from then on)", async () => {
    const s = scratch();
    const dir = join(tmp("hcpx-bundle-"), "hcp-packs");
    expect((await s.run(["generate", "--as", "claude-plugin", dir])).code).toBe(0);
    expect(readdirSync(join(dir, "skills")).sort()).toEqual(["hcp", "ledger", "transit"]);
    // withhold transit: no grant for it any more
    const cfgFile = join(s.dir, "hcp.config.json5");
    const cfg = JSON.parse(readFileSync(cfgFile, "utf8"));
    cfg.grants.allow = cfg.grants.allow.filter((g: string) => g !== "transit.*");
    writeFileSync(cfgFile, JSON.stringify(cfg));
    const check = await s.run(["generate", "--as", "claude-plugin", dir, "--check", "--json"]);
    expect(check.code).toBe(1);
    expect(JSON.parse(check.stdout).data.differ).toContain("skills/transit/SKILL.md");
    const r = await s.run(["generate", "--as", "claude-plugin", dir, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).data.removed).toEqual(["skills/transit/SKILL.md"]);
    expect(readdirSync(join(dir, "skills")).sort()).toEqual(["hcp", "ledger"]);
    expect((await s.run(["generate", "--as", "claude-plugin", dir, "--check"])).code).toBe(0);
    // withhold ledger too, after someone edited its Skill: --check names it; the write leaves it in place, with a warning
    writeFileSync(join(dir, "skills", "ledger", "SKILL.md"), "edited\n");
    cfg.grants.allow = [];
    writeFileSync(cfgFile, JSON.stringify(cfg));
    const c2 = await s.run(["generate", "--as", "claude-plugin", dir, "--check", "--json"]);
    expect(c2.code).toBe(1);
    expect(JSON.parse(c2.stdout).data.drift).toContainEqual(expect.objectContaining({ kind: "foreign" }));
    const kept = await s.run(["generate", "--as", "claude-plugin", dir, "--json"]);
    expect(kept.code, kept.stderr).toBe(0);
    expect(JSON.parse(kept.stdout).data.conflicts).toEqual([
      expect.objectContaining({ code: "changed_by_user", file: expect.stringMatching(/skills\/ledger\/SKILL\.md$/) }),
    ]);
    expect(readFileSync(join(dir, "skills", "ledger", "SKILL.md"), "utf8")).toBe("edited\n");
    expect((await s.run(["generate", "--as", "claude-plugin", dir, "--check"])).code).toBe(0);
  });

  it("its manifest is read back untrusted: an entry naming a file outside DIR (with that file's hash) deletes nothing and warns", async () => {
    const s = scratch();
    const parent = tmp("hcpx-bundle-");
    const dir = join(parent, "hcp-packs");
    expect((await s.run(["generate", "--as", "claude-plugin", dir])).code).toBe(0);
    writeFileSync(join(parent, "victim.txt"), "victim\n");
    const m = JSON.parse(readFileSync(join(dir, ".hcpx-manifest.json"), "utf8"));
    m.files["../victim.txt"] = createHash("sha256").update("victim\n").digest("hex");
    writeFileSync(join(dir, ".hcpx-manifest.json"), JSON.stringify(m));
    expect((await s.run(["generate", "--as", "claude-plugin", dir, "--check"])).code).toBe(1);
    const r = await s.run(["generate", "--as", "claude-plugin", dir, "--json"]);
    expect(r.code).toBe(0);
    const [ignored, ...more] = (JSON.parse(r.stdout) as { data: { warnings: { [k: string]: string }[] } }).data
      .warnings;
    expect(more).toEqual([]);
    expect(ignored).toMatchObject({
      code: "manifest_entry_ignored",
      file: expect.stringMatching(/\.hcpx-manifest\.json$/),
      path: 'files["../victim.txt"]',
    });
    expect(ignored!.message).toMatch(/ignored: never read or deleted/);
    expect(readFileSync(join(parent, "victim.txt"), "utf8")).toBe("victim\n");
  });

  it("writes nothing through a symlink out of DIR (a bundle's skills/ linked elsewhere)", async () => {
    const s = scratch();
    const dir = join(tmp("hcpx-bundle-"), "hcp-packs");
    expect((await s.run(["generate", "--as", "claude-plugin", dir])).code).toBe(0);
    const outside = tmp("hcpx-outside-");
    rmSync(join(dir, "skills"), { recursive: true });
    symlinkSync(outside, join(dir, "skills"));
    const r = await s.run(["generate", "--as", "claude-plugin", dir, "--json"]);
    expect(snapshot(outside)).toEqual({});
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({
      code: "symlink_refused",
      file: expect.stringMatching(/skills\/\S+\/SKILL\.md$/),
    });
    expect(JSON.parse(r.stdout).error.message).toMatch(/is a symlink leading outside the bundle directory/);
  });
});

describe("host previews of generate", () => {
  it("hosts/claude and hosts/cursor hold the host files adopt would create, with the portable `hcpx mcp`; Skill copies only once, in skills/", async () => {
    const s = scratch();
    const r = await s.run(["generate"]);
    expect(r.code).toBe(0);
    const gen = join(s.dir, ".hcp", "generated", "hosts");
    expect(JSON.parse(readFileSync(join(gen, "claude", ".mcp.json"), "utf8"))).toEqual({
      mcpServers: { hcp: { type: "stdio", command: "hcpx", args: ["mcp", "--shape", "per-command"] } },
    });
    expect(readFileSync(join(gen, "claude", "CLAUDE.md"), "utf8")).toMatch(/^<!-- hcp:begin -->\n/);
    expect(existsSync(join(gen, "cursor", ".cursor", "rules", "hcp.mdc"))).toBe(true);
    // no per-host copy of the Skills: adopt writes exactly generate's skills/ bytes
    expect(existsSync(join(gen, "cursor", ".cursor", "skills"))).toBe(false);
    expect(existsSync(join(gen, "claude", ".claude", "skills"))).toBe(false);
    expect(r.stdout).toContain("adopt places in the host's skills dir");
    const a = await s.run(["adopt", "claude", "cursor", "--write"]);
    expect(a.code, a.stderr).toBe(0);
    const copy = readFileSync(join(s.dir, ".hcp", "generated", "skills", "ledger", "SKILL.md"), "utf8");
    expect(readFileSync(join(s.dir, ".claude", "skills", "ledger", "SKILL.md"), "utf8")).toBe(copy);
    expect(readFileSync(join(s.dir, ".cursor", "skills", "ledger", "SKILL.md"), "utf8")).toBe(copy);
  });
});

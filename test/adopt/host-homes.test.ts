// A host whose user files move with an environment variable (descriptor `homes`): Claude Code
// reads $CLAUDE_CONFIG_DIR (settings.json, CLAUDE.md, skills/ and .claude.json) instead of
// ~/.claude and ~/.claude.json, Codex $CODEX_HOME instead of ~/.codex, Gemini CLI
// $GEMINI_CLI_HOME/.gemini, opencode, Kilo and Amp $XDG_CONFIG_HOME instead of ~/.config (each
// seen with the host's own program: docs/host-descriptors.md). adopt reads the variable from its
// own environment (the person's shell): it writes, checks and detects where the host reads, and
// refuses a value it cannot use, saying which variable and what to do.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { inProcess } from "../support/inproc";
import { tmp } from "../support/project";
import type { Problem } from "../../src/util/errors";
import { scratch as scratchChild, userConfigFromProject } from "./helpers";

const scratch = () => inProcess(scratchChild());

function userScratch() {
  const s = scratch();
  userConfigFromProject(s);
  return s;
}

/** The user-scope entry of a Codex config.toml. */
const codexEntry = (file: string) =>
  (parseToml(readFileSync(file, "utf8")) as { mcp_servers: Record<string, { env_vars?: string[] }> }).mcp_servers[
    "hcp-user"
  ]!;
const json = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("a host home moved by an environment variable", () => {
  it("Claude Code at user scope: settings, skills, CLAUDE.md and .claude.json go under $CLAUDE_CONFIG_DIR, none under ~/.claude", async () => {
    const s = userScratch();
    const cfg = join(s.home, "claude-work");
    const env = { CLAUDE_CONFIG_DIR: cfg };
    const w = await s.run(["adopt", "claude", "--scope", "user", "--write"], env);
    expect(w.code, w.stderr + w.stdout).toBe(0);
    expect(json(join(cfg, ".claude.json")).mcpServers["hcp-user"].args).toContain("mcp");
    expect(json(join(cfg, "settings.json")).permissions.ask.length).toBeGreaterThan(0);
    expect(readFileSync(join(cfg, "CLAUDE.md"), "utf8")).toContain("<!-- hcp:begin -->");
    expect(existsSync(join(s.home, ".claude.json"))).toBe(false);
    expect(existsSync(join(s.home, ".claude"))).toBe(false);
    // the plan says where the files went, and why
    expect(w.stdout + w.stderr).toMatch(/CLAUDE_CONFIG_DIR/);
    // in sync with the variable; taken out byte for byte with it
    expect((await s.run(["adopt", "claude", "--scope", "user", "--check"], env)).code).toBe(0);
    const r = await s.run(["adopt", "claude", "--scope", "user", "--remove", "--write"], env);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(cfg, ".claude.json"))).toBe(false);
  }, 60_000);

  it("--check is not 'in sync' when the host reads another home than the one adopt wrote", async () => {
    const s = userScratch();
    expect((await s.run(["adopt", "claude", "--scope", "user", "--write"])).code).toBe(0);
    expect((await s.run(["adopt", "claude", "--scope", "user", "--check"])).code).toBe(0);
    // the person now runs Claude Code with its config elsewhere: nothing of hcpx's is there
    const c = await s.run(["adopt", "claude", "--scope", "user", "--check"], {
      CLAUDE_CONFIG_DIR: join(s.home, "claude-work"),
    });
    expect(c.code, c.stdout).toBe(1);
  }, 60_000);

  it("Codex at user scope: $CODEX_HOME/config.toml, whose entry forwards CODEX_HOME (Codex passes its servers a short list)", async () => {
    const s = userScratch();
    const cx = join(s.home, "codex-home");
    mkdirSync(cx);
    const w = await s.run(["adopt", "codex", "--scope", "user", "--write"], { CODEX_HOME: cx });
    expect(w.code, w.stderr + w.stdout).toBe(0);
    expect(codexEntry(join(cx, "config.toml")).env_vars).toContain("CODEX_HOME");
    expect(readFileSync(join(cx, "AGENTS.md"), "utf8")).toContain("<!-- hcp:begin -->");
    expect(existsSync(join(s.home, ".codex"))).toBe(false);
    // without the variable too: the server must learn whether Codex has one
    const d = await s.run(["adopt", "codex", "--scope", "user", "--write"]);
    expect(d.code, d.stderr).toBe(0);
    expect(codexEntry(join(s.home, ".codex", "config.toml")).env_vars).toContain("CODEX_HOME");
  }, 60_000);

  it("a relative value, or one outside $HOME at user scope, is refused: which variable, where, what to do", async () => {
    const s = userScratch();
    const rel = await s.run(["adopt", "claude", "--scope", "user", "--write", "--json"], {
      CLAUDE_CONFIG_DIR: "claude-work",
    });
    expect(rel.code).toBe(1);
    const e1 = JSON.parse(rel.stdout).error;
    expect(e1.code).toBe("host_home");
    expect(e1.message).toMatch(/CLAUDE_CONFIG_DIR/);
    expect(e1.message).toMatch(/not an absolute path/);
    expect(e1.hint).toMatch(/absolute/);
    const outside = tmp("hcpx-claude-elsewhere-");
    const out = await s.run(["adopt", "claude", "--scope", "user", "--write", "--json"], {
      CLAUDE_CONFIG_DIR: outside,
    });
    expect(out.code).toBe(1);
    const e2 = JSON.parse(out.stdout).error;
    expect(e2.code).toBe("host_home");
    expect(e2.message).toContain(outside);
    expect(e2.message).toMatch(/outside your home/);
    expect(existsSync(join(outside, ".claude.json"))).toBe(false);
    expect(existsSync(join(s.home, ".claude.json"))).toBe(false);
  }, 60_000);

  it("project scope: the health checks read the host's files in the moved home (a server the person disabled there)", async () => {
    const s = scratch();
    const cfg = join(s.home, "claude-work");
    mkdirSync(cfg, { recursive: true });
    writeFileSync(join(cfg, "settings.json"), JSON.stringify({ disabledMcpjsonServers: ["hcp"] }));
    const env = { CLAUDE_CONFIG_DIR: cfg };
    expect((await s.run(["adopt", "claude", "--write"], env)).code).toBe(0);
    const c = await s.run(["adopt", "claude", "--check", "--json"], env);
    expect(c.stdout).toMatch(/disabledMcpjsonServers/);
    expect(c.stdout).toContain("host_will_not_use");
  }, 60_000);

  it("the health messages name the file in the moved home, not the host's default", async () => {
    const s = scratch();
    const codexHome = join(s.home, "codex-work");
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(join(codexHome, "config.toml"), "# no project trusted here\n");
    const env = { CODEX_HOME: codexHome };
    expect((await s.run(["adopt", "codex", "--write"], env)).code).toBe(0);
    const c = await s.run(["adopt", "codex", "--check", "--json"], env);
    expect(c.code).toBe(1);
    // the trust check read $CODEX_HOME/config.toml: its message, hint, file and the notes say so
    const trust = (JSON.parse(c.stdout) as { error: { details: { health: Problem[] } } }).error.details.health[0]!;
    expect(trust.file).toBe("~/codex-work/config.toml");
    expect(trust.message).toContain("trust_level in ~/codex-work/config.toml");
    expect(trust.hint).toContain("to ~/codex-work/config.toml");
    expect(c.stdout).not.toContain("~/.codex");
  }, 60_000);

  it("--detected at user scope finds a host by its moved home", async () => {
    const s = userScratch();
    const cx = join(s.home, "codex-home");
    mkdirSync(cx);
    const r = await s.run(["adopt", "--detected", "--scope", "user", "--json"], {
      CODEX_HOME: cx,
      PATH: "/usr/bin:/bin",
    });
    expect(r.stdout).toMatch(/"codex"/);
  }, 60_000);
});

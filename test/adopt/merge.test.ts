// adopt merges, never clobbers: for each host, a pre-existing config with other
// servers, other keys and (where the format allows) comments keeps all of it,
// byte for byte outside our entry; `--remove` restores the whole tree.
import { beforeAll, describe, expect, it } from "vitest";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { parse as parseJsonc } from "jsonc-parser/lib/esm/main.js";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../support/hcpx";
import { onlyAdded, scratch, snapshot, userConfigFromProject, type Scratch } from "./helpers";

beforeAll(() => {
  if (!existsSync(join(REPO, "dist", "hcpx.mjs"))) execFileSync(process.execPath, [join(REPO, "scripts", "build.mjs")]);
});

interface HostCase {
  host: string;
  scope?: "user";
  /** pre-existing files: path -> text */
  files: Record<string, string>;
  /** the file holding the MCP entry, and how to read the entry */
  mcp: { path: string; get: (text: string) => Record<string, unknown> | undefined };
  /** things that must survive */
  keep: (s: Scratch) => void;
}

const json = (t: string) => parseJsonc(t) as Record<string, Record<string, Record<string, unknown>>>;

const cases: HostCase[] = [
  {
    host: "claude",
    files: {
      ".mcp.json": '{\n    "mcpServers": {\n        "other": {\n            "command": "other-server",\n            "args": ["--port", "1"]\n        }\n    },\n    "extra": {"keep": true}\n}\n',
      "CLAUDE.md": "# Project\r\n\r\nUse tabs.\r\n",
    },
    mcp: { path: ".mcp.json", get: (t) => json(t).mcpServers?.hcp },
    keep: (s) => {
      const v = JSON.parse(s.read(".mcp.json"));
      expect(v.mcpServers.other).toEqual({ command: "other-server", args: ["--port", "1"] });
      expect(v.extra).toEqual({ keep: true });
      expect(s.read(".mcp.json")).toMatch(/\n {8}"hcp": \{\n {12}"type": "stdio"/); // the file's 4-space indent
      const md = s.read("CLAUDE.md");
      expect(md.startsWith("# Project\r\n\r\nUse tabs.\r\n")).toBe(true);
      expect(md).toContain("<!-- hcp:begin -->\r\n");
      expect(md.replace(/\r\n/g, "")).not.toContain("\n"); // CRLF kept throughout
    },
  },
  {
    host: "cursor",
    files: {
      ".cursor/mcp.json": '{\n  "mcpServers": {\n    "other": { "command": "x", "env": { "A": "1" } }\n  }\n}\n',
      ".cursor/rules/mine.mdc": "---\ndescription: mine\nalwaysApply: false\n---\nmine\n",
    },
    mcp: { path: ".cursor/mcp.json", get: (t) => json(t).mcpServers?.hcp },
    keep: (s) => {
      expect(s.read(".cursor/mcp.json")).toContain('"other": { "command": "x", "env": { "A": "1" } },');
      expect(s.read(".cursor/rules/mine.mdc")).toBe("---\ndescription: mine\nalwaysApply: false\n---\nmine\n");
    },
  },
  {
    host: "codex",
    files: {
      ".codex/config.toml": '# my codex config\nmodel = "o3" # inline comment\n\n[mcp_servers.other]\ncommand = "other"\nargs = ["a"]\n\n[mcp_servers.other.env]\nTOKEN = "x"\n\n[profiles.fast]\nmodel = "mini"\n',
      "AGENTS.md": "# Agents\n\nBe brief.", // no trailing newline
    },
    mcp: { path: ".codex/config.toml", get: (t) => (parseToml(t) as { mcp_servers?: Record<string, Record<string, unknown>> }).mcp_servers?.hcp },
    keep: (s) => {
      const t = s.read(".codex/config.toml");
      expect(t.startsWith('# my codex config\nmodel = "o3" # inline comment\n\n[mcp_servers.other]\ncommand = "other"\nargs = ["a"]\n\n[mcp_servers.other.env]\nTOKEN = "x"\n\n[profiles.fast]\nmodel = "mini"\n')).toBe(true);
      const v = parseToml(t) as { mcp_servers: Record<string, Record<string, unknown>>; profiles: unknown };
      expect(v.mcp_servers.other).toEqual({ command: "other", args: ["a"], env: { TOKEN: "x" } });
      expect(v.mcp_servers.hcp!.env_vars).toEqual(["LEDGER_TOKEN"]); // Codex passes no parent env: binding names forwarded
      expect(s.read("AGENTS.md").startsWith("# Agents\n\nBe brief.\n\n<!-- hcp:begin -->\n")).toBe(true);
    },
  },
  {
    host: "gemini",
    files: {
      ".gemini/settings.json": '{\n  // my theme\n  "theme": "Dracula",\n  "mcpServers": {\n    /* the other one */\n    "other": {\n      "command": "o",\n      "timeout": 5000\n    }\n  }\n}\n',
      "GEMINI.md": "Gemini, please.\n",
    },
    mcp: { path: ".gemini/settings.json", get: (t) => json(t).mcpServers?.hcp },
    keep: (s) => {
      const t = s.read(".gemini/settings.json");
      expect(t).toContain("// my theme");
      expect(t).toContain("/* the other one */");
      expect(t).not.toMatch(/,\s*[}\]]/); // Gemini: a trailing comma is fatal
      expect(json(t).mcpServers!.other).toEqual({ command: "o", timeout: 5000 });
    },
  },
  {
    host: "vscode",
    files: {
      ".vscode/mcp.json": '// workspace servers\n{\n\t"inputs": [],\n\t"servers": {\n\t\t"other": {\n\t\t\t"type": "stdio",\n\t\t\t"command": "o", // why not\n\t\t},\n\t},\n}\n',
      ".github/copilot-instructions.md": "Prefer small PRs.\n",
    },
    mcp: { path: ".vscode/mcp.json", get: (t) => json(t).servers?.hcp },
    keep: (s) => {
      const t = s.read(".vscode/mcp.json");
      expect(t).toContain("// workspace servers");
      expect(t).toContain('"command": "o", // why not');
      expect(t).toMatch(/\n\t\t"hcp": \{\n\t\t\t"type": "stdio"/); // tabs kept
      const v = json(t);
      expect(v.inputs).toEqual([]);
      expect(v.servers!.other).toEqual({ type: "stdio", command: "o" });
      expect(v.servers!.hcp!.type).toBe("stdio"); // documented: key `servers`, type "stdio" required
      expect(v.mcpServers).toBeUndefined();
    },
  },
  {
    host: "windsurf",
    scope: "user",
    files: {
      "~/.codeium/windsurf/mcp_config.json": '{\n  "mcpServers": {\n    "other": {\n      "command": "o",\n      "disabled": true\n    }\n  }\n}',
      "~/.codeium/windsurf/memories/global_rules.md": "Always answer in English.\n",
    },
    mcp: { path: "~/.codeium/windsurf/mcp_config.json", get: (t) => json(t).mcpServers?.hcp },
    keep: (s) => {
      const v = JSON.parse(s.read("~/.codeium/windsurf/mcp_config.json"));
      expect(v.mcpServers.other).toEqual({ command: "o", disabled: true });
      expect(Object.keys(v.mcpServers)).toEqual(["other", "hcp"]);
      expect(s.read("~/.codeium/windsurf/memories/global_rules.md").startsWith("Always answer in English.\n")).toBe(true);
    },
  },
  {
    host: "opencode",
    files: {
      "opencode.jsonc": '{\n  "$schema": "https://opencode.ai/config.json",\n  // models\n  "model": "anthropic/claude",\n  "mcp": {\n    "other": { "type": "local", "command": ["o"], "enabled": false },\n  },\n}\n',
      "AGENTS.md": "# Rules\n",
    },
    mcp: { path: "opencode.jsonc", get: (t) => json(t).mcp?.hcp },
    keep: (s) => {
      const t = s.read("opencode.jsonc");
      expect(t).toContain("// models");
      expect(json(t).mcp!.other).toEqual({ type: "local", command: ["o"], enabled: false });
      expect(existsSync(join(s.dir, "opencode.json"))).toBe(false); // the existing .jsonc is the target
    },
  },
];

describe("adopt keeps what is not ours, per host", () => {
  for (const c of cases) {
    it(`${c.host}${c.scope ? ` (${c.scope} scope)` : ""}: other servers, keys and comments survive; --remove restores every byte`, async () => {
      const s = scratch();
      for (const [p, t] of Object.entries(c.files)) s.write(p, t);
      if (c.scope) userConfigFromProject(s);
      const before = { proj: snapshot(s.dir), home: snapshot(s.home) };
      const scope = c.scope ? ["--scope", c.scope] : [];

      const w = await s.adopt(c.host, ...scope, "--write");
      expect(w.stderr).toBe("");
      expect(w.code).toBe(0);
      for (const [p, t] of Object.entries(c.files)) {
        const r = onlyAdded(t, s.read(p));
        expect(r.ok, `${p}: lines removed: ${JSON.stringify(r.removed)}`).toBe(true);
      }
      c.keep(s);
      const entry = c.mcp.get(s.read(c.mcp.path));
      expect(entry).toBeDefined();
      expect(JSON.stringify(entry)).toContain(join(REPO, "dist", "hcpx.mjs")); // no hcpx on PATH: absolute, machine-specific
      expect(w.stdout).toMatch(/machine-specific/);

      const check = await s.adopt(c.host, ...scope, "--check");
      expect(check.stdout).toMatch(/in sync/);
      expect(check.code).toBe(0);

      const r = await s.adopt(c.host, ...scope, "--remove", "--write");
      expect(r.code).toBe(0);
      expect(snapshot(s.dir)).toEqual(before.proj);
      expect(snapshot(s.home)).toEqual(before.home);
    });
  }

  it("adopt all on a project that already has every host's files: one call, then --remove restores it", async () => {
    const s = scratch();
    for (const c of cases) if (!c.scope) for (const [p, t] of Object.entries(c.files)) s.write(p, t);
    const before = snapshot(s.dir);
    const w = await s.adopt("all", "--write");
    expect(w.code).toBe(0);
    expect((await s.adopt("all", "--check")).code).toBe(0);
    const r = await s.adopt("all", "--remove", "--write");
    expect(r.code).toBe(0);
    expect(snapshot(s.dir)).toEqual(before);
  });
});

describe("documented shapes", () => {
  it("Cursor .mdc rule: description a string, globs a string, alwaysApply a boolean true", async () => {
    const s = scratch();
    expect((await s.adopt("cursor", "--write")).code).toBe(0);
    const mdc = s.read(".cursor/rules/hcp.mdc");
    const m = /^---\n([\s\S]*?)\n---\n/.exec(mdc)!;
    const fm = parseYaml(m[1]!) as Record<string, unknown>;
    expect(typeof fm.description).toBe("string");
    expect(typeof fm.globs).toBe("string");
    expect(fm.alwaysApply).toBe(true);
    expect(mdc).toContain("<!-- hcp:prompt sha256:");
    const mcp = JSON.parse(s.read(".cursor/mcp.json"));
    expect(Object.keys(mcp)).toEqual(["mcpServers"]);
    expect(mcp.mcpServers.hcp.command).toBe(process.execPath);
    expect(s.read(".cursor/skills/ledger/SKILL.md")).toMatch(/^---\nname: ledger\ndescription: /);
  });

  it("Windsurf rule: trigger always_on and under 6,000 characters; VS Code: servers + type stdio", async () => {
    const s = scratch();
    expect((await s.adopt("windsurf", "vscode", "--write")).code).toBe(0);
    const rule = s.read(".windsurf/rules/hcp.md");
    expect(rule.length).toBeLessThan(6000);
    const fm = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(rule)![1]!) as Record<string, unknown>;
    expect(fm).toEqual({ trigger: "always_on" });
    const vs = JSON.parse(s.read(".vscode/mcp.json"));
    expect(vs.servers.hcp).toEqual({ type: "stdio", command: process.execPath, args: [join(REPO, "dist", "hcpx.mjs"), "mcp"] });
    expect(s.read(".github/skills/transit/SKILL.md")).toMatch(/^---\nname: transit\n/);
  });

  it("opencode: mcp.hcp is type local with one command array, enabled; a new opencode.json holds only it and opencode's own $schema", async () => {
    const s = scratch();
    expect((await s.adopt("opencode", "--write", "--command", "hcpx mcp")).code).toBe(0);
    const oc = JSON.parse(s.read("opencode.json")) as Record<string, unknown>;
    expect(Object.keys(oc)).toEqual(["$schema", "mcp", "permission"]);
    expect(oc).toMatchObject({ $schema: "https://opencode.ai/config.json", mcp: { hcp: { type: "local", command: ["hcpx", "mcp", "--shape", "per-command"], enabled: true } } });
  });

  it("Claude and Gemini: the instruction block sits between the markers and names the host's skills dir", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "gemini", "--write")).code).toBe(0);
    expect(s.read("CLAUDE.md")).toMatch(/^<!-- hcp:begin -->\n<!-- hcp:prompt sha256:[0-9a-f]{16} -->\n[\s\S]*\.claude\/skills\/<pack>\/SKILL\.md[\s\S]*\n<!-- hcp:end -->\n$/);
    expect(s.read("GEMINI.md")).toContain(".gemini/skills/<pack>/SKILL.md");
    expect(JSON.parse(s.read(".gemini/settings.json")).mcpServers.hcp.args.slice(-3)).toEqual(["mcp", "--shape", "per-command"]);
  });
});

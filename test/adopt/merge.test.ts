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
import { HCPX, REPO } from "../support/hcpx";
import { onlyAdded, scratch as scratchChild, snapshot, userConfigFromProject, type Scratch } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here; the real processes stay where the process is the subject */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

beforeAll(() => {
  if (!existsSync(HCPX)) execFileSync(process.execPath, [join(REPO, "scripts", "build.mjs")]);
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
      ".mcp.json":
        '{\n    "mcpServers": {\n        "other": {\n            "command": "other-server",\n            "args": ["--port", "1"]\n        }\n    },\n    "extra": {"keep": true}\n}\n',
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
      ".codex/config.toml":
        '# my codex config\nmodel = "o3" # inline comment\n\n[mcp_servers.other]\ncommand = "other"\nargs = ["a"]\n\n[mcp_servers.other.env]\nTOKEN = "x"\n\n[profiles.fast]\nmodel = "mini"\n',
      "AGENTS.md": "# Agents\n\nBe brief.", // no trailing newline
    },
    mcp: {
      path: ".codex/config.toml",
      get: (t) => (parseToml(t) as { mcp_servers?: Record<string, Record<string, unknown>> }).mcp_servers?.hcp,
    },
    keep: (s) => {
      const t = s.read(".codex/config.toml");
      expect(
        t.startsWith(
          '# my codex config\nmodel = "o3" # inline comment\n\n[mcp_servers.other]\ncommand = "other"\nargs = ["a"]\n\n[mcp_servers.other.env]\nTOKEN = "x"\n\n[profiles.fast]\nmodel = "mini"\n',
        ),
      ).toBe(true);
      const v = parseToml(t) as { mcp_servers: Record<string, Record<string, unknown>>; profiles: unknown };
      expect(v.mcp_servers.other).toEqual({ command: "other", args: ["a"], env: { TOKEN: "x" } });
      expect(v.mcp_servers.hcp!.env_vars).toEqual(["LEDGER_TOKEN"]); // Codex passes no parent env: binding names forwarded
      expect(s.read("AGENTS.md").startsWith("# Agents\n\nBe brief.\n\n<!-- hcp:begin -->\n")).toBe(true);
    },
  },
  {
    host: "gemini",
    files: {
      ".gemini/settings.json":
        '{\n  // my theme\n  "theme": "Dracula",\n  "mcpServers": {\n    /* the other one */\n    "other": {\n      "command": "o",\n      "timeout": 5000\n    }\n  }\n}\n',
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
      ".vscode/mcp.json":
        '// workspace servers\n{\n\t"inputs": [],\n\t"servers": {\n\t\t"other": {\n\t\t\t"type": "stdio",\n\t\t\t"command": "o", // why not\n\t\t},\n\t},\n}\n',
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
      "~/.codeium/windsurf/mcp_config.json":
        '{\n  "mcpServers": {\n    "other": {\n      "command": "o",\n      "disabled": true\n    }\n  }\n}',
      "~/.codeium/windsurf/memories/global_rules.md": "Always answer in English.\n",
    },
    mcp: { path: "~/.codeium/windsurf/mcp_config.json", get: (t) => json(t).mcpServers?.["hcp-user"] },
    keep: (s) => {
      const v = JSON.parse(s.read("~/.codeium/windsurf/mcp_config.json"));
      expect(v.mcpServers.other).toEqual({ command: "o", disabled: true });
      expect(Object.keys(v.mcpServers)).toEqual(["other", "hcp-user"]);
      expect(s.read("~/.codeium/windsurf/memories/global_rules.md").startsWith("Always answer in English.\n")).toBe(
        true,
      );
    },
  },
  {
    host: "opencode",
    files: {
      "opencode.jsonc":
        '{\n  "$schema": "https://opencode.ai/config.json",\n  // models\n  "model": "anthropic/claude",\n  "mcp": {\n    "other": { "type": "local", "command": ["o"], "enabled": false },\n  },\n}\n',
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
  // GitHub Copilot CLI: with no .mcp.json, its own .github/mcp.json (Copilot reads .mcp.json first when there is one)
  {
    host: "copilot",
    files: {
      ".github/mcp.json":
        '{\n  "mcpServers": {\n    "other": { "type": "local", "command": "o", "args": [], "tools": ["*"] }\n  }\n}\n',
      ".github/copilot-instructions.md": "Prefer small PRs.\n",
    },
    mcp: { path: ".github/mcp.json", get: (t) => json(t).mcpServers?.hcp },
    keep: (s) => {
      expect(existsSync(join(s.dir, ".mcp.json")), "the existing .github/mcp.json is the target").toBe(false);
      const v = JSON.parse(s.read(".github/mcp.json"));
      expect(v.mcpServers.other).toEqual({ type: "local", command: "o", args: [], tools: ["*"] });
      expect(v.mcpServers.hcp.type).toBe("stdio");
      expect(s.read(".github/copilot-instructions.md").startsWith("Prefer small PRs.\n")).toBe(true);
    },
  },
  {
    host: "copilot",
    scope: "user",
    files: {
      "~/.copilot/mcp-config.json":
        '{\n  // mine\n  "mcpServers": {\n    "other": { "type": "http", "url": "https://example.test/mcp" }\n  }\n}\n',
      "~/.copilot/config.json": '{ "trusted_folders": ["/somewhere"] }\n',
    },
    mcp: { path: "~/.copilot/mcp-config.json", get: (t) => json(t).mcpServers?.["hcp-user"] },
    keep: (s) => {
      const t = s.read("~/.copilot/mcp-config.json");
      expect(t).toContain("// mine");
      expect(t).not.toMatch(/,\s*[}\]]/);
      expect(json(t).mcpServers!.other).toEqual({ type: "http", url: "https://example.test/mcp" });
      expect(s.read("~/.copilot/config.json")).toBe('{ "trusted_folders": ["/somewhere"] }\n');
      expect(s.read("~/.copilot/copilot-instructions.md")).toContain("<!-- hcp:begin -->");
      expect(s.read("~/.copilot/skills/ledger/SKILL.md")).toMatch(/^---\nname: ledger\n/);
    },
  },
  {
    host: "qwen",
    files: {
      ".qwen/settings.json":
        '{\n  // my model\n  "model": { "name": "qwen3-coder" },\n  "mcpServers": {\n    "other": { "command": "o", "trust": true }\n  }\n}\n',
      "QWEN.md": "# Qwen notes\n",
    },
    mcp: { path: ".qwen/settings.json", get: (t) => json(t).mcpServers?.hcp },
    keep: (s) => {
      const t = s.read(".qwen/settings.json");
      expect(t).toContain("// my model");
      expect(t).not.toMatch(/,\s*[}\]]/); // a trailing comma is fatal (a Gemini CLI fork)
      expect(json(t).mcpServers!.other).toEqual({ command: "o", trust: true });
      expect(json(t).mcpServers!.hcp!.env).toEqual({ LEDGER_TOKEN: "$LEDGER_TOKEN" }); // names the Binding env, as Gemini's
      expect(s.read("QWEN.md").startsWith("# Qwen notes\n")).toBe(true);
      expect(s.read(".qwen/skills/ledger/SKILL.md")).toMatch(/^---\nname: ledger\n/);
    },
  },
  {
    host: "qwen",
    scope: "user",
    files: {
      "~/.qwen/settings.json": '{\n  "mcpServers": {\n    "other": { "httpUrl": "https://example.test/mcp" }\n  }\n}\n',
      "~/.qwen/QWEN.md": "Always be brief.\n",
    },
    mcp: { path: "~/.qwen/settings.json", get: (t) => json(t).mcpServers?.["hcp-user"] },
    keep: (s) => {
      expect(JSON.parse(s.read("~/.qwen/settings.json")).mcpServers.other).toEqual({
        httpUrl: "https://example.test/mcp",
      });
      expect(s.read("~/.qwen/QWEN.md").startsWith("Always be brief.\n")).toBe(true);
    },
  },
  {
    host: "droid",
    files: {
      ".factory/mcp.json":
        '{\n  // team servers\n  "mcpServers": {\n    "other": { "type": "stdio", "command": "o", "disabled": true }\n  }\n}\n',
      "AGENTS.md": "# Agents\n",
    },
    mcp: { path: ".factory/mcp.json", get: (t) => json(t).mcpServers?.hcp },
    keep: (s) => {
      const t = s.read(".factory/mcp.json");
      expect(t).toContain("// team servers");
      expect(t).not.toMatch(/,\s*[}\]]/); // a trailing comma: droid silently reads no servers
      expect(json(t).mcpServers!.other).toEqual({ type: "stdio", command: "o", disabled: true });
      expect(json(t).mcpServers!.hcp!.type).toBe("stdio");
      expect(s.read(".agents/skills/ledger/SKILL.md")).toMatch(/^---\nname: ledger\n/);
    },
  },
  {
    host: "droid",
    scope: "user",
    files: {
      "~/.factory/mcp.json":
        '{\n  "mcpServers": {\n    "other": { "type": "http", "url": "https://example.test/mcp" }\n  }\n}\n',
      "~/.factory/AGENTS.md": "Mine.\n",
    },
    mcp: { path: "~/.factory/mcp.json", get: (t) => json(t).mcpServers?.["hcp-user"] },
    keep: (s) => {
      expect(JSON.parse(s.read("~/.factory/mcp.json")).mcpServers.other).toEqual({
        type: "http",
        url: "https://example.test/mcp",
      });
      expect(s.read("~/.factory/AGENTS.md").startsWith("Mine.\n\n<!-- hcp:begin -->")).toBe(true);
    },
  },
  // Qoder: the project .mcp.json (Claude Code's file, strict JSON)
  {
    host: "qoder",
    files: {
      ".mcp.json": '{\n  "mcpServers": {\n    "other": { "command": "o" }\n  }\n}\n',
      "AGENTS.md": "# Agents\n\nBe brief.\n",
    },
    mcp: { path: ".mcp.json", get: (t) => json(t).mcpServers?.hcp },
    keep: (s) => {
      const v = JSON.parse(s.read(".mcp.json"));
      expect(v.mcpServers.other).toEqual({ command: "o" });
      expect(v.mcpServers.hcp.type).toBe("stdio");
      expect(s.read(".agents/skills/ledger/SKILL.md")).toMatch(/^---\nname: ledger\n/);
    },
  },
  {
    host: "qoder",
    scope: "user",
    files: {
      "~/.qoder/settings.json": '{\n  "theme": "dark",\n  "mcpServers": {\n    "other": { "command": "o" }\n  }\n}\n',
    },
    mcp: { path: "~/.qoder/settings.json", get: (t) => json(t).mcpServers?.["hcp-user"] },
    keep: (s) => {
      const v = JSON.parse(s.read("~/.qoder/settings.json"));
      expect(v.theme).toBe("dark");
      expect(v.mcpServers.other).toEqual({ command: "o" });
      expect(s.read("~/.qoder/AGENTS.md")).toContain("<!-- hcp:begin -->");
    },
  },
  {
    host: "kilo",
    files: {
      "kilo.json":
        '{\n  "$schema": "https://app.kilo.ai/config.json",\n  // mine\n  "mcp": {\n    "other": { "type": "local", "command": ["o"], "enabled": false },\n  },\n}\n',
      "AGENTS.md": "# Rules\n",
    },
    mcp: { path: "kilo.json", get: (t) => json(t).mcp?.hcp },
    keep: (s) => {
      const t = s.read("kilo.json");
      expect(t).toContain("// mine");
      expect(json(t).mcp!.other).toEqual({ type: "local", command: ["o"], enabled: false });
      expect(json(t).mcp!.hcp).toMatchObject({ type: "local", enabled: true });
      expect(existsSync(join(s.dir, "kilo.jsonc")), "the existing kilo.json is the target").toBe(false);
    },
  },
  {
    host: "kilo",
    scope: "user",
    files: {
      "~/.config/kilo/kilo.jsonc":
        '{\n  "$schema": "https://app.kilo.ai/config.json",\n  "permission": {\n    "bash": "allow"\n  },\n}\n',
    },
    mcp: { path: "~/.config/kilo/kilo.jsonc", get: (t) => json(t).mcp?.["hcp-user"] },
    keep: (s) => {
      const t = s.read("~/.config/kilo/kilo.jsonc");
      // the person's rule stays; hcpx's (opencode's shape): granted reads allow, a gated write asks
      expect(json(t).permission).toMatchObject({
        bash: "allow",
        "hcp-user_ledger__balance": "allow",
        "hcp-user_ledger__transfer": "ask",
        "hcp-user_hcp__read_skill": "allow",
      });
      expect(s.read("~/.config/kilo/AGENTS.md")).toContain("<!-- hcp:begin -->");
      expect(s.read("~/.config/kilo/skills/ledger/SKILL.md")).toMatch(/^---\nname: ledger\n/);
    },
  },
  {
    host: "auggie",
    files: {
      // (a toolPermissions list of the person's gets hcpx's rules added: test/adopt/gates.test.ts)
      ".augment/settings.json":
        '{\n  // mine\n  "vimMode": true,\n  "mcpServers": {\n    "other": { "command": "o", "args": ["a"] },\n  },\n}\n',
      "AGENTS.md": "# Agents\n",
    },
    mcp: { path: ".augment/settings.json", get: (t) => json(t).mcpServers?.hcp },
    keep: (s) => {
      const t = s.read(".augment/settings.json");
      expect(t).toContain("// mine");
      expect(json(t).vimMode).toBe(true);
      expect(json(t).mcpServers!.other).toEqual({ command: "o", args: ["a"] });
      expect(s.read(".agents/skills/ledger/SKILL.md")).toMatch(/^---\nname: ledger\n/);
    },
  },
  {
    host: "auggie",
    scope: "user",
    files: {
      "~/.augment/settings.json":
        '{\n  "model": "sonnet",\n  "mcpServers": {\n    "other": { "url": "https://example.test/mcp", "type": "http" }\n  }\n}\n',
      "~/.augment/rules/mine.md": "Mine.\n",
    },
    mcp: { path: "~/.augment/settings.json", get: (t) => json(t).mcpServers?.["hcp-user"] },
    keep: (s) => {
      expect(JSON.parse(s.read("~/.augment/settings.json")).model).toBe("sonnet");
      expect(s.read("~/.augment/rules/mine.md")).toBe("Mine.\n");
      expect(s.read("~/.augment/rules/hcp.md")).toContain("<!-- hcp:prompt sha256:");
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
      expect(JSON.stringify(entry)).toContain(HCPX); // no hcpx on PATH: absolute, machine-specific
      expect(w.stdout).toMatch(/machine-specific/);

      const check = await s.adopt(c.host, ...scope, "--check", "--json");
      expect(JSON.parse(check.stdout).data).toMatchObject({ inSync: true, drift: [] });
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
    expect(vs.servers.hcp).toEqual({ type: "stdio", command: process.execPath, args: [HCPX, "mcp"] });
    expect(s.read(".github/skills/transit/SKILL.md")).toMatch(/^---\nname: transit\n/);
  });

  it("opencode: mcp.hcp is type local with one command array, enabled; a new opencode.json holds only it and opencode's own $schema", async () => {
    const s = scratch();
    expect((await s.adopt("opencode", "--write", "--command", "hcpx mcp")).code).toBe(0);
    const oc = JSON.parse(s.read("opencode.json")) as Record<string, unknown>;
    expect(Object.keys(oc)).toEqual(["$schema", "mcp", "permission"]);
    expect(oc).toMatchObject({
      $schema: "https://opencode.ai/config.json",
      mcp: {
        hcp: { type: "local", command: ["hcpx", "mcp", "--shape", "per-command", "--host", "opencode"], enabled: true },
      },
    });
  });

  it("Qwen Code and Kilo: a new settings file starts with the key each host adds to a file without it ($version, $schema), so the host leaves it alone; --remove deletes it again", async () => {
    const s = scratch();
    const before = snapshot(s.dir);
    expect((await s.adopt("qwen", "kilo", "--write")).code).toBe(0);
    expect(s.read(".qwen/settings.json").startsWith('{\n  "$version": 4,\n  "mcpServers": {')).toBe(true);
    expect(s.read("kilo.jsonc").startsWith('{\n  "$schema": "https://app.kilo.ai/config.json",\n  "mcp": {')).toBe(
      true,
    );
    expect((await s.adopt("qwen", "kilo", "--remove", "--write")).code).toBe(0);
    expect(snapshot(s.dir)).toEqual(before);
  });

  it("Claude and Gemini: the instruction block sits between the markers and names the host's skills dir", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "gemini", "--write")).code).toBe(0);
    expect(s.read("CLAUDE.md")).toMatch(
      /^<!-- hcp:begin -->\n<!-- hcp:prompt sha256:[0-9a-f]{16} -->\n[\s\S]*\.claude\/skills\/<pack>\/SKILL\.md[\s\S]*\n<!-- hcp:end -->\n$/,
    );
    expect(s.read("GEMINI.md")).toContain(".gemini/skills/<pack>/SKILL.md");
    expect(JSON.parse(s.read(".gemini/settings.json")).mcpServers.hcp.args.slice(-5)).toEqual([
      "mcp",
      "--shape",
      "per-command",
      "--host",
      "gemini",
    ]);
  });
});

// adopt for Amp, Cline, Continue, Goose, Devin Desktop, Kiro, Zed, Antigravity and
// Junie, both scopes, table-driven: a pre-existing config with the user's own servers,
// keys and comments keeps all of it (only lines added), `--check` is in sync, and
// `--remove --write` restores both trees byte for byte. Then the YAML handler's own
// cases (Goose's map, Continue's named list) and, for the hosts without a program
// here, the documented shape of what is written, naming the source.
import { beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { parse as parseJsonc } from "jsonc-parser/lib/esm/main.js";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import JSON5 from "json5";
import { HCPX, REPO } from "../support/hcpx";
import { onlyAdded, scratch as scratchProject, snapshot, userConfigFromProject, type Scratch } from "./helpers";
import { loadDescriptor } from "../../src/host/descriptor";
import { inProcess } from "../support/inproc";

/**
 * a scratch project whose HOME holds the user's own config (~/.config/hcp/config.json5): what user scope serves;
 * its adopt runs are function calls in this process (test/support/inproc.ts): what adopt writes is under test here
 */
function scratch(): Scratch {
  const s = inProcess(scratchProject());
  userConfigFromProject(s);
  return s;
}

beforeAll(() => {
  if (!existsSync(HCPX)) execFileSync(process.execPath, [join(REPO, "scripts", "build.mjs")]);
});

type Obj = Record<string, unknown>;
const jsonc = (t: string) => parseJsonc(t) as Obj;
const at = (v: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Obj)[k] : undefined), v);
const yamlItem = (t: string, list: string, name: string) =>
  ((parseYaml(t) as Obj)[list] as Obj[] | undefined)?.find((x) => x.name === name);

interface Case {
  host: string;
  scope: "project" | "user";
  files: Record<string, string>;
  /** the file with the MCP entry and the entry in it (none: the host has no MCP file in this scope) */
  mcp?: { path: string; get: (text: string) => unknown };
  keep: (s: Scratch) => void;
}

const JSON_OTHER = '{\n  "mcpServers": {\n    "other": { "command": "o", "args": ["1"] }\n  },\n  "mine": true\n}\n';
/** The MCP server name of a host's entry in a scope (the user scope's is apart where both scopes have one: descriptor `servers`). */
const serverOf = (host: string, scope: Case["scope"]) =>
  loadDescriptor(host)
    .scopes[scope]!.targets.find((t) => t.entry)!
    .key!.at(-1)!;
const jsonHost = (host: string, scope: Case["scope"], path: string, key = "mcpServers"): Case => ({
  host,
  scope,
  files: { [path]: JSON_OTHER.replace('"mcpServers"', JSON.stringify(key)) },
  mcp: { path, get: (t) => at(jsonc(t), key, serverOf(host, scope)) },
  keep: (s) => {
    const v = JSON.parse(s.read(path)) as Obj;
    expect(at(v, key, "other")).toEqual({ command: "o", args: ["1"] });
    expect(v.mine).toBe(true);
    expect(Object.keys(at(v, key) as Obj)).toEqual(["other", serverOf(host, scope)]);
  },
});

const GOOSE =
  "# my goose config\nGOOSE_PROVIDER: openai   # the provider\nextensions:\n    # builtin tools\n    developer:\n        enabled: true\n        type: builtin\n        name: developer\n\n# the model\nGOOSE_MODEL: gpt-x\n";
const CONTINUE =
  "# my continue config\nname: Mine\nversion: 1.0.0\nschema: v1\nmcpServers:\n- name: other   # mine\n  command: o\n  # between items\nmodels: []\n";

const cases: Case[] = [
  {
    host: "amp",
    scope: "project",
    files: {
      ".amp/settings.json":
        '{\n  // workspace\n  "amp.mcpServers": {\n    "other": { "command": "o" },\n  },\n  "amp.dangerouslyAllowAll": false,\n}\n',
      "AGENTS.md": "# Rules\n",
    },
    mcp: { path: ".amp/settings.json", get: (t) => at(jsonc(t), "amp.mcpServers", "hcp") },
    keep: (s) => {
      const t = s.read(".amp/settings.json");
      expect(t).toContain("// workspace");
      expect(at(jsonc(t), "amp.mcpServers", "other")).toEqual({ command: "o" });
      // the flat dotted key: one key "amp.mcpServers", never amp → mcpServers
      expect(at(jsonc(t), "amp")).toBeUndefined();
      expect(s.read("AGENTS.md").startsWith("# Rules\n")).toBe(true);
    },
  },
  {
    host: "amp",
    scope: "user",
    files: { "~/.config/amp/settings.json": '{\n  // mine\n  "amp.notifications.enabled": false\n}\n' },
    mcp: { path: "~/.config/amp/settings.json", get: (t) => at(jsonc(t), "amp.mcpServers", "hcp-user") },
    keep: (s) =>
      expect(s.read("~/.config/amp/settings.json")).toMatch(
        /^\{\n {2}\/\/ mine\n {2}"amp\.notifications\.enabled": false,\n/,
      ),
  },
  {
    ...jsonHost("cline", "user", "~/.cline/data/settings/cline_mcp_settings.json"),
    files: { "~/.cline/data/settings/cline_mcp_settings.json": JSON_OTHER, "~/.agents/AGENTS.md": "Be brief.\n" },
  },
  {
    host: "cline",
    scope: "project",
    files: { ".clinerules/mine.md": "# mine\n" },
    keep: (s) => {
      expect(s.read(".clinerules/mine.md")).toBe("# mine\n");
      expect(s.read(".clinerules/hcp.md")).toContain("<!-- hcp:");
    },
  },
  {
    host: "continue",
    scope: "user",
    files: { "~/.continue/config.yaml": CONTINUE },
    mcp: { path: "~/.continue/config.yaml", get: (t) => yamlItem(t, "mcpServers", "hcp") },
    keep: (s) => {
      const t = s.read("~/.continue/config.yaml");
      expect(
        t.startsWith(
          "# my continue config\nname: Mine\nversion: 1.0.0\nschema: v1\nmcpServers:\n- name: other   # mine\n  command: o\n- name: hcp\n",
        ),
      ).toBe(true);
      expect(t.endsWith("  # between items\nmodels: []\n")).toBe(true);
      expect(((parseYaml(t) as Obj).mcpServers as Obj[]).map((x) => x.name)).toEqual(["other", "hcp"]);
    },
  },
  {
    host: "continue",
    scope: "project",
    files: { ".continue/rules/mine.md": "---\nname: mine\n---\nmine\n" },
    keep: (s) => expect(s.read(".continue/rules/mine.md")).toBe("---\nname: mine\n---\nmine\n"),
  },
  {
    host: "goose",
    scope: "user",
    files: { "~/.config/goose/config.yaml": GOOSE, "~/.config/goose/.goosehints": "Use metric units.\n" },
    mcp: { path: "~/.config/goose/config.yaml", get: (t) => at(parseYaml(t), "extensions", "hcp") },
    keep: (s) => {
      const t = s.read("~/.config/goose/config.yaml");
      // the user's 4-space indentation is followed inside their map
      expect(t).toContain("        name: developer\n    hcp:\n        name: hcp\n        type: stdio\n");
      expect(t.endsWith("\n# the model\nGOOSE_MODEL: gpt-x\n")).toBe(true);
      expect(at(parseYaml(t), "extensions", "developer")).toEqual({
        enabled: true,
        type: "builtin",
        name: "developer",
      });
    },
  },
  {
    host: "goose",
    scope: "project",
    files: { ".goosehints": "Prefer small commits.\n" },
    keep: (s) => expect(s.read(".goosehints").startsWith("Prefer small commits.\n")).toBe(true),
  },
  jsonHost("devin", "project", ".devin/mcp_config.json"),
  jsonHost("devin", "user", "~/.config/devin/mcp_config.json"),
  jsonHost("kiro", "project", ".kiro/settings/mcp.json"),
  jsonHost("kiro", "user", "~/.kiro/settings/mcp.json"),
  {
    host: "zed",
    scope: "project",
    files: {
      ".zed/settings.json":
        '// Zed settings\n{\n  "tab_size": 4,\n  "context_servers": {\n    "other": { "command": "o", "args": [] },\n  },\n}\n',
      "AGENTS.md": "# Team rules\n",
    },
    mcp: { path: ".zed/settings.json", get: (t) => at(jsonc(t), "context_servers", "hcp") },
    keep: (s) => {
      const t = s.read(".zed/settings.json");
      expect(t.startsWith('// Zed settings\n{\n  "tab_size": 4,')).toBe(true);
      // Zed reads the first rules file that exists: the project's AGENTS.md gets the block, no .rules hides it
      expect(s.read("AGENTS.md")).toMatch(/^# Team rules\n[\s\S]*<!-- hcp:begin -->/);
      expect(existsSync(join(s.dir, ".rules"))).toBe(false);
    },
  },
  jsonHost("zed", "user", "~/.config/zed/settings.json", "context_servers"),
  jsonHost("antigravity", "project", ".agents/mcp_config.json"),
  jsonHost("antigravity", "user", "~/.gemini/config/mcp_config.json"),
  jsonHost("junie", "project", ".junie/mcp/mcp.json"),
  jsonHost("junie", "user", "~/.junie/mcp/mcp.json"),
];

describe.concurrent(
  "adopt keeps what is not ours: Amp, Cline, Continue, Goose, Devin, Kiro, Zed, Antigravity, Junie",
  () => {
    for (const c of cases) {
      it(`${c.host} (${c.scope} scope): the user's entries and comments survive; --check in sync; --remove restores every byte`, async () => {
        const s = scratch();
        for (const [p, t] of Object.entries(c.files)) s.write(p, t);
        const before = { proj: snapshot(s.dir), home: snapshot(s.home) };
        const scope = ["--scope", c.scope];
        const w = await s.adopt(c.host, ...scope, "--write");
        expect(w.stderr).toBe("");
        expect(w.code, w.stdout).toBe(0);
        for (const [p, t] of Object.entries(c.files)) {
          const r = onlyAdded(t, s.read(p));
          expect(r.ok, `${p}: lines removed: ${JSON.stringify(r.removed)}`).toBe(true);
        }
        c.keep(s);
        if (c.mcp) {
          const entry = c.mcp.get(s.read(c.mcp.path)) as Obj | undefined;
          expect(entry).toBeDefined();
          expect(JSON.stringify(entry)).toContain(HCPX);
        }
        const check = await s.adopt(c.host, ...scope, "--check", "--json");
        expect(JSON.parse(check.stdout).data).toMatchObject({ inSync: true, drift: [] });
        expect(check.code).toBe(0);
        const r = await s.adopt(c.host, ...scope, "--remove", "--write");
        expect(r.code, r.stderr).toBe(0);
        expect(snapshot(s.dir)).toEqual(before.proj);
        expect(snapshot(s.home)).toEqual(before.home);
      });
    }

    // from nothing: one case per file layout (a YAML file created with its skeleton, a flat dotted key, a user-only MCP file, Zed's rules-file choice)
    for (const c of cases.filter((x) =>
      ["continue/user", "goose/user", "amp/project", "cline/user", "zed/project", "kiro/user"].includes(
        `${x.host}/${x.scope}`,
      ),
    )) {
      it(`${c.host} (${c.scope} scope) from nothing: the files at their documented paths; --remove leaves nothing behind`, async () => {
        const s = scratch();
        const before = { proj: snapshot(s.dir), home: snapshot(s.home) };
        const w = await s.adopt(c.host, "--scope", c.scope, "--write");
        expect(w.code, w.stderr + w.stdout).toBe(0);
        if (c.mcp) expect(c.mcp.get(s.read(c.mcp.path))).toBeDefined();
        expect((await s.adopt(c.host, "--scope", c.scope, "--check")).code).toBe(0);
        const r = await s.adopt(c.host, "--scope", c.scope, "--remove", "--write");
        expect(r.code, r.stderr).toBe(0);
        expect(snapshot(s.dir)).toEqual(before.proj);
        expect(snapshot(s.home)).toEqual(before.home);
      });
    }
  },
);

describe("the YAML handler (Goose's extensions map, Continue's mcpServers list)", () => {
  it("a file that is not YAML is refused with its file and line, and left untouched", async () => {
    const s = scratch();
    const bad = "extensions:\n  developer: [1\n  other: 2\n";
    s.write("~/.config/goose/config.yaml", bad);
    const r = await s.adopt("goose", "--scope", "user", "--write", "--json");
    expect(r.code).not.toBe(0);
    expect(JSON.parse(r.stdout).error).toMatchObject({
      code: "bad_yaml",
      file: "~/.config/goose/config.yaml",
      line: 3,
    });
    expect(r.stderr).not.toMatch(/at .*\.(ts|mjs):\d+/); // no stack trace
    expect(s.read("~/.config/goose/config.yaml")).toBe(bad);
  });

  it("a list in flow style, an ambiguous pair of hcp items, and a top level that is not a map are refused, never rewritten", async () => {
    for (const [text, why, code] of [
      [
        "name: x\nversion: 1.0.0\nschema: v1\nmcpServers: [{name: other, command: o}]\n",
        /flow style/,
        "yaml_unsupported",
      ],
      [
        "name: x\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: hcp\n    command: a\n  - name: hcp\n    command: b\n",
        /2 items with name: hcp/,
        "yaml_ambiguous",
      ],
      ["- just\n- a list\n", /not a map/, "yaml_unsupported"],
    ] as const) {
      const s = scratch();
      s.write("~/.continue/config.yaml", text);
      const r = await s.adopt("continue", "--scope", "user", "--write", "--json");
      expect(r.code, text).not.toBe(0);
      const { error } = JSON.parse(r.stdout) as { error: { code: string; file: string; message: string } };
      expect(error, text).toMatchObject({ code, file: "~/.continue/config.yaml" });
      expect(error.message, text).toMatch(why);
      expect(s.read("~/.continue/config.yaml")).toBe(text);
    }
  });

  it("an hcp item the user wrote is not taken over without --force; with --force it is replaced in place", async () => {
    const s = scratch();
    const own =
      "name: x\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: hcp   # my own\n    command: my-hcp\n  - name: b\n    command: b\n";
    s.write("~/.continue/config.yaml", own);
    const r = await s.adopt("continue", "--scope", "user", "--write", "--json");
    expect(r.code).not.toBe(0);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: "not_ours", file: "~/.continue/config.yaml" });
    expect(s.read("~/.continue/config.yaml")).toBe(own);
    const f = await s.adopt("continue", "--scope", "user", "--write", "--force");
    expect(f.code, f.stderr).toBe(0);
    const t = s.read("~/.continue/config.yaml");
    expect(t).toMatch(/^name: x\nversion: 1\.0\.0\nschema: v1\nmcpServers:\n {2}- name: hcp\n {4}command: /);
    expect(t.endsWith("  - name: b\n    command: b\n")).toBe(true);
  });

  it("a hand-edited hcp entry is kept by --remove (changed since adopt); a new --command replaces only the entry's lines", async () => {
    const s = scratch();
    s.write("~/.config/goose/config.yaml", GOOSE);
    expect((await s.adopt("goose", "--scope", "user", "--write", "--command", "hcpx mcp")).code).toBe(0);
    const first = s.read("~/.config/goose/config.yaml");
    expect((await s.adopt("goose", "--scope", "user", "--write", "--command", "/opt/hcpx/bin/hcpx mcp")).code).toBe(0);
    const second = s.read("~/.config/goose/config.yaml");
    expect(second).toBe(first.replace("cmd: hcpx\n", "cmd: /opt/hcpx/bin/hcpx\n"));
    s.write("~/.config/goose/config.yaml", second.replace("timeout: 300", "timeout: 600"));
    const r = await s.adopt("goose", "--scope", "user", "--remove", "--write");
    expect(r.stdout + r.stderr).toMatch(/changed since hcpx wrote it/);
    expect(at(parseYaml(s.read("~/.config/goose/config.yaml")), "extensions", "hcp", "timeout")).toBe(600);
  });

  it("hcpx import lists the user's own servers of both YAML shapes (not hcpx's entry; a remote one by its URL, a builtin one skipped), and refuses a file that does not parse", async () => {
    const s = scratch();
    s.write(
      "~/.continue/config.yaml",
      "name: x\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: fs\n    command: npx\n    args: [-y, srv, .]\n    env: {A: '1'}\n  - name: web\n    url: https://example.invalid/mcp\n  - name: hcp\n    command: hcpx\n",
    );
    s.write(
      "~/.config/goose/config.yaml",
      GOOSE.replace(
        "extensions:\n",
        "extensions:\n    gh:\n        name: gh\n        type: stdio\n        cmd: gh-mcp\n        args: [serve]\n        envs: {GH_TOKEN: x}\n",
      ),
    );
    const c = await s.run(["import", "continue", "--scope", "user", "--json"]);
    expect(c.code, c.stderr).toBe(0);
    expect(JSON.parse(c.stdout).data.servers).toEqual([
      { name: "fs", argv: ["npx", "-y", "srv", "."], env: ["A"] },
      { name: "web", env: [], remote: true, url: "https://example.invalid/mcp" },
    ]);
    const g = await s.run(["import", "goose", "--scope", "user", "--json"]);
    expect(g.code, g.stderr).toBe(0);
    expect(JSON.parse(g.stdout).data.servers).toEqual([
      { name: "gh", argv: ["gh-mcp", "serve"], env: ["GH_TOKEN"] },
      { name: "developer", env: [], skip: "no command line (`cmd` and `args`)" },
    ]);
    s.write("~/.config/goose/config.yaml", "extensions: [\n");
    const bad = await s.run(["import", "goose", "--scope", "user", "--json"]);
    expect(bad.code).not.toBe(0);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, error: { code: "bad_yaml" } });
  });

  it("CRLF and a last line without a line break are kept; --remove gives the bytes back", async () => {
    const s = scratch();
    const own = "# crlf\r\nGOOSE_PROVIDER: openai\r\nextensions:\r\n  developer:\r\n    enabled: true";
    s.write("~/.config/goose/config.yaml", own);
    expect((await s.adopt("goose", "--scope", "user", "--write")).code).toBe(0);
    const t = s.read("~/.config/goose/config.yaml");
    expect(t.startsWith(own + "\r\n  hcp:\r\n    name: hcp\r\n")).toBe(true);
    expect(t.replace(/\r\n/g, "")).not.toContain("\n");
    expect((await s.adopt("goose", "--scope", "user", "--remove", "--write")).code).toBe(0);
    expect(s.read("~/.config/goose/config.yaml")).toBe(own);
  });

  it("Continue from nothing: config.yaml starts with the name, version and schema Continue requires; --remove deletes the file it created", async () => {
    const s = scratch();
    expect((await s.adopt("continue", "--scope", "user", "--write")).code).toBe(0);
    const t = s.read("~/.continue/config.yaml");
    expect(t).toMatch(/^name: Local Config\nversion: 1\.0\.0\nschema: v1\nmcpServers:\n {2}- name: hcp\n/);
    expect((await s.adopt("continue", "--scope", "user", "--remove", "--write")).code).toBe(0);
    expect(existsSync(join(s.home, ".continue", "config.yaml"))).toBe(false);
  });
});

/** The descriptor of a host, as shipped. */
const descriptor = (host: string) =>
  JSON5.parse(readFileSync(join(REPO, "hosts", `${host}.json5`), "utf8")) as {
    docs: string[];
    scopes: Record<string, { targets: { id: string; path: string | string[] }[] }>;
  };

// Hosts without a program that installs and runs here: what adopt writes is checked
// against the documented schema, and the descriptor names that source.
describe("documented shapes (no program here): the entry as the host's documentation and rulesync describe it", () => {
  const shapes: {
    host: string;
    scope: "project" | "user";
    path: string;
    key: string[];
    source: RegExp;
    check: (entry: Obj, all: Obj) => void;
  }[] = [
    // https://docs.devin.ai/cli/extensibility/mcp/configuration: its own mcp_config.json since v3000.3
    {
      host: "devin",
      scope: "project",
      path: ".devin/mcp_config.json",
      key: ["mcpServers", "hcp"],
      source: /docs\.devin\.ai\/cli\/extensibility\/mcp\/configuration/,
      check: (e) => expect(Object.keys(e).sort()).toEqual(["args", "command"]),
    },
    {
      host: "devin",
      scope: "user",
      path: "~/.config/devin/mcp_config.json",
      key: ["mcpServers", "hcp-user"],
      source: /docs\.devin\.ai/,
      check: (e) => expect(typeof e.command).toBe("string"),
    },
    // https://kiro.dev/docs/mcp/configuration/: mcpServers.<name>{command, args, env, disabled, autoApprove}
    {
      host: "kiro",
      scope: "project",
      path: ".kiro/settings/mcp.json",
      key: ["mcpServers", "hcp"],
      source: /kiro\.dev\/docs\/mcp\/configuration/,
      check: (e) => expect(Array.isArray(e.args)).toBe(true),
    },
    // https://zed.dev/docs/ai/mcp: context_servers.<name>{command, args, env} (no `type`, no `source`)
    {
      host: "zed",
      scope: "project",
      path: ".zed/settings.json",
      key: ["context_servers", "hcp"],
      source: /zed\.dev\/docs\/ai\/mcp/,
      check: (e, all) => {
        expect(Object.keys(e).sort()).toEqual(["args", "command"]);
        expect(all.mcpServers).toBeUndefined();
      },
    },
    // https://antigravity.google/docs/mcp + rulesync antigravity-mcp.ts: mcpServers, remote servers by serverUrl
    {
      host: "antigravity",
      scope: "user",
      path: "~/.gemini/config/mcp_config.json",
      key: ["mcpServers", "hcp-user"],
      source: /antigravity\.google\/docs\/mcp/,
      check: (e) => expect(e.serverUrl).toBeUndefined(),
    },
    // JetBrains Junie: .junie/mcp/mcp.json mcpServers (Claude Desktop shape)
    {
      host: "junie",
      scope: "project",
      path: ".junie/mcp/mcp.json",
      key: ["mcpServers", "hcp"],
      source: /jetbrains\.com\/help\/junie\/model-context-protocol-mcp/,
      check: (e) => expect(Object.keys(e).sort()).toEqual(["args", "command"]),
    },
    // Goose config files: extensions.<key>{name, type: stdio, cmd, args, enabled, timeout (s), description}
    {
      host: "goose",
      scope: "user",
      path: "~/.config/goose/config.yaml",
      key: ["extensions", "hcp"],
      source: /goose\/docs\/guides\/config-files/,
      check: (e) =>
        expect(e).toMatchObject({
          name: "hcp",
          type: "stdio",
          enabled: true,
          timeout: 300,
          cmd: expect.any(String),
          args: expect.any(Array),
          description: expect.any(String),
        }),
    },
  ];
  for (const c of shapes) {
    it(`${c.host} (${c.scope}): ${c.path} ${c.key.join(".")}; the descriptor names its source`, async () => {
      expect(
        descriptor(c.host).docs.some((d) => c.source.test(d)),
        `hosts/${c.host}.json5 docs`,
      ).toBe(true);
      const s = scratch();
      const w = await s.adopt(c.host, "--scope", c.scope, "--write");
      expect(w.code, w.stderr).toBe(0);
      const text = s.read(c.path);
      const all = (c.path.endsWith(".yaml") ? parseYaml(text) : jsonc(text)) as Obj;
      const entry = at(all, ...c.key) as Obj;
      expect(entry, text).toBeDefined();
      c.check(entry, all);
    });
  }

  it("Kiro steering and Continue rules carry the frontmatter their hosts read (inclusion: always; alwaysApply: true)", async () => {
    const s = scratch();
    expect((await s.adopt("kiro", "continue", "--write")).code).toBe(0);
    expect(parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(s.read(".kiro/steering/hcp.md"))![1]!)).toEqual({
      inclusion: "always",
    });
    expect(parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(s.read(".continue/rules/hcp.md"))![1]!)).toMatchObject({
      alwaysApply: true,
    });
  });

  it("the nine hosts are known to adopt by their ids (an unknown host's error lists them)", async () => {
    const r = await scratch().adopt("emacs");
    expect(r.code).toBe(64);
    const known = /known hosts: ([a-z, -]+)/.exec(r.stderr)?.[1]?.trim().split(", ") ?? [];
    for (const h of ["amp", "cline", "continue", "goose", "devin", "kiro", "zed", "antigravity", "junie"])
      expect(known, r.stderr).toContain(h);
  });

  it("Windsurf is Devin Desktop (issue 27): one descriptor, `windsurf` its alias, holding both agents' files (Devin Local's and Cascade's)", async () => {
    const paths = (h: string) =>
      Object.values(loadDescriptor(h).scopes).flatMap((sc) =>
        sc.targets.flatMap((t) => (Array.isArray(t.path) ? t.path : [t.path])),
      );
    expect(loadDescriptor("windsurf")).toBe(loadDescriptor("devin"));
    expect(paths("devin")).toEqual(
      expect.arrayContaining([
        ".devin/mcp_config.json",
        "~/.config/devin/mcp_config.json",
        "~/.codeium/windsurf/mcp_config.json",
        ".windsurf/rules/hcp.md",
      ]),
    );
    // no two targets write the same file's same part
    const parts = Object.values(loadDescriptor("devin").scopes).flatMap((sc) =>
      sc.targets.map((t) => JSON.stringify([t.path, t.key ?? null])),
    );
    expect(new Set(parts).size).toBe(parts.length);
    // `adopt windsurf` adopts devin, once, also named twice
    const s = scratch();
    const r = await s.adopt("windsurf", "devin", "--json");
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { data: { hosts: string[] } }).data.hosts).toEqual(["devin"]);
  });
});

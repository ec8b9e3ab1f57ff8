// Adoption that fits a team: `adopt --detected` (hosts in use, from each
// descriptor's `detect`), `all --check` limited to the hosts adopted or in use,
// per-file git classes and the .gitignore block, honest user scope (the user's
// own config, named in the entry), and "healthy" meaning the host will use the
// server (command on the host's PATH, Codex trust, Claude Code's approval lists).
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { HCPX, tmp } from "../support/hcpx";
import { scratch as scratchChild, type Scratch } from "./helpers";
import { inProcess } from "../support/inproc";
import { listHosts, loadDescriptor } from "../../src/host/descriptor";

/** adopt, doctor and init run as function calls in this process (test/support/inproc.ts): what they decide and write is under test here, not the process */
const scratch = (opts?: Parameters<typeof scratchChild>[0]): Scratch => inProcess(scratchChild(opts));

/** one trace per host, as a person's project would have it */
const TRACE: Record<string, [string, string | null]> = {
  claude: ["CLAUDE.md", "# notes\n"],
  codex: [".codex/config.toml", "# mine\n"],
  cursor: [".cursor", null],
  gemini: [".gemini", null],
  opencode: ["opencode.json", "{}\n"],
  vscode: [".vscode/mcp.json", '{ "servers": {} }\n'],
  copilot: [".github/mcp.json", '{ "mcpServers": {} }\n'],
  qwen: ["QWEN.md", "# mine\n"],
  droid: [".factory", null],
  qoder: [".qoder/settings.json", "{}\n"],
  kilo: ["kilo.jsonc", "// mine\n{}\n"],
  auggie: [".augment", null],
  amp: [".amp/settings.json", "{}\n"],
  cline: [".clinerules", null],
  continue: [".continue/rules/style.md", "tabs\n"],
  goose: [".goosehints", "be brief\n"],
  devin: [".devin", null],
  kiro: [".kiro/steering/product.md", "# product\n"],
  zed: [".zed/settings.json", "{}\n"],
  antigravity: [".agent/rules/style.md", "tabs\n"],
  "antigravity-cli": [".agents/agents", null],
  kimi: [".kimi-code", null],
  crush: ["crush.json", "{}\n"],
  warp: [".warp", null],
  trae: [".trae", null],
  zoo: [".roo", null],
  junie: [".junie", null],
};
/** every host with a project scope: the old seven and the new ones */
const ALL = Object.keys(TRACE);
const json = (r: { stdout: string }) =>
  JSON.parse(r.stdout) as {
    ok: boolean;
    data: Record<string, unknown>;
    error?: { code: string; message: string; hint?: string; details?: Record<string, unknown> };
  };

interface Health {
  code: string;
  severity: string;
  message: string;
  hint?: string;
  file?: string;
}

/** An `adopt --check --json` that fails (exit 1, code drift) only because a host will not use the server: those reasons. */
function unhealthy(r: { code: number | null; stdout: string }): Health[] {
  expect(r.code, r.stdout).toBe(1);
  const e = json(r).error!;
  expect(e.code).toBe("drift");
  expect(e.details!.drift).toEqual([]);
  return e.details!.health as Health[];
}

/** An `adopt --check --json` in sync where each host will use the server. */
function healthy(r: { code: number | null; stdout: string }): void {
  expect(r.code, r.stdout).toBe(0);
  expect(json(r)).toMatchObject({ ok: true, data: { inSync: true, health: [] } });
}

function trace(s: Scratch, host: string): void {
  const [rel, text] = TRACE[host]!;
  if (text === null) mkdirSync(join(s.dir, rel), { recursive: true });
  else s.write(rel, text);
}

/** a user config at $HOME/.config/hcp activating the scratch project's ledger pack */
function userConfig(s: Scratch): string {
  const file = join(s.home, ".config", "hcp", "config.json5");
  mkdirSync(join(s.home, ".config", "hcp"), { recursive: true });
  writeFileSync(
    file,
    JSON.stringify({
      packs: [join(s.dir, "packs", "ledger")],
      grants: { allow: ["ledger.balance"] },
      sandbox: { roots: [s.dir], cwd: s.dir },
    }) + "\n",
  );
  return file;
}

describe("adopt --detected", () => {
  it("every host with a project scope has a trace here", () => {
    expect(
      listHosts()
        .filter((h) => loadDescriptor(h).scopes.project)
        .sort(),
    ).toEqual([...ALL].sort());
  });

  it.each(ALL)("%s: detected from its trace alone, with the reason; nothing else", async (host) => {
    const s = scratch({ packs: ["ledger"] });
    trace(s, host);
    const r = await s.adopt("--detected", "--json");
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const d = json(r).data.detected as { host: string; reasons: string[] }[];
    expect(d.map((x) => x.host)).toEqual([host]);
    expect(d[0]!.reasons[0]).toMatch(new RegExp(`^found ${TRACE[host]![0].split("/")[0]!.replaceAll(".", "\\.")}`));
    expect(json(r).data.hosts).toEqual([host]);
  });

  it("a project without traces: refused with what it looks for; `all --check` is in sync (nothing adopted or in use)", async () => {
    const s = scratch({ packs: ["ledger"] });
    const r = await s.adopt("--detected", "--json");
    expect(r.code).toBe(1);
    expect(json(r).error!.code).toBe("no_hosts_detected");
    expect(json(r).error!.hint).toContain("claude: .claude, CLAUDE.md");
    const c = await s.adopt("all", "--check", "--json");
    healthy(c);
    expect(json(c).data).toMatchObject({ hosts: [], detected: [], changes: [] }); // nothing adopted or in use
  });

  it("files hcpx created are no trace: after adopting opencode (AGENTS.md, .agents/skills), only opencode is in use, because it is adopted", async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    const r = await s.adopt("--detected", "--json");
    const d = json(r).data.detected as { host: string; reasons: string[] }[];
    expect(d).toEqual([
      { host: "opencode", name: "opencode", reasons: ["adopted (.hcp/adopted.json)"], adopted: true },
    ]);
  });

  it("user scope: a host's program on PATH is a trace (`gemini` on PATH)", async () => {
    const s = scratch({ packs: ["ledger"] });
    userConfig(s);
    const bin = tmp("hcpx-detect-bin-");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "gemini"), "#!/bin/sh\nexit 0\n");
    chmodSync(join(bin, "gemini"), 0o755);
    const r = await s.run(["adopt", "--detected", "--scope", "user", "--json"], { PATH: `${bin}:${s.env.PATH}` });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(json(r).data.detected).toEqual([
      { host: "gemini", name: "Gemini CLI", reasons: [`\`gemini\` on PATH (${join(bin, "gemini")})`], adopted: false },
    ]);
  });

  it.each(listHosts().filter((h) => loadDescriptor(h).scopes.user?.detect?.programs?.length))(
    "user scope: %s's program on PATH is a trace of it alone",
    async (host) => {
      const s = scratch({ packs: ["ledger"] });
      userConfig(s);
      const prog = loadDescriptor(host).scopes.user!.detect!.programs![0]!;
      const bin = tmp("hcpx-detect-bin-");
      mkdirSync(bin, { recursive: true });
      writeFileSync(join(bin, prog), "#!/bin/sh\nexit 0\n");
      chmodSync(join(bin, prog), 0o755);
      const r = await s.run(["adopt", "--detected", "--scope", "user", "--json"], { PATH: `${bin}:${s.env.PATH}` });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const eol = loadDescriptor(host).endOfLife;
      expect(json(r).data.detected).toEqual([
        {
          host,
          name: loadDescriptor(host).name,
          reasons: [`\`${prog}\` on PATH (${join(bin, prog)})`],
          adopted: false,
          ...(eol ? { endOfLife: expect.stringContaining(`end of life since ${eol.since}`) } : {}),
        },
      ]);
    },
  );

  it("`hcpx init` proposes it, naming what it found", async () => {
    const s = scratch({ packs: ["ledger"] });
    s.write("GEMINI.md", "# mine\n");
    const r = await s.run(["init", "--yes", "--force"]);
    expect(r.code, r.stderr).toBe(0);
    // prose on purpose: init's proposal is what a person reads
    expect(r.stdout).toContain("gemini (Gemini CLI): found GEMINI.md");
    expect(r.stdout).toContain("hcpx adopt --detected --write");
  });
});

describe("adopt all --check: only the hosts adopted or in use", () => {
  it("one host adopted: `all --check` checks it alone and is in sync (not 6 unadopted hosts out of date)", async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    const r = await s.adopt("all", "--check", "--json");
    expect(r.code, r.stdout).toBe(0);
    expect(json(r).data.hosts).toEqual(["claude"]);
    // a trace of another host brings it in: now out of date
    trace(s, "gemini");
    const again = await s.adopt("all", "--check", "--json");
    expect(again.code).toBe(1);
    expect(json(again).error!.details!.hosts).toEqual(["claude", "gemini"]);
  });
});

describe("git: per file, and the .gitignore block", () => {
  it("Claude Code's approval list in settings.local.json gets hcp, is said to stay out of git, and goes into the block; the person's .gitignore lines stay; --remove gives both files back byte for byte", async () => {
    const s = scratch({ packs: ["ledger"] });
    const local = '{\n  "enabledMcpjsonServers": ["other"]\n}\n';
    s.write(".claude/settings.local.json", local);
    s.write(".gitignore", "node_modules/\n# mine\n");
    const w = await s.adopt("claude", "--write", "--gitignore", "--json");
    expect(w.code, w.stderr + w.stdout).toBe(0);
    expect(JSON.parse(s.read(".claude/settings.local.json")).enabledMcpjsonServers).toEqual(["other", "hcp"]);
    const git = json(w).data.git as { path: string; git: string }[];
    expect(git).toContainEqual({ path: ".claude/settings.local.json", git: "ignore" }); // keep out of git (one person's files)
    expect(git).toContainEqual({ path: ".mcp.json", git: "commit" });
    const gi = s.read(".gitignore");
    expect(gi.startsWith("node_modules/\n# mine\n# hcp:begin")).toBe(true);
    expect(gi).toContain("\n/.claude/settings.local.json\n");
    expect(gi).toContain("\n/.hcp/generated/\n");
    expect((await s.adopt("claude", "--check")).code).toBe(0);
    // a line added by hand inside the block is drift; outside it is the person's
    s.write(".gitignore", gi + "dist/\n");
    expect((await s.adopt("claude", "--check")).code).toBe(0);
    const rm = await s.adopt("claude", "--remove", "--write");
    expect(rm.code, rm.stderr).toBe(0);
    expect(s.read(".gitignore")).toBe("node_modules/\n# mine\ndist/\n");
    expect(s.read(".claude/settings.local.json")).toBe(local);
  });

  it("no approval list: none is created (Claude Code asks once); a broken block is refused with its line", async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    expect(existsSync(join(s.dir, ".claude", "settings.local.json"))).toBe(false);
    s.write(".gitignore", "a\n# hcp:begin (x)\nb\n");
    const r = await s.adopt("claude", "--write", "--gitignore", "--json");
    expect(r.code).toBe(1);
    expect(json(r).error).toMatchObject({ code: "bad_gitignore_block" });
    expect(json(r).error!.message).toMatch(/without `# hcp:end`/);
    expect(s.read(".gitignore")).toBe("a\n# hcp:begin (x)\nb\n");
  });
});

describe("user scope serves the user's own config", () => {
  it("no user config: refused, saying what user scope serves and how to get one", async () => {
    const s = scratch({ packs: ["ledger"] });
    const r = await s.adopt("claude", "--scope", "user", "--json");
    expect(r.code).toBe(1);
    expect(json(r).error).toMatchObject({ code: "no_user_config" });
    expect(json(r).error!.message).toContain("~/.config/hcp/config.json5");
    expect(existsSync(join(s.home, ".claude.json"))).toBe(false);
  });

  it("the entry names the user config (`--config`); the block names its packs, not this project's (ledger + transit), and the plan says so", async () => {
    const s = scratch();
    const file = userConfig(s);
    const r = await s.adopt("claude", "--scope", "user", "--write");
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const entry = JSON.parse(s.read("~/.claude.json")).mcpServers["hcp-user"] as { args: string[] };
    expect(entry.args.slice(-2)).toEqual(["--config", file]);
    const block = s.read("~/.claude/CLAUDE.md");
    expect(block).toContain("### ledger");
    expect(block).not.toContain("### transit");
    // prose on purpose: the note a person reads on the plan
    expect(r.stdout).toMatch(/this project's packs \([^)]*transit[^)]*\) are not adopted at user scope/);
    const other = await s.adopt("claude", "--scope", "user", "--config", "hcp.config.json5");
    expect(other.code).toBe(64);
  });
});

describe("healthy: the host will use the server", () => {
  it("Codex (project): with a ~/.codex/config.toml (Codex used here), --check fails until the project is trusted there", async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("codex", "--write")).code).toBe(0);
    // no ~/.codex/config.toml at all (a CI runner): nothing to hold against it
    expect((await s.adopt("codex", "--check")).code).toBe(0);
    s.write("~/.codex/config.toml", 'model = "x"\n');
    const r = await s.adopt("codex", "--check", "--json");
    expect(unhealthy(r)).toEqual([
      expect.objectContaining({
        code: "host_will_not_use",
        file: "~/.codex/config.toml",
        message: expect.stringContaining("Codex reads .codex/config.toml only in a trusted project"),
      }),
    ]);
    const root = realpathSync(s.dir);
    s.write("~/.codex/config.toml", `[projects."${root}"]\ntrust_level = "trusted"\n`);
    healthy(await s.adopt("codex", "--check", "--json")); // each host will use the server
  });

  it("Copilot CLI (project): with a ~/.copilot/config.json (Copilot used here), --check and doctor fail until the project is in trusted_folders", async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("copilot", "--write")).code).toBe(0);
    // no ~/.copilot/config.json (Copilot not used on this machine): nothing to hold against it
    expect((await s.adopt("copilot", "--check")).code).toBe(0);
    const root = realpathSync(s.dir);
    s.write("~/.copilot/config.json", '{ "banner": "never" }\n');
    const r = await s.adopt("copilot", "--check", "--json");
    expect(unhealthy(r)).toEqual([
      expect.objectContaining({
        code: "host_will_not_use",
        message: expect.stringContaining(
          `GitHub Copilot CLI loads a project's MCP servers (.mcp.json, .github/mcp.json) only in a trusted folder, and ${root} is not one (no trusted_folders in ~/.copilot/config.json)`,
        ),
        hint: expect.stringContaining(`add "${root}" to trusted_folders in ~/.copilot/config.json`),
      }),
    ]);
    s.write("~/.copilot/config.json", JSON.stringify({ trusted_folders: ["/elsewhere"] }) + "\n");
    const other = await s.adopt("copilot", "--check", "--json");
    expect(other.code).toBe(1);
    expect(JSON.stringify(json(other).error)).toContain('trusted_folders is [\\"/elsewhere\\"], without');
    const d = await s.run(["doctor", "--json"]);
    expect(d.code).toBe(1);
    const host = (json(d).error!.details!.checks as { id: string; status: string; message: string }[]).find(
      (c) => c.id === "host:copilot",
    )!;
    expect(host.status).toBe("fail");
    s.write("~/.copilot/config.json", JSON.stringify({ trusted_folders: ["/elsewhere", root] }) + "\n");
    healthy(await s.adopt("copilot", "--check", "--json")); // each host will use the server
  });

  it("Qwen Code (project): with a ~/.qwen/mcpApprovals.json, --check fails until hcp is approved for the project", async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("qwen", "--write")).code).toBe(0);
    expect((await s.adopt("qwen", "--check")).code).toBe(0);
    const root = realpathSync(s.dir);
    s.write(
      "~/.qwen/mcpApprovals.json",
      JSON.stringify({ [root]: { other: { hash: "x", status: "approved" } } }) + "\n",
    );
    const r = await s.adopt("qwen", "--check", "--json");
    expect(unhealthy(r)).toEqual([
      expect.objectContaining({
        code: "host_will_not_use",
        message: expect.stringContaining(
          `Qwen Code does not start a project MCP server until it is approved ("Pending approval"), and hcp is not approved for ${root}`,
        ),
        hint: expect.stringContaining(`run \`qwen mcp approve hcp\` in ${root}`),
      }),
    ]);
    s.write("~/.qwen/mcpApprovals.json", JSON.stringify({ [root]: { hcp: { hash: "x", status: "approved" } } }) + "\n");
    healthy(await s.adopt("qwen", "--check", "--json"));
  });

  it('an entry the person turned off (Codex enabled = false, Kiro "disabled": true) is kept, and --check says the host will not use it', async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("codex", "kiro", "--write")).code).toBe(0);
    healthy(await s.adopt("codex", "kiro", "--check", "--json"));
    s.write(
      ".codex/config.toml",
      s.read(".codex/config.toml").replace("[mcp_servers.hcp]\n", "[mcp_servers.hcp]\nenabled = false\n"),
    );
    const kiro = JSON.parse(s.read(".kiro/settings/mcp.json")) as { mcpServers: { hcp: Record<string, unknown> } };
    kiro.mcpServers.hcp.disabled = true;
    s.write(".kiro/settings/mcp.json", JSON.stringify(kiro, null, 2) + "\n");
    // adopt --write keeps the person's "off" (it does not take a choice back), and --check says what it means
    await s.adopt("codex", "kiro", "--write");
    expect(s.read(".codex/config.toml")).toContain("enabled = false");
    expect(s.read(".kiro/settings/mcp.json")).toContain('"disabled": true');
    const r = await s.adopt("codex", "kiro", "--check", "--json");
    expect(unhealthy(r)).toEqual([
      expect.objectContaining({
        code: "host_will_not_use",
        file: ".codex/config.toml",
        message: expect.stringContaining("enabled = false"),
      }),
      expect.objectContaining({
        code: "host_will_not_use",
        file: ".kiro/settings/mcp.json",
        message: expect.stringContaining('"disabled": true'),
      }),
    ]);
  });

  it("Claude Code: a workspace not trusted fails --check: its allow rules are ignored", async () => {
    // seen with the pinned claude -p (test/agents/claude-env-prefix.test.ts): "Ignoring 3 permissions.allow entries
    // from .claude/settings.json: this workspace has not been trusted"; trust of a folder above does not count
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    const root = realpathSync(s.dir);
    const trust = (dir: string, yes = true) => JSON.stringify({ projects: { [dir]: { hasTrustDialogAccepted: yes } } });
    // no ~/.claude.json: Claude Code has not run here, it asks on its first start
    healthy(await s.adopt("claude", "--check", "--json"));
    const untrusted = [
      expect.objectContaining({
        code: "host_will_not_use",
        file: "~/.claude.json",
        message: expect.stringContaining(`ignores a project's permissions.allow rules`),
        hint: expect.stringContaining(`start \`claude\` in ${root} and accept the trust dialog`),
      }),
    ];
    for (const text of [JSON.stringify({ numStartups: 2, projects: {} }), trust(dirname(root)), trust(root, false)]) {
      s.write("~/.claude.json", text);
      expect(unhealthy(await s.adopt("claude", "--check", "--json")), text).toEqual(untrusted);
    }
    s.write("~/.claude.json", trust(root));
    healthy(await s.adopt("claude", "--check", "--json"));
  });

  it("Claude Code: a local-scope server of the same name (it wins over .mcp.json) fails --check, with what to do", async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    const root = realpathSync(s.dir);
    // a trusted workspace (the next case: else the allow rules are ignored)
    const trusted = { hasTrustDialogAccepted: true };
    s.write("~/.claude.json", JSON.stringify({ projects: { [root]: { ...trusted, mcpServers: {} } } }));
    healthy(await s.adopt("claude", "--check", "--json"));
    s.write(
      "~/.claude.json",
      JSON.stringify({ projects: { [root]: { ...trusted, mcpServers: { hcp: { command: "other" } } } } }),
    );
    expect(unhealthy(await s.adopt("claude", "--check", "--json"))).toEqual([
      expect.objectContaining({
        code: "host_will_not_use",
        file: "~/.claude.json",
        message: expect.stringContaining("runs its local-scope server hcp"),
      }),
    ]);
  });

  it("Claude Code: hcp on disabledMcpjsonServers fails --check and doctor, with the file and what to do", async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    s.write(".claude/settings.local.json", '{ "disabledMcpjsonServers": ["hcp"] }\n');
    const r = await s.adopt("claude", "--check", "--json");
    expect(unhealthy(r)).toEqual([
      expect.objectContaining({
        code: "host_will_not_use",
        file: ".claude/settings.local.json",
        message: expect.stringMatching(/^Claude Code does not start a \.mcp\.json server on disabledMcpjsonServers/),
      }),
    ]);
    const d = await s.run(["doctor", "--json"]);
    expect(d.code).toBe(1);
    const host = (json(d).error!.details!.checks as { id: string; status: string; message: string }[]).find(
      (c) => c.id === "host:claude",
    )!;
    expect(host.status).toBe("fail");
    expect(host.message).toContain("will not use the server");
  });

  it("a config the host's server would not find (adopted with --config elsewhere) is not healthy; $HCP_CONFIG, which the host passes on, is", async () => {
    const s = scratch({ packs: ["ledger"] });
    s.write(
      "conf/other.json5",
      s
        .read("hcp.config.json5")
        .replaceAll("./packs/", "../packs/")
        .replace('"roots": [\n      "."\n    ]', '"roots": ["..", "."]'),
    );
    const other = join(s.dir, "conf", "other.json5");
    expect((await s.run(["--config", "hcp.config.json5", "adopt", "cursor", "--write"])).code).toBe(0);
    expect((await s.run(["--config", "hcp.config.json5", "adopt", "cursor", "--check"])).code).toBe(0);
    const r = await s.run(["--config", other, "adopt", "cursor", "--check", "--json"]);
    expect(r.code).toBe(1);
    const health = json(r).error!.details!.health as Health[];
    expect(health, JSON.stringify(health)).toContainEqual(
      expect.objectContaining({
        code: "mcp_config_not_found",
        severity: "error",
        message: expect.stringContaining(
          `where \`hcpx mcp\` finds ${realpathSync(s.dir)}/hcp.config.json5, not ${other}`,
        ),
      }),
    );
  });

  it("an MCP command that is not on the host's PATH is not healthy", async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("cursor", "--write", "--command", "hcpx-nowhere mcp")).code).toBe(0);
    const r = await s.adopt("cursor", "--check", "--command", "hcpx-nowhere mcp", "--json");
    expect(unhealthy(r)).toEqual([
      expect.objectContaining({
        code: "mcp_command_not_on_path",
        message: expect.stringContaining("the MCP command `hcpx-nowhere` is not on the PATH Cursor inherits"),
      }),
    ]);
  });
});

describe("the prompt block when hcpx is not on PATH", () => {
  it("names the command the MCP entry runs for the shell route", async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    const block = readFileSync(join(s.dir, "CLAUDE.md"), "utf8");
    expect(block).toContain(
      `\`${process.execPath} ${realpathSync(HCPX)} exec <pack> <verb> --json -- key=value …\` (shell; \`hcpx\` is not on PATH here: this is the command the hcp MCP entry runs)`,
    );
  });
});

describe("descriptor data", () => {
  it("every host says, per scope, what a trace of it is (`detect`); user scope names its programs where it has one", () => {
    for (const host of listHosts()) {
      const d = loadDescriptor(host);
      for (const scope of ["project", "user"] as const) {
        const sc = d.scopes[scope];
        if (!sc) continue;
        expect(sc.detect, `${host} ${scope}: detect`).toBeDefined();
        expect(
          [...(sc.detect!.paths ?? []), ...(sc.detect!.programs ?? [])].length,
          `${host} ${scope}: detect is empty`,
        ).toBeGreaterThan(0);
      }
    }
  });
});

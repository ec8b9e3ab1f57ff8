// Host e2e, part 2: the portable MCP command (`hcpx mcp`, written when `hcpx` on
// PATH leads to this install) started by the real hosts, and the bundles of
// `hcpx generate --as claude-plugin|gemini-extension DIR`: validated by the
// hosts' own validators, then loaded by the hosts (`claude --plugin-dir`,
// `gemini extensions link`) whose `mcp list` must show the bundled server connected.
import { mkdirSync, symlinkSync } from "node:fs";
import { delimiter, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  availability,
  diffSnapshots,
  DIST,
  hc,
  hostHome,
  makeWorld,
  expectConnected,
  pathWithoutHcpx,
  removeAfterAll,
  snapshot,
  strictJson,
  tmp,
  type Snapshot,
  type World,
} from "./support";

const avail = availability();

const cleanup = removeAfterAll();

describe.skipIf(!avail.all)("host e2e: the portable `hcpx mcp` entry and the plugin/extension bundles", () => {
  let w: World;
  let bin: string;
  /** PATH where `hcpx` is a symlink to this build's dist/hcpx.mjs */
  let PATH: string;
  let projBefore: Snapshot;
  let homeBefore: Snapshot;
  const home = (files: Record<string, string> = {}, append: Record<string, string> = {}) => {
    return cleanup(hostHome(w.home, files, append));
  };

  beforeAll(() => {
    bin = tmp("hcpx-e2e-bin-");
    symlinkSync(DIST, join(bin, "hcpx"));
    PATH = [bin, pathWithoutHcpx()].join(delimiter);
    // the user's own config, which user scope serves (the world's ledger pack, read grants)
    w = makeWorld(
      {
        "~/.config/hcp/config.json5": `{ packs: ["$P/packs/ledger"], grants: { allow: ["ledger.accounts", "ledger.balance", "ledger.entries"] }, sandbox: { roots: ["$P"], cwd: "$P" } }\n`,
      },
      { PATH },
    );
    cleanup(bin, w.dir, w.home);
    projBefore = snapshot(w.dir);
    homeBefore = snapshot(w.home);
  });

  describe("`hcpx` on PATH: adopt writes the portable `hcpx mcp`", () => {
    it("claude (project) and codex (user): the entries are `hcpx mcp`, no machine-specific note", async () => {
      const a = await w.adopt("claude", "--write");
      expect(a.code, a.stderr).toBe(0);
      expect(a.stdout).not.toMatch(/machine-specific/);
      expect((strictJson(w.read(".mcp.json")) as { mcpServers: Record<string, unknown> }).mcpServers.hcp).toEqual({
        type: "stdio",
        command: "hcpx",
        args: ["mcp", "--shape", "per-command", "--client-host", "claude"],
      });
      const b = await w.adopt("codex", "--scope", "user", "--write");
      expect(b.code, b.stderr).toBe(0);
      expect(w.read("~/.codex/config.toml")).toMatch(
        /^\[mcp_servers\.hcp-user\]\ncommand = "hcpx"\nargs = \["mcp","--shape","per-command","--host","codex","--config",".*\/\.config\/hcp\/config\.json5"\]\n/,
      );
    });

    describe.concurrent("the hosts start it through PATH", () => {
      it("Claude Code: `hcp: hcpx mcp - ✔ Connected` (project .mcp.json)", async () => {
        const r = await hc.claudeMcpList({
          home: home({ ".claude/settings.json": '{ "enableAllProjectMcpServers": true }\n' }),
          cwd: w.dir,
          env: { PATH },
        });
        expectConnected(r, ["hcp"], "claude mcp list");
        expect(r.servers.find((s) => s.name === "hcp")!.command).toBe(
          "hcpx mcp --shape per-command --client-host claude",
        );
      });

      it("Codex: app-server on a thread lists the user-scope `hcpx mcp` server's tools and calls a ledger read", async () => {
        const r = await hc.codexMcpServerStatus({
          home: home(),
          cwd: w.dir,
          thread: true,
          env: { PATH },
          call: { server: "hcp-user", tool: "ledger__balance", arguments: { account: "checking" } },
        });
        expect(r.error, r.raw.stderr.slice(-2000)).toBeUndefined();
        expectConnected(r, ["hcp-user"], "codex mcpServerStatus/list");
        expect(r.servers.find((s) => s.name === "hcp-user")!.tools!.sort()).toEqual([
          "hcp__read_skill",
          "ledger__accounts",
          "ledger__balance",
          "ledger__entries",
        ]);
        expect(r.callResult).toMatchObject({
          isError: false,
          structuredContent: { ok: true, data: { account: "checking", balance: 1200 } },
        });
      });
    });

    it("Claude Code at user scope (~/.claude.json): ✔ Connected; then --remove everything: project and HOME byte-identical", async () => {
      expect((await w.adopt("claude", "--remove", "--write")).code).toBe(0);
      expect((await w.adopt("claude", "--scope", "user", "--write")).code).toBe(0);
      const r = await hc.claudeMcpList({ home: home(), cwd: w.dir, env: { PATH } });
      expectConnected(r, ["hcp-user"], "claude mcp list (user scope)");
      for (const h of ["claude", "codex"])
        expect((await w.adopt(h, "--scope", "user", "--remove", "--write")).code).toBe(0);
      expect(diffSnapshots(projBefore, snapshot(w.dir))).toEqual([]);
      expect(diffSnapshots(homeBefore, snapshot(w.home))).toEqual([]);
    });
  });

  describe.concurrent("bundles: hcpx generate --as …", () => {
    it("claude-plugin: `claude plugin validate` passes (hcp server, the ledger + hcp skills); `claude --plugin-dir DIR mcp list` connects plugin:hcp-packs:hcp", async () => {
      const dir = join(tmp("hcpx-e2e-plugin-"), "hcp-packs");
      cleanup(dir);
      const g = await w.hcpx(["generate", "--as", "claude-plugin", dir]);
      expect(g.code, g.stderr).toBe(0);
      const v = await hc.claudePluginValidate(dir);
      expect(v.ok, JSON.stringify(v.report ?? v.raw, null, 1)).toBe(true);
      expect(v.errors).toEqual([]);
      expect(v.provides?.mcpServers?.map((s) => s.name)).toEqual(["hcp"]);
      expect([...(v.provides?.skills ?? [])].sort()).toEqual(["hcp-packs:hcp", "hcp-packs:ledger"]);
      // loaded by Claude Code for a session: the plugin's server starts through PATH
      const h = home();
      const raw = await hc.run(hc.hostBin("claude"), ["--plugin-dir", dir, "mcp", "list"], {
        cwd: w.dir,
        env: hc.hostEnv(h, { PATH }),
        timeoutMs: 60_000,
      });
      // (hostcli's parser stops at the first ':', and a plugin server is named plugin:<plugin>:<server>)
      expect(raw.stdout, raw.stderr).toMatch(/^plugin:hcp-packs:hcp: hcpx mcp - ✔ Connected$/mu);
    });

    it("gemini-extension: `gemini extensions validate` passes without warnings; linked into a scratch HOME, `gemini mcp list` connects hcp (from hcp-packs)", async () => {
      const dir = join(tmp("hcpx-e2e-ext-"), "hcp-packs");
      cleanup(dir);
      const g = await w.hcpx(["generate", "--as", "gemini-extension", dir]);
      expect(g.code, g.stderr).toBe(0);
      const v = await hc.geminiExtensionValidate(dir);
      expect(v.ok, v.raw.stderr + v.raw.stdout).toBe(true);
      expect(v.warnings).toEqual([]);
      const h = tmp("hcpx-e2e-gemhome-");
      cleanup(h);
      mkdirSync(join(h, ".gemini"), { recursive: true });
      const env = hc.hostEnv(h, { PATH, GEMINI_CLI_TRUST_WORKSPACE: "true" });
      const link = await hc.run(hc.hostBin("gemini"), ["extensions", "link", "--consent", dir], {
        cwd: h,
        env,
        timeoutMs: 90_000,
      });
      expect(link.code, link.stderr + link.stdout).toBe(0);
      const raw = await hc.run(hc.hostBin("gemini"), ["mcp", "list"], { cwd: w.dir, env, timeoutMs: 90_000 });
      const servers = hc.parseGeminiMcpList(raw.stderr + "\n" + raw.stdout);
      expectConnected(
        { ok: raw.code === 0, servers, raw },
        ["hcp (from hcp-packs)"],
        "gemini mcp list (linked extension)",
      );
    });
  });
});

if (!avail.all) {
  describe("host e2e (portable command, bundles)", () => {
    it.skip(`SKIPPED — ${avail.reason}`, () => {});
  });
}

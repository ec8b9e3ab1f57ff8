// Each host's own approval (issue 10): `hcpx adopt --write` writes the host's
// permission rules from the grants and Policy — granted reads run without a
// prompt, confirm-gated writes go to the host's approval prompt — next to the
// person's own rules; the hosts' own programs accept the files; `--remove
// --write` takes hcpx's rules out again and gives the project back byte for byte.
import { readFileSync, writeFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import {
  availability,
  diffSnapshots,
  expectConnected,
  hc,
  hostHome,
  makeWorld,
  removeAfterAll,
  snapshot,
  type Snapshot,
  type World,
} from "./support";

const HOSTS = ["claude", "codex", "gemini", "opencode"] as const;
const avail = availability();
const cleanup = removeAfterAll();

// The person's own rules, there before hcpx: they must survive adopt and --remove byte for byte.
const USER_FILES: Record<string, string> = {
  ".claude/settings.json": `{\n  "permissions": {\n    "allow": ["Bash(ls:*)", "mcp__hcp__ledger__balance"],\n    "deny": ["Bash(rm:*)"]\n  },\n  "model": "sonnet"\n}\n`,
  ".gemini/settings.json": `// the person's settings\n{\n  "tools": { "allowed": ["run_shell_command(git status)"] }\n}\n`,
  "opencode.json": `{\n  "$schema": "https://opencode.ai/config.json",\n  "permission": { "bash": "ask" }\n}\n`,
};

describe.skipIf(!avail.all)(
  "host approval rules: adopt writes them, the hosts accept them, --remove takes them out",
  () => {
    let w: World;
    let before: Snapshot;

    beforeAll(async () => {
      w = makeWorld(USER_FILES);
      cleanup(w.dir, w.home);
      // a gated write and an ungated write granted next to the reads
      for (const g of ["ledger.transfer", "ledger.entry.add"]) expect((await w.hcpx(["grant", g])).code).toBe(0);
      before = snapshot(w.dir);
      const r = await w.adopt(...HOSTS, "--write");
      expect(r.code, r.stderr + r.stdout).toBe(0);
    });

    it("Claude Code: permissions.allow has the reads (MCP tool and shell route), permissions.ask the gated write; the person's rules stay", () => {
      const s = JSON.parse(w.read(".claude/settings.json")) as {
        permissions: { allow: string[]; ask: string[]; deny: string[] };
        model: string;
      };
      expect(s.model).toBe("sonnet");
      expect(s.permissions.deny).toEqual(["Bash(rm:*)"]);
      expect(s.permissions.allow.slice(0, 2)).toEqual(["Bash(ls:*)", "mcp__hcp__ledger__balance"]);
      // the shell rules name the command the prompt block names: the entry's command up to `mcp` (hcpx is not on PATH here)
      const entry = JSON.parse(w.read(".mcp.json")) as { mcpServers: { hcp: { command: string; args: string[] } } };
      const exec = [
        entry.mcpServers.hcp.command,
        ...entry.mcpServers.hcp.args.slice(0, entry.mcpServers.hcp.args.indexOf("mcp")),
      ].join(" ");
      expect(w.read("CLAUDE.md")).toContain(`${exec} exec`);
      expect(s.permissions.allow).toEqual(
        expect.arrayContaining([
          "mcp__hcp__hcp__read_skill",
          "mcp__hcp__ledger__accounts",
          `Bash(${exec} exec ledger balance:*)`,
          "mcp__hcp__ledger__entries",
        ]),
      );
      expect(s.permissions.ask).toEqual(["mcp__hcp__ledger__transfer", `Bash(${exec} exec ledger transfer:*)`]);
      // an ungated write is in neither list (the host's default applies); a gated one is never allowed
      for (const list of [s.permissions.allow, s.permissions.ask])
        expect(list.some((x) => x.includes("entry_add") || x.includes("entry.add"))).toBe(false);
      expect(s.permissions.allow.some((x) => x.includes("transfer"))).toBe(false);
      // the tools are per command, so a rule can tell them apart
      const mcp = JSON.parse(w.read(".mcp.json")) as { mcpServers: { hcp: { args: string[] } } };
      expect(mcp.mcpServers.hcp.args.slice(-5)).toEqual(["mcp", "--shape", "per-command", "--client-host", "claude"]);
    });

    it("Codex: per-tool approval_mode — reads approve, the gated write prompt, the default prompt", () => {
      const t = parseToml(w.read(".codex/config.toml")) as {
        mcp_servers: {
          hcp: {
            args: string[];
            default_tools_approval_mode: string;
            tools: Record<string, { approval_mode: string }>;
          };
        };
      };
      const hcp = t.mcp_servers.hcp;
      // Codex alone reads .codex/config.toml: the entry names its host, whose approval_mode rules count under confirm "host"
      expect(hcp.args.slice(-4)).toEqual(["--shape", "per-command", "--host", "codex"]);
      expect(hcp.default_tools_approval_mode).toBe("prompt");
      expect(hcp.tools.ledger__balance!.approval_mode).toBe("approve");
      expect(hcp.tools.hcp__read_skill!.approval_mode).toBe("approve");
      expect(hcp.tools.ledger__transfer!.approval_mode).toBe("prompt");
      expect(hcp.tools.ledger__entry_add!.approval_mode).toBe("auto");
    });

    it("Gemini CLI: tools.allowed has the reads, tools.confirmationRequired the gated write; the person's entry stays", () => {
      const s = parseJsonc(w.read(".gemini/settings.json")) as {
        tools: { allowed: string[]; confirmationRequired: string[] };
      };
      expect(s.tools.allowed[0]).toBe("run_shell_command(git status)");
      expect(s.tools.allowed).toEqual(expect.arrayContaining(["mcp_hcp_ledger__balance", "mcp_hcp_hcp__read_skill"]));
      expect(s.tools.confirmationRequired).toEqual(["mcp_hcp_ledger__transfer"]);
      expect(w.read(".gemini/settings.json")).toContain("// the person's settings");
    });

    it("opencode: permission maps the reads to allow and the gated write to ask; the person's bash rule stays", () => {
      const s = parseJsonc(w.read("opencode.json")) as { permission: Record<string, string> };
      expect(s.permission.bash).toBe("ask");
      expect(s.permission.hcp_ledger__balance).toBe("allow");
      expect(s.permission.hcp_ledger__transfer).toBe("ask");
      expect(s.permission.hcp_ledger__entry_add).toBeUndefined();
    });

    it("the hosts' own programs read the files and connect to hcp", async () => {
      const claude = await hc.claudeMcpList({
        home: hostHome(w.home, { ".claude/settings.json": '{ "enableAllProjectMcpServers": true }\n' }),
        cwd: w.dir,
      });
      expectConnected(claude, ["hcp"], "claude mcp list with the permission rules in .claude/settings.json");
      const gemini = await hc.geminiMcpList({ home: hostHome(w.home), cwd: w.dir });
      expect(gemini.raw.code, "gemini exits 52 when a settings file does not parse").not.toBe(52);
      expectConnected(gemini, ["hcp"], "gemini mcp list with tools.allowed / confirmationRequired");
      const opencode = await hc.opencodeMcpList({ home: hostHome(w.home), cwd: w.dir });
      expectConnected(opencode, ["hcp"], "opencode mcp list with permission");
      const codex = await hc.codexMcpServerStatus({
        home: hostHome(w.home, {}, { ".codex/config.toml": `\n[projects."${w.dir}"]\ntrust_level = "trusted"\n` }),
        cwd: w.dir,
        thread: true,
      });
      expectConnected(codex, ["hcp"], "codex app-server with per-tool approval_mode");
      const tools = codex.servers.find((s) => s.name === "hcp")!.tools ?? [];
      expect(tools).toEqual(expect.arrayContaining(["ledger__balance", "ledger__transfer", "hcp__read_skill"]));
    });

    // Seen with codex 0.171: app-server declares MCP elicitation, so hcpx asks the person (confirm: "host"),
    // and with no one to answer Codex declines: confirm_declined, even with the model's confirm: true.
    // The gated write here is app-server's own mcpServer/tool/call: the client app calls the tool (the person's UI),
    // not the model, so Codex's per-tool prompt is not in the way. The entry names its host (`--host codex`) and the
    // approval_mode "prompt" rule is in force, so under confirm "host" that rule is the question (docs/confirm.md) and
    // hcpx does not ask a second time: the call runs once. A model's call of the same tool in a headless Codex run is
    // refused by Codex itself (test/agents/codex.test.ts).
    it("Codex, headless (app-server): a granted read runs; the client app's own call of the gated write runs once (Codex's rule in force is the question, hcpx does not ask again)", async () => {
      const codexHome = () =>
        hostHome(w.home, {}, { ".codex/config.toml": `\n[projects."${w.dir}"]\ntrust_level = "trusted"\n` });
      const read = await hc.codexMcpServerStatus({
        home: codexHome(),
        cwd: w.dir,
        thread: true,
        call: { server: "hcp", tool: "ledger__balance", arguments: { account: "checking" } },
      });
      expect(read.callResult, read.raw.stderr.slice(-2000)).toMatchObject({
        isError: false,
        structuredContent: { ok: true, data: { account: "checking", balance: 1200 } },
      });
      const ledger = readFileSync(w.abs("ledger.json"));
      const write = await hc.codexMcpServerStatus({
        home: codexHome(),
        cwd: w.dir,
        thread: true,
        call: {
          server: "hcp",
          tool: "ledger__transfer",
          arguments: { from: "checking", to: "savings", amount: 5, confirm: true },
        },
      });
      const res = write.callResult as
        { error?: unknown; isError?: boolean; structuredContent?: { ok?: boolean } } | undefined;
      expect(res?.structuredContent?.ok, JSON.stringify(res)).toBe(true);
      expect(readFileSync(w.abs("ledger.json")).equals(ledger)).toBe(false);
      writeFileSync(w.abs("ledger.json"), ledger); // the project as before, for the removal below
    });

    it("--remove --write takes hcpx's rules out and keeps the person's: the project is byte-identical to before adopt", async () => {
      const r = await w.adopt(...HOSTS, "--remove", "--write");
      expect(r.code, r.stderr + r.stdout).toBe(0);
      const diff = diffSnapshots(before, snapshot(w.dir)).filter(
        (l) => !/^(missing now|added|changed): \.hcp\b/.test(l),
      );
      expect(diff).toEqual([]);
    });
  },
);

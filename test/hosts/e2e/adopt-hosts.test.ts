// Host e2e: `hcpx adopt <host> --write` in a scratch git project and a scratch
// HOME, then the hosts' own programs (installed by scripts/install-hosts.sh)
// prove they read what hcpx wrote: Claude `✔ Connected`, Gemini `Connected`,
// opencode `connected`, Codex app-server `mcpServerStatus/list` (+ a tool call),
// and the MCP Inspector calling a ledger read through the exact command line in
// `.mcp.json`. Cursor, VS Code and Windsurf (no CLI) are checked against their
// documented shapes. Then `adopt --remove` must give back the scratch project and
// HOME byte for byte. Hosts run on copies of HOME (they rewrite their own files
// there); the project is theirs to read, and must not change either.
import { beforeAll, describe, expect, it } from "vitest";
import { parse as parseJsonc } from "jsonc-parser";
import { BEGIN, END } from "../../../src/host/mdblock";
import {
  availability,
  diffSnapshots,
  DIST,
  frontmatter,
  hc,
  hostHome,
  isFile,
  makeWorld,
  expectConnected,
  removeAfterAll,
  snapshot,
  strictJson,
  TINY,
  type Snapshot,
  type World,
  expectRemoveRestores,
} from "./support";

const HOSTS = ["claude", "codex", "cursor", "gemini", "opencode", "vscode", "windsurf"] as const;
const avail = availability();

// Pre-existing user config: each host must still see (and connect to) the user's own server.
const TINY_JSON = (stdio = true) => `{ ${stdio ? '"type": "stdio", ' : ""}"command": "$NODE", "args": ["$TINY"] }`;
const USER_FILES: Record<string, string> = {
  "CLAUDE.md": "# Scratch project\n\nNotes the user wrote; adopt must keep them byte for byte.\n",
  ".mcp.json": `{\n  "mcpServers": {\n    "tiny-proj": ${TINY_JSON()}\n  }\n}\n`,
  ".gemini/settings.json": `// the user's project settings\n{\n  "mcpServers": {\n    "tiny-proj": ${TINY_JSON(false)}\n  }\n}\n`,
  ".vscode/mcp.json": `{\n  // the user's inputs\n  "inputs": [],\n  "servers": {}\n}\n`,
  // the project trusted (Claude Code ignores its permissions.allow rules until then; adopt --check says so otherwise)
  "~/.claude.json": `{\n  "numStartups": 1,\n  "projects": {\n    "$P": { "hasTrustDialogAccepted": true }\n  },\n  "mcpServers": {\n    "tiny-user": ${TINY_JSON()}\n  }\n}\n`,
  // the project trusted (Codex reads its .codex/config.toml only then; adopt --check says so otherwise)
  "~/.codex/config.toml": `# the user's codex settings\n[mcp_servers.tiny-user]\ncommand = "$NODE"\nargs = ["$TINY"]\n\n[projects."$P"]\ntrust_level = "trusted"\n`,
  "~/.gemini/settings.json": `{\n  // user-wide\n  "mcpServers": {\n    "tiny-user": ${TINY_JSON(false)}\n  }\n}\n`,
  // the user's own config: what user scope serves, from any directory (README "User scope")
  "~/.config/hcp/config.json5": `{ packs: ["$P/packs/ledger"], grants: { allow: ["ledger.accounts", "ledger.balance", "ledger.entries"] }, sandbox: { roots: ["$P"], cwd: "$P" } }\n`,
};

/** the hcp MCP entry adopt wrote runs this machine's node + dist (no hcpx on PATH here); per-command for hosts whose approval is per tool */
function expectAbsoluteCommand(
  entry: unknown,
  perCommand = false,
  config?: string,
  host?: string,
  clientHost?: string,
): void {
  // `--host <id>`: a host with ask rules that alone reads the entry; `--client-host <ids>`: an entry several hosts read (src/host/ask-rules.ts)
  expect(entry).toMatchObject({
    command: process.execPath,
    args: [
      DIST,
      "mcp",
      ...(perCommand ? ["--shape", "per-command"] : []),
      ...(host ? ["--host", host] : []),
      ...(clientHost ? ["--client-host", clientHost] : []),
      ...(config ? ["--config", config] : []),
    ],
  });
}
const BALANCE_TOOL = { tool: "ledger__balance", arguments: { account: "checking" } };
const PER_COMMAND_TOOLS = ["hcp__read_skill", "ledger__accounts", "ledger__balance", "ledger__entries"];

const cleanup = removeAfterAll();

describe.skipIf(!avail.all)("host e2e: adopt, then each host's own program", () => {
  let w: World;
  let projBefore: Snapshot;
  let homeBefore: Snapshot;
  /** a host's own view of HOME: a copy, plus what the host needs to trust/approve the scratch project */
  const home = (files: Record<string, string> = {}, append: Record<string, string> = {}) => {
    return cleanup(hostHome(w.home, files, append));
  };
  const claudeHome = () => home({ ".claude/settings.json": '{ "enableAllProjectMcpServers": true }\n' });
  const codexHome = () => home();

  beforeAll(() => {
    w = makeWorld(USER_FILES);
    cleanup(w.dir, w.home);
    projBefore = snapshot(w.dir);
    homeBefore = snapshot(w.home);
  });

  describe("project scope", () => {
    it("adopt <host> --write for each of the seven hosts; --check is then in sync", async () => {
      for (const host of HOSTS) {
        const r = await w.adopt(host, "--write");
        expect(r.code, `${host}: ${r.stderr}${r.stdout}`).toBe(0);
      }
      const mcp = strictJson(w.read(".mcp.json")) as { mcpServers: Record<string, unknown> };
      expectAbsoluteCommand(mcp.mcpServers.hcp, true, undefined, undefined, "claude");
      expect(Object.keys(mcp.mcpServers)).toEqual(["tiny-proj", "hcp"]);
      const check = await w.adopt(...HOSTS, "--check");
      expect(check.code, check.stdout + check.stderr).toBe(0);
      // a second --write changes no byte
      const mid = snapshot(w.dir);
      const again = await w.adopt(...HOSTS, "--write");
      expect(again.code, again.stderr).toBe(0);
      expect(diffSnapshots(mid, snapshot(w.dir))).toEqual([]);
    });

    describe.concurrent("the hosts read it", () => {
      it("Claude Code: `claude mcp list` ✔ Connected for hcp (and the user's own servers); `mcp get` says project scope", async () => {
        const h = claudeHome();
        const list = await hc.claudeMcpList({ home: h, cwd: w.dir });
        expectConnected(list, ["hcp", "tiny-proj", "tiny-user"], "claude mcp list");
        const get = await hc.claudeMcpGet("hcp", { home: h, cwd: w.dir });
        expect(get.server.status, get.raw.stdout).toBe("connected");
        expect(get.server.scope, get.raw.stdout).toMatch(/^Project config/);
      });

      it("Gemini CLI: `gemini mcp list` Connected for hcp", async () => {
        const r = await hc.geminiMcpList({ home: home(), cwd: w.dir });
        expectConnected(r, ["hcp", "tiny-proj", "tiny-user"], "gemini mcp list");
      });

      it("opencode: `opencode mcp list` connected for hcp", async () => {
        const r = await hc.opencodeMcpList({ home: home(), cwd: w.dir });
        expectConnected(r, ["hcp"], "opencode mcp list");
      });

      it("Codex: app-server thread/start + mcpServerStatus/list shows hcp's tools; mcpServer/tool/call reads the ledger", async () => {
        const r = await hc.codexMcpServerStatus({
          home: codexHome(),
          cwd: w.dir,
          thread: true,
          call: { server: "hcp", ...BALANCE_TOOL },
        });
        expect(r.error, r.raw.stderr.slice(-2000)).toBeUndefined();
        expectConnected(r, ["hcp", "tiny-user"], "codex mcpServerStatus/list");
        expect(r.servers.find((s) => s.name === "hcp")!.tools!.sort()).toEqual(PER_COMMAND_TOOLS);
        expect(r.callResult).toMatchObject({
          isError: false,
          structuredContent: { ok: true, data: { account: "checking", balance: 1200 } },
        });
      });

      it("MCP Inspector: tools/call hcp ledger.balance through the command line in .mcp.json (--config .mcp.json --server hcp)", async () => {
        const r = await hc.inspectorCall({
          config: w.abs(".mcp.json"),
          server: "hcp",
          method: "tools/call",
          toolName: "ledger__balance",
          toolArgs: { account: "checking" },
          cwd: w.dir,
        });
        expect(r.raw.code, r.raw.stderr).toBe(0);
        expect(r.result).toMatchObject({
          isError: false,
          structuredContent: { ok: true, data: { account: "checking", balance: 1200 } },
        });
        const accounts = await hc.inspectorCall({
          config: w.abs(".mcp.json"),
          server: "hcp",
          method: "tools/call",
          toolName: "ledger__accounts",
          toolArgs: {},
          cwd: w.dir,
        });
        const data = accounts.result?.structuredContent?.data as
          { accounts: { id: string; balance: number }[] } | undefined;
        expect(
          data?.accounts.map((a) => [a.id, a.balance]),
          accounts.raw.stderr + accounts.raw.stdout,
        ).toEqual([
          ["cash", 0],
          ["checking", 1200],
          ["savings", 5000],
        ]);
      });

      it("Cursor (no CLI): .cursor/mcp.json strict JSON mcpServers.hcp; .cursor/rules/hcp.mdc frontmatter types; the entry's command answers tools/list", async () => {
        const entry = (
          strictJson(w.read(".cursor/mcp.json")) as { mcpServers: Record<string, { command: string; args: string[] }> }
        ).mcpServers.hcp!;
        // one tool per command, for permissions.json's mcpAllowlist (issue 27)
        expectAbsoluteCommand(entry, true);
        expect((parseJsonc(w.read(".cursor/permissions.json")) as { mcpAllowlist: string[] }).mcpAllowlist).toEqual(
          PER_COMMAND_TOOLS.map((t) => `hcp:${t}`),
        );
        const { data, body } = await frontmatter(w.read(".cursor/rules/hcp.mdc"));
        expect(typeof data.alwaysApply, 'alwaysApply must be a boolean (the string "true" silently fails)').toBe(
          "boolean",
        );
        expect(data.alwaysApply).toBe(true);
        expect(typeof data.globs, "globs is a comma-separated string").toBe("string");
        expect(typeof data.description).toBe("string");
        expect((data.description as string).length).toBeGreaterThan(0);
        expect(Object.keys(data).sort()).toEqual(["alwaysApply", "description", "globs"]);
        expect(body).toContain("ledger");
        const tools = await hc.inspectorCall({
          command: entry.command,
          args: entry.args,
          method: "tools/list",
          cwd: w.dir,
        });
        expect([...(tools.tools ?? [])].sort(), tools.raw.stderr).toEqual(PER_COMMAND_TOOLS);
      });

      it("VS Code (no CLI): .vscode/mcp.json has servers.hcp with type stdio (the user's keys and comment kept); instructions block; the command answers tools/list", async () => {
        const text = w.read(".vscode/mcp.json");
        expect(text).toContain("// the user's inputs");
        const doc = parseJsonc(text) as {
          servers: Record<string, { type: string; command: string; args: string[] }>;
          inputs: unknown[];
          mcpServers?: unknown;
        };
        expect(doc.mcpServers, "VS Code reads `servers`, not `mcpServers`").toBeUndefined();
        expect(doc.inputs).toEqual([]);
        expect(doc.servers.hcp!.type).toBe("stdio");
        expectAbsoluteCommand(doc.servers.hcp);
        const md = w.read(".github/copilot-instructions.md");
        expect(md.startsWith(BEGIN) && md.trimEnd().endsWith(END), md.slice(0, 200)).toBe(true);
        const tools = await hc.inspectorCall({
          command: doc.servers.hcp!.command,
          args: doc.servers.hcp!.args,
          method: "tools/list",
          cwd: w.dir,
        });
        expect(tools.tools, tools.raw.stderr).toEqual(["hcp", "hcp__read_skill"]);
      });

      it("Devin Desktop, alias windsurf (no CLI): the Cascade agent's .windsurf/rules/hcp.md has trigger: always_on and stays under 6,000 characters", async () => {
        const text = w.read(".windsurf/rules/hcp.md");
        expect(text.length).toBeLessThan(6000);
        const { data, body } = await frontmatter(text);
        expect(data).toEqual({ trigger: "always_on" });
        expect(body).toContain("ledger");
        expect(isFile(w.abs(".codeium/windsurf/mcp_config.json")), "Windsurf has no project MCP file").toBe(false);
      });

      it("Skill copies: <skills dir>/ledger/SKILL.md for every host, with a spec-valid name and description", async () => {
        for (const dir of [".claude/skills", ".agents/skills", ".cursor/skills", ".gemini/skills", ".github/skills"]) {
          const { data } = await frontmatter(w.read(`${dir}/ledger/SKILL.md`));
          expect(data.name, dir).toBe("ledger");
          expect(
            typeof data.description === "string" && data.description.length > 0 && data.description.length <= 1024,
            dir,
          ).toBe(true);
        }
        // instructions blocks: after the user's text, which stays as it was
        expect(w.read("CLAUDE.md").startsWith(USER_FILES["CLAUDE.md"]!)).toBe(true);
        for (const f of ["CLAUDE.md", "AGENTS.md", "GEMINI.md"]) expect(w.read(f), f).toContain(BEGIN);
      });
    });

    it("adopt <host> --remove --write for each: the scratch project and HOME are byte-identical to before", async () => {
      await expectRemoveRestores(w, HOSTS, { proj: projBefore, home: homeBefore });
    });
  });

  describe("user scope (--scope user)", () => {
    it("adopt <host> --scope user --write for each host; --check is then in sync; the project is untouched", async () => {
      for (const host of HOSTS) {
        const r = await w.adopt(host, "--scope", "user", "--write");
        expect(r.code, `${host}: ${r.stderr}${r.stdout}`).toBe(0);
      }
      const claude = strictJson(w.read("~/.claude.json")) as {
        numStartups: number;
        mcpServers: Record<string, unknown>;
      };
      expect(claude.numStartups).toBe(1);
      expectAbsoluteCommand(claude.mcpServers["hcp-user"], true, w.abs("~/.config/hcp/config.json5"), "claude");
      const codexUser = USER_FILES["~/.codex/config.toml"]!.replaceAll("$NODE", process.execPath)
        .replaceAll("$TINY", TINY)
        .replaceAll("$P", w.dir);
      for (const part of codexUser.split("\n\n")) expect(w.read("~/.codex/config.toml")).toContain(part.trim());
      const check = await w.adopt(...HOSTS, "--scope", "user", "--check");
      expect(check.code, check.stdout + check.stderr).toBe(0);
      expect(diffSnapshots(projBefore, snapshot(w.dir))).toEqual([]);
    });

    describe.concurrent("the hosts read it", () => {
      it("Claude Code: ✔ Connected for the user-scope hcp-user (~/.claude.json); `mcp get` says user scope", async () => {
        const h = home();
        const list = await hc.claudeMcpList({ home: h, cwd: w.dir });
        expectConnected(list, ["hcp-user", "tiny-user"], "claude mcp list");
        const get = await hc.claudeMcpGet("hcp-user", { home: h, cwd: w.dir });
        expect(get.server.status, get.raw.stdout).toBe("connected");
        expect(get.server.scope, get.raw.stdout).toMatch(/^User config/);
      });

      // A thread, as in a real session (without one, app-server starts user-scope servers in
      // ~/.codex: test/hosts/e2e/adopt-team.test.ts); the entry serves the user config either way.
      it("Codex: app-server mcpServerStatus/list on a thread in the project lists the user-scope hcp with its tools; a tool call reads the ledger", async () => {
        const r = await hc.codexMcpServerStatus({
          home: home(),
          cwd: w.dir,
          thread: true,
          call: { server: "hcp-user", ...BALANCE_TOOL },
        });
        expect(r.error, r.raw.stderr.slice(-2000)).toBeUndefined();
        expectConnected(r, ["hcp-user", "tiny-user"], "codex mcpServerStatus/list");
        expect(r.servers.find((s) => s.name === "hcp-user")!.tools!.sort()).toEqual(PER_COMMAND_TOOLS);
        expect(r.callResult).toMatchObject({
          isError: false,
          structuredContent: { ok: true, data: { account: "checking", balance: 1200 } },
        });
      });

      it("Gemini CLI: Connected for the user-scope hcp (~/.gemini/settings.json, comments kept)", async () => {
        expect(w.read("~/.gemini/settings.json")).toContain("// user-wide");
        const r = await hc.geminiMcpList({ home: home(), cwd: w.dir });
        expectConnected(r, ["hcp-user", "tiny-user"], "gemini mcp list");
      });

      it("opencode: connected for the user-scope hcp (~/.config/opencode/opencode.json)", async () => {
        const r = await hc.opencodeMcpList({ home: home(), cwd: w.dir });
        expectConnected(r, ["hcp-user"], "opencode mcp list");
      });

      it("Windsurf, Cursor, VS Code (no CLI): user files in their documented shapes; each command answers tools/list", async () => {
        const ws = (
          strictJson(w.read("~/.codeium/windsurf/mcp_config.json")) as {
            mcpServers: Record<string, { command: string; args: string[] }>;
          }
        ).mcpServers["hcp-user"]!;
        const cur = (
          strictJson(w.read("~/.cursor/mcp.json")) as {
            mcpServers: Record<string, { command: string; args: string[] }>;
          }
        ).mcpServers["hcp-user"]!;
        const vs = (
          parseJsonc(w.read("~/.config/Code/User/mcp.json")) as {
            servers: Record<string, { type: string; command: string; args: string[] }>;
          }
        ).servers["hcp-user"]!;
        expect(vs.type).toBe("stdio");
        for (const e of [vs]) expectAbsoluteCommand(e, false, w.abs("~/.config/hcp/config.json5"));
        // Devin Desktop (alias windsurf) and Cursor get one tool per command, for their approval rules (issue 27)
        expectAbsoluteCommand(ws, true, w.abs("~/.config/hcp/config.json5"), "devin");
        expectAbsoluteCommand(cur, true, w.abs("~/.config/hcp/config.json5"));
        const rules = w.read("~/.codeium/windsurf/memories/global_rules.md");
        expect(rules.length, "Windsurf's global rules file is capped at 6,000 characters").toBeLessThan(6000);
        expect(rules).toContain(BEGIN);
        const r = await hc.inspectorCall({ command: ws.command, args: ws.args, method: "tools/list", cwd: w.dir });
        expect([...(r.tools ?? [])].sort(), r.raw.stderr).toEqual(PER_COMMAND_TOOLS);
      });
    });

    it("adopt <host> --scope user --remove --write for each: HOME and the project are byte-identical to before", async () => {
      await expectRemoveRestores(w, HOSTS, { proj: projBefore, home: homeBefore }, ["--scope", "user"]);
    });
  });
});

if (!avail.all) {
  describe("host e2e", () => {
    it.skip(`SKIPPED — ${avail.reason}`, () => {});
  });
}

// The host's own approval when the host's files move with an environment variable (descriptor
// `homes`): `hcpx mcp` reads the ask rule, the person's widening rules and the settings that switch
// the host's asking off where the host reads them — $CLAUDE_CONFIG_DIR for Claude Code (which passes
// its whole environment to its servers), $CODEX_HOME for Codex (which passes only a short list: the
// entry adopt writes forwards CODEX_HOME, env_vars) — and counts none of it where it cannot tell:
// a home variable the entry itself sets (a project's .mcp.json may), or one the host does not pass
// and the entry does not forward. Not in force, hcpx asks the person itself (docs/confirm.md).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { HCPX } from "../support/cli";
import { runInProcess } from "../support/inproc";
import { writeUserConfig } from "../support/userconfig";
import { grantedLedger, type Ledgered } from "./support";

const CONFIG = (p: Ledgered) => ({
  packs: [join(p.dir, "packs/ledger")],
  principal: { id: "test", kind: "agent" },
  grants: { allow: ["ledger.*"], deny: [] },
  sandbox: { bins: {}, roots: [p.dir], cwd: p.dir },
  confirm: "host",
});

/** A project (or, `user`, the person's own config) serving the ledger pack under confirm "host". */
function setup(scope: "project" | "user"): Ledgered {
  const p = grantedLedger({ confirm: "host" });
  if (scope === "user") writeUserConfig(p.home, CONFIG(p));
  return p;
}

async function adopt(p: Ledgered, args: string[], env: Record<string, string> = {}): Promise<void> {
  const r = await runInProcess(["adopt", ...args, "--write"], { cwd: p.dir, env: { HOME: p.home, ...env } });
  expect(r.code, r.stderr + r.stdout).toBe(0);
}

/** The command line of the entry adopt wrote (its `mcp …` part, run from this build). */
function entryArgs(entry: { args: string[] }): string[] {
  return [HCPX, ...entry.args.slice(entry.args.indexOf("mcp"))];
}

/** One gated write through a server started as the host would; how many questions hcpx asked. */
async function call(
  p: Ledgered,
  args: string[],
  env: Record<string, string> = {},
  client = "host",
): Promise<{ asked: number; ok: boolean; code?: string }> {
  const c = new Client({ name: client, version: "1" }, { capabilities: { elicitation: {} } });
  let asked = 0;
  c.setRequestHandler(ElicitRequestSchema, async () => {
    asked++;
    return { action: "cancel" };
  });
  await c.connect(
    new StdioClientTransport({
      command: process.execPath,
      args,
      cwd: p.dir,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: p.home,
        NO_COLOR: "1",
        LEDGER_FILE: p.ledger,
        LEDGER_NOW: "2026-01-01T00:00:00Z",
        ...env,
      },
      stderr: "ignore",
    }),
  );
  try {
    const r = await c.callTool({
      name: "ledger__transfer",
      arguments: { from: "checking", to: "savings", amount: 3, confirm: true },
    });
    const out = r.structuredContent as { ok: boolean; error?: { code: string } };
    return { asked, ok: out.ok, ...(out.error ? { code: out.error.code } : {}) };
  } finally {
    await c.close();
  }
}

const readJson = (f: string) => JSON.parse(readFileSync(f, "utf8")) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const writeJson = (f: string, v: unknown) => {
  mkdirSync(join(f, ".."), { recursive: true });
  writeFileSync(f, JSON.stringify(v, null, 2));
};

describe("the host's approval where the host's files are moved", () => {
  it("Claude Code: the relocated settings switch its asking off (bypassPermissions): hcpx asks, though ~/.claude says otherwise", async () => {
    const p = setup("project");
    await adopt(p, ["claude"]);
    const args = entryArgs(readJson(join(p.dir, ".mcp.json")).mcpServers.hcp);
    const cfg = join(p.home, "claude-work");
    writeJson(join(p.home, ".claude", "settings.json"), { permissions: { defaultMode: "default" } });
    writeJson(join(cfg, "settings.json"), { permissions: { defaultMode: "bypassPermissions" } });
    const env = { CLAUDE_CONFIG_DIR: cfg };
    const bypass = await call(p, args, env, "claude-code");
    expect(bypass.asked).toBe(1);
    expect(bypass.code).toBe("confirm_declined");
    // the relocated settings no longer skip the prompt: Claude Code's ask rule is the one question
    writeJson(join(cfg, "settings.json"), { permissions: { defaultMode: "default" } });
    const inForce = await call(p, args, env, "claude-code");
    expect(inForce.asked).toBe(0);
    expect(inForce.ok).toBe(true);
  }, 60_000);

  it("Claude Code at user scope: a relocated home without hcpx's ask rule is not in force, though ~/.claude has it", async () => {
    const p = setup("user");
    await adopt(p, ["claude", "--scope", "user"]);
    const entry = readJson(join(p.home, ".claude.json")).mcpServers["hcp-user"];
    const args = entryArgs(entry);
    expect((await call(p, args)).asked).toBe(0); // the default home: in force
    // the person starts Claude Code with its config elsewhere: the same entry, settings of their own (an allow)
    const cfg = join(p.home, "claude-work");
    writeJson(join(cfg, ".claude.json"), { mcpServers: { "hcp-user": entry } });
    writeJson(join(cfg, "settings.json"), { permissions: { allow: ["mcp__hcp-user__*"] } });
    const env = { CLAUDE_CONFIG_DIR: cfg };
    const moved = await call(p, args, env);
    expect(moved.asked).toBe(1);
    expect(moved.code).toBe("confirm_declined");
    // adopt with the variable writes the rule where Claude Code reads it: in force again
    await adopt(p, ["claude", "--scope", "user"], env);
    expect((await call(p, args, env)).asked).toBe(0);
  }, 60_000);

  it("Codex at user scope: CODEX_HOME reaches the server only when the entry forwards it; unknown is not in force", async () => {
    const p = setup("user");
    await adopt(p, ["codex", "--scope", "user"]);
    const toml = join(p.home, ".codex", "config.toml");
    const text = readFileSync(toml, "utf8");
    const args = entryArgs(
      (parseToml(text) as { mcp_servers: Record<string, { args: string[] }> }).mcp_servers["hcp-user"]!,
    );
    // the entry forwards CODEX_HOME and the server got none: Codex has none, its home is ~/.codex
    expect(text).toMatch(/env_vars = \[[^\]]*"CODEX_HOME"/);
    expect((await call(p, args)).asked).toBe(0);
    // an entry that does not forward it (an older adopt, a hand-made one): the server cannot tell → hcpx asks
    writeFileSync(toml, text.replace(/^env_vars = .*\n/m, ""));
    const unknown = await call(p, args);
    expect(unknown.asked).toBe(1);
    expect(unknown.code).toBe("confirm_declined");
    writeFileSync(toml, text);
    // Codex runs with CODEX_HOME elsewhere, whose config approves the gated tool: not in force → hcpx asks
    const cx = join(p.home, "codex-home");
    mkdirSync(cx);
    writeFileSync(
      join(cx, "config.toml"),
      text.replace(
        'ledger__transfer = { approval_mode = "prompt" }',
        'ledger__transfer = { approval_mode = "approve" }',
      ),
    );
    const moved = await call(p, args, { CODEX_HOME: cx });
    expect(moved.asked).toBe(1);
    // adopt with the variable: $CODEX_HOME/config.toml holds the ask rule → in force
    await adopt(p, ["codex", "--scope", "user", "--force"], { CODEX_HOME: cx }); // (its entry there was the person's copy)
    expect((await call(p, args, { CODEX_HOME: cx })).asked).toBe(0);
  }, 90_000);

  it("a project's .mcp.json entry that sets the home variable (or HOME) for the server is not the host's word: hcpx asks", async () => {
    const p = setup("project");
    await adopt(p, ["claude"]);
    const mcpJson = join(p.dir, ".mcp.json");
    const doc = readJson(mcpJson);
    const args = entryArgs(doc.mcpServers.hcp);
    // the person's own settings: Claude Code runs tools without asking
    writeJson(join(p.home, ".claude", "settings.json"), { permissions: { defaultMode: "bypassPermissions" } });
    expect((await call(p, args, {}, "claude-code")).asked).toBe(1);
    // a commit points the server at a folder of its own (Claude Code applies an entry's env to the server only)
    const planted = join(p.dir, ".planted");
    writeJson(join(planted, "settings.json"), { permissions: { defaultMode: "default" } });
    doc.mcpServers.hcp.env = { CLAUDE_CONFIG_DIR: planted };
    writeJson(mcpJson, doc);
    const viaVar = await call(p, args, { CLAUDE_CONFIG_DIR: planted }, "claude-code");
    expect(viaVar.asked).toBe(1);
    expect(viaVar.code).toBe("confirm_declined");
    // the same with HOME
    const fakeHome = join(p.dir, ".home");
    mkdirSync(fakeHome);
    writeJson(join(fakeHome, ".claude", "settings.json"), { permissions: { defaultMode: "default" } });
    doc.mcpServers.hcp.env = { HOME: fakeHome };
    writeJson(mcpJson, doc);
    const viaHome = await call(p, args, { HOME: fakeHome }, "claude-code");
    expect(viaHome.asked).toBe(1);
  }, 90_000);
});

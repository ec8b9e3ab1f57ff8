// Exactly one question per gated write (issue 23 §2): under confirm "host", a
// host approval that `hcpx adopt` wrote and that is still in force is the
// person's question, and hcpx does not ask again; without it (or under
// "person") hcpx asks; nothing runs on the model's word alone. A real adopt
// (claude) writes the rules; the v1 SDK client with elicitation plays the host.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { HCPX, runHcpx as runChild, type RunOptions } from "../support/cli";
import { needsProcess, runInProcess } from "../support/inproc";
import { grantedLedger, writeConfig, type Ledgered } from "./support";

function project(confirm: string): Ledgered {
  return grantedLedger({ confirm });
}

// adopt, which writes the host's rules, runs in this process (test/support/inproc.ts); the MCP servers are real processes
const runHcpx = (args: string[], opts?: RunOptions) =>
  needsProcess(args) ? runChild(args, opts) : runInProcess(args, opts);

const envOf = (p: Ledgered) => ({
  PATH: process.env.PATH ?? "",
  HOME: p.home,
  NO_COLOR: "1",
  LEDGER_FILE: p.ledger,
  LEDGER_NOW: "2026-01-01T00:00:00Z",
});

interface Answer {
  asked: number;
  env: { ok: boolean; error?: { code: string } };
}

interface Serving {
  /** one gated transfer on this server, the host's question answered with `answer` */
  call(answer: "accept" | "cancel", tool?: string): Promise<Answer>;
}

/**
 * One `hcpx mcp` (--host `host`, or `o.args`) under a client with elicitation, serving the calls `use` makes:
 * a server reads the host's rules from disk at each call (src/host/approval.ts), so a case that edits
 * them between two calls of the same client asks the one server again instead of starting another.
 */
async function serve<T>(
  p: Ledgered,
  host: string | undefined,
  o: { shape?: "single" | "per-command"; client?: string; args?: string[] },
  use: (s: Serving) => Promise<T>,
): Promise<T> {
  const client = new Client({ name: o.client ?? "host", version: "1" }, { capabilities: { elicitation: {} } });
  let asked = 0;
  let answer: "accept" | "cancel" = "cancel";
  client.setRequestHandler(ElicitRequestSchema, async () => {
    asked++;
    return { action: answer };
  });
  const shape = o.shape ?? "per-command";
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: o.args ?? [HCPX, "mcp", "--shape", shape, ...(host ? ["--host", host] : [])],
      cwd: p.dir,
      env: envOf(p),
      stderr: "ignore",
    }),
  );
  try {
    return await use({
      async call(a, tool) {
        asked = 0;
        answer = a;
        const args = { from: "checking", to: "savings", amount: 3 };
        const r =
          shape === "single"
            ? await client.callTool({
                name: "hcp",
                arguments: { pack: "ledger", verb: "transfer", args, confirm: true },
              })
            : await client.callTool({ name: tool ?? "ledger__transfer", arguments: { ...args, confirm: true } });
        return { asked, env: r.structuredContent as Answer["env"] };
      },
    });
  } finally {
    await client.close();
  }
}

/** One gated transfer on a server of its own. */
function call(
  p: Ledgered,
  host: string | undefined,
  answer: "accept" | "cancel",
  o: { tool?: string; shape?: "single" | "per-command"; client?: string; args?: string[] } = {},
): Promise<Answer> {
  return serve(p, host, o, (s) => s.call(answer, o.tool));
}

/** The args of the project `.mcp.json` entry adopt wrote (Claude Code's, read by Copilot CLI and Qoder too), run from this build. */
function sharedEntryArgs(p: Ledgered): string[] {
  const e = JSON.parse(readFileSync(join(p.dir, ".mcp.json"), "utf8")).mcpServers.hcp as {
    command: string;
    args: string[];
  };
  const i = e.args.indexOf("mcp");
  expect(i, JSON.stringify(e)).toBeGreaterThanOrEqual(0);
  return [HCPX, ...e.args.slice(i)];
}

type ModernResult = { resultType?: string; structuredContent?: { ok: boolean; error?: { code: string } } };

/**
 * 2026-07-28 tools/calls, one after the other, on one fresh `hcpx mcp` (no initialize): each request's
 * own _meta names its client (or none), so one server answers each as a server of its own would.
 */
async function callModern(p: Ledgered, args: string[], clientNames: (string | undefined)[]): Promise<ModernResult[]> {
  const child = spawn(process.execPath, args, { cwd: p.dir, env: envOf(p), stdio: ["pipe", "pipe", "ignore"] });
  const lines: string[] = [];
  let buf = "";
  let waiting: (() => void) | undefined;
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    buf += d;
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
      lines.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
    waiting?.();
  });
  const out: ModernResult[] = [];
  try {
    for (const [i, clientName] of clientNames.entries()) {
      const meta: Record<string, unknown> = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
      };
      if (clientName) meta["io.modelcontextprotocol/clientInfo"] = { name: clientName, version: "1" };
      const params = {
        name: "ledger__transfer",
        arguments: { from: "checking", to: "savings", amount: 3, confirm: true },
        _meta: meta,
      };
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params }) + "\n");
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no answer to tools/call ${i + 1}`)), 30_000);
        (waiting = () => {
          if (lines.length <= i) return;
          clearTimeout(t);
          resolve();
        })();
      });
      const m = JSON.parse(lines[i]!) as { id: number; result: ModernResult };
      expect(m.id).toBe(i + 1);
      out.push(m.result);
    }
    return out;
  } finally {
    child.kill();
  }
}

// The cases run at once: each has its own project, HOME and ledger, its servers are its own
// processes (cwd and environment given, not this process's), and most of a case is a wait on them.
describe.concurrent("one question per gated write", () => {
  it('confirm "host": the adopted, in-force host rule is the question (hcpx does not ask); a removed rule brings hcpx\'s question back', async () => {
    const p = project("host");
    const a = await runHcpx(["adopt", "claude", "--write"], { cwd: p.dir, env: { HOME: p.home } });
    expect(a.code, a.stderr).toBe(0);
    const settings = join(p.dir, ".claude", "settings.json");
    expect(JSON.parse(readFileSync(settings, "utf8")).permissions.ask).toContain("mcp__hcp__ledger__transfer");
    const before = readFileSync(p.ledger, "utf8");
    await serve(p, "claude", {}, async (srv) => {
      // the headless case: a host that declares elicitation and cancels every question
      const ran = await srv.call("cancel");
      expect(ran.asked).toBe(0);
      expect(ran.env.ok).toBe(true);
      expect(readFileSync(p.ledger, "utf8")).not.toBe(before);
      // the person took the rule out of the host's settings (the server running) → not in force → hcpx asks
      const s = JSON.parse(readFileSync(settings, "utf8"));
      s.permissions.ask = s.permissions.ask.filter((x: string) => x !== "mcp__hcp__ledger__transfer");
      writeFileSync(settings, JSON.stringify(s, null, 2));
      const removed = await srv.call("cancel");
      expect(removed.asked).toBe(1);
      expect(removed.env.error?.code).toBe("confirm_declined");
    });
    // no --host: the server cannot know which host's rules guard it → hcpx asks
    const unnamed = await call(p, undefined, "cancel");
    expect(unnamed.asked).toBe(1);
    expect(unnamed.env.error?.code).toBe("confirm_declined");
  }, 60_000);

  it('confirm "person": the host\'s rule never counts; hcpx asks, and only accept runs', async () => {
    const p = project("person");
    expect((await runHcpx(["adopt", "claude", "--write"], { cwd: p.dir, env: { HOME: p.home } })).code).toBe(0);
    const before = readFileSync(p.ledger, "utf8");
    await serve(p, "claude", {}, async (srv) => {
      const cancelled = await srv.call("cancel");
      expect(cancelled.asked).toBe(1);
      expect(readFileSync(p.ledger, "utf8")).toBe(before);
      const accepted = await srv.call("accept");
      expect(accepted.asked).toBe(1);
      expect(accepted.env.ok).toBe(true);
    });
  }, 60_000);
  it("adopt writes --host into the entry of a host with ask rules that no other host reads, and only there", async () => {
    const p = project("host");
    expect((await runHcpx(["adopt", "claude", "--write"], { cwd: p.dir, env: { HOME: p.home } })).code).toBe(0);
    const entry = JSON.parse(readFileSync(join(p.dir, ".mcp.json"), "utf8")).mcpServers.hcp;
    // Claude Code shares .mcp.json's hcp with Copilot CLI and Qoder: a server started from it cannot know which host started it
    expect(entry.args).not.toContain("--host");
    expect((await runHcpx(["adopt", "gemini", "--write"], { cwd: p.dir, env: { HOME: p.home } })).code).toBe(0);
    expect(
      JSON.parse(readFileSync(join(p.dir, ".gemini", "settings.json"), "utf8")).mcpServers.hcp.args.slice(-2),
    ).toEqual(["--host", "gemini"]);
    // Cursor has no ask rule of hcpx's (its gate is an allow-list): its entry names no host
    expect((await runHcpx(["adopt", "cursor", "--write"], { cwd: p.dir, env: { HOME: p.home } })).code).toBe(0);
    expect(JSON.parse(readFileSync(join(p.dir, ".cursor", "mcp.json"), "utf8")).mcpServers.hcp.args).not.toContain(
      "--host",
    );
  }, 60_000);

  it("a planted ledger and an allow rule are not the host's question: where the ask rule lives comes from the descriptor, not from the repository", async () => {
    const p = project("host");
    expect((await runHcpx(["adopt", "claude", "--write"], { cwd: p.dir, env: { HOME: p.home } })).code).toBe(0);
    // a commit moves the rule from permissions.ask to permissions.allow, and the ledger's key with it:
    // Claude Code would now run the write without asking
    const settings = join(p.dir, ".claude", "settings.json");
    const s = JSON.parse(readFileSync(settings, "utf8"));
    s.permissions.allow.push(...s.permissions.ask);
    delete s.permissions.ask;
    writeFileSync(settings, JSON.stringify(s, null, 2));
    const ledgerFile = join(p.dir, ".hcp", "adopted.json");
    const led = JSON.parse(readFileSync(ledgerFile, "utf8"));
    for (const e of led.hosts.claude.entries)
      if (JSON.stringify(e.key) === JSON.stringify(["permissions", "ask"])) e.key = ["permissions", "allow"];
    writeFileSync(ledgerFile, JSON.stringify(led, null, 2));
    const before = readFileSync(p.ledger, "utf8");
    const r = await call(p, "claude", "cancel");
    expect(r.asked).toBe(1);
    expect(r.env.error?.code).toBe("confirm_declined");
    expect(readFileSync(p.ledger, "utf8")).toBe(before);
  }, 60_000);

  it("a setting that switches the host's asking off (Claude Code's bypassPermissions) takes the ask rule out of force", async () => {
    const p = project("host");
    expect((await runHcpx(["adopt", "claude", "--write"], { cwd: p.dir, env: { HOME: p.home } })).code).toBe(0);
    writeFileSync(
      join(p.dir, ".claude", "settings.local.json"),
      JSON.stringify({ permissions: { defaultMode: "bypassPermissions" } }),
    );
    // one server: the host's settings are read at each call
    await serve(p, "claude", {}, async (srv) => {
      const bypass = await srv.call("cancel");
      expect(bypass.asked).toBe(1);
      expect(bypass.env.error?.code).toBe("confirm_declined");
      // in the person's user settings too (the first file that sets the mode decides)
      writeFileSync(join(p.dir, ".claude", "settings.local.json"), "{}");
      mkdirSync(join(p.home, ".claude"), { recursive: true });
      writeFileSync(
        join(p.home, ".claude", "settings.json"),
        JSON.stringify({ permissions: { defaultMode: "bypassPermissions" } }),
      );
      expect((await srv.call("cancel")).asked).toBe(1);
      writeFileSync(
        join(p.home, ".claude", "settings.json"),
        JSON.stringify({ permissions: { defaultMode: "default" } }),
      );
      expect((await srv.call("cancel")).asked).toBe(0);
    });
  }, 60_000);

  it("Codex: the per-tool approval_mode adopt wrote in .codex/config.toml is read back (prompt: in force; approve: not)", async () => {
    const p = project("host");
    expect((await runHcpx(["adopt", "codex", "--write"], { cwd: p.dir, env: { HOME: p.home } })).code).toBe(0);
    const toml = join(p.dir, ".codex", "config.toml");
    const text = readFileSync(toml, "utf8");
    const servers = (parseToml(text) as { mcp_servers: Record<string, { args: string[] }> }).mcp_servers;
    expect(Object.keys(servers)).toEqual(["hcp"]);
    expect(servers.hcp!.args.slice(-2)).toEqual(["--host", "codex"]);
    const before = readFileSync(p.ledger, "utf8");
    await serve(p, "codex", {}, async (srv) => {
      const inForce = await srv.call("cancel");
      expect(inForce.asked).toBe(0);
      expect(inForce.env.ok).toBe(true);
      expect(readFileSync(p.ledger, "utf8")).not.toBe(before);
      // the person (or a commit) set the gated tool to approve: Codex runs it without asking → hcpx asks
      const loosened = text.replace(
        'ledger__transfer = { approval_mode = "prompt" }',
        'ledger__transfer = { approval_mode = "approve" }',
      );
      expect(loosened).not.toBe(text);
      writeFileSync(toml, loosened);
      const r = await srv.call("cancel");
      expect(r.asked).toBe(1);
      expect(r.env.error?.code).toBe("confirm_declined");
    });
  }, 60_000);

  it("Amp: a rule of the person's before hcpx's ask rule (the first match decides) takes it out of force", async () => {
    const p = project("host");
    expect((await runHcpx(["adopt", "amp", "--write"], { cwd: p.dir, env: { HOME: p.home } })).code).toBe(0);
    await serve(p, "amp", {}, async (srv) => {
      expect((await srv.call("cancel")).asked).toBe(0);
      const file = join(p.dir, ".amp", "settings.json");
      const s = JSON.parse(readFileSync(file, "utf8"));
      s["amp.permissions"].unshift({ tool: "mcp__hcp__*", action: "allow" });
      writeFileSync(file, JSON.stringify(s, null, 2));
      const r = await srv.call("cancel");
      expect(r.asked).toBe(1);
      expect(r.env.error?.code).toBe("confirm_declined");
    });
  }, 60_000);
  it("the host's rule counts only for the tool name the host sees: a verb-named tool (mcp.tool_names) or the single hcp tool is asked by hcpx", async () => {
    const p = project("host");
    expect((await runHcpx(["adopt", "claude", "--write"], { cwd: p.dir, env: { HOME: p.home } })).code).toBe(0);
    // the rule adopt wrote is for mcp__hcp__ledger__transfer; served as the single `hcp` tool, the host never applies it
    const single = await call(p, "claude", "cancel", { shape: "single" });
    expect(single.asked).toBe(1);
    expect(single.env.error?.code).toBe("confirm_declined");
    // a project config that serves the pack's verbs by their own names: the host sees `transfer`, which no ask rule names
    const cfg = JSON.parse(readFileSync(p.config, "utf8"));
    writeFileSync(p.config, JSON.stringify({ ...cfg, mcp: { tool_names: { ledger: "verb" } } }));
    const before = readFileSync(p.ledger, "utf8");
    const named = await call(p, "claude", "cancel", { tool: "transfer" });
    expect(named.asked).toBe(1);
    expect(named.env.error?.code).toBe("confirm_declined");
    expect(readFileSync(p.ledger, "utf8")).toBe(before);
  }, 60_000);

  it("a shared entry (Claude Code's project .mcp.json, also started by Copilot CLI and Qoder): Claude Code's rule counts only when the client's clientInfo names Claude Code, in both eras", async () => {
    const p = project("host");
    expect((await runHcpx(["adopt", "claude", "--write"], { cwd: p.dir, env: { HOME: p.home } })).code).toBe(0);
    const args = sharedEntryArgs(p);
    // the entry names no one host (three read it), only the hosts that may be told apart by their clientInfo
    expect(args).not.toContain("--host");
    expect(args.slice(args.indexOf("--client-host"), args.indexOf("--client-host") + 2)).toEqual([
      "--client-host",
      "claude",
    ]);
    let ledger = readFileSync(p.ledger, "utf8");
    // Claude Code (clientInfo "claude-code"): its permissions.ask rule adopt wrote is in force: the one question, hcpx does not ask
    await serve(p, undefined, { args, client: "claude-code" }, async (srv) => {
      const claude = await srv.call("cancel");
      expect(claude.asked).toBe(0);
      expect(claude.env.ok).toBe(true);
      expect(readFileSync(p.ledger, "utf8")).not.toBe(ledger);
      ledger = readFileSync(p.ledger, "utf8");
      // Copilot CLI, Qoder, anyone else on the same entry: Claude Code's rule is not their question → hcpx asks
      for (const other of ["github-copilot-cli", "qoder", "host"]) {
        const r = await call(p, undefined, "cancel", { args, client: other });
        expect(r.asked, other).toBe(1);
        expect(r.env.error?.code, other).toBe("confirm_declined");
      }
      expect(readFileSync(p.ledger, "utf8")).toBe(ledger);
      // 2026-07-28: the request's own _meta clientInfo decides, per request
      const [modern, copilot, nameless] = await callModern(p, args, ["claude-code", "github-copilot-cli", undefined]);
      expect(modern!.structuredContent?.ok, JSON.stringify(modern)).toBe(true);
      expect(copilot!.resultType).toBe("input_required");
      expect(nameless!.resultType).toBe("input_required");
      // the rule taken out of Claude Code's settings (the server running): not in force, even for Claude Code → hcpx asks
      const settings = join(p.dir, ".claude", "settings.json");
      const s = JSON.parse(readFileSync(settings, "utf8"));
      s.permissions.ask = s.permissions.ask.filter((x: string) => x !== "mcp__hcp__ledger__transfer");
      writeFileSync(settings, JSON.stringify(s, null, 2));
      expect((await srv.call("cancel")).asked).toBe(1);
    });
  }, 90_000);

  it("a client naming Claude Code counts only on an entry adopt wrote for Claude Code, and never under confirm person", async () => {
    const p = project("host");
    expect((await runHcpx(["adopt", "claude", "--write"], { cwd: p.dir, env: { HOME: p.home } })).code).toBe(0);
    // the plain `hcpx mcp` (no --client-host, no --host): not an entry adopt wrote for Claude Code → hcpx asks
    const plain = await call(p, undefined, "cancel", { client: "claude-code" });
    expect(plain.asked).toBe(1);
    expect(plain.env.error?.code).toBe("confirm_declined");
    // an entry written for another host's rules: a client naming Claude Code does not bring Claude Code's rule in
    const r = await call(p, undefined, "cancel", {
      args: [HCPX, "mcp", "--shape", "per-command", "--client-host", "gemini"],
      client: "claude-code",
    });
    expect(r.asked).toBe(1);
    writeConfig(p.config, { ...JSON.parse(readFileSync(p.config, "utf8")), confirm: "person" });
    const person = await call(p, undefined, "cancel", { args: sharedEntryArgs(p), client: "claude-code" });
    expect(person.asked).toBe(1);
    expect(person.env.error?.code).toBe("confirm_declined");
  }, 60_000);

  it("--client-host takes known host ids: a malformed list, an unknown host, or with --host is refused at start (nothing served)", async () => {
    const p = project("host");
    // three starts refused at once (each its own process)
    const opts = { cwd: p.dir, env: { HOME: p.home } };
    const [bad, unknown, both] = await Promise.all([
      runHcpx(["mcp", "--client-host", "claude,Bad!"], opts),
      runHcpx(["mcp", "--client-host", "claude,nosuchhost"], opts),
      runHcpx(["mcp", "--host", "claude", "--client-host", "claude"], opts),
    ]);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/--client-host takes host ids/);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toMatch(/unknown host 'nosuchhost'/);
    expect(both.code).toBe(64);
    expect(both.stderr).toMatch(/--host and --client-host exclude each other/);
  }, 60_000);
});

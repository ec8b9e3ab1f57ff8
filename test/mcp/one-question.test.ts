// Exactly one question per gated write (issue 23 §2): under confirm "host", a
// host approval that `hcpx adopt` wrote and that is still in force is the
// person's question, and hcpx does not ask again; without it (or under
// "person") hcpx asks; nothing runs on the model's word alone. A real adopt
// (claude) writes the rules; the v1 SDK client with elicitation plays the host.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HCPX, runHcpx } from "../support/cli";
import { ledgerProject, writeConfig, type Ledgered } from "./support";

function project(confirm: string): Ledgered {
  const p = ledgerProject({ packs: ["ledger"] });
  writeConfig(p.config, { packs: ["./packs/ledger"], principal: { id: "test", kind: "agent" }, grants: { allow: ["ledger.*"], deny: [] }, sandbox: { bins: {}, roots: ["."], cwd: "." }, confirm });
  return p;
}

async function call(p: Ledgered, host: string | undefined, answer: "accept" | "cancel") {
  const env = { PATH: process.env.PATH ?? "", HOME: p.home, NO_COLOR: "1", LEDGER_FILE: p.ledger, LEDGER_NOW: "2026-01-01T00:00:00Z" };
  const client = new Client({ name: "host", version: "1" }, { capabilities: { elicitation: {} } });
  let asked = 0;
  client.setRequestHandler(ElicitRequestSchema, async () => {
    asked++;
    return { action: answer };
  });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [HCPX, "mcp", "--shape", "per-command", ...(host ? ["--host", host] : [])], cwd: p.dir, env, stderr: "ignore" }));
  try {
    const r = await client.callTool({ name: "ledger__transfer", arguments: { from: "checking", to: "savings", amount: 3, confirm: true } });
    return { asked, env: r.structuredContent as { ok: boolean; error?: { code: string } } };
  } finally {
    await client.close();
  }
}

describe("one question per gated write", () => {
  it('confirm "host": the adopted, in-force host rule is the question (hcpx does not ask); a removed rule brings hcpx\'s question back', async () => {
    const p = project("host");
    const a = await runHcpx(["adopt", "claude", "--write"], { cwd: p.dir, env: { HOME: p.home } });
    expect(a.code, a.stderr).toBe(0);
    const settings = join(p.dir, ".claude", "settings.json");
    expect(JSON.parse(readFileSync(settings, "utf8")).permissions.ask).toContain("mcp__hcp__ledger__transfer");
    const before = readFileSync(p.ledger, "utf8");
    // the headless case: a host that declares elicitation and cancels every question
    const ran = await call(p, "claude", "cancel");
    expect(ran.asked).toBe(0);
    expect(ran.env.ok).toBe(true);
    expect(readFileSync(p.ledger, "utf8")).not.toBe(before);
    // no --host: the server cannot know which host's rules guard it → hcpx asks
    const unnamed = await call(p, undefined, "cancel");
    expect(unnamed.asked).toBe(1);
    expect(unnamed.env.error?.code).toBe("confirm_declined");
    // the person took the rule out of the host's settings → not in force → hcpx asks
    const s = JSON.parse(readFileSync(settings, "utf8"));
    s.permissions.ask = s.permissions.ask.filter((x: string) => x !== "mcp__hcp__ledger__transfer");
    writeFileSync(settings, JSON.stringify(s, null, 2));
    const removed = await call(p, "claude", "cancel");
    expect(removed.asked).toBe(1);
    expect(removed.env.error?.code).toBe("confirm_declined");
  }, 60_000);

  it('confirm "person": the host\'s rule never counts; hcpx asks, and only accept runs', async () => {
    const p = project("person");
    expect((await runHcpx(["adopt", "claude", "--write"], { cwd: p.dir, env: { HOME: p.home } })).code).toBe(0);
    const before = readFileSync(p.ledger, "utf8");
    const cancelled = await call(p, "claude", "cancel");
    expect(cancelled.asked).toBe(1);
    expect(readFileSync(p.ledger, "utf8")).toBe(before);
    const accepted = await call(p, "claude", "accept");
    expect(accepted.asked).toBe(1);
    expect(accepted.env.ok).toBe(true);
  }, 60_000);
});

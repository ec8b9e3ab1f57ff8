// `hcpx mcp` driven by the SDK's real Client over stdio (a real server process
// in a scratch project; the runtime really spawns the pack bins).
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  addLeakyPack,
  envelope,
  ledgerProject,
  startMcp,
  writeConfig,
  type Ledgered,
  type McpSession,
  type ToolResult,
} from "./support";

const PACKS = ["ledger", "transit", "notes", "inbox-watch"];
const ALLOW = ["ledger.*", "transit.plan", "notes.*", "inbox-watch.*"];
const DENY = ["ledger.entry.delete"];

function config(p: Ledgered, grants: { allow: string[]; deny: string[] }, packs = PACKS) {
  return {
    packs: packs.map((x) => `./packs/${x}`),
    principal: { id: "test", kind: "agent" },
    grants,
    sandbox: { roots: ["."], cwd: "." },
  };
}

describe("hcpx mcp, default shape (the single tool hcp)", () => {
  let p: Ledgered;
  let s: McpSession;
  beforeAll(async () => {
    p = ledgerProject({ packs: PACKS, allow: ALLOW, deny: DENY });
    s = await startMcp(p);
  });
  afterAll(async () => {
    await s?.close();
  });

  it("lists exactly hcp and hcp__read_skill; the description lists granted verbs with markers, nothing else", async () => {
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["hcp", "hcp__read_skill"]);
    const hcp = tools[0]!;
    const d = hcp.description!;
    expect(d).toContain(
      "- ledger: accounts, balance, entries, account.open[w:remote], entry.add[w:remote], transfer[w:remote, confirm required], doctor",
    );
    expect(d).toMatch(/^- transit: plan$/m);
    expect(d).toMatch(/- notes \(argv\): list, show, search, add\[w:local\], tags/);
    expect(d).not.toContain("entry.delete"); // denied
    expect(d).not.toContain("departures"); // not allowed
    expect(d).not.toContain("inbox-watch"); // sense_only exports nothing
    expect(d.length).toBeLessThan(900); // the context cost story: it stays short
    expect(hcp.inputSchema).toMatchObject({
      type: "object",
      required: ["pack", "verb"],
      properties: {
        pack: { type: "string" },
        verb: { type: "string" },
        args: { type: "object" },
        confirm: { type: "boolean" },
      },
    });
    expect(s.client.getInstructions()).toContain("ledger: balances, entries and transfers");
    expect(s.client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, resources: {} });
  });

  it("runs a read (ledger balance) through the runtime: envelope as structuredContent and as JSON text", async () => {
    const r = await s.client.callTool({
      name: "hcp",
      arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } },
    });
    expect(r.isError).toBeFalsy();
    expect(envelope(r)).toEqual({ ok: true, data: { account: "checking", balance: 1200 } });
  });

  it("refuses a confirm-gated write without confirm (confirm_required) and leaves the ledger byte-identical", async () => {
    const before = readFileSync(p.ledger);
    const r = await s.client.callTool({
      name: "hcp",
      arguments: { pack: "ledger", verb: "transfer", args: { from: "checking", to: "savings", amount: 100 } },
    });
    expect(r.isError).toBe(true);
    expect(envelope(r).error?.code).toBe("confirm_required");
    expect(readFileSync(p.ledger).equals(before)).toBe(true);
    const r2 = await s.client.callTool({
      name: "hcp",
      arguments: {
        pack: "ledger",
        verb: "transfer",
        args: { from: "checking", to: "savings", amount: 100 },
        confirm: false,
      },
    });
    expect(envelope(r2).error?.code).toBe("confirm_required");
    expect(readFileSync(p.ledger).equals(before)).toBe(true);
  });

  it("runs the same write with confirm: true, and the ledger file changes", async () => {
    const before = readFileSync(p.ledger, "utf8");
    const r = await s.client.callTool({
      name: "hcp",
      arguments: {
        pack: "ledger",
        verb: "transfer",
        args: { from: "checking", to: "savings", amount: 100 },
        confirm: true,
      },
    });
    expect(envelope(r).ok).toBe(true);
    expect(r.isError).toBeFalsy();
    expect(readFileSync(p.ledger, "utf8")).not.toEqual(before);
    const b = await s.client.callTool({
      name: "hcp",
      arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } },
    });
    expect(envelope(b)).toEqual({ ok: true, data: { account: "checking", balance: 1100 } });
  });

  it("runs an ungated write (entry.add) without confirm", async () => {
    const r = await s.client.callTool({
      name: "hcp",
      arguments: {
        pack: "ledger",
        verb: "entry.add",
        args: { account: "cash", amount: -2.5, memo: "coffee; rm -rf / $(id)" },
      },
    });
    expect(envelope(r)).toMatchObject({ ok: true, data: { balance: -2.5 } });
    expect(readFileSync(p.ledger, "utf8")).toContain("coffee; rm -rf / $(id)");
  });

  it("refuses ungranted, unknown and sense_only commands with isError, and nothing runs", async () => {
    const before = readFileSync(p.ledger);
    const denied = await s.client.callTool({
      name: "hcp",
      arguments: { pack: "ledger", verb: "entry.delete", args: { id: 1 }, confirm: true },
    });
    expect(denied.isError).toBe(true);
    // not granted (denied): to the agent, a command the pack does not have; its hint names the granted ones
    expect(envelope(denied).error).toMatchObject({
      code: "unknown_verb",
      message: "pack ledger has no command 'entry.delete'",
      hint: expect.not.stringContaining("entry.delete"),
    });
    const notAllowed = await s.client.callTool({
      name: "hcp",
      arguments: { pack: "transit", verb: "departures", args: { station: "central" } },
    });
    expect(envelope(notAllowed).error).toMatchObject({
      code: "unknown_verb",
      message: "pack transit has no command 'departures'",
    });
    const unknown = await s.client.callTool({ name: "hcp", arguments: { pack: "ledger", verb: "explode", args: {} } });
    expect(unknown.isError).toBe(true);
    expect(envelope(unknown).error?.code).toBe("unknown_verb");
    const sense = await s.client.callTool({ name: "hcp", arguments: { pack: "inbox-watch", verb: "mail.received" } });
    expect(sense.isError).toBe(true);
    expect(["unknown_verb", "not_granted"]).toContain(envelope(sense).error?.code);
    const noPack = await s.client.callTool({ name: "hcp", arguments: { pack: "nope", verb: "x" } });
    expect(envelope(noPack).error?.code).toBe("unknown_pack");
    // a per-command tool name does not exist in the single shape
    const other = await s.client.callTool({ name: "ledger__balance", arguments: { account: "checking" } });
    expect(other.isError).toBe(true);
    expect(envelope(other).error?.code).toBe("unknown_verb");
    expect(readFileSync(p.ledger).equals(before)).toBe(true);
  });

  it("answers bad input with bad_args, and still answers after failing calls", async () => {
    const bad = await s.client.callTool({
      name: "hcp",
      arguments: { pack: "ledger", verb: "balance", args: "checking" },
    });
    expect(bad.isError).toBe(true);
    expect(envelope(bad).error?.code).toBe("bad_args");
    const missing = await s.client.callTool({ name: "hcp", arguments: { pack: "ledger", verb: "balance", args: {} } });
    expect(envelope(missing).error?.code).toBe("bad_args");
    const stray = await s.client.callTool({
      name: "hcp",
      arguments: { pack: "ledger", verb: "balance", account: "checking" },
    });
    expect(envelope(stray).error?.code).toBe("bad_args");
    const notFound = await s.client.callTool({
      name: "hcp",
      arguments: { pack: "ledger", verb: "balance", args: { account: "nosuch" } },
    });
    expect(notFound.isError).toBe(true);
    expect(envelope(notFound).error?.code).toBe("exit_nonzero");
    const ok = await s.client.callTool({ name: "hcp", arguments: { pack: "ledger", verb: "accounts" } });
    expect(envelope(ok).ok).toBe(true);
  });

  it("passes args.argv literally to a pass_through verb", async () => {
    const add = await s.client.callTool({
      name: "hcp",
      arguments: { pack: "notes", verb: "add", args: { argv: ["buy milk; echo pwned", "--tag", "home"] } },
    });
    expect(envelope(add).ok).toBe(true);
    const list = await s.client.callTool({
      name: "hcp",
      arguments: { pack: "notes", verb: "list", args: { argv: [] } },
    });
    expect(JSON.stringify(envelope(list).data)).toContain("buy milk; echo pwned");
    // the projection's `hcp` definition puts argv at the top level: accepted too
    const top = await s.client.callTool({ name: "hcp", arguments: { pack: "notes", verb: "search", argv: ["milk"] } });
    expect(JSON.stringify(envelope(top).data)).toContain("buy milk; echo pwned");
    const twice = await s.client.callTool({
      name: "hcp",
      arguments: { pack: "notes", verb: "search", argv: ["milk"], args: { argv: ["x"] } },
    });
    expect(envelope(twice).error?.code).toBe("bad_args");
    const named = await s.client.callTool({
      name: "hcp",
      arguments: { pack: "notes", verb: "list", args: { tag: "home" } },
    });
    expect(envelope(named).error?.code).toBe("bad_args");
  });

  it("hcp__read_skill returns the Skill without the rows of ungranted verbs", async () => {
    const r = (await s.client.callTool({ name: "hcp__read_skill", arguments: { pack: "ledger" } })) as ToolResult;
    expect(r.isError).toBeFalsy();
    const text = r.content![0]!.text!;
    expect(text).toMatch(/^---\nname: ledger\n/);
    expect(text).not.toContain("entry.delete"); // no mention of a withheld command anywhere
    expect(text).toContain("| `transfer` | Move money from one account to another | write, confirm |");
    expect(text).not.toContain("| `entry.delete` |");
    const t = (await s.client.callTool({ name: "hcp__read_skill", arguments: { pack: "transit" } })) as ToolResult;
    expect(t.content![0]!.text).toContain("| `plan` |");
    expect(t.content![0]!.text).not.toContain("| `departures` |");
    const sense = await s.client.callTool({ name: "hcp__read_skill", arguments: { pack: "inbox-watch" } });
    expect(sense.isError).toBe(true);
    const none = await s.client.callTool({ name: "hcp__read_skill", arguments: { pack: "nope" } });
    expect(none.isError).toBe(true);
    expect(envelope(none).error?.code).toBe("unknown_pack");
  });

  it("serves each exported pack's Skill as a text/markdown resource", async () => {
    const { resources } = await s.client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([
      "skill://ledger/SKILL.md",
      "skill://notes/SKILL.md",
      "skill://transit/SKILL.md",
    ]);
    expect(resources.every((r) => r.mimeType === "text/markdown" && r.description)).toBe(true);
    const { contents } = await s.client.readResource({ uri: "skill://ledger/SKILL.md" });
    expect(contents[0]).toMatchObject({ uri: "skill://ledger/SKILL.md", mimeType: "text/markdown" });
    const text = (contents[0] as { text: string }).text;
    expect(text).toContain("| `balance` |");
    expect(text).not.toContain("| `entry.delete` |");
    await expect(s.client.readResource({ uri: "skill://inbox-watch/SKILL.md" })).rejects.toThrow(/not found/);
  });

  it("writes nothing but protocol on stdout: its log line is on stderr", async () => {
    expect(s.stderr()).toContain("hcpx mcp: serving 3 pack(s)");
  });
});

describe("hcpx mcp --shape per-command", () => {
  let p: Ledgered;
  let s: McpSession;
  beforeAll(async () => {
    p = ledgerProject({ packs: PACKS, allow: ALLOW, deny: DENY });
    s = await startMcp(p, { shape: "per-command" });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("lists one tool per granted command, with JSON Schema input and annotations from Policy", async () => {
    const { tools } = await s.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual([
      "ledger__accounts",
      "ledger__balance",
      "ledger__entries",
      "ledger__account_open",
      "ledger__entry_add",
      "ledger__transfer",
      "ledger__doctor",
      "notes__list",
      "notes__show",
      "notes__search",
      "notes__add",
      "notes__tags",
      "transit__plan",
      "hcp__read_skill",
    ]);
    const by = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(by.ledger__balance!.annotations).toMatchObject({ readOnlyHint: true });
    expect(by.ledger__balance!.inputSchema).toMatchObject({
      type: "object",
      required: ["account"],
      properties: { account: { type: "string" } },
      additionalProperties: false,
    });
    expect(by.ledger__balance!.inputSchema.properties).not.toHaveProperty("confirm");
    expect(by.ledger__entries!.inputSchema.properties).toMatchObject({ limit: { type: "integer" } });
    expect(by.ledger__transfer!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(by.ledger__transfer!.inputSchema.properties).toMatchObject({
      confirm: { type: "boolean" },
      amount: { type: "number" },
    });
    expect(by.ledger__transfer!.description).toMatch(/\[write · remote · confirm required\]/);
    expect(by.hcp__read_skill!.inputSchema).toMatchObject({
      properties: { pack: { enum: ["ledger", "notes", "transit"] } },
    });
    expect(by.ledger__entry_add!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(by.notes__add!.inputSchema.properties).toMatchObject({
      argv: { type: "array", items: { type: "string" }, maxItems: 6 },
    });
    expect(names.some((n) => n.startsWith("inbox-watch"))).toBe(false);
  });

  it("calls a command tool; a gated write needs confirm: true", async () => {
    const r = await s.client.callTool({ name: "ledger__balance", arguments: { account: "savings" } });
    expect(envelope(r)).toEqual({ ok: true, data: { account: "savings", balance: 5000 } });
    const before = readFileSync(p.ledger);
    const no = await s.client.callTool({
      name: "ledger__transfer",
      arguments: { from: "savings", to: "checking", amount: 50 },
    });
    expect(no.isError).toBe(true);
    expect(envelope(no).error?.code).toBe("confirm_required");
    expect(readFileSync(p.ledger).equals(before)).toBe(true);
    const yes = await s.client.callTool({
      name: "ledger__transfer",
      arguments: { from: "savings", to: "checking", amount: 50, confirm: true },
    });
    expect(envelope(yes).ok).toBe(true);
    expect(readFileSync(p.ledger).equals(before)).toBe(false);
  });

  it("refuses tools that do not exist (ungranted, unknown) with isError", async () => {
    const denied = await s.client.callTool({ name: "ledger__entry_delete", arguments: { id: 1, confirm: true } });
    expect(denied.isError).toBe(true);
    expect(envelope(denied).error?.code).toBe("unknown_verb");
    const hcp = await s.client.callTool({
      name: "hcp",
      arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } },
    });
    expect(hcp.isError).toBe(true);
    const r = await s.client.callTool({ name: "ledger__balance", arguments: { account: "checking" } });
    expect(envelope(r).ok).toBe(true);
  });

  it("hcp__read_skill works in this shape too", async () => {
    const r = (await s.client.callTool({ name: "hcp__read_skill", arguments: { pack: "ledger" } })) as ToolResult;
    expect(r.content![0]!.text).toContain("| `balance` |");
  });
});

describe("hcpx mcp and the config", () => {
  it("re-reads grants per call (a revoked grant stops at once) and announces tool-list changes", async () => {
    const p = ledgerProject({ packs: PACKS, allow: ALLOW, deny: DENY });
    const s = await startMcp(p, { shape: "per-command" });
    try {
      let changed = 0;
      s.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        changed++;
      });
      const ok = await s.client.callTool({ name: "ledger__balance", arguments: { account: "checking" } });
      expect(envelope(ok).ok).toBe(true);
      writeConfig(p.config, config(p, { allow: ["ledger.accounts", "transit.*"], deny: [] }));
      const revoked = await s.client.callTool({ name: "ledger__balance", arguments: { account: "checking" } });
      expect(revoked.isError).toBe(true);
      expect(envelope(revoked).error?.code).toBe("unknown_verb");
      // the watcher (or this tools/list) sees the change
      for (let i = 0; i < 100 && changed === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(changed).toBeGreaterThan(0);
      const names = (await s.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual([
        "ledger__accounts",
        "transit__plan",
        "transit__departures",
        "transit__stops",
        "transit__lines",
        "hcp__read_skill",
      ]);
      // a newly granted command is callable
      const dep = await s.client.callTool({ name: "transit__stops", arguments: {} });
      expect(envelope(dep).ok).toBe(true);
      // a config that cannot be parsed: calls fail closed with the problem, the server stays up
      writeConfig(p.config, { packs: 5 });
      const broken = await s.client.callTool({ name: "ledger__accounts", arguments: {} });
      expect(broken.isError).toBe(true);
      expect(envelope(broken).error?.code).toBeTruthy();
      expect((await s.client.listTools()).tools.length).toBe(6); // the last good list
    } finally {
      await s.close();
    }
  });

  it("never shows a Binding value: a bin that prints its token (stdout, stderr, JSON) leaks it nowhere", async () => {
    const p = ledgerProject({ packs: ["ledger"] });
    addLeakyPack(p.dir);
    writeConfig(p.config, config(p, { allow: ["ledger.*", "leaky.*"], deny: [] }, ["ledger", "leaky"]));
    const TOKEN = "tok-5ecr3t-a7f9c1e2b3";
    for (const shape of ["single", "per-command"] as const) {
      const s = await startMcp(p, { shape, env: { LEAKY_TOKEN: TOKEN, HCPX_DEBUG: "1" } });
      try {
        const seen: unknown[] = [];
        const call = async (verb: string) =>
          shape === "single"
            ? s.client.callTool({ name: "hcp", arguments: { pack: "leaky", verb } })
            : s.client.callTool({ name: `leaky__${verb}`, arguments: {} });
        const fail = await call("fail");
        seen.push(fail);
        expect(fail.isError).toBe(true);
        expect(envelope(fail).error?.code).toBe("exit_nonzero");
        const ok = await call("ok");
        seen.push(ok);
        expect(envelope(ok).ok).toBe(true);
        seen.push(
          await s.client.listTools(),
          await s.client.listResources(),
          await s.client.callTool({ name: "hcp__read_skill", arguments: { pack: "leaky" } }),
        );
        const all = JSON.stringify(seen);
        expect(all).toContain("***"); // the runtime redacted it ...
        expect(all).not.toContain(TOKEN); // ... everywhere
        expect(s.stderr()).not.toContain(TOKEN);
      } finally {
        await s.close();
      }
    }
  });
});

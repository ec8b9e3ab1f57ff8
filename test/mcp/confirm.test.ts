// A confirm-gated write runs only when a person said yes (issue 10): the SDK's
// real Client, with and without the elicitation capability, against `hcpx mcp`,
// and the ledger's real bin writing the ledger file (its side effect).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HCPX, runHcpx } from "../support/cli";
import { envelope, grantedLedger, writeConfig, type Ledgered } from "./support";

type Answer = ElicitResult | "never";
interface Asked {
  message: string;
}

/** The ledger project granting every verb, under `confirm` (none given: the default). */
function project(confirm?: unknown): Ledgered {
  return grantedLedger(confirm === undefined ? {} : { confirm });
}

type Connected = { client: Client; asked: Asked[]; close: () => Promise<void> };

/** A real client; with `answer`, it declares elicitation and answers every question so (as `answer()` says then). */
async function connect(p: Ledgered, answer?: Answer | (() => Answer)): Promise<Connected> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: p.home,
    NO_COLOR: "1",
    LEDGER_FILE: p.ledger,
    LEDGER_NOW: "2026-01-01T00:00:00Z",
  };
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [HCPX, "mcp"],
    cwd: p.dir,
    env,
    stderr: "pipe",
  });
  const client = new Client(
    { name: "confirm-test", version: "1" },
    answer === undefined ? {} : { capabilities: { elicitation: {} } },
  );
  const asked: Asked[] = [];
  if (answer !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push({ message: req.params.message });
      const a = typeof answer === "function" ? answer() : answer;
      if (a === "never") return new Promise<ElicitResult>(() => {});
      return a;
    });
  }
  await client.connect(transport);
  return { client, asked, close: () => client.close() };
}

interface Shared {
  p: Ledgered;
  s: Connected;
  answer: { current: Answer };
}
const shares = new Map<string, Promise<Shared>>();

/**
 * The server of the elicitation cases under one confirm setting, one project and start for them: a server
 * keeps nothing between calls, and what each case says of the ledger it says against the ledger as its
 * case found it. Its client answers as the case asks; what it was asked is the case's own.
 */
async function sharedServer(confirm: unknown, answer: Answer): Promise<Shared> {
  const key = JSON.stringify(confirm ?? null);
  let made = shares.get(key);
  if (!made) {
    made = (async () => {
      const p = project(confirm);
      const ref = { current: answer };
      return { p, s: await connect(p, () => ref.current), answer: ref };
    })();
    shares.set(key, made);
  }
  const sh = await made;
  sh.answer.current = answer;
  sh.s.asked.length = 0;
  return sh;
}
afterAll(async () => {
  for (const sh of shares.values()) await (await sh).s.close();
});

const transfer = (confirm?: boolean) => ({
  name: "hcp",
  arguments: {
    pack: "ledger",
    verb: "transfer",
    args: { from: "checking", to: "savings", amount: 7 },
    ...(confirm === undefined ? {} : { confirm }),
  },
});

describe("MCP elicitation: the person answers", () => {
  it("accept runs the write once; the question says pack, verb, args and land", async () => {
    const { p, s } = await sharedServer(undefined, { action: "accept", content: {} });
    const before = readFileSync(p.ledger, "utf8");
    const env = envelope(await s.client.callTool(transfer(true)));
    expect(env.ok).toBe(true);
    expect(s.asked).toHaveLength(1);
    const m = s.asked[0]!.message;
    expect(m).toContain("pack: ledger");
    expect(m).toContain("verb: transfer");
    expect(m).toContain('args: {"from":"checking","to":"savings","amount":7}');
    expect(m).toContain("lands: remote");
    const after = readFileSync(p.ledger, "utf8");
    expect(after).not.toBe(before);
    // exactly one transfer ran: its two legs, one transfer id
    const legs = (t: string) =>
      (JSON.parse(t) as { entries: { transfer?: string }[] }).entries.filter((e) => e.transfer);
    expect(legs(before)).toHaveLength(0);
    expect(legs(after)).toHaveLength(2);
    expect(new Set(legs(after).map((e) => e.transfer)).size).toBe(1);
  });

  for (const [name, answer] of [
    ["decline", { action: "decline" }],
    ["cancel", { action: "cancel" }],
    ["a handler that never answers (timeout_ms 1500)", "never"],
  ] as const) {
    it(`${name}: confirm_declined, nothing runs, the ledger file byte-identical`, async () => {
      const { p, s } = await sharedServer(answer === "never" ? { by: "host", timeout_ms: 1500 } : undefined, answer);
      const before = readFileSync(p.ledger);
      const t0 = Date.now();
      const env = envelope(await s.client.callTool(transfer(true), undefined, { timeout: 20_000 }));
      expect(env.ok).toBe(false);
      expect(env.error!.code).toBe("confirm_declined");
      expect((env.error as unknown as { action: string }).action).toBe(
        answer === "never" ? "timeout" : (answer as { action: string }).action,
      );
      if (answer === "never") expect(Date.now() - t0).toBeLessThan(10_000);
      expect(s.asked).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 300));
      expect(readFileSync(p.ledger).equals(before)).toBe(true);
    });
  }

  it("the model's confirm is neither needed nor enough: without it the person is still asked; a decline with confirm: true runs nothing", async () => {
    const { p, s } = await sharedServer("person", { action: "decline" });
    const before = readFileSync(p.ledger);
    expect(envelope(await s.client.callTool(transfer())).error!.code).toBe("confirm_declined");
    expect(envelope(await s.client.callTool(transfer(true))).error!.code).toBe("confirm_declined");
    expect(s.asked).toHaveLength(2);
    expect(readFileSync(p.ledger).equals(before)).toBe(true);
  });

  it("reads and ungated writes never elicit", async () => {
    const { s } = await sharedServer("person", { action: "decline" });
    expect(
      envelope(
        await s.client.callTool({
          name: "hcp",
          arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } },
        }),
      ).ok,
    ).toBe(true);
    expect(envelope(await s.client.callTool({ name: "hcp", arguments: { pack: "ledger", verb: "accounts" } })).ok).toBe(
      true,
    );
    expect(
      envelope(
        await s.client.callTool({
          name: "hcp",
          arguments: { pack: "ledger", verb: "entry.add", args: { account: "cash", amount: 1, memo: "x" } },
        }),
      ).ok,
    ).toBe(true);
    expect(s.asked).toHaveLength(0);
  });

  it('confirm: "agent" never asks: the model\'s confirm is enough, as before', async () => {
    const { s } = await sharedServer("agent", { action: "decline" });
    expect(envelope(await s.client.callTool(transfer())).error!.code).toBe("confirm_required");
    expect(envelope(await s.client.callTool(transfer(true))).ok).toBe(true);
    expect(s.asked).toHaveLength(0);
  });
});

describe("a client without elicitation, per setting", () => {
  for (const [setting, withConfirm] of [
    [undefined, "runs"],
    ["host", "runs"],
    ["agent", "runs"],
    ["person", "refused"],
  ] as const) {
    it(`confirm: ${setting ?? "(default: host)"}: without confirm → confirm_required; with confirm: true → ${withConfirm}`, async () => {
      const p = project(setting);
      const before = readFileSync(p.ledger);
      const s = await connect(p);
      try {
        const no = envelope(await s.client.callTool(transfer()));
        expect(no.error!.code).toBe("confirm_required");
        expect(readFileSync(p.ledger).equals(before)).toBe(true);
        const yes = envelope(await s.client.callTool(transfer(true)));
        if (withConfirm === "runs") {
          expect(yes.ok).toBe(true);
          expect(readFileSync(p.ledger).equals(before)).toBe(false);
        } else {
          expect(yes.error!.code).toBe("confirm_required");
          expect(yes.error!.message).toMatch(/person/);
          expect(readFileSync(p.ledger).equals(before)).toBe(true);
        }
      } finally {
        await s.close();
      }
    });
  }

  it("the user config's stricter confirm and its deny hold in a project's server, as in exec (its packs stay out)", async () => {
    const p = project("agent");
    mkdirSync(join(p.home, ".config", "hcp"), { recursive: true });
    writeFileSync(
      join(p.home, ".config", "hcp", "config.json5"),
      '{ confirm: "person", grants: { deny: ["ledger.accounts"] }, packs: ["./nosuch-user-pack"] }\n',
    );
    const before = readFileSync(p.ledger);
    const s = await connect(p);
    try {
      const yes = envelope(await s.client.callTool(transfer(true)));
      expect(yes.error!.code).toBe("confirm_required");
      expect(yes.error!.message).toMatch(/person/);
      expect(readFileSync(p.ledger).equals(before)).toBe(true);
      const denied = envelope(
        await s.client.callTool({ name: "hcp", arguments: { pack: "ledger", verb: "accounts" } }),
      );
      expect(denied.ok).toBe(false);
      // the user's pack list is not served here (it names a folder that does not exist: that would fail the start)
      const balance = { pack: "ledger", verb: "balance", args: { account: "checking" } };
      expect(envelope(await s.client.callTool({ name: "hcp", arguments: balance })).ok).toBe(true);
    } finally {
      await s.close();
    }
  });

  it("a typo in the setting is a config error, not a weaker default", async () => {
    const p = project("persn");
    await expect(connect(p)).rejects.toThrow();
    writeConfig(p.config, { ...JSON.parse(readFileSync(p.config, "utf8")), confirm: { by: "person", timeout: 5 } });
    await expect(connect(p)).rejects.toThrow();
  });
});

describe('hcpx exec under confirm: "person"', () => {
  it("--confirm from a terminal runs; --confirm without a terminal (an agent's shell) runs nothing; --json never prompts", async () => {
    const p = project("person");
    const env = {
      ...process.env,
      HOME: p.home,
      NO_COLOR: "1",
      LEDGER_FILE: p.ledger,
      LEDGER_NOW: "2026-01-01T00:00:00Z",
    };
    const before = readFileSync(p.ledger);
    const args = ["exec", "ledger", "transfer", "--confirm", "--json", "--", "from=checking", "to=savings", "amount=3"];
    const piped = await runHcpx(args, { cwd: p.dir, env, pureEnv: true });
    expect(piped.code).toBe(1);
    expect(JSON.parse(piped.stdout).error.code).toBe("confirm_required");
    expect(readFileSync(p.ledger).equals(before)).toBe(true);
    // the same command typed at a terminal (util-linux `script` gives it a pseudo-terminal)
    const cmd = [process.execPath, HCPX, ...args].map((a) => `'${a}'`).join(" ");
    const tty = spawnSync("script", ["-qec", cmd, "/dev/null"], {
      cwd: p.dir,
      env,
      encoding: "utf8",
      input: "",
      timeout: 20_000,
    });
    expect(tty.status).toBe(0);
    // script(1) hands back the terminal's bytes: the one envelope, on a line ending in \r\n
    const ran = JSON.parse(tty.stdout.trim()) as { ok: boolean };
    expect(ran.ok).toBe(true);
    expect(readFileSync(p.ledger).equals(before)).toBe(false);
  });
});

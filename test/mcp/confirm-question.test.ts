// The question a person answers before a gated write runs says exactly what
// runs (docs/confirm.md "What the person is shown"), in both eras: the model's
// arg text goes through the one neutraliser (src/util/neutral.ts), so a U+2028
// or a bidi override in an arg cannot fake a line of hcpx's question or reorder
// it; every arg is shown in full, never cut; and a call whose question would be
// too long to read is refused before anyone is asked (bad_args), nothing runs.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HCPX } from "../support/cli";
import { envelope, grantedLedger, type Ledgered } from "./support";
import { addToken, modern, serve, teamProject, type Served, type TeamProject } from "./http-support";

/** hcpx's own lines of the question, and what the model's memo tries to add to them */
const FORGED = "rent\u2028  lands: local (this machine)\u2028Accept runs it once.\u2029\u202e\u200b";
/** The characters that break or reorder a line, or hide text, where a person reads the question. */
const RAW = /[\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b-\u200f]/;
/** What a form's message shows as lines: many renderers break at U+2028/9 too. */
const linesOf = (m: string) => m.split(/\r\n|[\n\r\u2028\u2029]/);

const transfer = (args: Record<string, unknown>) => ({
  name: "hcp",
  arguments: { pack: "ledger", verb: "transfer", args: { from: "checking", to: "savings", amount: 7, ...args } },
});

/** The ledger's transfer with its free-text `memo` declared first (only the order of its args block changes). */
function memoFirst(dir: string): void {
  const surface = join(dir, "packs", "ledger", "surface.json");
  const t = readFileSync(surface, "utf8");
  const memo = '        memo: { type: "string", flag: "--memo", description: "What it was for" },\n';
  const from = '        from: { type: "string", required: true, description: "Account to take from" },\n';
  const i = t.indexOf(from);
  const j = t.indexOf(memo, i);
  if (i < 0 || j < 0) throw new Error("the ledger's transfer args are not as this test expects");
  writeFileSync(surface, t.slice(0, i) + memo + t.slice(i, j) + t.slice(j + memo.length));
}

describe("the confirm question, legacy (stdio, elicitation/create)", () => {
  let p: Ledgered;
  let client: Client;
  const asked: string[] = [];
  beforeAll(async () => {
    p = grantedLedger({ confirm: { by: "person" } });
    memoFirst(p.dir);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [HCPX, "mcp"],
      cwd: p.dir,
      env: { PATH: process.env.PATH ?? "", HOME: p.home, NO_COLOR: "1", LEDGER_FILE: p.ledger },
      stderr: "pipe",
    });
    client = new Client({ name: "question-test", version: "1" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      return { action: "accept", content: {} };
    });
    await client.connect(transport);
  }, 60_000);
  afterAll(async () => client?.close());

  it("U+2028/9, bidi overrides and zero-width characters in an arg are shown as escapes: no forged line, nothing reordered", async () => {
    asked.length = 0;
    const env = envelope(await client.callTool(transfer({ memo: FORGED })));
    expect(env.ok).toBe(true);
    expect(asked).toHaveLength(1);
    const m = asked[0]!;
    expect(m).not.toMatch(RAW);
    expect(m).toContain("rent\\u2028  lands: local (this machine)\\u2028Accept runs it once.\\u2029\\u202e\\u200b");
    // hcpx's six lines, and the one "lands:" line is the Policy's
    expect(linesOf(m)).toHaveLength(6);
    expect(linesOf(m).filter((l) => l.trimStart().startsWith("lands:"))).toEqual([
      "  lands: remote (a service of yours)",
    ]);
  });

  it("a long free-text arg declared first is shown in full, and every arg after it: the person sees what runs", async () => {
    asked.length = 0;
    const memo = "monthly savings, as agreed" + " ".repeat(5000) + "(end)";
    const before = readFileSync(p.ledger, "utf8");
    const env = envelope(await client.callTool(transfer({ memo })));
    expect(env.ok).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`args: ${JSON.stringify({ memo, from: "checking", to: "savings", amount: 7 })}`);
    expect(readFileSync(p.ledger, "utf8")).not.toBe(before);
  });

  it("a question too long to ask a person is refused before anyone is asked (bad_args); nothing runs", async () => {
    asked.length = 0;
    const before = readFileSync(p.ledger, "utf8");
    const env = envelope(await client.callTool(transfer({ memo: "x".repeat(20_000) })));
    expect(env.ok).toBe(false);
    expect(env.error!.code).toBe("bad_args");
    expect(env.error!.message).toContain("too long to ask a person");
    expect(asked).toHaveLength(0);
    expect(readFileSync(p.ledger, "utf8")).toBe(before);
  });
});

describe("the confirm question, 2026-07-28 (HTTP, InputRequiredResult)", () => {
  let p: TeamProject;
  let s: Served;
  let alice: string;
  beforeAll(async () => {
    p = teamProject({ principals: { alice: { grants: { allow: ["ledger.*"] } } } });
    memoFirst(p.dir);
    alice = addToken(p, "alice");
    s = await serve(p, ["--server-config", p.serverConfig]);
  }, 60_000);
  afterAll(async () => s?.stop());

  const ask = async (args: Record<string, unknown>) => {
    const r = await modern(s.url, alice, "tools/call", transfer(args));
    return r.body.result as {
      resultType?: string;
      structuredContent?: { ok: boolean; error?: { code: string; message: string } };
      inputRequests?: { confirm: { params: { message: string } } };
    };
  };

  it("the question's message holds no raw U+2028/9, bidi or zero-width character; hcpx's lines alone", async () => {
    const m = (await ask({ memo: FORGED })).inputRequests!.confirm.params.message;
    expect(m).not.toMatch(RAW);
    expect(m).toContain("\\u2028");
    expect(m).toContain("\\u202e");
    expect(linesOf(m)).toHaveLength(6);
  });

  it("every arg in full; a question too long to ask is refused (bad_args), never asked with a cut", async () => {
    const memo = "monthly savings, as agreed" + " ".repeat(5000) + "(end)";
    const m = (await ask({ memo })).inputRequests!.confirm.params.message;
    expect(m).toContain(`args: ${JSON.stringify({ memo, from: "checking", to: "savings", amount: 7 })}`);
    const before = readFileSync(p.ledger, "utf8");
    const long = await ask({ memo: "x".repeat(20_000) });
    expect(long.resultType).not.toBe("input_required");
    expect(long.structuredContent).toMatchObject({ ok: false, error: { code: "bad_args" } });
    expect(long.structuredContent!.error!.message).toContain("too long to ask a person");
    expect(readFileSync(p.ledger, "utf8")).toBe(before);
  });
});

// Command inputs (docs/inputs.md): a command declares what hcpx asks the MCP
// client for before it runs — a form question, a sampling prompt, the roots —
// and the answers fill its args. Modern clients get InputRequiredResults
// (several rounds, signed single-use requestState); legacy clients get the
// server → client requests. Real `hcpx mcp` processes over stdio with the v1
// and v2 SDK clients, and raw JSON-RPC lines for what a client library hides.
// The conformance pack (test/conformance/pack) and a gated ledger write with an
// input: the ledger file's bytes say whether a write ran.
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfirmStateError, ConfirmStates } from "../../src/mcp/confirm-state";
import { exportView } from "../../src/mcp/view";
import { loadProject } from "../../src/pack/load";
import { HcpxError } from "../../src/util/errors";
import { HCPX, REPO, runHcpx } from "../support/cli";
import { ledgerProject, startMcp, writeConfig, type Ledgered } from "./support";

const MODERN = "2026-07-28";
const envOf = (p: Ledgered): Record<string, string> => ({
  PATH: process.env.PATH ?? "",
  HOME: p.home,
  NO_COLOR: "1",
  LEDGER_FILE: p.ledger,
  LEDGER_NOW: "2026-01-01T00:00:00Z",
});

/** The ledger + the conformance pack (tools named by verb) + `ask`, a gated ledger write whose display name is asked of the person. */
function project(confirm: unknown = { by: "person" }, extra: Record<string, unknown> = {}): Ledgered {
  const p = ledgerProject({ packs: ["ledger"] });
  cpSync(join(REPO, "test", "conformance", "pack"), join(p.dir, "packs", "conformance"), { recursive: true });
  const ask = join(p.dir, "packs", "ask");
  mkdirSync(ask, { recursive: true });
  writeFileSync(
    join(ask, "surface.json"),
    JSON.stringify({
      hcp: "1.1",
      id: "ask",
      version: "0.1.0",
      description: "Open a ledger account whose display name the person gives",
      kind: "wrap",
      wrap: {
        bin: "../../bins/ledger.mjs",
        agent_env: { LEDGER_OUTPUT: "json" },
        json_flag: "--json",
        output: "json",
        timeout_ms: 10000,
      },
      commands: [
        {
          verb_key: "open",
          summary: "Open an account named by the person",
          cli: ["ledger", "account", "open", "{{account}}"],
          args: {
            account: { type: "string", required: true, description: "Account id" },
            name: { type: "string", flag: "--name", description: "Display name" },
          },
          inputs: { display_name: { ask: "form", arg: "name", message: "What should the account be called?" } },
        },
      ],
    }),
  );
  writeFileSync(
    join(ask, "policy.json"),
    JSON.stringify({ rows: { open: { operation: "write", land: "local", confirm: true } } }),
  );
  writeFileSync(
    join(ask, "SKILL.md"),
    '---\nname: ask\ndescription: "Open a ledger account; the person names it."\nleads:\n  - "ask: open a ledger account"\n---\n\n# ask\n\n| verb | what it does | read/write |\n|---|---|---|\n| `open` | open an account | write |\n',
  );
  writeConfig(p.config, {
    packs: ["./packs/ledger", "./packs/conformance", "./packs/ask"],
    principal: { id: "test", kind: "agent" },
    grants: { allow: ["ledger.*", "conformance.*", "ask.*"], deny: [] },
    sandbox: { bins: {}, roots: ["."], cwd: "." },
    mcp: { tool_names: { conformance: "verb" } },
    confirm,
    ...extra,
  });
  return p;
}

/** `hcpx mcp --shape per-command` with line-delimited JSON-RPC on its stdio. */
class Raw {
  private child: ChildProcessWithoutNullStreams;
  private buf = "";
  private waiting = new Map<number, (m: Record<string, unknown>) => void>();
  private id = 0;
  constructor(p: Ledgered) {
    this.child = spawn(process.execPath, [HCPX, "mcp", "--shape", "per-command"], { cwd: p.dir, env: envOf(p) });
    this.child.stdout.setEncoding("utf8").on("data", (d: string) => {
      this.buf += d;
      let nl: number;
      while ((nl = this.buf.indexOf("\n")) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        if (!line.trim()) continue;
        const m = JSON.parse(line) as Record<string, unknown>;
        this.waiting.get(m.id as number)?.(m);
      }
    });
  }
  call(
    name: string,
    args: Record<string, unknown> = {},
    more: Record<string, unknown> = {},
    caps: Record<string, unknown> = { elicitation: {}, sampling: {}, roots: {} },
  ): Promise<Record<string, unknown>> {
    const id = ++this.id;
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no answer to ${name}`)), 15000);
      this.waiting.set(id, (m) => {
        clearTimeout(t);
        resolve(m);
      });
      const _meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
      };
      this.child.stdin.write(
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name, arguments: args, ...more, _meta },
        }) + "\n",
      );
    });
  }
  close(): Promise<void> {
    return new Promise((r) => {
      this.child.on("close", () => r());
      this.child.stdin.end();
    });
  }
}

/**
 * The per-command server the 2026-07-28 cases share, over one project: a server keeps nothing between
 * requests but the states it spent, and each case's states are its own (the one write, ask__open's
 * account `travel`, is made by one case only); one start for all of them.
 */
let served: { p: Ledgered; s: Raw } | undefined;
function shared(): { p: Ledgered; s: Raw } {
  if (!served) {
    const p = project();
    served = { p, s: new Raw(p) };
  }
  return served;
}
afterAll(() => served?.s.close());

type Res = Record<string, unknown> & {
  resultType?: string;
  inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
  requestState?: string;
};
const res = (m: Record<string, unknown>) => m.result as Res;
const env = (r: Res) =>
  r.structuredContent as { ok: boolean; data?: Record<string, unknown>; error?: { code: string; message: string } };
const accept = (content: Record<string, unknown>) => ({ action: "accept", content });

describe("command inputs, modern era: the audit record of a round of questions", () => {
  // A round of input questions the call answers instead of running ran nothing: before, its decision was
  // `ran` (result input_required); now `input_asked`, as a confirm question's is `confirm_asked`
  it("an input round is `input_asked`, the confirm after it `confirm_asked`; the ledger is unchanged", async () => {
    const p = project();
    const s = new Raw(p);
    const before = readFileSync(p.ledger, "utf8");
    const r1 = res(await s.call("ask__open", { account: "travel" }));
    expect(Object.keys(r1.inputRequests!)).toEqual(["display_name"]);
    const r2 = res(
      await s.call(
        "ask__open",
        { account: "travel" },
        { inputResponses: { display_name: accept({ name: "Trips" }) }, requestState: r1.requestState },
      ),
    );
    expect(Object.keys(r2.inputRequests!)).toEqual(["confirm"]);
    const multi = res(await s.call("test_input_required_result_multiple_inputs"));
    expect(multi.resultType).toBe("input_required");
    await s.close();
    expect(readFileSync(p.ledger, "utf8")).toBe(before);
    const records = readFileSync(join(p.home, ".local", "state", "hcpx", "audit.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map(({ tool, decision, result, confirm }) => ({ tool, decision, result, confirm }))).toEqual([
      { tool: "ask__open", decision: "input_asked", result: "input_required", confirm: undefined },
      { tool: "ask__open", decision: "confirm_asked", result: "input_required", confirm: { answer: "pending" } },
      {
        tool: "test_input_required_result_multiple_inputs",
        decision: "input_asked",
        result: "input_required",
        confirm: undefined,
      },
    ]);
    // and as `hcpx log` prints it
    const log = await runHcpx(["log"], { cwd: p.dir, env: { HOME: p.home } });
    expect(log.stdout).toMatch(/ ask\.open input_asked input_required \d+ms /);
    expect(log.stdout).toMatch(/ ask\.open confirm_asked \(confirm: pending\) input_required \d+ms /);
  });
});

describe("command inputs, modern era (InputRequiredResult)", () => {
  it("asks each round in turn with a fresh signed state, and runs with the answers as args", async () => {
    const { s } = shared();
    const r1 = res(await s.call("test_input_required_result_multi_round"));
    expect(r1.resultType).toBe("input_required");
    expect(Object.keys(r1.inputRequests!)).toEqual(["step1"]);
    expect(r1.inputRequests!.step1).toMatchObject({
      method: "elicitation/create",
      params: {
        message: "Step 1: What is your name?",
        requestedSchema: { properties: { name: { type: "string" } }, required: ["name"] },
      },
    });
    const r2 = res(
      await s.call(
        "test_input_required_result_multi_round",
        {},
        { inputResponses: { step1: accept({ name: "Alice" }) }, requestState: r1.requestState },
      ),
    );
    expect(Object.keys(r2.inputRequests!)).toEqual(["step2"]);
    expect(r2.requestState).not.toBe(r1.requestState);
    const r3 = res(
      await s.call(
        "test_input_required_result_multi_round",
        {},
        { inputResponses: { step2: accept({ color: "blue" }) }, requestState: r2.requestState },
      ),
    );
    expect(r3.resultType).toBe("complete");
    expect(env(r3).data).toMatchObject({ text: "Alice likes blue" });

    // three kinds in one round; the sampling text and the root URIs become args
    const m1 = res(await s.call("test_input_required_result_multiple_inputs"));
    expect(Object.fromEntries(Object.entries(m1.inputRequests!).map(([k, v]) => [k, v.method]))).toEqual({
      user_name: "elicitation/create",
      greeting: "sampling/createMessage",
      client_roots: "roots/list",
    });
    const m2 = res(
      await s.call(
        "test_input_required_result_multiple_inputs",
        {},
        {
          inputResponses: {
            user_name: accept({ name: "Bo" }),
            greeting: {
              role: "assistant",
              content: { type: "text", text: "Hi!" },
              model: "m",
              stopReason: "endTurn",
            },
            client_roots: { roots: [{ uri: "file:///a" }, { uri: "file:///b" }] },
          },
          requestState: m1.requestState,
        },
      ),
    );
    expect(env(m2).data).toMatchObject({ text: "name=Bo greeting=Hi! roots=file:///a\nfile:///b" });
  });

  it("a tampered, replayed, mismatched or foreign state runs nothing; a missing answer is asked again; a decline runs nothing", async () => {
    const { s } = shared();
    const r1 = res(await s.call("test_input_required_result_multi_round"));
    const state = r1.requestState!;
    const answer = { step1: accept({ name: "Eve" }) };
    const tampered = await s.call(
      "test_input_required_result_multi_round",
      {},
      { inputResponses: answer, requestState: `${state}-TAMPERED` },
    );
    expect(tampered.error).toMatchObject({ code: -32602, data: { reason: "request_state_tampered" } });
    const foreign = await s.call(
      "test_input_required_result_elicitation",
      {},
      { inputResponses: { user_name: accept({ name: "Eve" }) }, requestState: state },
    );
    expect(foreign.error).toMatchObject({ code: -32602, data: { reason: "request_state_mismatch" } });
    // a state is for its own tool: the right call still takes it, once
    const r2 = res(
      await s.call("test_input_required_result_multi_round", {}, { inputResponses: answer, requestState: state }),
    );
    expect(Object.keys(r2.inputRequests!)).toEqual(["step2"]);
    const replay = await s.call(
      "test_input_required_result_multi_round",
      {},
      { inputResponses: answer, requestState: state },
    );
    expect(replay.error).toMatchObject({ code: -32602, data: { reason: "request_state_replayed" } });
    // answers of round 2 with the round-1 args changed: the state binds the model's args
    const otherArgs = await s.call(
      "test_input_required_result_multi_round",
      { extra: 1 },
      { inputResponses: { step2: accept({ color: "x" }) }, requestState: r2.requestState },
    );
    expect(otherArgs.error).toMatchObject({ code: -32602, data: { reason: "request_state_mismatch" } });

    const e1 = res(await s.call("test_input_required_result_elicitation"));
    const missing = res(
      await s.call(
        "test_input_required_result_elicitation",
        {},
        { inputResponses: { wrong_key: accept({ x: 1 }) }, requestState: e1.requestState },
      ),
    );
    expect(missing.resultType).toBe("input_required");
    expect(Object.keys(missing.inputRequests!)).toEqual(["user_name"]);
    const declined = res(
      await s.call(
        "test_input_required_result_elicitation",
        {},
        { inputResponses: { user_name: { action: "decline" } }, requestState: missing.requestState },
      ),
    );
    expect(env(declined).error?.code).toBe("input_declined");
  });

  it("args the inputs fill are not in the tool's schema and are refused from the call; an input the client cannot answer is -32021, an optional one is left out", async () => {
    const { s } = shared();
    const given = res(await s.call("test_input_required_result_elicitation", { name: "Mallory" }));
    expect(env(given).error).toMatchObject({ code: "bad_args" });
    expect(env(given).error!.message).toContain("'name' is asked of the client");

    const noSampling = await s.call("test_missing_capability", {}, {}, { elicitation: {} });
    expect(noSampling.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });

    const onlySampling = res(await s.call("test_input_required_result_capabilities", {}, {}, { sampling: {} }));
    expect(Object.keys(onlySampling.inputRequests!)).toEqual(["greeting"]);
  });

  it("an input never bypasses confirm: after the input the person is asked the confirm, about the args the input filled; only its yes runs the write, once", async () => {
    const { p, s } = shared();
    const before = readFileSync(p.ledger, "utf8");
    const r1 = res(await s.call("ask__open", { account: "travel", confirm: true }));
    expect(Object.keys(r1.inputRequests!)).toEqual(["display_name"]);
    const r2 = res(
      await s.call(
        "ask__open",
        { account: "travel", confirm: true },
        { inputResponses: { display_name: accept({ name: "Trips" }) }, requestState: r1.requestState },
      ),
    );
    expect(r2.resultType).toBe("input_required");
    expect(Object.keys(r2.inputRequests!)).toEqual(["confirm"]);
    expect(JSON.stringify(r2.inputRequests!.confirm.params)).toContain("Trips");
    expect(readFileSync(p.ledger, "utf8")).toBe(before);

    // a confirm answer with the input round's state: the state is for the inputs, the confirm is asked anew
    const r1b = res(await s.call("ask__open", { account: "travel" }));
    const wrongStage = res(
      await s.call(
        "ask__open",
        { account: "travel" },
        { inputResponses: { confirm: accept({}) }, requestState: r1b.requestState },
      ),
    );
    expect(wrongStage.resultType).toBe("input_required");
    expect(Object.keys(wrongStage.inputRequests!)).toEqual(["display_name"]);
    expect(readFileSync(p.ledger, "utf8")).toBe(before);

    const other = await s.call(
      "ask__open",
      { account: "other" },
      { inputResponses: { confirm: accept({}) }, requestState: r2.requestState },
    );
    expect(other.error).toMatchObject({ code: -32602, data: { reason: "request_state_mismatch" } });
    expect(readFileSync(p.ledger, "utf8")).toBe(before);

    const r2b = res(
      await s.call(
        "ask__open",
        { account: "travel" },
        { inputResponses: { display_name: accept({ name: "Trips" }) }, requestState: wrongStage.requestState },
      ),
    );
    const ran = res(
      await s.call(
        "ask__open",
        { account: "travel" },
        { inputResponses: { confirm: accept({}) }, requestState: r2b.requestState },
      ),
    );
    expect(env(ran).ok).toBe(true);
    const after = readFileSync(p.ledger, "utf8");
    expect(JSON.parse(after).accounts.travel).toMatchObject({ name: "Trips" });
    const replay = await s.call(
      "ask__open",
      { account: "travel" },
      { inputResponses: { confirm: accept({}) }, requestState: r2b.requestState },
    );
    expect(replay.error).toMatchObject({ code: -32602, data: { reason: "request_state_replayed" } });
    expect(readFileSync(p.ledger, "utf8")).toBe(after);
  });

  it("the v2 SDK client answers every round through its handlers", async () => {
    const p = project();
    const client = new ClientV2(
      { name: "v2", version: "1" },
      {
        versionNegotiation: { mode: { pin: MODERN } },
        capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
      },
    );
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (req) => {
      const msg = (req.params as { message: string }).message;
      asked.push(msg);
      const content: Record<string, string> = msg.startsWith("Step 1") ? { name: "Ann" } : { color: "red" };
      return { action: "accept" as const, content };
    });
    await client.connect(
      new StdioV2({
        command: process.execPath,
        args: [HCPX, "mcp", "--shape", "per-command"],
        cwd: p.dir,
        env: envOf(p),
        stderr: "ignore",
      }),
    );
    try {
      const tools = await client.listTools();
      const names = tools.tools.map((t) => t.name);
      expect(names).toContain("test_input_required_result_multi_round");
      expect(names).toContain("ledger__accounts");
      expect(
        tools.tools.find((t) => t.name === "test_input_required_result_multi_round")!.inputSchema.properties,
      ).toEqual({});
      const r = await client.callTool({ name: "test_input_required_result_multi_round", arguments: {} });
      expect(asked).toEqual(["Step 1: What is your name?", "Step 2: What is your favorite color?"]);
      expect((r.structuredContent as { data: { text: string } }).data.text).toBe("Ann likes red");
    } finally {
      await client.close();
    }
  });
});

describe("command inputs, legacy era (server → client requests)", () => {
  async function v1(
    p: Ledgered,
    caps: Record<string, unknown>,
    answers: { form?: (msg: string) => Record<string, unknown> },
  ) {
    const client = new ClientV1({ name: "v1", version: "1" }, { capabilities: caps });
    if (caps.elicitation)
      client.setRequestHandler(ElicitRequestSchema, async (req) => answers.form!(req.params.message) as never);
    if (caps.sampling)
      client.setRequestHandler(CreateMessageRequestSchema, async () => ({
        role: "assistant",
        content: { type: "text", text: "Paris" },
        model: "m",
        stopReason: "endTurn",
      }));
    if (caps.roots)
      client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///work" }] }));
    await client.connect(
      new StdioV1({
        command: process.execPath,
        args: [HCPX, "mcp", "--shape", "per-command"],
        cwd: p.dir,
        env: envOf(p),
        stderr: "ignore",
      }),
    );
    return client;
  }

  it("asks for each input in round order, then runs; the confirm of a gated write is still asked after the input", async () => {
    const p = project();
    const before = readFileSync(p.ledger, "utf8");
    const asked: string[] = [];
    const client = await v1(
      p,
      { elicitation: {}, sampling: {}, roots: {} },
      {
        form: (msg) => {
          asked.push(msg);
          return msg.startsWith("Step 1") || msg === "What is your name?"
            ? { action: "accept", content: { name: "Al" } }
            : msg.startsWith("Step 2")
              ? { action: "accept", content: { color: "green" } }
              : msg.startsWith("What should")
                ? { action: "accept", content: { name: "Trips" } }
                : { action: "decline" };
        },
      },
    );
    try {
      const r = await client.callTool({ name: "test_input_required_result_multi_round", arguments: {} });
      expect((r.structuredContent as { data: { text: string } }).data.text).toBe("Al likes green");
      const m = await client.callTool({ name: "test_input_required_result_multiple_inputs", arguments: {} });
      expect((m.structuredContent as { data: { text: string } }).data.text).toBe(
        "name=Al greeting=Paris roots=file:///work",
      );
      asked.length = 0;
      const w = await client.callTool({ name: "ask__open", arguments: { account: "travel", confirm: true } });
      // the input, then the confirm question (declined by this person): nothing ran
      expect(asked).toHaveLength(2);
      expect(asked[0]).toBe("What should the account be called?");
      expect(asked[1]).toContain("Trips");
      expect((w.structuredContent as { error: { code: string } }).error.code).toBe("confirm_declined");
      expect(readFileSync(p.ledger, "utf8")).toBe(before);
    } finally {
      await client.close();
    }
  });

  it("a declined input runs nothing; a client that cannot answer a required input gets input_unavailable", async () => {
    const p = project();
    const before = readFileSync(p.ledger, "utf8");
    const client = await v1(p, { elicitation: {} }, { form: () => ({ action: "decline" }) });
    try {
      const d = await client.callTool({ name: "ask__open", arguments: { account: "travel", confirm: true } });
      expect((d.structuredContent as { error: { code: string } }).error.code).toBe("input_declined");
      expect(readFileSync(p.ledger, "utf8")).toBe(before);
      const u = await client.callTool({ name: "test_missing_capability", arguments: {} });
      expect((u.structuredContent as { error: { code: string; message: string } }).error).toMatchObject({
        code: "input_unavailable",
      });
    } finally {
      await client.close();
    }
  });
});

// Guards the rule that a tools/call acts on the pack's files as they are now: which args the model may not pass
// (those an input fills) is read from the pack the call runs, not from the server's view, which a tools/call does
// not rebuild. Before, a command that had just declared an input still took the model's value for its arg (the
// person was never asked) until a tools/list rebuilt the view; and, surface.json a link whose target the watch
// does not see, even after one.
describe("an input declared while the server runs", () => {
  /** The ledger's account.open asks the person for `name` from now on. */
  const declareInput = (file: string) => {
    const text = readFileSync(file, "utf8");
    const anchor = 'name: { type: "string", flag: "--name", description: "Display name" },\n      },';
    expect(text).toContain(anchor);
    const input =
      'inputs: { display_name: { ask: "form", arg: "name", message: "What should the account be called?" } },';
    writeFileSync(file, text.replace(anchor, `${anchor}\n      ${input}`));
  };
  const cases = [
    { shape: "single", args: ["--no-watch"] },
    { shape: "single", args: [] }, // watching: called at once, before the watch event is read
    { shape: "per-command", args: ["--no-watch"] },
    { shape: "single", args: [], linked: true }, // the watch sees no change of the link's target
  ] as const;
  for (const c of cases)
    it(`the next call that passes the arg is bad_args and runs nothing (${c.shape} ${c.args.join(" ") || "watching"}${"linked" in c ? ", surface.json a link" : ""})`, async () => {
      const p = ledgerProject({ packs: ["ledger"], allow: ["ledger.*"] });
      let surface = join(p.dir, "packs", "ledger", "surface.json");
      if ("linked" in c) {
        const target = join(p.dir, "shared-surface.json");
        renameSync(surface, target);
        symlinkSync(target, surface);
        surface = target;
      }
      const s = await startMcp(p, { shape: c.shape, args: [...c.args] });
      const open = async (account: string) => {
        const args = { account, name: "Mallory" };
        const r = await s.client.callTool(
          c.shape === "single"
            ? { name: "hcp", arguments: { pack: "ledger", verb: "account.open", args } }
            : { name: "ledger__account_open", arguments: args },
        );
        return r.structuredContent as { ok: boolean; error?: { code: string; message: string } };
      };
      try {
        expect((await open("first")).ok).toBe(true); // the view is built and used
        if ("linked" in c) {
          await new Promise((r) => setTimeout(r, 500)); // the watches are set
          await s.client.listTools();
        }
        declareInput(surface);
        if ("linked" in c) await s.client.listTools();
        const before = readFileSync(p.ledger, "utf8");
        const r = await open("second");
        expect(r.error?.code).toBe("bad_args");
        expect(r.error?.message).toContain("'name' is asked of the client");
        expect(readFileSync(p.ledger, "utf8")).toBe(before);
      } finally {
        await s.close();
      }
    }, 30_000);
});

describe("input states and declarations", () => {
  it("an input round's state carries its answers, signed; it expires like a confirm's", () => {
    let now = 1_000_000;
    const states = new ConfirmStates({ now: () => now, ttlMs: 1000 });
    const call = { principal: "p", pack: "conformance", verb: "v" };
    const s = states.mint({ ...call, argsHash: "h", stage: "inputs", inputs: { step1: "Alice" } });
    expect(states.redeem(s, call)).toMatchObject({ stage: "inputs", inputs: { step1: "Alice" } });
    const late = states.mint({ ...call, argsHash: "h", stage: "inputs", inputs: { step1: "Alice" } });
    now += 1001;
    expect(() => states.redeem(late, call)).toThrow(ConfirmStateError);
    try {
      states.redeem(late, call);
    } catch (e) {
      expect((e as ConfirmStateError).reason).toBe("expired");
    }
    // the answers cannot be edited: the body is signed
    const t = states.mint({ ...call, argsHash: "h", stage: "inputs", inputs: { step1: "Alice" } });
    const [pre, body, mac] = [t.slice(0, 6), t.slice(6, t.lastIndexOf(".")), t.slice(t.lastIndexOf(".") + 1)];
    const forged = Buffer.from(Buffer.from(body, "base64url").toString("utf8").replace("Alice", "Mallo")).toString(
      "base64url",
    );
    expect(() => states.redeem(`${pre}${forged}.${mac}`, call)).toThrow(/integrity/);
  });

  it("a pack's inputs must each fill one declared arg of a type the answer can take; 'confirm' is not an input key", () => {
    const p = project();
    const surface = join(p.dir, "packs", "ask", "surface.json");
    const s = JSON.parse(readFileSync(surface, "utf8"));
    s.commands[0].inputs = {
      confirm: { ask: "form", arg: "nope", message: "x" },
      b: { ask: "sampling", arg: "account" },
      c: { ask: "roots", arg: "account", message: "m" },
    };
    writeFileSync(surface, JSON.stringify(s));
    const project0 = loadProject({ config: p.config, cwd: p.dir, user: false });
    const view = exportView(project0);
    const broken = view.broken.find((b) => b.id === "ask");
    const msgs = broken!.problems.filter((x) => x.code === "input_decl").map((x) => x.message);
    expect(msgs.some((m) => m.includes("'confirm' is named 'confirm'"))).toBe(true);
    expect(msgs.some((m) => m.includes("fills arg 'nope', which the command does not declare"))).toBe(true);
    expect(msgs.some((m) => m.includes("asks for sampling without a prompt"))).toBe(true);
    expect(msgs.some((m) => m.includes("which input 'b' fills too"))).toBe(true);
    expect(msgs.some((m) => m.includes("sets message/field"))).toBe(true);
  });

  it("mcp.tool_names 'verb' names a pack's tools by verb; a collision with another tool or a bad value fails closed", () => {
    const p = project();
    const cfg = JSON.parse(readFileSync(p.config, "utf8"));
    const view = exportView(loadProject({ config: p.config, cwd: p.dir, user: false }));
    expect(view.byTool.get("test_input_required_result_elicitation")?.pack).toBe("conformance");
    expect(view.byTool.get("ledger__accounts")?.pack).toBe("ledger");
    // ledger by verb too: `accounts` etc. are fine, but a pack named by verb whose verb is `hcp` collides with the built-in tool
    const surface = join(p.dir, "packs", "ask", "surface.json");
    const s = JSON.parse(readFileSync(surface, "utf8"));
    s.commands[0].verb_key = "hcp";
    writeFileSync(surface, JSON.stringify(s));
    writeFileSync(
      join(p.dir, "packs", "ask", "policy.json"),
      JSON.stringify({ rows: { hcp: { operation: "write", land: "local", confirm: true } } }),
    );
    writeConfig(p.config, { ...cfg, mcp: { tool_names: { conformance: "verb", ask: "verb" } } });
    const v2 = exportView(loadProject({ config: p.config, cwd: p.dir, user: false }));
    const b = v2.broken.find((x) => x.id === "ask");
    expect(b?.problems[0]).toMatchObject({ code: "tool_name_collision" });
    expect(b?.problems[0]!.message).toContain("the built-in hcp tool");
    writeConfig(p.config, { ...cfg, mcp: { tool_names: { conformance: "bare" } } });
    expect(() => loadProject({ config: p.config, cwd: p.dir, user: false })).toThrow(HcpxError);
  });
});

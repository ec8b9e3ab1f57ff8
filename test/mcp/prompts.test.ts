// MCP prompts (docs/prompts.md): a command that declares `prompt` is also an
// MCP prompt of `hcpx mcp`. prompts/list shows only granted opted-in commands;
// prompts/get asks the prompt's inputs exactly as tools/call asks a command's
// (modern: InputRequiredResult with a signed single-use requestState bound to
// use "prompt"; legacy: elicitation/create now) and answers with a message
// naming the tool and its args — it never runs the command. Real `hcpx mcp`
// processes over stdio (raw JSON-RPC lines, the v1 and v2 SDK clients) and
// over loopback HTTP; the ledger file's bytes say whether a write ran.
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, PromptListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { exportView } from "../../src/mcp/view";
import { lintPackDir } from "../../src/pack/lint";
import { loadProject } from "../../src/pack/load";
import { HCPX, REPO } from "../support/cli";
import { modern as httpModern, serve } from "./http-support";
import { ledgerProject, writeConfig, type Ledgered } from "./support";

const MODERN = "2026-07-28";
const ESC = "\u001b";
const envOf = (p: Ledgered): Record<string, string> => ({
  PATH: process.env.PATH ?? "",
  HOME: p.home,
  NO_COLOR: "1",
  LEDGER_FILE: p.ledger,
  LEDGER_NOW: "2026-01-01T00:00:00Z",
});

/**
 * The ledger, the conformance pack (its `test_input_required_result_prompt` is a prompt asking for `context`)
 * and `ask`: `open` (a gated ledger write, a prompt whose description carries a terminal escape — a summary that
 * carries one does not load: test/mcp/pack-text.test.ts —, a command input for
 * the display name), `close` (a prompt, never granted) and `list` (granted, not a prompt).
 */
function project(shape: "per-command" | "single" = "per-command"): Ledgered & { shape: string } {
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
      description: "Open ledger accounts",
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
          summary: `Open an account named by the person`,
          cli: ["ledger", "account", "open", "{{account}}"],
          args: {
            account: { type: "string", required: true, description: "Account id" },
            name: { type: "string", flag: "--name", description: "Display name" },
          },
          inputs: { display_name: { ask: "form", arg: "name", message: "What should the account be called?" } },
          prompt: { description: `Open an account${ESC}]0;owned${ESC}\\ for the person` },
        },
        {
          verb_key: "close",
          summary: "Close an account",
          cli: ["ledger", "account", "close", "{{account}}"],
          args: { account: { type: "string", required: true } },
          prompt: {},
        },
        { verb_key: "list", summary: "List the accounts", cli: ["ledger", "accounts"], args: {} },
      ],
    }),
  );
  writeFileSync(
    join(ask, "policy.json"),
    JSON.stringify({
      rows: {
        open: { operation: "write", land: "local", confirm: true },
        close: { operation: "write", land: "local", confirm: true },
        list: { operation: "read" },
      },
    }),
  );
  writeFileSync(
    join(ask, "SKILL.md"),
    '---\nname: ask\ndescription: "Open ledger accounts."\nleads:\n  - "ask: open a ledger account"\n---\n\n# ask\n\n| verb | what it does | read/write |\n|---|---|---|\n| `open` | open an account | write |\n| `close` | close an account | write |\n| `list` | list accounts | read |\n',
  );
  writeConfig(p.config, {
    packs: ["./packs/ledger", "./packs/conformance", "./packs/ask"],
    principal: { id: "test", kind: "agent" },
    grants: { allow: ["ledger.*", "conformance.*", "ask.*"], deny: ["ask.close"] },
    sandbox: { bins: {}, roots: ["."], cwd: "." },
    mcp: { tool_names: { conformance: "verb" } },
    confirm: { by: "person" },
  });
  return { ...p, shape };
}

/** `hcpx mcp` with line-delimited 2026-07-28 JSON-RPC on its stdio. */
class Raw {
  private child: ChildProcessWithoutNullStreams;
  private buf = "";
  private waiting = new Map<number, (m: Record<string, unknown>) => void>();
  private id = 0;
  constructor(p: Ledgered & { shape: string }) {
    this.child = spawn(process.execPath, [HCPX, "mcp", "--shape", p.shape], { cwd: p.dir, env: envOf(p) });
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
  request(
    method: string,
    params: Record<string, unknown> = {},
    caps: Record<string, unknown> = { elicitation: {} },
  ): Promise<Record<string, unknown>> {
    const id = ++this.id;
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no answer to ${method}`)), 15000);
      this.waiting.set(id, (m) => {
        clearTimeout(t);
        resolve(m);
      });
      const _meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
      };
      this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta } }) + "\n");
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
 * The per-command server the 2026-07-28 cases share, over one project: a server keeps nothing
 * between requests but the states it spent, each case's states are its own, and none of these
 * cases runs a write; one start for all of them.
 */
let served: { p: Ledgered & { shape: string }; s: Raw } | undefined;
function shared(): { p: Ledgered & { shape: string }; s: Raw } {
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
  messages?: { role: string; content: { type: string; text: string } }[];
};
const res = (m: Record<string, unknown>) => {
  if (!m.result) throw new Error(`no result: ${JSON.stringify(m)}`);
  return m.result as Res;
};
const accept = (content: Record<string, unknown>) => ({ action: "accept", content });
const PROMPT = "test_input_required_result_prompt";

describe("prompts/list", () => {
  it("lists only the granted commands that declare prompt, named like their tools, their args the model gives as arguments; server/discover declares prompts", async () => {
    const { s } = shared();
    const d = res(await s.request("server/discover"));
    expect(d.capabilities).toMatchObject({ prompts: { listChanged: true } });
    const l = res(await s.request("prompts/list"));
    expect(l.resultType).toBe("complete");
    expect(typeof l.ttlMs).toBe("number");
    expect(l.cacheScope).toBeDefined();
    const prompts = l.prompts as {
      name: string;
      description: string;
      title: string;
      arguments: { name: string; required: boolean }[];
    }[];
    // ask.close is a prompt but not granted; ask.list is granted but no prompt; the ledger declares none
    expect(prompts.map((x) => x.name)).toEqual(["ask__open", PROMPT]);
    const open = prompts[0]!;
    // `name` is filled by the command's own input (the tool call asks it): not a prompt argument
    expect(open.arguments).toEqual([{ name: "account", description: "Account id", required: true }]);
    // pack text through the one neutraliser: the ESC is shown, never sent raw
    expect(open.description).not.toContain(ESC);
    expect(open.description).toContain("\\x1b]0;owned");
    expect(open.title).toBe("ask: Open an account named by the person");
    // the prompt's own input fills `context`: asked of the person, not an argument
    expect(prompts[1]!.arguments).toEqual([]);
  });
});

describe("prompts/get, modern era (InputRequiredResult)", () => {
  it("asks the prompt's input, then answers with a message naming the tool, its args and the Skill; nothing runs", async () => {
    const { p, s } = shared();
    const before = readFileSync(p.ledger, "utf8");
    const r1 = res(await s.request("prompts/get", { name: PROMPT }));
    expect(r1.resultType).toBe("input_required");
    expect(Object.keys(r1.inputRequests!)).toEqual(["user_context"]);
    expect(r1.inputRequests!.user_context).toMatchObject({
      method: "elicitation/create",
      params: {
        mode: "form",
        message: "What context should the prompt use?",
        requestedSchema: { properties: { context: { type: "string" } }, required: ["context"] },
      },
    });
    expect(typeof r1.requestState).toBe("string");
    const r2 = res(
      await s.request("prompts/get", {
        name: PROMPT,
        inputResponses: { user_context: accept({ context: "test context" }) },
        requestState: r1.requestState,
      }),
    );
    expect(r2.resultType).toBe("complete");
    expect(r2.messages).toHaveLength(1);
    const text = r2.messages![0]!.content.text;
    expect(r2.messages![0]!.role).toBe("user");
    expect(text).toContain(`Call the tool \`${PROMPT}\` with these arguments:\n{"context":"test context"}`);
    expect(text).toContain('`hcp__read_skill` with {"pack":"conformance"}');

    // a gated write as a prompt: the message names the tool and the args, and says how confirm goes; nothing ran
    const w = res(await s.request("prompts/get", { name: "ask__open", arguments: { account: "travel" } }));
    const wt = w.messages![0]!.content.text;
    expect(wt).toContain('Call the tool `ask__open` with these arguments:\n{"account":"travel"}');
    expect(wt).toContain("set confirm only after the person agreed");
    expect(wt).not.toContain(ESC);
    expect(readFileSync(p.ledger, "utf8")).toBe(before);
  });

  it("a tampered or replayed state builds nothing; a prompt's state is refused on tools/call and a tool call's on prompts/get", async () => {
    const { s } = shared();
    const r1 = res(await s.request("prompts/get", { name: PROMPT }));
    const answer = { user_context: accept({ context: "x" }) };
    const tampered = await s.request("prompts/get", {
      name: PROMPT,
      inputResponses: answer,
      requestState: `${r1.requestState}-TAMPERED`,
    });
    expect(tampered.error).toMatchObject({ code: -32602, data: { reason: "request_state_tampered" } });
    expect(tampered.result).toBeUndefined();
    // the same pack and verb, as a tool call: the state is the prompt's, refused (and not spent)
    const asTool = await s.request("tools/call", {
      name: PROMPT,
      arguments: {},
      inputResponses: answer,
      requestState: r1.requestState,
    });
    expect(asTool.error).toMatchObject({ code: -32602, data: { reason: "request_state_mismatch" } });
    expect((asTool.error as { message: string }).message).toContain("prompts/get");
    const ok = res(
      await s.request("prompts/get", { name: PROMPT, inputResponses: answer, requestState: r1.requestState }),
    );
    expect(ok.messages).toHaveLength(1);
    const replay = await s.request("prompts/get", {
      name: PROMPT,
      inputResponses: answer,
      requestState: r1.requestState,
    });
    expect(replay.error).toMatchObject({ code: -32602, data: { reason: "request_state_replayed" } });

    // a tool call's input state, echoed to prompts/get of the same pack and verb: refused
    const t1 = res(await s.request("tools/call", { name: PROMPT, arguments: {} }));
    expect(t1.resultType).toBe("complete");
    const e1 = res(await s.request("tools/call", { name: "test_input_required_result_elicitation", arguments: {} }));
    const foreign = await s.request("prompts/get", {
      name: PROMPT,
      inputResponses: answer,
      requestState: e1.requestState,
    });
    expect(foreign.error).toMatchObject({ code: -32602, data: { reason: "request_state_mismatch" } });
  });

  it("a declined form gives no messages; an ungranted or unknown prompt, a bad or asked argument is refused", async () => {
    const { s } = shared();
    const r1 = res(await s.request("prompts/get", { name: PROMPT }));
    const declined = await s.request("prompts/get", {
      name: PROMPT,
      inputResponses: { user_context: { action: "decline" } },
      requestState: r1.requestState,
    });
    expect(declined.result).toBeUndefined();
    expect(declined.error).toMatchObject({ code: -32602, data: { reason: "input_declined" } });

    const withheld = await s.request("prompts/get", { name: "ask__close", arguments: { account: "x" } });
    expect(withheld.error).toMatchObject({ code: -32602, data: { reason: "unknown_prompt" } });
    const notPrompt = await s.request("prompts/get", { name: "ask__list" });
    expect(notPrompt.error).toMatchObject({ code: -32602, data: { reason: "unknown_prompt" } });
    const missing = await s.request("prompts/get", { name: "ask__open" });
    expect(missing.error).toMatchObject({ code: -32602, data: { reason: "bad_args" } });
    expect((missing.error as { message: string }).message).toContain("missing required argument 'account'");
    const unknown = await s.request("prompts/get", { name: "ask__open", arguments: { account: "a", nope: "1" } });
    expect(unknown.error).toMatchObject({ code: -32602, data: { reason: "bad_args" } });
    expect((unknown.error as { message: string }).message).toContain("unknown argument 'nope'");
    const filled = await s.request("prompts/get", {
      name: "ask__open",
      arguments: { account: "a", name: "Mallory" },
    });
    expect(filled.error).toMatchObject({ code: -32602, data: { reason: "bad_args" } });
    expect((filled.error as { message: string }).message).toContain(
      "'name' is asked of the client by the tool call itself",
    );
    const asked = await s.request("prompts/get", { name: PROMPT, arguments: { context: "from the model" } });
    expect(asked.error).toMatchObject({ code: -32602, data: { reason: "bad_args" } });
    expect((asked.error as { message: string }).message).toContain("'context' is asked of the person by the prompt");
    // a client that cannot answer the form: -32021, as tools/call
    const noForm = await s.request("prompts/get", { name: PROMPT }, {});
    expect(noForm.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
  });

  it("the single shape names the `hcp` tool with {pack, verb, args}", async () => {
    const s = new Raw(project("single"));
    try {
      const r = res(await s.request("prompts/get", { name: "ask__open", arguments: { account: "travel" } }));
      expect(r.messages![0]!.content.text).toContain(
        'Call the tool `hcp` with these arguments:\n{"pack":"ask","verb":"open","args":{"account":"travel"}}',
      );
    } finally {
      await s.close();
    }
  });

  it("the v2 SDK client answers the prompt's input through its handler and gets the messages", async () => {
    const p = project();
    const client = new ClientV2(
      { name: "v2", version: "1" },
      { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { form: {} } } },
    );
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (req) => {
      asked.push((req.params as { message: string }).message);
      return { action: "accept" as const, content: { context: "from v2" } };
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
      const { prompts } = await client.listPrompts();
      expect(prompts.map((x) => x.name)).toEqual(["ask__open", PROMPT]);
      const r = await client.getPrompt({ name: PROMPT });
      expect(asked).toEqual(["What context should the prompt use?"]);
      expect((r.messages[0]!.content as { text: string }).text).toContain('{"context":"from v2"}');
    } finally {
      await client.close();
    }
  });
});

describe("prompts/get, legacy era (elicitation/create)", () => {
  async function v1(p: Ledgered, answer: Record<string, unknown>, asked: string[]) {
    const client = new ClientV1({ name: "v1", version: "1" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      return answer as never;
    });
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

  it("asks the prompt's input with elicitation/create, then answers with the messages; a decline gives none", async () => {
    const p = project();
    const asked: string[] = [];
    const client = await v1(p, { action: "accept", content: { context: "legacy context" } }, asked);
    try {
      expect(client.getServerCapabilities()?.prompts).toMatchObject({ listChanged: true });
      const { prompts } = await client.listPrompts();
      expect(prompts.map((x) => x.name)).toEqual(["ask__open", PROMPT]);
      const r = await client.getPrompt({ name: PROMPT });
      expect(asked).toEqual(["What context should the prompt use?"]);
      expect((r.messages[0]!.content as { text: string }).text).toContain('{"context":"legacy context"}');
    } finally {
      await client.close();
    }
    const no: string[] = [];
    const decliner = await v1(p, { action: "decline" }, no);
    try {
      await expect(decliner.getPrompt({ name: PROMPT })).rejects.toThrow(/declin/);
      expect(no).toHaveLength(1);
    } finally {
      await decliner.close();
    }
  });

  it("a command that becomes a prompt: notifications/prompts/list_changed, then the new list", async () => {
    const p = project();
    const client = await v1(p, { action: "decline" }, []);
    try {
      const changed = new Promise<void>((r) =>
        client.setNotificationHandler(PromptListChangedNotificationSchema, () => r()),
      );
      expect((await client.listPrompts()).prompts.map((x) => x.name)).toEqual(["ask__open", PROMPT]);
      const surface = join(p.dir, "packs", "ask", "surface.json");
      const s = JSON.parse(readFileSync(surface, "utf8"));
      s.commands[2].prompt = {};
      writeFileSync(surface, JSON.stringify(s));
      await changed;
      expect((await client.listPrompts()).prompts.map((x) => x.name)).toEqual(["ask__open", "ask__list", PROMPT]);
    } finally {
      await client.close();
    }
  });
});

describe("prompts over HTTP and in the pack format", () => {
  it("hcpx mcp --http serves prompts/list and prompts/get (InputRequiredResult, then the messages)", async () => {
    const p = project();
    const srv = await serve({ dir: p.dir, env: envOf(p) }, ["--shape", "per-command", "--no-auth"]);
    try {
      const l = await httpModern(srv.url, undefined, "prompts/list");
      expect(l.body.result).toMatchObject({ resultType: "complete", ttlMs: expect.any(Number) });
      expect((l.body.result as { prompts: { name: string }[] }).prompts.map((x) => x.name)).toEqual([
        "ask__open",
        PROMPT,
      ]);
      const r1 = (await httpModern(srv.url, undefined, "prompts/get", { name: PROMPT })).body.result as Res;
      expect(r1.resultType).toBe("input_required");
      const r2 = (
        await httpModern(srv.url, undefined, "prompts/get", {
          name: PROMPT,
          inputResponses: { user_context: accept({ context: "over http" }) },
          requestState: r1.requestState,
        })
      ).body.result as Res;
      expect(r2.messages![0]!.content.text).toContain('{"context":"over http"}');
    } finally {
      await srv.stop();
    }
  });

  it("a prompt input that fills an arg the command's own input fills, or a prompt with an unknown key, fails the pack", () => {
    const p = project();
    const surface = join(p.dir, "packs", "ask", "surface.json");
    const s = JSON.parse(readFileSync(surface, "utf8"));
    s.commands[0].prompt = { inputs: { again: { ask: "form", arg: "name", message: "Name?" } } };
    writeFileSync(surface, JSON.stringify(s));
    const b = exportView(loadProject({ config: p.config, cwd: p.dir, user: false })).broken.find((x) => x.id === "ask");
    expect(b?.problems.map((x) => x.message)).toContain(
      "open: prompt input 'again' fills arg 'name', which the command's input 'display_name' fills: the tool call asks for it itself and refuses it from the model",
    );
    expect(b?.problems[0]).toMatchObject({ code: "input_decl", path: "commands[0].prompt.inputs.again" });
    // hcpx lint says the same, with the line
    const lint = lintPackDir(join(p.dir, "packs", "ask")).problems.find((x) => x.code === "input_decl");
    expect(lint).toMatchObject({ path: "commands[0].prompt.inputs.again", line: expect.any(Number) });
    s.commands[0].prompt = { descripton: "typo" };
    writeFileSync(surface, JSON.stringify(s));
    const t = exportView(loadProject({ config: p.config, cwd: p.dir, user: false })).broken.find((x) => x.id === "ask");
    expect(t?.problems[0]).toMatchObject({ code: "unknown_key", path: "commands[0].prompt.descripton" });
    expect(t?.problems[0]?.message).toMatch(/descripton/);
  });
});

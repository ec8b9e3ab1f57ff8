// The fake model (./fake-model.ts) as each real SDK sees it: every dialect,
// streaming and not, one tool round trip each. If a vendor SDK stops reading
// what the fake sends, this fails before the tests that build on it.
import Anthropic from "@anthropic-ai/sdk";
import { createOpenAI } from "@ai-sdk/openai";
import {
  Agent,
  OpenAIChatCompletionsModel,
  OpenAIResponsesModel,
  Runner,
  setTracingDisabled,
  tool as agentTool,
} from "@openai/agents";
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { jsonForSchema, startFakeModel, type FakeModel, type ModelRequest } from "./fake-model";

setTracingDisabled(true);
const schema = {
  type: "object" as const,
  properties: { x: { type: "string" as const } },
  required: ["x"],
  additionalProperties: false as const,
};
const echoBack = (req: ModelRequest) => ({ text: `got ${req.toolResults.map((r) => r.output).join("|")}` });
let fake: FakeModel | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("fake model: Anthropic Messages (@anthropic-ai/sdk)", () => {
  for (const stream of [false, true]) {
    it(`tool round trip, stream=${stream}`, async () => {
      fake = await startFakeModel({
        script: [
          { text: "calling", toolCalls: [{ name: "echo", input: { x: "hello world, a longer input" } }] },
          echoBack,
        ],
      });
      const client = new Anthropic({ apiKey: "test", baseURL: fake.url, maxRetries: 0 });
      const params = {
        model: "claude-test",
        max_tokens: 100,
        system: "SYS",
        tools: [{ name: "echo", description: "d", input_schema: schema }],
        messages: [{ role: "user" as const, content: "hi" }],
      };
      const first = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
      expect(first.stop_reason).toBe("tool_use");
      const use = first.content.find((b) => b.type === "tool_use")!;
      expect(use).toMatchObject({ name: "echo", input: { x: "hello world, a longer input" } });
      const messages = [
        ...params.messages,
        { role: "assistant" as const, content: first.content },
        {
          role: "user" as const,
          content: [
            { type: "tool_result" as const, tool_use_id: use.type === "tool_use" ? use.id : "", content: "R1" },
          ],
        },
      ];
      const second = stream
        ? await client.messages.stream({ ...params, messages }).finalMessage()
        : await client.messages.create({ ...params, messages });
      expect(second.content).toMatchObject([{ type: "text", text: "got R1" }]);
      expect(fake.modelRequests.map((r) => [r.api, r.stream, r.system])).toEqual([
        ["anthropic", stream, "SYS"],
        ["anthropic", stream, "SYS"],
      ]);
      expect(fake.modelRequests[0]!.tools).toEqual([{ name: "echo", description: "d", schema }]);
      expect(fake.unexpected).toEqual([]);
    });
  }
});

describe("fake model: OpenAI Chat Completions and Responses (Vercel AI SDK)", () => {
  for (const api of ["chat", "responses"] as const) {
    for (const stream of [false, true]) {
      it(`${api}, stream=${stream}`, async () => {
        fake = await startFakeModel({
          script: [{ toolCalls: [{ name: "echo", input: { x: "abcdefghijklmnop" } }] }, echoBack],
        });
        const provider = createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "test" });
        const model = api === "chat" ? provider.chat("gpt-test") : provider.responses("gpt-test");
        const tools = {
          echo: tool({
            description: "d",
            inputSchema: jsonSchema<{ x: string }>(schema),
            execute: async ({ x }) => `R:${x}`,
          }),
        };
        const opts = { model, tools, system: "SYS", prompt: "hi", stopWhen: stepCountIs(3), maxRetries: 0 };
        const text = stream ? await streamText(opts).text : (await generateText(opts)).text;
        expect(text).toBe("got R:abcdefghijklmnop");
        expect(fake.modelRequests.map((r) => [r.api, r.stream])).toEqual([
          [api, stream],
          [api, stream],
        ]);
        expect(fake.modelRequests[0]!.system).toContain("SYS");
        expect(fake.modelRequests[0]!.tools.map((t) => t.name)).toEqual(["echo"]);
        expect(fake.unexpected).toEqual([]);
      });
    }
  }
});

describe("fake model: OpenAI Agents SDK", () => {
  for (const api of ["chat", "responses"] as const) {
    for (const stream of [false, true]) {
      it(`${api}, stream=${stream}`, async () => {
        fake = await startFakeModel({
          script: [{ toolCalls: [{ name: "echo", input: { x: "abcdefghijklmnop" } }] }, echoBack],
        });
        const client = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: "test", maxRetries: 0 });
        const model =
          api === "chat"
            ? new OpenAIChatCompletionsModel(client, "gpt-test")
            : new OpenAIResponsesModel(client, "gpt-test");
        const echo = agentTool({
          name: "echo",
          description: "d",
          parameters: schema,
          strict: true,
          execute: async (input) => `R:${(input as { x: string }).x}`,
        });
        const agent = new Agent({ name: "a", instructions: "SYS", model, tools: [echo] });
        const runner = new Runner({ tracingDisabled: true });
        let out: unknown;
        if (stream) {
          const r = await runner.run(agent, "hi", { stream: true });
          await r.completed;
          out = r.finalOutput;
        } else out = (await runner.run(agent, "hi")).finalOutput;
        expect(out).toBe("got R:abcdefghijklmnop");
        expect(fake.modelRequests.map((r) => [r.api, r.stream])).toEqual([
          [api, stream],
          [api, stream],
        ]);
        expect(fake.modelRequests[0]!.system).toContain("SYS");
        expect(fake.unexpected).toEqual([]);
      });
    }
  }
});

// Gemini: no SDK of ours speaks it; the agent-loop suite drives it with the Gemini
// CLI itself (test/agents/gemini.test.ts). Here: the wire shape, by hand.
describe("fake model: Gemini generateContent (the wire shape)", () => {
  const post = (path: string, body: unknown) =>
    fetch(`${fake!.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const request = (results: unknown[] = []) => ({
    systemInstruction: { parts: [{ text: "SYS" }] },
    tools: [{ functionDeclarations: [{ name: "echo", description: "d", parametersJsonSchema: schema }] }],
    contents: [{ role: "user", parts: [{ text: "hi" }] }, ...results],
  });
  for (const stream of [false, true]) {
    it(`functionCall, then the functionResponse comes back, stream=${stream}`, async () => {
      fake = await startFakeModel({
        script: [{ text: "calling a tool now", toolCalls: [{ name: "echo", input: { x: "abc" } }] }, echoBack],
      });
      const path = `/v1beta/models/gem-test:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`;
      const r = await post(path, request());
      expect(r.status).toBe(200);
      const events = stream
        ? (await r.text())
            .split("\n\n")
            .filter((e) => e.startsWith("data: "))
            .map(
              (e) =>
                JSON.parse(e.slice(6)) as {
                  candidates: { content: { parts: Record<string, unknown>[] }; finishReason?: string }[];
                },
            )
        : [
            (await r.json()) as {
              candidates: { content: { parts: Record<string, unknown>[] }; finishReason?: string }[];
            },
          ];
      const parts = events.flatMap((e) => e.candidates[0]!.content.parts);
      expect(parts.map((p) => p.text ?? "").join("")).toBe("calling a tool now");
      expect(parts.find((p) => p.functionCall)).toEqual({ functionCall: { name: "echo", args: { x: "abc" } } });
      expect(events.at(-1)!.candidates[0]!.finishReason).toBe("STOP");
      if (stream) expect(events.length).toBeGreaterThan(1);
      const back = await post(
        path,
        request([
          { role: "model", parts: [{ functionCall: { name: "echo", args: { x: "abc" } } }] },
          { role: "user", parts: [{ functionResponse: { name: "echo", response: { output: "R1" } } }] },
        ]),
      );
      expect(back.status).toBe(200);
      expect(fake.modelRequests.map((q) => [q.api, q.stream, q.model, q.system])).toEqual([
        ["gemini", stream, "gem-test", "SYS"],
        ["gemini", stream, "gem-test", "SYS"],
      ]);
      expect(fake.modelRequests[0]!.tools).toEqual([{ name: "echo", description: "d", schema }]);
      expect(fake.modelRequests[1]!.toolResults).toEqual([{ id: "echo", output: "R1" }]);
      const tokens = await post("/v1beta/models/gem-test:countTokens", request());
      expect(((await tokens.json()) as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
      expect(fake.unexpected).toEqual([]);
    });
  }
});

describe("fake model: side calls and Responses namespace tools", () => {
  it("a request `side` answers takes no turn of the script", async () => {
    fake = await startFakeModel({
      script: [{ text: "main" }],
      side: (req) => (req.tools.length === 0 ? { text: "a title" } : undefined),
    });
    const chat = (tools: unknown[]) =>
      fetch(`${fake!.url}/v1/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], tools }),
      }).then((r) => r.json() as Promise<{ choices: { message: { content: string } }[] }>);
    expect((await chat([])).choices[0]!.message.content).toBe("a title");
    expect(
      (await chat([{ type: "function", function: { name: "f", parameters: schema } }])).choices[0]!.message.content,
    ).toBe("main");
    expect((await chat([])).choices[0]!.message.content).toBe("a title");
    expect([fake.sideRequests.length, fake.modelRequests.length, fake.remaining()]).toEqual([2, 1, 0]);
  });

  it("Responses: tools inside a `namespace` tool are listed with it; a call can name the namespace", async () => {
    fake = await startFakeModel({
      script: [{ toolCalls: [{ name: "hcp", namespace: "mcp__hcp", input: { pack: "p" } }] }],
    });
    const r = await fetch(`${fake.url}/v1/responses`, {
      method: "POST",
      body: JSON.stringify({
        model: "m",
        input: "hi",
        tools: [
          {
            type: "namespace",
            name: "mcp__hcp",
            description: "ns",
            tools: [{ type: "function", name: "hcp", description: "d", parameters: schema }],
          },
        ],
      }),
    });
    const body = (await r.json()) as { output: Record<string, unknown>[] };
    expect(body.output[0]).toMatchObject({
      type: "function_call",
      name: "hcp",
      namespace: "mcp__hcp",
      arguments: '{"pack":"p"}',
    });
    expect(fake.modelRequests[0]!.tools).toEqual([{ name: "hcp", description: "d", schema, namespace: "mcp__hcp" }]);
  });

  it("jsonForSchema fills a structured-output schema (Gemini's OBJECT/STRING/INTEGER spelling too)", () => {
    expect(
      jsonForSchema({
        type: "OBJECT",
        properties: {
          reasoning: { type: "STRING" },
          score: { type: "INTEGER", minimum: 1 },
          pick: { type: "string", enum: ["flash", "pro"] },
          tags: { type: "array", items: { type: "boolean" } },
        },
      }),
    ).toEqual({ reasoning: "x", score: 1, pick: "flash", tags: [true] });
  });
});

// The fake model (./fake-model.ts) as each real SDK sees it: every dialect,
// streaming and not, one tool round trip each. If a vendor SDK stops reading
// what the fake sends, this fails before the tests that build on it.
import Anthropic from "@anthropic-ai/sdk";
import { createOpenAI } from "@ai-sdk/openai";
import { Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, Runner, setTracingDisabled, tool as agentTool } from "@openai/agents";
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeModel, type FakeModel, type ModelRequest } from "./fake-model";

setTracingDisabled(true);
const schema = { type: "object" as const, properties: { x: { type: "string" as const } }, required: ["x"], additionalProperties: false as const };
const echoBack = (req: ModelRequest) => ({ text: `got ${req.toolResults.map((r) => r.output).join("|")}` });
let fake: FakeModel | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("fake model: Anthropic Messages (@anthropic-ai/sdk)", () => {
  for (const stream of [false, true]) {
    it(`tool round trip, stream=${stream}`, async () => {
      fake = await startFakeModel({ script: [{ text: "calling", toolCalls: [{ name: "echo", input: { x: "hello world, a longer input" } }] }, echoBack] });
      const client = new Anthropic({ apiKey: "test", baseURL: fake.url, maxRetries: 0 });
      const params = { model: "claude-test", max_tokens: 100, system: "SYS", tools: [{ name: "echo", description: "d", input_schema: schema }], messages: [{ role: "user" as const, content: "hi" }] };
      const first = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
      expect(first.stop_reason).toBe("tool_use");
      const use = first.content.find((b) => b.type === "tool_use")!;
      expect(use).toMatchObject({ name: "echo", input: { x: "hello world, a longer input" } });
      const messages = [...params.messages, { role: "assistant" as const, content: first.content }, { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: use.type === "tool_use" ? use.id : "", content: "R1" }] }];
      const second = stream ? await client.messages.stream({ ...params, messages }).finalMessage() : await client.messages.create({ ...params, messages });
      expect(second.content).toMatchObject([{ type: "text", text: "got R1" }]);
      expect(fake.modelRequests.map((r) => [r.api, r.stream, r.system])).toEqual([["anthropic", stream, "SYS"], ["anthropic", stream, "SYS"]]);
      expect(fake.modelRequests[0]!.tools).toEqual([{ name: "echo", description: "d", schema }]);
      expect(fake.unexpected).toEqual([]);
    });
  }
});

describe("fake model: OpenAI Chat Completions and Responses (Vercel AI SDK)", () => {
  for (const api of ["chat", "responses"] as const) {
    for (const stream of [false, true]) {
      it(`${api}, stream=${stream}`, async () => {
        fake = await startFakeModel({ script: [{ toolCalls: [{ name: "echo", input: { x: "abcdefghijklmnop" } }] }, echoBack] });
        const provider = createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "test" });
        const model = api === "chat" ? provider.chat("gpt-test") : provider.responses("gpt-test");
        const tools = { echo: tool({ description: "d", inputSchema: jsonSchema<{ x: string }>(schema), execute: async ({ x }) => `R:${x}` }) };
        const opts = { model, tools, system: "SYS", prompt: "hi", stopWhen: stepCountIs(3), maxRetries: 0 };
        const text = stream ? await streamText(opts).text : (await generateText(opts)).text;
        expect(text).toBe("got R:abcdefghijklmnop");
        expect(fake.modelRequests.map((r) => [r.api, r.stream])).toEqual([[api, stream], [api, stream]]);
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
        fake = await startFakeModel({ script: [{ toolCalls: [{ name: "echo", input: { x: "abcdefghijklmnop" } }] }, echoBack] });
        const client = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: "test", maxRetries: 0 });
        const model = api === "chat" ? new OpenAIChatCompletionsModel(client, "gpt-test") : new OpenAIResponsesModel(client, "gpt-test");
        const echo = agentTool({ name: "echo", description: "d", parameters: schema, strict: true, execute: async (input) => `R:${(input as { x: string }).x}` });
        const agent = new Agent({ name: "a", instructions: "SYS", model, tools: [echo] });
        const runner = new Runner({ tracingDisabled: true });
        let out: unknown;
        if (stream) {
          const r = await runner.run(agent, "hi", { stream: true });
          await r.completed;
          out = r.finalOutput;
        } else out = (await runner.run(agent, "hi")).finalOutput;
        expect(out).toBe("got R:abcdefghijklmnop");
        expect(fake.modelRequests.map((r) => [r.api, r.stream])).toEqual([[api, stream], [api, stream]]);
        expect(fake.modelRequests[0]!.system).toContain("SYS");
        expect(fake.unexpected).toEqual([]);
      });
    }
  }
});

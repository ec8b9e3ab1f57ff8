// Each real SDK from npm runs a tool loop against the scripted fake model on
// 127.0.0.1 (test/support/fake-model.ts), with the hcpx adapter's tools:
//   1. a granted read runs once through the runtime (the bin logs it), its
//      Binding value in the output comes back as *** and never reaches the model;
//   2. a grant revoked after openProject(): the SDK still offers the tool, the
//      call is refused and nothing runs; the model is told of no such tool
//      (unknown_verb, as hcpx mcp answers an agent), never how to grant it;
//   3. a confirm-gated write with the model's confirm: true: the person says
//      no → confirm_declined, nothing runs;
//   4. the same write again: the person says yes → it runs once;
//   5. the model finishes.
// The tool definitions the SDK sent are the projection's.
import Anthropic from "@anthropic-ai/sdk";
import { createOpenAI } from "@ai-sdk/openai";
import { Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, Runner, setTracingDisabled } from "@openai/agents";
import { generateText, stepCountIs, streamText } from "ai";
import OpenAI from "openai";
import { openProject, type HcpxProject } from "hcpx";
import { tools as aiSdkTools } from "hcpx/ai-sdk";
import { toolResults, tools as anthropicTools } from "hcpx/anthropic";
import { tools as agentsTools } from "hcpx/openai-agents";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeModel, type FakeModel, type Turn } from "../support/fake-model";
import { probeEnv, SECRET, person, probeProject, type ProbeProject } from "./support";

setTracingDisabled(true);

let fake: FakeModel | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

interface Loop {
  pp: ProbeProject;
  project: HcpxProject;
  fake: FakeModel;
  who: ReturnType<typeof person>;
}

async function setUp(): Promise<Loop> {
  const pp = probeProject({ allow: ["probe.status", "probe.wipe", "probe.save"] });
  const project = await openProject({ cwd: pp.dir, env: probeEnv() });
  const script: Turn[] = [
    { text: "Checking status.", toolCalls: [{ name: "probe__status", input: {} }] },
    () => {
      pp.setAllow(["probe.status", "probe.save"]); // a person revokes probe.wipe mid-session
      return { toolCalls: [{ name: "probe__wipe", input: {} }] };
    },
    { toolCalls: [{ name: "probe__save", input: { note: "first", confirm: true } }] },
    { toolCalls: [{ name: "probe__save", input: { note: "second", confirm: true } }] },
    { text: "All done." },
  ];
  fake = await startFakeModel({ script });
  return { pp, project, fake, who: person([false, true]) };
}

function envelopeOf(output: string): { ok: boolean; data?: unknown; error?: { code: string } } {
  return JSON.parse(output) as { ok: boolean; data?: unknown; error?: { code: string } };
}

/** What every loop must show, whatever the SDK. */
function expectLoop(l: Loop): void {
  // the model was asked five times; every tool result it got is the runtime's envelope
  expect(l.fake.unexpected).toEqual([]);
  expect(l.fake.modelRequests).toHaveLength(5);
  const results = l.fake.modelRequests[4]!.toolResults.map((r) => envelopeOf(r.output));
  expect(results).toEqual([
    { ok: true, data: { status: "fine", token: "***" } },
    expect.objectContaining({ ok: false, error: expect.objectContaining({ code: "unknown_verb" }) }),
    expect.objectContaining({ ok: false, error: expect.objectContaining({ code: "confirm_declined" }) }),
    { ok: true, data: { done: "save", args: ["second"] } },
  ]);
  // the bin ran exactly twice: the read and the confirmed write
  expect(l.pp.calls()).toEqual(["status", "save second"]);
  // the person was asked twice, about exactly what would run
  expect(l.who.asked.map((a) => [a.pack, a.verb, a.args, a.land])).toEqual([
    ["probe", "save", { note: "first" }, "local"],
    ["probe", "save", { note: "second" }, "local"],
  ]);
  // the Binding value reached the bin (it came back redacted) and no request body
  for (const r of l.fake.requests) expect(r.raw).not.toContain(SECRET);
  // the prompt block reached the model
  expect(l.fake.modelRequests[0]!.system).toContain(l.project.promptBlock.split("\n")[1]!);
}

/** The offered tools: name, description and schema of the projection, in its order. */
function expectOffered(l: Loop): void {
  const want = l.project.tools("mcp").map((t) => ({ name: t.name, description: t.description, schema: t.inputSchema }));
  expect(
    l.fake.modelRequests[0]!.tools.map((t) => ({ name: t.name, description: t.description, schema: t.schema })),
  ).toEqual(want);
}

describe("@anthropic-ai/sdk: Messages loop with hcpx/anthropic", () => {
  for (const stream of [false, true]) {
    it(`stream=${stream}`, async () => {
      const l = await setUp();
      const client = new Anthropic({ apiKey: "test-key", baseURL: l.fake.url, maxRetries: 0 });
      const base = {
        model: "claude-test",
        max_tokens: 1024,
        system: l.project.promptBlock,
        tools: anthropicTools(l.project),
      };
      const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Check the probe, then save a note." }];
      for (let i = 0; i < 10; i++) {
        const msg = stream
          ? await client.messages.stream({ ...base, messages }).finalMessage()
          : await client.messages.create({ ...base, messages });
        messages.push({ role: "assistant", content: msg.content });
        const answer = await toolResults(l.project, msg, { confirm: l.who.confirm });
        if (!answer) break;
        messages.push(answer);
      }
      expectLoop(l);
      expectOffered(l);
      // byte for byte the tools/anthropic.json list
      expect(JSON.stringify((l.fake.modelRequests[0]!.body as { tools: unknown }).tools)).toBe(
        JSON.stringify(l.project.tools("anthropic")),
      );
      // an error envelope is an is_error tool_result
      const sent = (l.fake.modelRequests[4]!.body as { messages: { content: unknown }[] }).messages.flatMap((m) =>
        Array.isArray(m.content) ? m.content : [],
      ) as { type: string; is_error?: boolean }[];
      expect(sent.filter((b) => b.type === "tool_result").map((b) => b.is_error === true)).toEqual([
        false,
        true,
        true,
        false,
      ]);
    });
  }
});

describe("ai (Vercel AI SDK) with hcpx/ai-sdk", () => {
  for (const [api, stream] of [
    ["chat", false],
    ["responses", true],
  ] as const) {
    it(`@ai-sdk/openai ${api}, stream=${stream}`, async () => {
      const l = await setUp();
      const provider = createOpenAI({ baseURL: `${l.fake.url}/v1`, apiKey: "test-key" });
      const model = api === "chat" ? provider.chat("gpt-test") : provider.responses("gpt-test");
      const opts = {
        model,
        system: l.project.promptBlock,
        prompt: "Check the probe, then save a note.",
        tools: aiSdkTools(l.project, { confirm: l.who.confirm }),
        stopWhen: stepCountIs(10),
        maxRetries: 0,
      };
      const text = stream ? await streamText(opts).text : (await generateText(opts)).text;
      expect(text).toContain("All done.");
      expectLoop(l);
      expectOffered(l);
    });
  }
});

describe("@openai/agents with hcpx/openai-agents", () => {
  for (const [api, stream] of [
    ["responses", false],
    ["chat", true],
  ] as const) {
    it(`${api}, stream=${stream}`, async () => {
      const l = await setUp();
      const client = new OpenAI({ baseURL: `${l.fake.url}/v1`, apiKey: "test-key", maxRetries: 0 });
      const model =
        api === "chat"
          ? new OpenAIChatCompletionsModel(client, "gpt-test")
          : new OpenAIResponsesModel(client, "gpt-test");
      const agent = new Agent({
        name: "probe-agent",
        instructions: l.project.promptBlock,
        model,
        tools: agentsTools(l.project, { confirm: l.who.confirm }),
      });
      const runner = new Runner({ tracingDisabled: true });
      let out: unknown;
      if (stream) {
        const r = await runner.run(agent, "Check the probe, then save a note.", { stream: true, maxTurns: 10 });
        await r.completed;
        out = r.finalOutput;
      } else out = (await runner.run(agent, "Check the probe, then save a note.", { maxTurns: 10 })).finalOutput;
      expect(out).toBe("All done.");
      expectLoop(l);
      expectOffered(l);
    });
  }
});

// A scripted fake model API on 127.0.0.1 for tool-loop tests: the real SDKs
// (and the hosts' own agents) talk to it as they would to the vendor's API.
//
// Wire formats, each with and without streaming (`stream: true` → SSE):
//   POST /v1/messages               Anthropic Messages
//   POST /v1/messages/count_tokens  Anthropic token count (side call)
//   POST /v1/responses              OpenAI Responses
//   POST /v1/chat/completions       OpenAI Chat Completions
//   POST /v1beta/models/<m>:generateContent, :streamGenerateContent (SSE)
//                                   Gemini (the model is in the path)
//   POST /v1beta/models/<m>:countTokens  Gemini token count (side call)
//   GET  /v1/models                 a one-model list (side call)
//   POST /chat-stream               Augment's (Auggie): one JSON line back, `nodes` with
//                                   `tool_use`; its other API calls (models, MCP configs,
//                                   remote tools, events) answered `{}`
// Paths are matched on their end, so a base URL with a prefix (`/v1`, `/api/v1`)
// works. Anything else is logged and answered 404.
//
// Every request is logged (`requests`: method, path, headers, the raw body
// text and its parsed form, plus a normalised view: tools offered, system
// text, tool results sent back), so a test can assert on exactly what reached
// the "model". Each model request takes the next turn of the script; a turn is
// data ({ text, toolCalls }) or a function of the request (to answer from the
// tool results it carries, or to pick a tool name as the host prefixed it).
// A request beyond the script is answered 400 (not 5xx: SDKs retry those) with
// "fake model: script exhausted", and counted in `unexpected`.
//
// Side calls a host makes besides the conversation (a title, a routing
// classifier) would take turns meant for the conversation: `side` answers a
// request without taking a turn when it returns one (`jsonForSchema` fills a
// JSON answer for a request that asks for structured output).
//
// Adding a dialect is one entry in DIALECTS.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Api = "anthropic" | "responses" | "chat" | "gemini" | "augment";

export interface ToolCallSpec {
  name: string;
  input: Record<string, unknown>;
  /** default `call_<n>` (`toolu_<n>` for Anthropic), unique per server */
  id?: string;
  /** Responses: the namespace of a tool offered inside a `namespace` tool (Codex's `mcp__<server>`) */
  namespace?: string;
}

export interface TurnData {
  text?: string;
  toolCalls?: ToolCallSpec[];
}

export type Turn = TurnData | ((req: ModelRequest) => TurnData);

export interface OfferedTool {
  name: string;
  description?: string;
  /** the JSON Schema of the input, as the dialect carries it */
  schema?: unknown;
  /** Responses: the `namespace` tool this one was offered in */
  namespace?: string;
}

export interface ToolResult {
  /** tool_use_id (Anthropic), tool_call_id (Chat), call_id (Responses) */
  id: string;
  /** the result as text (content blocks joined) */
  output: string;
  isError?: boolean;
}

export interface LoggedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** the body exactly as received */
  raw: string;
  /** JSON.parse(raw), or undefined */
  body: unknown;
}

export interface ModelRequest extends LoggedRequest {
  api: Api;
  /** index among model requests (0-based) */
  n: number;
  stream: boolean;
  model: string;
  tools: OfferedTool[];
  /** system / developer / instructions text, joined with "\n" */
  system: string;
  /** every tool result in the conversation so far, in order */
  toolResults: ToolResult[];
  /** answered by `side` (took no turn) */
  side?: boolean;
}

export interface FakeModelOptions {
  script?: Turn[];
  /** the `model` echoed back when the request names none */
  model?: string;
  /** answers side calls: a turn here is sent without taking one of the script's */
  side?: (req: ModelRequest) => TurnData | undefined;
}

export interface FakeModel {
  /** `http://127.0.0.1:<port>` (no trailing slash, no /v1) */
  url: string;
  /** every request, side calls and 404s included, in arrival order */
  requests: LoggedRequest[];
  /** the model requests only (those that took a turn, or tried to) */
  modelRequests: ModelRequest[];
  /** model requests answered by `side` */
  sideRequests: ModelRequest[];
  /** requests that found no turn or no route */
  unexpected: LoggedRequest[];
  /** append turns to the script */
  push(...turns: Turn[]): void;
  /** turns not yet played */
  remaining(): number;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** Text of a content value: a string, or blocks with `text` (nested tool_result content too). */
function textOf(v: unknown): string {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.map(textOf).join("");
  if (isObj(v)) {
    if (typeof v.text === "string") return v.text;
    if ("content" in v) return textOf(v.content);
    if ("output" in v) return textOf(v.output);
  }
  return "";
}

interface Dialect {
  api: Api;
  match: RegExp;
  /** streaming asked for (default: `stream: true` in the body) */
  streams?(path: string, body: Json): boolean;
  /** the model named (default: the body's `model`) */
  modelOf?(path: string, body: Json): string;
  parse(body: Json): Pick<ModelRequest, "tools" | "system" | "toolResults">;
  render(turn: TurnData, ctx: RenderCtx): Json;
  stream(turn: TurnData, ctx: RenderCtx): { event?: string; data: Json | string }[];
  /** the stream is newline-delimited JSON, not SSE (Augment's) */
  ndjson?: boolean;
}

interface RenderCtx {
  model: string;
  id: string;
  /** ids for the turn's tool calls */
  callIds: string[];
  inputTokens: number;
}

const created = () => Math.floor(Date.now() / 1000);

const anthropic: Dialect = {
  api: "anthropic",
  match: /\/messages$/,
  parse(b) {
    const tools = arr(b.tools)
      .filter(isObj)
      .map((t) => ({
        name: str(t.name),
        description: typeof t.description === "string" ? t.description : undefined,
        schema: t.input_schema,
      }));
    const toolResults: ToolResult[] = [];
    for (const m of arr(b.messages).filter(isObj)) {
      for (const c of arr(m.content).filter(isObj)) {
        if (c.type === "tool_result")
          toolResults.push({
            id: str(c.tool_use_id),
            output: textOf(c.content),
            isError: c.is_error === true ? true : undefined,
          });
      }
    }
    return { tools, system: textOf(b.system), toolResults };
  },
  render(turn, ctx) {
    const content: Json[] = [];
    if (turn.text !== undefined) content.push({ type: "text", text: turn.text });
    (turn.toolCalls ?? []).forEach((c, i) =>
      content.push({ type: "tool_use", id: ctx.callIds[i], name: c.name, input: c.input }),
    );
    return {
      id: ctx.id,
      type: "message",
      role: "assistant",
      model: ctx.model,
      content,
      stop_reason: turn.toolCalls?.length ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: { input_tokens: ctx.inputTokens, output_tokens: 10 },
    };
  },
  stream(turn, ctx) {
    const ev = (data: Json) => ({ event: String(data.type), data });
    const out = [
      ev({
        type: "message_start",
        message: {
          id: ctx.id,
          type: "message",
          role: "assistant",
          model: ctx.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: ctx.inputTokens, output_tokens: 1 },
        },
      }),
    ];
    let index = 0;
    if (turn.text !== undefined) {
      out.push(ev({ type: "content_block_start", index, content_block: { type: "text", text: "" } }));
      for (const piece of chunks(turn.text))
        out.push(ev({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }));
      out.push(ev({ type: "content_block_stop", index }));
      index++;
    }
    (turn.toolCalls ?? []).forEach((c, i) => {
      out.push(
        ev({
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: ctx.callIds[i], name: c.name, input: {} },
        }),
      );
      for (const piece of chunks(JSON.stringify(c.input)))
        out.push(ev({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } }));
      out.push(ev({ type: "content_block_stop", index }));
      index++;
    });
    out.push(
      ev({
        type: "message_delta",
        delta: { stop_reason: turn.toolCalls?.length ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: 10 },
      }),
    );
    out.push(ev({ type: "message_stop" }));
    return out;
  },
};

const chat: Dialect = {
  api: "chat",
  match: /\/chat\/completions$/,
  parse(b) {
    const tools = arr(b.tools)
      .filter(isObj)
      .map((t) => (isObj(t.function) ? t.function : t))
      .map((f) => ({
        name: str(f.name),
        description: typeof f.description === "string" ? f.description : undefined,
        schema: f.parameters,
      }));
    const msgs = arr(b.messages).filter(isObj);
    const system = msgs
      .filter((m) => m.role === "system" || m.role === "developer")
      .map((m) => textOf(m.content))
      .join("\n");
    const toolResults = msgs
      .filter((m) => m.role === "tool")
      .map((m) => ({ id: str(m.tool_call_id), output: textOf(m.content) }));
    return { tools, system, toolResults };
  },
  render(turn, ctx) {
    const message: Json = { role: "assistant", content: turn.text ?? null, refusal: null };
    if (turn.toolCalls?.length)
      message.tool_calls = turn.toolCalls.map((c, i) => ({
        id: ctx.callIds[i],
        type: "function",
        function: { name: c.name, arguments: JSON.stringify(c.input) },
      }));
    return {
      id: ctx.id,
      object: "chat.completion",
      created: created(),
      model: ctx.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: turn.toolCalls?.length ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: ctx.inputTokens, completion_tokens: 10, total_tokens: ctx.inputTokens + 10 },
    };
  },
  stream(turn, ctx) {
    const t = created();
    const chunk = (delta: Json, finish: string | null = null): { data: Json } => ({
      data: {
        id: ctx.id,
        object: "chat.completion.chunk",
        created: t,
        model: ctx.model,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      },
    });
    const out: { data: Json | string }[] = [chunk({ role: "assistant", content: "" })];
    if (turn.text !== undefined) for (const piece of chunks(turn.text)) out.push(chunk({ content: piece }));
    (turn.toolCalls ?? []).forEach((c, i) => {
      out.push(
        chunk({
          tool_calls: [{ index: i, id: ctx.callIds[i], type: "function", function: { name: c.name, arguments: "" } }],
        }),
      );
      for (const piece of chunks(JSON.stringify(c.input)))
        out.push(chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
    });
    out.push(chunk({}, turn.toolCalls?.length ? "tool_calls" : "stop"));
    out.push({
      data: {
        id: ctx.id,
        object: "chat.completion.chunk",
        created: t,
        model: ctx.model,
        choices: [],
        usage: { prompt_tokens: ctx.inputTokens, completion_tokens: 10, total_tokens: ctx.inputTokens + 10 },
      },
    });
    out.push({ data: "[DONE]" });
    return out;
  },
};

function responsesOutput(turn: TurnData, ctx: RenderCtx): Json[] {
  const output: Json[] = [];
  if (turn.text !== undefined)
    output.push({
      type: "message",
      id: `msg_${ctx.id}`,
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: turn.text, annotations: [], logprobs: [] }],
    });
  (turn.toolCalls ?? []).forEach((c, i) =>
    output.push({
      type: "function_call",
      id: `fc_${ctx.callIds[i]}`,
      call_id: ctx.callIds[i],
      name: c.name,
      ...(c.namespace ? { namespace: c.namespace } : {}),
      arguments: JSON.stringify(c.input),
      status: "completed",
    }),
  );
  return output;
}

function responseObject(ctx: RenderCtx, status: string, output: Json[]): Json {
  return {
    id: ctx.id,
    object: "response",
    created_at: created(),
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    model: ctx.model,
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    temperature: null,
    top_p: null,
    usage:
      status === "completed"
        ? {
            input_tokens: ctx.inputTokens,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 10,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: ctx.inputTokens + 10,
          }
        : null,
  };
}

const responses: Dialect = {
  api: "responses",
  match: /\/responses$/,
  parse(b) {
    const tools: OfferedTool[] = [];
    for (const t of arr(b.tools).filter(isObj)) {
      if (t.type === "namespace") {
        for (const u of arr(t.tools).filter(isObj))
          tools.push({
            name: str(u.name),
            description: typeof u.description === "string" ? u.description : undefined,
            schema: u.parameters,
            namespace: str(t.name),
          });
      } else
        tools.push({
          name: str(t.name),
          description: typeof t.description === "string" ? t.description : undefined,
          schema: t.parameters,
        });
    }
    const input = typeof b.input === "string" ? [] : arr(b.input).filter(isObj);
    const system = [
      str(b.instructions),
      ...input.filter((m) => m.role === "system" || m.role === "developer").map((m) => textOf(m.content)),
    ]
      .filter(Boolean)
      .join("\n");
    const toolResults = input
      .filter((m) => m.type === "function_call_output")
      .map((m) => ({ id: str(m.call_id), output: textOf(m.output) }));
    return { tools, system, toolResults };
  },
  render(turn, ctx) {
    return responseObject(ctx, "completed", responsesOutput(turn, ctx));
  },
  stream(turn, ctx) {
    let seq = 0;
    const ev = (data: Json) => ({ event: String(data.type), data: { ...data, sequence_number: seq++ } });
    const out = [
      ev({ type: "response.created", response: responseObject(ctx, "in_progress", []) }),
      ev({ type: "response.in_progress", response: responseObject(ctx, "in_progress", []) }),
    ];
    const items = responsesOutput(turn, ctx);
    items.forEach((item, output_index) => {
      if (item.type === "message") {
        const text = turn.text ?? "";
        out.push(
          ev({
            type: "response.output_item.added",
            output_index,
            item: { ...item, status: "in_progress", content: [] },
          }),
        );
        const part = { type: "output_text", text: "", annotations: [], logprobs: [] };
        out.push(ev({ type: "response.content_part.added", item_id: item.id, output_index, content_index: 0, part }));
        for (const piece of chunks(text))
          out.push(
            ev({
              type: "response.output_text.delta",
              item_id: item.id,
              output_index,
              content_index: 0,
              delta: piece,
              logprobs: [],
            }),
          );
        out.push(
          ev({
            type: "response.output_text.done",
            item_id: item.id,
            output_index,
            content_index: 0,
            text,
            logprobs: [],
          }),
        );
        out.push(
          ev({
            type: "response.content_part.done",
            item_id: item.id,
            output_index,
            content_index: 0,
            part: { ...part, text },
          }),
        );
      } else {
        const args = str(item.arguments);
        out.push(
          ev({
            type: "response.output_item.added",
            output_index,
            item: { ...item, arguments: "", status: "in_progress" },
          }),
        );
        for (const piece of chunks(args))
          out.push(
            ev({ type: "response.function_call_arguments.delta", item_id: item.id, output_index, delta: piece }),
          );
        out.push(
          ev({
            type: "response.function_call_arguments.done",
            item_id: item.id,
            output_index,
            name: item.name,
            arguments: args,
          }),
        );
      }
      out.push(ev({ type: "response.output_item.done", output_index, item }));
    });
    out.push(ev({ type: "response.completed", response: responseObject(ctx, "completed", items) }));
    return out;
  },
};

// Gemini generateContent: tools are `functionDeclarations`, calls and results are
// `functionCall` / `functionResponse` parts; streaming is `:streamGenerateContent?alt=sse`,
// each event a whole GenerateContentResponse.
function geminiResponse(turn: TurnData, ctx: RenderCtx, parts?: Json[]): Json {
  const all: Json[] = parts ?? [
    ...(turn.text !== undefined ? [{ text: turn.text }] : []),
    ...(turn.toolCalls ?? []).map((c) => ({ functionCall: { name: c.name, args: c.input } })),
  ];
  return {
    candidates: [{ content: { role: "model", parts: all }, finishReason: "STOP", index: 0 }],
    usageMetadata: {
      promptTokenCount: ctx.inputTokens,
      candidatesTokenCount: 10,
      totalTokenCount: ctx.inputTokens + 10,
    },
    modelVersion: ctx.model,
    responseId: ctx.id,
  };
}

const gemini: Dialect = {
  api: "gemini",
  match: /\/models\/[^/:]+:(?:stream)?[gG]enerateContent$/,
  streams: (path) => /:stream[gG]enerateContent$/.test(path),
  modelOf: (path) => /\/models\/([^/:]+):/.exec(path)?.[1] ?? "",
  parse(b) {
    const tools: OfferedTool[] = [];
    for (const t of arr(b.tools).filter(isObj)) {
      for (const f of arr(t.functionDeclarations).filter(isObj))
        tools.push({
          name: str(f.name),
          description: typeof f.description === "string" ? f.description : undefined,
          schema: f.parametersJsonSchema ?? f.parameters,
        });
    }
    const toolResults: ToolResult[] = [];
    for (const c of arr(b.contents).filter(isObj)) {
      for (const part of arr(c.parts).filter(isObj)) {
        const fr = part.functionResponse;
        if (!isObj(fr)) continue;
        const resp = fr.response;
        const output =
          isObj(resp) && typeof resp.output === "string"
            ? resp.output
            : isObj(resp) && typeof resp.error === "string"
              ? resp.error
              : JSON.stringify(resp ?? null);
        toolResults.push({
          id: str(fr.id) || str(fr.name),
          output,
          isError: isObj(resp) && resp.error !== undefined ? true : undefined,
        });
      }
    }
    return {
      tools,
      system: textOf(isObj(b.systemInstruction) ? b.systemInstruction.parts : b.systemInstruction),
      toolResults,
    };
  },
  render: (turn, ctx) => geminiResponse(turn, ctx),
  stream(turn, ctx) {
    // the text in pieces, then each call, the last event carrying finishReason
    const out: { data: Json }[] = [];
    const pieces = turn.text !== undefined ? chunks(turn.text) : [];
    const calls = (turn.toolCalls ?? []).map((c) => ({ functionCall: { name: c.name, args: c.input } }));
    pieces.forEach((t) => out.push({ data: geminiResponse(turn, ctx, [{ text: t }]) }));
    if (calls.length) out.push({ data: geminiResponse(turn, ctx, calls) });
    if (out.length === 0) out.push({ data: geminiResponse(turn, ctx, [{ text: "" }]) });
    for (const e of out.slice(0, -1)) delete (e.data.candidates as Json[])[0]!.finishReason;
    return out;
  },
};

/** Augment's chat API (Auggie): tools in `tool_definitions` (schema as a JSON string), results as `tool_result_node`s. */
const augment: Dialect = {
  api: "augment",
  match: /\/chat-stream$/,
  streams: () => true,
  ndjson: true,
  parse(b) {
    const tools = arr(b.tool_definitions)
      .filter(isObj)
      .map((t) => {
        let schema: unknown;
        try {
          schema = JSON.parse(str(t.input_schema_json));
        } catch {
          schema = undefined;
        }
        return { name: str(t.name), description: str(t.description), schema };
      });
    const nodes = [...arr(b.chat_history).flatMap((h) => (isObj(h) ? arr(h.request_nodes) : [])), ...arr(b.nodes)];
    const toolResults = nodes
      .flatMap((n) => (isObj(n) && isObj(n.tool_result_node) ? [n.tool_result_node] : []))
      .map((r) => ({ id: str(r.tool_use_id), output: textOf(r.content), isError: r.is_error === true }));
    const system = [
      str(b.user_guidelines),
      str(b.workspace_guidelines),
      ...arr(b.rules).map((r) => (isObj(r) ? str(r.content) : "")),
    ]
      .filter(Boolean)
      .join("\n");
    return { tools, system, toolResults };
  },
  render(turn, ctx) {
    const calls = (turn.toolCalls ?? []).map((c, i) => ({
      id: i + 1,
      type: 5,
      content: "",
      tool_use: { tool_use_id: ctx.callIds[i], tool_name: c.name, input_json: JSON.stringify(c.input) },
    }));
    return { text: turn.text ?? "", nodes: calls, stop_reason: calls.length ? 3 : 1 };
  },
  stream(turn, ctx) {
    return [{ data: augment.render(turn, ctx) }];
  },
};

const DIALECTS: Dialect[] = [anthropic, chat, responses, gemini, augment];

/**
 * A value that satisfies a JSON Schema (Gemini's OBJECT/STRING spelling too):
 * the first enum value, 1, true, "x", one-item arrays, every property. For a
 * side call that asks for structured output (`responseJsonSchema`).
 */
export function jsonForSchema(schema: unknown): unknown {
  if (!isObj(schema)) return "x";
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const type = String(
    Array.isArray(schema.type) ? schema.type[0] : (schema.type ?? (isObj(schema.properties) ? "object" : "string")),
  ).toLowerCase();
  switch (type) {
    case "object":
      return Object.fromEntries(
        Object.entries(isObj(schema.properties) ? schema.properties : {}).map(([k, v]) => [k, jsonForSchema(v)]),
      );
    case "array":
      return [jsonForSchema(schema.items)];
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return true;
    default:
      return "x";
  }
}

/** Split a string into a few pieces, so that clients really reassemble deltas. */
function chunks(s: string): string[] {
  if (s.length <= 8) return [s];
  const size = Math.ceil(s.length / 3);
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "request-id": "req_fake",
    "x-request-id": "req_fake",
  });
  res.end(text);
}

function errorBody(api: Api | undefined, message: string): Json {
  // Anthropic's and OpenAI's error shapes (each SDK reads its own)
  return api === "anthropic"
    ? { type: "error", error: { type: "invalid_request_error", message } }
    : { error: { message, type: "invalid_request_error", param: null, code: null } };
}

export async function startFakeModel(opts: FakeModelOptions = {}): Promise<FakeModel> {
  const script: Turn[] = [...(opts.script ?? [])];
  const requests: LoggedRequest[] = [];
  const modelRequests: ModelRequest[] = [];
  const sideRequests: ModelRequest[] = [];
  const unexpected: LoggedRequest[] = [];
  let ids = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const path = (req.url ?? "/").split("?")[0]!;
    const logged: LoggedRequest = { method: req.method ?? "GET", path, headers: { ...req.headers }, raw, body };
    requests.push(logged);

    if (req.method === "GET" && /\/models$/.test(path)) {
      const model = opts.model ?? "fake-model";
      sendJson(res, 200, {
        object: "list",
        data: [
          { id: model, object: "model", type: "model", created: created(), owned_by: "fake", display_name: model },
        ],
        has_more: false,
        first_id: model,
        last_id: model,
      });
      return;
    }
    if (req.method === "POST" && /\/messages\/count_tokens$/.test(path)) {
      sendJson(res, 200, { input_tokens: Math.max(1, Math.ceil(raw.length / 4)) });
      return;
    }
    if (req.method === "POST" && /\/models\/[^/:]+:countTokens$/.test(path)) {
      sendJson(res, 200, { totalTokens: Math.max(1, Math.ceil(raw.length / 4)) });
      return;
    }
    // Augment's workspace sync (which of the workspace's blobs the server lacks): none, so nothing is uploaded
    if (req.method === "POST" && /\/find-missing$/.test(path)) {
      sendJson(res, 200, { unknown_memory_names: [], nonindexed_blob_names: [] });
      return;
    }
    // Augment's side calls around a conversation: nothing configured there
    if (
      req.method === "POST" &&
      /\/(get-models|settings\/get-mcp-(?:tenant|user)-configs|agents\/list-remote-tools|record-[a-z-]+|report-[a-z-]+)$/.test(
        path,
      )
    ) {
      sendJson(res, 200, {});
      return;
    }
    const dialect = req.method === "POST" ? DIALECTS.find((d) => d.match.test(path)) : undefined;
    if (!dialect || !isObj(body)) {
      unexpected.push(logged);
      sendJson(res, 404, errorBody(dialect?.api, `fake model: no route for ${req.method} ${path}`));
      return;
    }
    const mreq: ModelRequest = {
      ...logged,
      api: dialect.api,
      n: modelRequests.length,
      stream: dialect.streams ? dialect.streams(path, body) : body.stream === true,
      model: (dialect.modelOf ? dialect.modelOf(path, body) : str(body.model)) || opts.model || "fake-model",
      ...dialect.parse(body),
    };
    const sideTurn = opts.side?.(mreq);
    if (sideTurn) {
      mreq.side = true;
      sideRequests.push(mreq);
    } else modelRequests.push(mreq);
    const next = sideTurn ?? script.shift();
    if (next === undefined) {
      unexpected.push(logged);
      sendJson(res, 400, errorBody(dialect.api, `fake model: script exhausted (request ${mreq.n + 1})`));
      return;
    }
    let turn: TurnData;
    try {
      turn = typeof next === "function" ? next(mreq) : next;
    } catch (e) {
      unexpected.push(logged);
      sendJson(res, 400, errorBody(dialect.api, `fake model: the script's turn threw: ${(e as Error).message}`));
      return;
    }
    const n = ++ids;
    const ctx: RenderCtx = {
      model: mreq.model,
      id:
        dialect.api === "anthropic"
          ? `msg_fake${n}`
          : dialect.api === "responses"
            ? `resp_fake${n}`
            : `chatcmpl-fake${n}`,
      callIds: (turn.toolCalls ?? []).map(
        (c, i) => c.id ?? `${dialect.api === "anthropic" || dialect.api === "augment" ? "toolu" : "call"}_${n}_${i}`,
      ),
      inputTokens: Math.max(1, Math.ceil(raw.length / 4)),
    };
    if (!mreq.stream) {
      sendJson(res, 200, dialect.render(turn, ctx));
      return;
    }
    if (dialect.ndjson) {
      res.writeHead(200, { "content-type": "application/json", "request-id": "req_fake", "x-request-id": "req_fake" });
      for (const e of dialect.stream(turn, ctx))
        res.write(`${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n`);
      res.end();
      return;
    }
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "request-id": "req_fake",
      "x-request-id": "req_fake",
    });
    for (const e of dialect.stream(turn, ctx)) {
      res.write(
        `${e.event ? `event: ${e.event}\n` : ""}data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`,
      );
    }
    res.end();
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) sendJson(res, 400, errorBody(undefined, `fake model: ${(e as Error).message}`));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    modelRequests,
    sideRequests,
    unexpected,
    push: (...turns) => void script.push(...turns),
    remaining: () => script.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

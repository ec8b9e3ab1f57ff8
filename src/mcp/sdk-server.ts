// One MCP SDK (v2) server instance over the tool-call front (front.ts): what
// every transport's factory builds, for the era the SDK's entry decided
// (serveStdio per connection, createMcpHandler per request). The handlers
// only translate: listing, calling and confirming are the front's.
import { ProtocolError, SdkError, SdkErrorCode, Server, type ServerContext } from "@modelcontextprotocol/server";
import type { ConfirmQuestion, PersonAnswer } from "../runtime/execute";
import { cancelReason } from "../runtime/wrap";
import { ConfirmStateError } from "./confirm-state";
import { declaresFormElicitation, type CallContext, type Era, type McpFront } from "./front";
import { getPrompt, listPrompts, PromptError } from "./prompts";
import { MissingCapability, type InputRequestOut } from "./inputs";
import { redactOut } from "../util/redact";
import { VERSION } from "../util/build-info";

export const SKILL_URI = (pack: string) => `skill://${pack}/SKILL.md`;
const SKILL_URI_RE = /^skill:\/\/([a-z][a-z0-9-]{0,31})\/SKILL\.md$/;
const CLIENT_CAPS = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO = "io.modelcontextprotocol/clientInfo";

export interface InstanceHooks {
  /** The tool list changed while serving a request: tell every live instance. */
  announce: () => void;
  /** Each call's own controller: aborted by the client's cancel and by shutdown. */
  track: <T>(signal: AbortSignal, run: (signal: AbortSignal) => Promise<T>) => Promise<T>;
  log: (msg: string) => void;
}

/** Who calls through this instance: the HTTP listener's principal and the request's User-Agent (stdio: "local"). */
export interface Caller {
  principal: string;
  client?: string;
}

const clientName = (info: unknown): string | undefined => {
  const n = info && typeof info === "object" ? (info as { name?: unknown }).name : undefined;
  return typeof n === "string" && n ? n.slice(0, 200) : undefined;
};

export function buildServer(
  front: McpFront,
  era: Era,
  hooks: InstanceHooks,
  caller: Caller = { principal: "local" },
): Server {
  const server = new Server(
    { name: "hcpx", version: VERSION },
    {
      // prompts always (an empty list is an answer): a pack or grant change may add one while a legacy connection lives
      capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true } },
      instructions: front.instructions,
    },
  );
  const refresh = () => {
    if (front.refresh()) hooks.announce();
  };

  server.setRequestHandler("tools/list", async () => {
    refresh();
    // a principal served nothing now (removed from the server config, or it does not load): no tools
    return { tools: (front.refused ? [] : front.listed) as never };
  });

  registerSkills(server, front, refresh);

  server.setRequestHandler("tools/call", async (req, ctx) =>
    hooks.track(ctx.mcpReq.signal, async (signal) => {
      const input = (req.params.arguments ?? {}) as Record<string, unknown>;
      try {
        return (await front.callTool(
          req.params.name,
          input,
          callContext(server, era, ctx, caller, hooks, signal),
          hooks.announce,
        )) as never;
      } catch (e) {
        throw protocolError(e);
      }
    }),
  );

  registerPrompts(server, front, refresh, (ctx, signal) => callContext(server, era, ctx, caller, hooks, signal), hooks);
  return server;
}

/** Each pack's Skill as a resource: listed, and read by its skill:// URI. */
function registerSkills(server: Server, front: McpFront, refresh: () => void): void {
  server.setRequestHandler("resources/list", async () => {
    refresh();
    return {
      resources: (front.refused ? [] : front.view.packs).map((p) => ({
        uri: SKILL_URI(p.pack.id),
        name: p.pack.id,
        title: `${p.pack.id} Skill`,
        description: p.description,
        mimeType: "text/markdown",
      })),
    };
  });

  server.setRequestHandler("resources/read", async (req) => {
    const m = SKILL_URI_RE.exec(req.params.uri);
    refresh();
    const no = front.refused?.problems[0];
    if (no)
      throw new ProtocolError(-32602, `resource not served: ${no.message}`, { uri: req.params.uri, reason: no.code });
    const p = m ? front.view.packs.find((x) => x.pack.id === m[1]) : undefined;
    if (!p) throw new ProtocolError(-32602, `resource not found: ${req.params.uri}`, { uri: req.params.uri });
    return {
      contents: [{ uri: req.params.uri, mimeType: "text/markdown", text: front.view.skills.get(p.pack.id) ?? "" }],
    };
  });
}

/** The prompts (src/mcp/prompts.ts): the opted-in granted commands; a prompt's inputs are asked as a tool call's. */
function registerPrompts(
  server: Server,
  front: McpFront,
  refresh: () => void,
  context: (ctx: ServerContext, signal: AbortSignal) => CallContext,
  hooks: InstanceHooks,
): void {
  server.setRequestHandler("prompts/list", async () => {
    refresh();
    return { prompts: (front.refused ? [] : listPrompts(front)) as never };
  });

  server.setRequestHandler("prompts/get", async (req, ctx) =>
    hooks.track(ctx.mcpReq.signal, async (signal) => {
      refresh();
      try {
        return (await getPrompt(front, req.params.name, req.params.arguments, context(ctx, signal))) as never;
      } catch (e) {
        throw protocolError(e);
      }
    }),
  );
}

/** A request's context for the front (tools/call, prompts/get): how this client is asked, in its era. */
function callContext(
  server: Server,
  era: Era,
  ctx: ServerContext,
  caller: Caller,
  hooks: InstanceHooks,
  signal: AbortSignal,
): CallContext {
  if (era === "legacy") {
    const caps = server.getClientCapabilities();
    const elicit = declaresFormElicitation(caps)
      ? (q: ConfirmQuestion, s: AbortSignal | undefined) => askLegacy(ctx, q, s, hooks.log)
      : undefined;
    const askInput = (r: InputRequestOut, timeout: number, s: AbortSignal): Promise<unknown> =>
      r.method === "elicitation/create"
        ? ctx.mcpReq.elicitInput(r.params as never, { timeout, signal: s })
        : r.method === "sampling/createMessage"
          ? ctx.mcpReq.requestSampling(r.params as never, { timeout, signal: s })
          : server.listRoots(undefined, { timeout, signal: s });
    const info = clientName(server.getClientVersion());
    const client = info ?? caller.client;
    return {
      era,
      principal: caller.principal,
      ...(client ? { client } : {}),
      ...(info ? { clientInfo: info } : {}),
      signal,
      elicit,
      clientCaps: caps,
      askInput,
    };
  }
  const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
  // InputResponses that are not an object of response objects: a protocol error, nothing runs
  const responses = ctx.mcpReq.inputResponses as unknown;
  if (responses !== undefined && (responses === null || typeof responses !== "object" || Array.isArray(responses)))
    throw new ProtocolError(
      -32602,
      "inputResponses must be an object of responses keyed by the server's inputRequests ids; nothing was run",
    );
  const dropped = ctx.mcpReq.droppedInputResponseKeys ?? [];
  if (dropped.length)
    throw new ProtocolError(
      -32602,
      `inputResponses ${dropped.map((k) => `'${k}'`).join(", ")} ${dropped.length > 1 ? "are not responses" : "is not a response"} (an object such as {"action": "accept"}); nothing was run`,
    );
  const state = ctx.mcpReq.requestState<unknown>();
  const info = clientName(envelope[CLIENT_INFO]);
  const client = info ?? caller.client;
  return {
    era,
    principal: caller.principal,
    ...(client ? { client } : {}),
    signal,
    ...(info ? { clientInfo: info } : {}),
    canAskModern: declaresFormElicitation(envelope[CLIENT_CAPS]),
    clientCaps: envelope[CLIENT_CAPS],
    inputResponses: ctx.mcpReq.inputResponses,
    ...(state !== undefined ? { requestState: typeof state === "string" ? state : "" } : {}),
  };
}

/** What the front throws, as the JSON-RPC error that says why (nothing ran). */
function protocolError(e: unknown): unknown {
  // a requestState not good for this call: a JSON-RPC error that says why; nothing ran
  if (e instanceof ConfirmStateError)
    return new ProtocolError(-32602, e.message, { reason: `request_state_${e.reason}` });
  // a required input this request's client cannot answer (modern era): MissingRequiredClientCapability
  if (e instanceof MissingCapability) return new ProtocolError(-32021, e.message, { requiredCapabilities: e.required });
  // a prompt that is not served, bad arguments, a declined input: invalid params, no messages
  if (e instanceof PromptError) return new ProtocolError(-32602, e.message, { reason: e.reason });
  return e;
}

/**
 * Ask the person through a legacy client (elicitation/create) whether a gated
 * write may run. Only "accept" runs it; a decline, a cancel, no answer within
 * the configured time, or an error all run nothing. A question whose call is
 * cancelled while it waits (the server stopping, the client gone) is withdrawn:
 * no answer of the person's, and not their timeout (the SDK rejects it as one).
 */
async function askLegacy(
  ctx: ServerContext,
  q: ConfirmQuestion,
  signal: AbortSignal | undefined,
  log: (msg: string) => void,
): Promise<PersonAnswer> {
  try {
    const r = await ctx.mcpReq.elicitInput(
      { mode: "form", message: redactOut(q.message), requestedSchema: { type: "object", properties: {} } },
      { timeout: q.timeoutMs, signal },
    );
    return r.action === "accept" ? "accept" : r.action === "decline" ? "decline" : "cancel";
  } catch (e) {
    if (signal?.aborted) {
      log(`confirm for ${q.pack}.${q.verb}: the question was withdrawn (${cancelReason(signal)}); nothing was run`);
      return "withdrawn";
    }
    const timedOut = e instanceof SdkError && e.code === SdkErrorCode.RequestTimeout;
    log(
      `confirm for ${q.pack}.${q.verb}: ${timedOut ? "no answer in time" : `the question failed: ${(e as Error)?.message ?? String(e)}`}; nothing was run`,
    );
    return timedOut ? "timeout" : "error";
  }
}

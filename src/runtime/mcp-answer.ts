// What an mcp pack's call answers (mcp-adapter.ts): the tool's result as the envelope, why tools/call failed, and a
// call cancelled before its tool was called.
import { failure, type Envelope, type Failure } from "./envelope";
import { cancelReason } from "./wrap";
import type { CallSignal } from "./cancel";
import type { Connection } from "./mcp-client";

/**
 * A call cancelled before its tool was called — while its server's connection opened or its tools were listed for
 * the pin check: `started: false` (audit decision `cancelled`), as a server started only to connect or list is
 * `refused` (docs/audit.md). `spawned`: its stdio server (started for it, or kept from an earlier call) was stopped.
 */
export function notCalled(label: string, signal: CallSignal, spawned: boolean): Failure {
  const server = spawned ? "; its server was stopped" : "";
  return failure(
    "cancelled",
    `${label} was cancelled (${cancelReason(signal)}) before its tool was called; nothing was run${server}`,
    { started: false },
  );
}

interface ContentItem {
  type?: unknown;
  text?: unknown;
  [k: string]: unknown;
}

/** The data of a successful tools/call result: structuredContent, else the text, else the content list. */
export function resultData(result: { content?: unknown; structuredContent?: unknown }): unknown {
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  const content = Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
  if (content.length > 0 && content.every((c) => c && c.type === "text" && typeof c.text === "string"))
    return { text: content.map((c) => c.text as string).join("\n") };
  return { content };
}

function errorText(result: { content?: unknown }): string {
  const content = Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
  const text = content
    .filter((c) => c && c.type === "text" && typeof c.text === "string")
    .map((c) => c.text as string)
    .join("\n")
    .trim();
  return text.length > 2000 ? text.slice(0, 1999) + "…" : text;
}

/** Why tools/call failed: the output bound, the timeout, or the server's error. */
export async function callFailure(
  e: unknown,
  conn: Connection,
  label: string,
  tool: string,
  ms: number,
): Promise<Envelope> {
  const f = conn.transport.failure;
  if (f?.code === "output_too_large") return failure("output_too_large", `${label}: ${f.message}`);
  const msg = (e as Error)?.message ?? String(e);
  if (/timed out|timeout/i.test(msg))
    return failure("timeout", `${label} did not finish within ${ms} ms`, { timeout_ms: ms });
  await conn.transport.stderrWhole?.(); // what it says of its failure on stderr, before its reply or just after
  return failure("mcp_error", `${label}: the server's tools/call failed: ${msg}`, {
    tool,
    stderr_tail: conn.transport.stderrTail() || undefined,
  });
}

/** A tool's result as the envelope: its error, or its data as JSON. */
export function answer(
  result: { content?: unknown; structuredContent?: unknown; isError?: unknown },
  label: string,
  tool: string,
): Envelope {
  if (result.isError === true)
    return failure(
      "tool_error",
      `${label}: the tool '${tool}' returned an error: ${errorText(result) || "(no text)"}`,
      { tool },
    );
  const data = resultData(result);
  try {
    return { ok: true, data: JSON.parse(JSON.stringify(data)) as unknown };
  } catch (e) {
    return failure("bad_output", `${label}: the server's result is not JSON: ${(e as Error).message}`);
  }
}

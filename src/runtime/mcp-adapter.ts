// The mcp adapter: a command of an `mcp` pack is one `tools/call` on the pack's
// stdio MCP server. The server is started per call (resolved like wrap.bin:
// a bare name only through sandbox.bins, a path inside sandbox.roots), with
// the same minimal env as a wrapped bin (a few locale/home basics,
// mcp.agent_env, the Binding names), initialized with the SDK's Client, asked
// for the one tool, and stopped (its whole process group). The runtime has
// already checked the grant, the confirm gate and the arguments; what the
// server answers is untrusted data: an error result is an error envelope,
// the output is capped and redacted by execute().
//
// Loaded only for `mcp` packs: execute.ts imports it with import(), and the
// build makes it its own file (dist/lib/mcp-adapter.mjs), so the MCP SDK is
// never parsed on the `hcpx exec` path of other kinds.
import type { Command, Pack, Project } from "../pack/model";
import type { ArgValues } from "./args";
import type { Envelope } from "./execute";
import { binEnv, DEFAULT_TIMEOUT_MS, resolveBin } from "./wrap";
import { connect, type Connection } from "./mcp-client";

const failure = (code: string, message: string, extra: Record<string, unknown> = {}): Envelope => ({ ok: false, error: { code, message, ...extra } });

interface ContentItem {
  type?: unknown;
  text?: unknown;
  [k: string]: unknown;
}

/** The data of a successful tools/call result: structuredContent, else the text, else the content list. */
export function resultData(result: { content?: unknown; structuredContent?: unknown }): unknown {
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  const content = Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
  if (content.length > 0 && content.every((c) => c && c.type === "text" && typeof c.text === "string")) return { text: content.map((c) => c.text as string).join("\n") };
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

export async function runMcp(pack: Pack, project: Project, cmd: Command, values: ArgValues, runtimeEnv: NodeJS.ProcessEnv): Promise<Envelope> {
  const spec = pack.surface.mcp;
  if (!spec) return failure("bad_pack", `pack ${pack.id} is kind mcp but has no mcp section`, { hint: 'add mcp: { bin: "…", args: [ … ] } to surface.json' });
  if (!cmd.tool) return failure("bad_pack", `command '${cmd.verb_key}' of the mcp pack ${pack.id} names no server tool`, { hint: "add tool: \"<the server's tool name>\" to the command in surface.json" });
  const bin = resolveBin(pack, project, spec.bin, "mcp.bin");
  if ("ok" in bin) return bin;
  const timeoutMs = spec.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const label = `${pack.id} ${cmd.verb_key}`;
  const started = Date.now();
  let conn: Connection | undefined;
  try {
    try {
      conn = await connect({ command: bin.command, args: [...bin.prefix, ...(spec.args ?? [])], env: binEnv(spec, pack.surface.binding?.env ?? [], runtimeEnv), cwd: project.sandbox.cwd }, timeoutMs);
    } catch (e) {
      return failure("spawn_failed", `could not start and initialize the MCP server of ${label}: ${(e as Error)?.message ?? String(e)}`, { hint: "run the server's command by hand to see why; `hcpx lint` checks mcp.bin" });
    }
    const left = Math.max(1, timeoutMs - (Date.now() - started));
    let result: { content?: unknown; structuredContent?: unknown; isError?: unknown };
    try {
      result = (await conn.client.callTool({ name: cmd.tool, arguments: values }, undefined, { timeout: left })) as typeof result;
    } catch (e) {
      const f = conn.transport.failure;
      if (f?.code === "output_too_large") return failure("output_too_large", `${label}: ${f.message}`);
      const msg = (e as Error)?.message ?? String(e);
      if (/timed out|timeout/i.test(msg)) return failure("timeout", `${label} did not finish within ${timeoutMs} ms`, { timeout_ms: timeoutMs });
      return failure("mcp_error", `${label}: the server's tools/call failed: ${msg}`, { tool: cmd.tool, stderr_tail: conn.transport.stderrTail() || undefined });
    }
    if (result.isError === true) return failure("tool_error", `${label}: the tool '${cmd.tool}' returned an error: ${errorText(result) || "(no text)"}`, { tool: cmd.tool });
    const data = resultData(result);
    try {
      return { ok: true, data: JSON.parse(JSON.stringify(data)) as unknown };
    } catch (e) {
      return failure("bad_output", `${label}: the server's result is not JSON: ${(e as Error).message}`);
    }
  } finally {
    await conn?.close();
  }
}

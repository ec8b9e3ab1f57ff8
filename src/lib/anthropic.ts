// hcpx/anthropic: the projection's tools for the Anthropic Messages API
// (@anthropic-ai/sdk, an optional peer dependency: these are plain data, so
// nothing here imports it) and the tool-result step of the Messages loop.
// Every tool_use goes through project.call(); the tool_result carries the
// runtime's envelope as JSON text, `is_error` when it is not ok.
import type { AnthropicTool, CallOptions, Envelope, HcpxProject } from "hcpx";

/** The `tools` of a messages.create() request (= project.tools("anthropic")). */
export function tools(project: HcpxProject): AnthropicTool[] {
  return project.tools("anthropic");
}

/** A tool_use content block of an assistant message (what the SDK's ToolUseBlock carries). */
export interface ToolUse {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

/** A tool_result content block (the SDK's ToolResultBlockParam). */
export interface ToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/** Run one tool_use through the runtime; its tool_result block. */
export async function toolResult(project: HcpxProject, use: ToolUse, options: CallOptions = {}): Promise<ToolResult> {
  // the answer goes to the model: a pack or command not granted is one that does not exist (CallOptions.forModel)
  const env: Envelope = await project.call(use.name, use.input, { forModel: true, ...options });
  const r: ToolResult = { type: "tool_result", tool_use_id: use.id, content: JSON.stringify(env) };
  if (!env.ok) r.is_error = true;
  return r;
}

/**
 * The user turn that answers an assistant message: one tool_result per
 * tool_use block, in order (run one after another). undefined when the
 * message asked for no tool (the loop is done).
 */
export async function toolResults(
  project: HcpxProject,
  message: { content: readonly (ToolUse | { type: string })[] },
  options: CallOptions = {},
): Promise<{ role: "user"; content: ToolResult[] } | undefined> {
  const uses = message.content.filter((b): b is ToolUse => b.type === "tool_use");
  if (uses.length === 0) return undefined;
  const content: ToolResult[] = [];
  for (const u of uses) content.push(await toolResult(project, u, options));
  return { role: "user", content };
}

// hcpx/openai-agents: the projection's tools as OpenAI Agents SDK function
// tools (@openai/agents, an optional peer dependency). Thin: name,
// description and JSON Schema are the projection's (tools("mcp")); `strict`
// is off so optional args stay optional, as in tools/openai.json; every
// invocation is project.call() and returns the runtime's envelope as JSON text.
import { tool, type FunctionTool } from "@openai/agents";
import type { CallOptions, HcpxProject } from "hcpx";

/** Function tools for `new Agent({ tools })`. */
export function tools(project: HcpxProject, options: CallOptions = {}): FunctionTool[] {
  return project.tools("mcp").map(
    (t) =>
      tool({
        name: t.name,
        description: t.description,
        // the projection's schema as it is (additionalProperties: false, optional args optional)
        parameters: t.inputSchema as never,
        strict: false,
        execute: async (input: unknown) =>
          JSON.stringify(await project.call(t.name, input, { forModel: true, ...options })),
      }) as FunctionTool,
  );
}

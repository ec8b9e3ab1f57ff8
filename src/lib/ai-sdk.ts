// hcpx/ai-sdk: the projection's tools as Vercel AI SDK `tool()` objects
// (package `ai`, an optional peer dependency). Thin: the name, description
// and input schema are the projection's (tools("mcp")), and every execute()
// is project.call(), so grants, the confirm gate, Binding and redaction are
// the runtime's. The tool's output is the runtime's envelope.
import { jsonSchema, tool, type JSONSchema7, type Tool } from "ai";
import type { CallOptions, HcpxProject } from "hcpx";

/** `{ [toolName]: Tool }` for generateText / streamText / Agent `tools`. */
export function tools(project: HcpxProject, options: CallOptions = {}): Record<string, Tool> {
  const out: Record<string, Tool> = {};
  for (const t of project.tools("mcp")) {
    out[t.name] = tool({
      description: t.description,
      inputSchema: jsonSchema<Record<string, unknown>>(t.inputSchema as JSONSchema7),
      execute: (input: Record<string, unknown>) => project.call(t.name, input, { forModel: true, ...options }),
    });
  }
  return out;
}

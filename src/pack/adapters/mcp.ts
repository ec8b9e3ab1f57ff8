// kind mcp: one tools/call on the pack's stdio MCP server per call.
import type { AdapterEntry } from "./types";

export const mcp = {
  kind: "mcp",
  section: "mcp",
  sectionHint: "add mcp: { bin: \"…\", args: [ … ] } (`hcpx pack from-mcp -- <command …>` writes it)",
  capabilities: { callable: true, jsonArgs: true, passThrough: false, readsStdout: false, cliArgv: false, serverTools: true, binIn: "mcp" },
  lint({ surface: s, specs, at }) {
    if (specs.length === 0) at(s.commands ? ["commands"] : ["kind"], "no_commands", "error", "an mcp pack declares no commands", "name one command per server tool (`hcpx pack from-mcp` proposes them)");
    const seenTool = new Map<string, number>();
    specs.forEach((c, i) => {
      if (!c.tool) {
        at(["commands", i], "mcp_tool_missing", "error", `command '${c.verb_key}' of an mcp pack names no server tool`, `add tool: "<the server's tool name>"`);
        return;
      }
      const prev = seenTool.get(c.tool);
      if (prev !== undefined) at(["commands", i, "tool"], "mcp_tool_duplicate", "warning", `commands '${specs[prev]!.verb_key}' and '${c.verb_key}' call the same tool '${c.tool}'`, "one command per tool keeps the Policy readable");
      else seenTool.set(c.tool, i);
    });
  },
  review: (s) => (s.mcp ? { bins: [{ bin: s.mcp.bin, field: "mcp.bin", args: s.mcp.args ?? [] }], setsEnv: Object.keys(s.mcp.agent_env ?? {}) } : {}),
} as const satisfies AdapterEntry<"mcp">;

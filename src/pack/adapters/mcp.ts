// kind mcp: one tools/call on the pack's MCP server per call: a stdio one
// (mcp.bin, started per call) or a remote one (mcp.url, Streamable HTTP). The
// rules of the server's form (bin xor url, no literal credential) are load
// rules (src/pack/load.ts): a pack breaking them never runs.
import { noCommandsRule, type AdapterEntry } from "./types";
import type { Problem } from "../../util/errors";
import { headerEnvNames } from "../mcp-remote";

export const mcp = {
  kind: "mcp",
  section: "mcp",
  sectionHint:
    'add mcp: { bin: "…", args: [ … ] } or mcp: { url: "https://…" } (`hcpx pack from-mcp -- <command …>` or `--url <url>` writes it)',
  capabilities: {
    callable: true,
    jsonArgs: true,
    passThrough: false,
    readsStdout: false,
    cliArgv: false,
    serverTools: true,
    binIn: "mcp",
  },
  lint: [
    noCommandsRule("an mcp pack", "name one command per server tool (`hcpx pack from-mcp` proposes them)"),
    {
      code: ["mcp_tool_missing", "mcp_tool_duplicate"],
      check: (_s, { specs, at }) => {
        const out: Problem[] = [];
        const seenTool = new Map<string, number>();
        for (const [i, c] of specs.entries()) {
          if (!c.tool) {
            out.push(
              at(
                ["commands", i],
                "mcp_tool_missing",
                "error",
                `command '${c.verb_key}' of an mcp pack names no server tool`,
                `add tool: "<the server's tool name>"`,
              ),
            );
            continue;
          }
          const prev = seenTool.get(c.tool);
          if (prev !== undefined)
            out.push(
              at(
                ["commands", i, "tool"],
                "mcp_tool_duplicate",
                "warning",
                `commands '${specs[prev]!.verb_key}' and '${c.verb_key}' call the same tool '${c.tool}'`,
                "one command per tool keeps the Policy readable",
              ),
            );
          else seenTool.set(c.tool, i);
        }
        return out;
      },
    },
  ],
  review: (s) => {
    const m = s.mcp;
    if (!m) return {};
    // a remote server's URL is where its requests go; the headers' Binding names are what it reads from the runtime
    return {
      ...(m.bin !== undefined
        ? { bins: [{ bin: m.bin, field: "mcp.bin", args: m.args ?? [] }], setsEnv: Object.keys(m.agent_env ?? {}) }
        : {}),
      ...(m.url !== undefined ? { http: [m.url], env: headerEnvNames(m.headers) } : {}),
    };
  },
} as const satisfies AdapterEntry<"mcp">;

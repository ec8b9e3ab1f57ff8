// The confirm table, Claude Code: `claude -p` with --permission-prompt-tool (a person's approval
// answered by an MCP tool: test/agents/fixtures/approver.mjs) — test/agents/approval-loop.ts.
import { join } from "node:path";
import { approvalLoop } from "./approval-loop";
import { HOSTS } from "./support";

approvalLoop({
  host: "claude",
  how: "--permission-prompt-tool answering allow",
  files: ({ dir, fixtures }) => ({
    "./approver.json": JSON.stringify({
      mcpServers: {
        approver: {
          type: "stdio",
          command: process.execPath,
          args: [join(fixtures, "approver.mjs"), join(dir, "approver-calls.jsonl")],
        },
      },
    }),
  }),
  argv: (prompt, { dir }) => [
    ...HOSTS.claude.argv(prompt),
    "--mcp-config",
    join(dir, "approver.json"),
    "--permission-prompt-tool",
    "mcp__approver__approve",
  ],
  promptLog: "approver-calls.jsonl",
});

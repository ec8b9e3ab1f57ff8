// The confirm table, Gemini CLI: `gemini -p` with a policy of the person's (~/.gemini/policies,
// the user tier) that allows the one gated tool above adopt's tools.confirmationRequired —
// test/agents/approval-loop.ts.
import { approvalLoop } from "./approval-loop";
import { HOSTS } from "./support";

approvalLoop({
  host: "gemini",
  how: "a user policy rule allowing mcp hcp probe__stamp",
  files: () => ({
    "~/.gemini/policies/approve-stamp.toml": [
      "[[rule]]",
      'mcpName = "hcp"',
      'toolName = "probe__stamp"',
      'decision = "allow"',
      "priority = 900",
      "",
    ].join("\n"),
  }),
  argv: (prompt) => HOSTS.gemini.argv(prompt),
});

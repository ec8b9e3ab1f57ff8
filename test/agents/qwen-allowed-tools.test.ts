// The confirm table, Qwen Code, column C: is there a per-run, per-tool approval that lifts
// adopt's ask rule in a headless run? `--allowed-tools mcp__hcp__probe__stamp` ("Tools to
// allow, will bypass confirmation", qwen --help) does not: permissions.ask wins over an allow
// (deny > ask > allow), and `qwen -p` declines the call ("non-interactive mode cannot prompt
// for confirmation"). Seen with 0.24.4: the gated write never runs — test/agents/approval-loop.ts.
import { approvalLoop } from "./approval-loop";
import { HOSTS } from "./support";

approvalLoop({
  host: "qwen",
  how: "--allowed-tools mcp__hcp__probe__stamp for the run, default approval mode: adopt's ask rule still wins",
  runs: "never",
  argv: (prompt) => [
    ...HOSTS.qwen.argv(prompt).filter((a, i, all) => a !== "--approval-mode" && all[i - 1] !== "--approval-mode"),
    "--allowed-tools",
    "mcp__hcp__probe__stamp",
  ],
});

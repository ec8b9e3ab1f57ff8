// The confirm table, Qwen Code, column B: `qwen -p` in its default approval mode (no
// --approval-mode yolo, no approval of the gated tool), with the permissions.ask rule adopt
// wrote for probe__stamp — test/agents/approval-loop.ts, runs: "never".
import { approvalLoop } from "./approval-loop";
import { HOSTS } from "./support";

approvalLoop({
  host: "qwen",
  how: "qwen -p in its default approval mode, adopt's permissions.ask rule for probe__stamp",
  runs: "never",
  argv: (prompt) =>
    HOSTS.qwen.argv(prompt).filter((a, i, all) => a !== "--approval-mode" && all[i - 1] !== "--approval-mode"),
});

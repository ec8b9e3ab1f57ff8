// The confirm table, Codex: `codex exec` with the gated tool's per-tool approval_mode set to
// approve for this run (`-c`, the person's own command line; the project file keeps adopt's
// "prompt") — test/agents/approval-loop.ts.
import { approvalLoop } from "./approval-loop";

approvalLoop({
  host: "codex",
  how: '-c mcp_servers.hcp.tools.probe__stamp.approval_mode="approve" for the run',
  argv: (prompt) => [
    "exec",
    "--skip-git-repo-check",
    "-c",
    'mcp_servers.hcp.tools.probe__stamp.approval_mode="approve"',
    prompt,
  ],
});

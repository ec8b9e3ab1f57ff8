// Agent loop: Continue's own headless agent, `cn -p` (test/agents/user-mcp-loop.ts).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SKILL_DESCRIPTION } from "./support";
import { userMcpLoop } from "./user-mcp-loop";

userMcpLoop({
  id: "continue",
  bin: "cn",
  hcpTool: "hcp",
  readSkillTool: "hcp__read_skill",
  skillTool: "Skills",
  skillInput: { skill_name: "probe" },
  skillListed: new RegExp(`name: probe\\ndescription: ${SKILL_DESCRIPTION.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
  // the model, added to the config.yaml adopt created (its `mcpServers` list stays as written)
  // no shellCall: its Bash tool is a login shell (PATH reset), hosts/continue.json5 shellRoute: false
  setup: async (url, home) => {
    const f = join(home, ".continue", "config.yaml");
    writeFileSync(
      f,
      readFileSync(f, "utf8") +
        `models:\n  - name: fake\n    provider: openai\n    model: m\n    apiBase: ${url}/v1\n    apiKey: x\n    roles: [chat]\n`,
    );
  },
  argv: (prompt) => ["-p", prompt, "--auto"],
});

// Agent loop: Cline's own headless agent (test/agents/user-mcp-loop.ts).
import { hc } from "../hosts/e2e/support";
import { endClineDaemons, userMcpLoop } from "./user-mcp-loop";

userMcpLoop({
  id: "cline",
  bin: "cline",
  hcpTool: "hcp__hcp",
  readSkillTool: "hcp__hcp__read_skill",
  skillTool: "skills",
  skillInput: { skill: "probe" },
  // its skills tool lists the Skills by name only
  skillListed: /Available skills: probe\b/,
  shellCall: (cmd) => ({ name: "run_commands", input: { commands: [cmd] } }),
  setup: async (url, _home, dir, env) => {
    const r = await hc.run(hc.hostBin("cline"), ["auth", "-p", "openai", "-k", "x", "-m", "m", "-b", `${url}/v1`], {
      cwd: dir,
      env,
      timeoutMs: 60_000,
    });
    if (r.code !== 0) throw new Error(`cline auth failed: ${r.stdout}${r.stderr}`);
  },
  argv: (prompt) => ["--json", "-t", "120", prompt],
  after: endClineDaemons,
});

// Agent loop: GitHub Copilot CLI's own headless agent (test/agents/agent-loop.ts).
import { agentLoop } from "./agent-loop";

agentLoop("copilot");

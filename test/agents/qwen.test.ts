// Agent loop: Qwen Code's own headless agent (test/agents/agent-loop.ts).
import { agentLoop } from "./agent-loop";

agentLoop("qwen");

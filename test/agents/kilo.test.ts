// Agent loop: Kilo Code's own headless agent (test/agents/agent-loop.ts).
import { agentLoop } from "./agent-loop";

agentLoop("kilo");

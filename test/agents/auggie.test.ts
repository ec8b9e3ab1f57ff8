// Agent loop: Augment's own headless agent, Auggie (test/agents/agent-loop.ts).
import { agentLoop } from "./agent-loop";

agentLoop("auggie");

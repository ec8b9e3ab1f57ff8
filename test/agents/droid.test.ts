// Agent loop: Factory Droid's own headless agent (`droid exec`, test/agents/agent-loop.ts).
import { agentLoop } from "./agent-loop";

agentLoop("droid");

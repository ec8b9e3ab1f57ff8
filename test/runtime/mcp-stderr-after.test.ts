// An MCP server that answers a call's error and then, at once, writes why on stderr (a server that
// logs what it answered): the envelope's stderr_tail holds those words. The two pipes are read apart,
// and the reply settles the call first; a failure's envelope waits until the server's stderr is quiet
// (src/runtime/mcp-stdio.ts stderrQuiet, called by mcp-adapter.ts callFailure).
import { beforeAll, describe, expect, it } from "vitest";
import { loadProject } from "../../src/pack/load";
import { execute } from "../../src/runtime/execute";
import { project } from "./support";

let dir: string;
beforeAll(() => {
  dir = project({
    packs: [
      {
        id: "odd",
        surface: {
          kind: "mcp",
          mcp: { bin: "../../fx/odd-mcp.mjs", args: [JSON.stringify({ logAfter: true })] },
          commands: [{ verb_key: "leak", summary: "Leak", tool: "leak", args: { cut: { type: "integer" } } }],
        },
      },
    ],
  }).dir;
});

describe("the stderr a server writes right after its error reply", () => {
  it("is in the envelope's stderr_tail, call after call", async () => {
    const p = loadProject({ cwd: dir });
    for (let i = 0; i < 20; i++) {
      const env = await execute(p, { pack: "odd", verb: "leak", args: { cut: 0 } });
      expect(env.ok).toBe(false);
      expect(env.ok ? undefined : env.error.stderr_tail, `call ${i}: ${JSON.stringify(env)}`).toMatch(/y{100}$/);
    }
  }, 60_000);
});

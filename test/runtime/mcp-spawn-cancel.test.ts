// An mcp pack's call cancelled at the moment its stdio server is started (the cancel comes while the spawn is in
// flight: runMcp() has started it, nothing has been awaited yet) calls no tool: `cancelled`, `started: false` (audit
// decision `cancelled`), whether or not the spawn worked. Before, a server that could not be started (ENOENT: its
// interpreter is missing) was answered `cancelled` without `started: false`, its record `ran`.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPack, loadProject } from "../../src/pack/load";
import { runMcp } from "../../src/runtime/mcp-adapter";
import { decisionOf } from "../../src/runtime/audit";
import type { AdapterCall } from "../../src/runtime/adapters/types";
import { project } from "./support";

/** A call of the mcp pack `m` whose server is `fx/<bin>` (written with `text`), cancelled as runMcp() returns. */
async function cancelAtSpawn(bin: string, text: string) {
  const p = project({
    packs: [
      {
        id: "m",
        surface: {
          kind: "mcp",
          mcp: { bin: `../../fx/${bin}`, args: [] },
          commands: [{ verb_key: "ask", tool: "ask", summary: "Ask it", args: {} }],
        },
        rows: {},
      },
    ],
  });
  const file = join(p.dir, "fx", bin);
  writeFileSync(file, text);
  chmodSync(file, 0o755);
  const pack = loadPack(join(p.dir, "packs", "m"));
  const ac = new AbortController();
  const call = {
    pack,
    project: loadProject({ config: p.config }),
    cmd: pack.commands[0]!,
    values: {},
    literal: undefined,
    env: {},
    signal: ac.signal,
  } as AdapterCall<"mcp">;
  const answer = runMcp(call);
  ac.abort("SIGTERM");
  const env = await answer;
  return { env };
}

describe("an mcp pack's call cancelled as its stdio server is started", () => {
  it("a server that cannot be started (its interpreter is missing: ENOENT): cancelled, never ran", async () => {
    const { env } = await cancelAtSpawn("no-interp.sh", "#!/nonexistent/interpreter\n");
    expect(env.ok).toBe(false);
    if (env.ok) return;
    expect(env.error).toMatchObject({ code: "cancelled", started: false });
    expect(env.error.message).toMatch(/m ask was cancelled \(SIGTERM\) before its tool was called; nothing was run$/);
    expect(decisionOf(env.error.code, env.error)).toBe("cancelled");
  });
});

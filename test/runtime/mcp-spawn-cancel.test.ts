// An mcp pack's call cancelled at the moment its stdio server is started (the cancel comes while the spawn is in
// flight: runMcp() has started it, nothing has been awaited yet) calls no tool: `cancelled`, `started: false` (audit
// decision `cancelled`), whether or not the spawn worked. Before, a server that could not be started (ENOENT: its
// interpreter is missing) was answered `cancelled` without `started: false`, its record `ran`; and one that started
// and never answered the SDK's `server/discover` probe (which does not heed the signal) was answered once the probe
// gave up (PROBE_MS, 5 s), `ran` too. What makes the cancel reach the probe, the stdio transport once stopped: it
// starts nothing, and a message sent on it is refused at once (the probe's request waited for its timeout: its
// send "worked"; when the stop came before the probe was sent, the probe never heard of it).
import { chmodSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runMcp } from "../../src/runtime/mcp-adapter";
import { decisionOf } from "../../src/runtime/audit";
import { ProcessTransport } from "../../src/runtime/mcp-stdio";
import { firstCommandCall, project } from "./support";

/** A call of the mcp pack `m` whose server is `fx/<bin>` (written with `text`), cancelled as runMcp() returns: ms to its answer. */
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
  const { call, ac } = firstCommandCall(p, "m", "mcp");
  const t0 = Date.now();
  const answer = runMcp(call);
  ac.abort("SIGTERM");
  const env = await answer;
  return { env, ms: Date.now() - t0 };
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

  it("a server that starts: cancelled, never ran, answered at once (not once the server/discover probe gave up)", async () => {
    const { env, ms } = await cancelAtSpawn(
      "mute.mjs",
      "#!/usr/bin/env node\nsetInterval(() => {}, 1 << 30);\n", // it never answers server/discover
    );
    expect(env.ok).toBe(false);
    if (env.ok) return;
    expect(env.error).toMatchObject({ code: "cancelled", started: false });
    expect(decisionOf(env.error.code, env.error)).toBe("cancelled");
    expect(ms).toBeLessThan(2500);
  });
});

describe("the stdio MCP transport, once stopped", () => {
  /** A transport of a server that writes `file` as it starts, then waits. */
  const transport = (file: string) =>
    new ProcessTransport({
      command: process.execPath,
      argv: ["-e", `require("node:fs").writeFileSync(${JSON.stringify(file)}, ""); setInterval(() => {}, 1 << 30);`],
      env: {},
      cwd: tmpdir(),
    });

  it("starts nothing (a cancel came before its server was started)", async () => {
    const file = join(tmpdir(), `hcpx-stopped-${process.pid}-${Date.now()}`);
    const t = transport(file);
    await t.terminate();
    try {
      await expect(t.start()).rejects.toThrow("the connection was stopped before its server was started");
      expect(t.spawned).toBe(false);
      await new Promise((r) => setTimeout(r, 300));
      expect(existsSync(file)).toBe(false);
    } finally {
      await t.terminate(); // one started all the same (before the fix) is stopped
      rmSync(file, { force: true });
    }
  });

  it("refuses a message at once (the server/discover probe's request hears it, and does not wait for its timeout)", async () => {
    const file = join(tmpdir(), `hcpx-stopped-${process.pid}-${Date.now()}-b`);
    const t = transport(file);
    await t.start();
    await t.terminate();
    rmSync(file, { force: true });
    await expect(t.send({ jsonrpc: "2.0", id: "probe", method: "server/discover" })).rejects.toThrow(
      "the server's connection is closed",
    );
  });
});

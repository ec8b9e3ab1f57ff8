// A composite verb whose promise never settles, with nothing left in the process to settle it:
// `hcpx exec` answers the composite timeout (30 s, src/runtime/composite.ts) with its envelope and
// exit 1, as `hcpx mcp` does. Its timer keeps the process alive for that long; an unref'd one let
// Node exit at once, with code 0 and no output at all.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runHcpx } from "../../support/hcpx";
import { project } from "../../runtime/support";

describe("a composite verb that never settles", () => {
  it("hcpx exec answers `timeout` after the composite timeout, exit 1, in both output forms", async () => {
    const p = project({
      packs: [
        {
          id: "stall",
          surface: {
            kind: "composite",
            composite: { module: "./stall.mjs" },
            commands: [{ verb_key: "wait", summary: "never settles", args: {} }],
          },
        },
      ],
    });
    writeFileSync(
      join(p.dir, "packs", "stall", "stall.mjs"),
      "export default { wait: () => new Promise(() => {}) };\n",
    );
    const [json, text] = await Promise.all([
      runHcpx(["exec", "stall", "wait", "--json"], { cwd: p.dir, timeoutMs: 60_000 }),
      runHcpx(["exec", "stall", "wait"], { cwd: p.dir, timeoutMs: 60_000 }),
    ]);
    expect(json.signal).toBeNull();
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      error: { code: "timeout", message: "stall wait did not finish within 30000 ms", timeout_ms: 30000 },
    });
    expect(text.code).toBe(1);
    expect(text.stderr).toContain("error [timeout]: stall wait did not finish within 30000 ms");
  }, 90_000);
});

// A composite pack's call cancelled around its module's import (src/runtime/composite.ts runComposite). The
// module runs in hcpx's own process: importing it runs its top-level code. Before, a call whose cancel came
// while this call imported the module was answered "before it started; nothing was run" (`started: false`,
// audit decision `cancelled`) though the module's top-level code had run; and one cancelled before the import
// (after runAdapter's last check, while the adapter's own code loaded) imported the module all the same, then
// said nothing was run. And a composite cancelled while its verb ran was told "stopped with its process group
// and descendants", which in-process code never is: it is told to stop (ctx.signal).
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runComposite } from "../../src/runtime/composite";
import { decisionOf } from "../../src/runtime/audit";
import type { Envelope } from "../../src/runtime/envelope";
import { firstCommandCall, project } from "./support";

/** A composite pack `c` whose module writes `marker` as it loads, waits `loadMs`, and whose verb `go` waits `runMs`. */
function composite(loadMs: number, runMs: number) {
  const p = project({
    packs: [
      {
        id: "c",
        surface: {
          kind: "composite",
          composite: { module: "./index.mjs" },
          commands: [{ verb_key: "go", summary: "Go", args: {} }],
        },
        rows: { go: { operation: "read" } },
      },
    ],
  });
  const marker = join(p.dir, "loaded.txt");
  writeFileSync(
    join(p.dir, "packs", "c", "index.mjs"),
    [
      `import { writeFileSync } from "node:fs";`,
      `writeFileSync(${JSON.stringify(marker)}, "loaded");`,
      `await new Promise((r) => setTimeout(r, ${loadMs}));`,
      `export default { go: (args, ctx) => new Promise((r) => setTimeout(() => r("went"), ${runMs})) };`,
    ].join("\n"),
  );
  return { ...firstCommandCall(p, "c", "composite"), marker };
}

const errorOf = (env: Envelope) => {
  expect(env.ok).toBe(false);
  if (env.ok) throw new Error("ok");
  return env.error;
};

describe("a composite call cancelled around its module's import", () => {
  it("cancelled before the import: none of its code runs, nothing was run", async () => {
    const { call, ac, marker } = composite(0, 0);
    ac.abort("SIGTERM");
    const e = errorOf(await runComposite(call));
    expect(e).toMatchObject({ code: "cancelled", started: false });
    expect(e.message).toBe("c go was cancelled (SIGTERM) before it started; nothing was run");
    expect(existsSync(marker)).toBe(false);
  });

  it("cancelled while this call imports the module: its top-level code ran, so not `nothing was run` (audit: ran)", async () => {
    const { call, ac, marker } = composite(400, 0);
    const answer = runComposite(call);
    setTimeout(() => ac.abort("SIGTERM"), 50);
    const e = errorOf(await answer);
    expect(existsSync(marker)).toBe(true);
    expect(e.code).toBe("cancelled");
    expect(e.started).toBeUndefined();
    expect(e.message).toBe(
      "c go was cancelled (SIGTERM): its module was imported (its top-level code ran), its verb was not called",
    );
    expect(decisionOf(e.code, e)).toBe("ran");
  });

  it("cancelled while its verb runs: told to stop, not `stopped with its process group`", async () => {
    const { call, ac } = composite(0, 2000);
    const answer = runComposite(call);
    setTimeout(() => ac.abort("SIGTERM"), 200);
    const e = errorOf(await answer);
    expect(e.code).toBe("cancelled");
    expect(e.message).toBe(
      "c go was cancelled (SIGTERM): its verb was told to stop (ctx.signal); what it started and did not stop may still run",
    );
    expect(decisionOf(e.code, e)).toBe("ran");
  });
});

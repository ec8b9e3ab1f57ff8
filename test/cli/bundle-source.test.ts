// A bundle's text (src/cli/load-command.ts bundleSource) stays in V8's heap, whatever its size: a
// string Node keeps outside it (latin1 past ~1 MB) lives in malloc'd memory, which every fork copies,
// so hcpx mcp (a 1.3 MB bundle) paid for it on each bin it spawned.
// Measured as the growth of `process.memoryUsage().external` while the string is held, from a
// heap with no garbage: a new external string of 1.3 MB can itself start a GC (V8 counts external
// memory), and one that frees external memory other code left (buffers, strings: a worker that ran
// other files before this one) made the growth small or negative, and the premise check failed in
// one CI run of ~10. A full GC alone does not settle it: buffers' memory is released after the GC, so
// settle() collects until the figure stops falling. This file leaves such garbage first, so that a
// measurement without settle() fails here every time, not only in some runs.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { bundleSource } from "../../src/cli/load-command";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Full GCs, a turn of the event loop after each, until external memory stops falling (at most 20). */
async function settle(): Promise<void> {
  let was = Infinity;
  for (let i = 0; i < 20; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
    const now = process.memoryUsage().external;
    if (now >= was) return;
    was = now;
  }
}

/** How much `process.memoryUsage().external` grows while `make`'s string is held, from a settled heap. */
async function externalGrowth(make: () => string): Promise<{ grew: number; text: string }> {
  await settle();
  const before = process.memoryUsage().external;
  const text = make();
  return { grew: process.memoryUsage().external - before, text };
}

/** External memory left for the next GC to free: what other code in this worker may have left. */
function leaveExternalGarbage(): void {
  for (let k = 0; k < 10; k++) {
    let junk: unknown[] | null = [];
    for (let i = 0; i < 10; i++)
      junk.push(Buffer.alloc(1_100_000 + i, "z").toString("latin1"), new Uint8Array(300_000));
    junk = null;
  }
}

describe("a bundle's text", () => {
  const big = Buffer.alloc(1_300_000, "a");
  const small = Buffer.alloc(160_000, "b");

  it("past Node's external-string length, is a V8 heap string (latin1 there would be malloc'd, as the control shows)", async () => {
    leaveExternalGarbage();
    const control = await externalGrowth(() => big.toString("latin1"));
    expect(control.grew).toBeGreaterThanOrEqual(big.length); // the premise, on this Node
    leaveExternalGarbage();
    const got = await externalGrowth(() => bundleSource(big));
    expect(got.grew).toBeLessThan(big.length / 4);
    expect(got.text).toBe(control.text);
  });

  it("below it, is the same text (latin1: no UTF-8 validation pass on exec's start)", async () => {
    leaveExternalGarbage();
    const got = await externalGrowth(() => bundleSource(small));
    expect(got.grew).toBeLessThan(small.length / 4);
    expect(got.text).toBe("b".repeat(small.length));
  });
});

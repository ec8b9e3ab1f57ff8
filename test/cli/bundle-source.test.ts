// A bundle's text (src/cli/load-command.ts bundleSource) stays in V8's heap, whatever its size: a
// string Node keeps outside it (latin1 past ~1 MB) lives in malloc'd memory, which every fork copies,
// so hcpx mcp (a 1.3 MB bundle) paid for it on each bin it spawned.
import { describe, expect, it } from "vitest";
import { bundleSource } from "../../src/cli/load-command";

/** How much `process.memoryUsage().external` grows while `make`'s string is held. */
function externalGrowth(make: () => string): { grew: number; text: string } {
  const before = process.memoryUsage().external;
  const text = make();
  return { grew: process.memoryUsage().external - before, text };
}

describe("a bundle's text", () => {
  const big = Buffer.alloc(1_300_000, "a");
  const small = Buffer.alloc(160_000, "b");

  it("past Node's external-string length, is a V8 heap string (latin1 there would be malloc'd, as the control shows)", () => {
    const control = externalGrowth(() => big.toString("latin1"));
    expect(control.grew).toBeGreaterThanOrEqual(big.length); // the premise, on this Node
    const got = externalGrowth(() => bundleSource(big));
    expect(got.grew).toBeLessThan(big.length / 4);
    expect(got.text).toBe(control.text);
  });

  it("below it, is the same text (latin1: no UTF-8 validation pass on exec's start)", () => {
    const got = externalGrowth(() => bundleSource(small));
    expect(got.grew).toBeLessThan(small.length / 4);
    expect(got.text).toBe("b".repeat(small.length));
  });
});

// src/util/paths.ts isInside answers two normal paths without node:path's relative, the one
// outside too (the OS sandbox's plan asks ~15 such a call); test/util/paths-fast.test.ts holds its
// answers to node:path's over every pair. Isolated (not in test/support/shared-worker.ts): it mocks
// node:path, counting relative's calls (each one node:path's own answer).
import { describe, expect, it, vi } from "vitest";

const calls = vi.hoisted(() => ({ relative: 0 }));
vi.mock("node:path", async (original) => {
  const m = await original<typeof import("node:path")>();
  const relative = (from: string, to: string) => (calls.relative++, m.relative(from, to));
  return { ...m, relative, default: { ...m, relative } };
});
const { isInside } = await import("../../src/util/paths");

describe("isInside", () => {
  it("answers two normal paths without node:path's relative, inside or not", () => {
    calls.relative = 0;
    const asked = [
      ["/a/bc/x", "/a/bc", true],
      ["/a/bc", "/a/bc", true],
      ["/a/bcd", "/a/bc", false],
      ["/a", "/a/bc", false],
      ["/tmp/p/bins", "/dev/shm", false],
      ["/home/u", "/tmp", false],
    ] as const;
    expect(asked.map(([p, d]) => isInside(p, d))).toEqual(asked.map(([, , inside]) => inside));
    expect(calls.relative).toBe(0);
    // the root, and a path that is not normal, still take it
    expect(isInside("/a/./b", "/a")).toBe(true);
    expect(isInside("/x", "/")).toBe(true);
    expect(calls.relative).toBe(2);
  });
});

// bench/lib.mjs selfCost: the bench's instruction counts leave out V8's
// hash-seed prime search (random, 5–8 M a Node start) by reading its self cost
// from callgrind's output file. The parser must count the function's own cost
// lines and never the inclusive cost lines that follow a `calls=` line.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ES module of the bench, no types
import { callgrind, selfCost } from "../../bench/lib.mjs";

describe("bench: callgrind self cost", () => {
  it("sums a function's own cost lines across its blocks, skips the cost of its calls, reads compressed names", () => {
    const file = join(mkdtempSync(join(tmpdir(), "hcpx-cg-")), "callgrind.out");
    writeFileSync(
      file,
      [
        "version: 1",
        "events: Ir",
        "fl=(1) ???",
        "fn=(1) detail::sprp(unsigned long long, unsigned long long)",
        "0 1000",
        "+2 500",
        "cfn=(2) v8::internal::Other()",
        "calls=3 0",
        "0 99999",
        "* 7",
        "fn=(2)",
        "0 40",
        "cfn=(1)",
        "calls=1 0",
        "0 123456",
        "fn=(3) main",
        "0 5",
        "fn=(1)",
        "0 3",
        "totals: 225510",
      ].join("\n") + "\n",
    );
    // 1000 + 500 + 7 + 3: not the 99999 of its call, nor the 123456 of the call made to it
    expect(selfCost(file, "detail::sprp")).toBe(1510);
    expect(selfCost(file, "v8::internal::Other")).toBe(40);
    expect(selfCost(file, "nothing")).toBe(0);
  });
});

describe("bench: callgrind with children", () => {
  // a launcher's row counts the shell and what it starts, but not the process left out by its argument
  const script = "/bin/true; /bin/echo skipme > /dev/null; /bin/true";
  const count = (children?: string): number => {
    const r = callgrind("/bin/sh", ["-c", script], { children }) as { count: number } | undefined;
    if (r === undefined) throw new Error("callgrind gave no count");
    return r.count;
  };
  it.skipIf(process.env.BENCH_VALGRIND === "0" || spawnSync("valgrind", ["--version"]).error !== undefined)(
    "sums the shell and its children, and leaves out a child whose argument matches the pattern",
    () => {
      const shell = count();
      const all = count("*nomatch*");
      const skipped = count("*skipme*");
      // three children (true, echo, true) on top of the shell; the echo left out
      expect(all).toBeGreaterThan(shell + 3 * 50_000);
      expect(skipped).toBeLessThan(all - 50_000);
      expect(skipped).toBeGreaterThan(shell + 2 * 50_000);
    },
  );
});

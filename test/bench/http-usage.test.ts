// bench/http.bench.mjs: the "not a goal" line beside the nginx goal (what the rounds used, read from
// /proc) prints only what it read: a process it could not read is no zero, and a round without its
// figures makes the line say "not measured". Isolated: the bench module imports bench/project.mjs, which
// sets the exit code (test/arch/shared-worker.test.ts).
import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ES module of the bench, no types
import { nginxUse, procUse, useOf } from "../../bench/http.bench.mjs";

/** A round of `total` requests: each instance's and nginx's CPU ms and context switches, the machine's busy share. */
const round = (total: number, upstreams: [number, number][], nginx: [number, number], busy: number) => ({
  total,
  busy,
  use: {
    upstreams: upstreams.map(([ms, switches]) => ({ ms, switches })),
    nginx: [{ ms: nginx[0], switches: nginx[1] }],
  },
});

describe("bench: what the nginx rounds used", () => {
  it("a process that cannot be read is no figure, not a zero; this one is", () => {
    expect(procUse(2 ** 22 + 7)).toBeUndefined(); // above Linux's largest pid
    const me = procUse(process.pid) as { ms: number; switches: number };
    expect(me.ms).toBeGreaterThan(0);
    expect(me.switches).toBeGreaterThan(0);
  });

  it("a /proc text without a figure's line or field gives no figure, not a zero", () => {
    const stat = "1234 (a (b) c) S 1 1234 1234 0 -1 4194560 100 0 0 0 25 7 0 0 20 0 1 0 100 0 0";
    const status = "Name:\tx\nvoluntary_ctxt_switches:\t40\nnonvoluntary_ctxt_switches:\t2\n";
    expect(useOf(stat, status)).toEqual({ ms: 320, switches: 42 });
    expect(useOf(stat, "Name:\tx\nvoluntary_ctxt_switches:\t40\n")).toBeUndefined();
    expect(useOf(stat, "Name:\tx\n")).toBeUndefined();
    expect(useOf("1234 (x) S 1", status)).toBeUndefined();
  });

  it("a round without its figures makes the line say so", () => {
    const one = [round(1000, [[200, 30]], [20, 100], 0.7)];
    const three = [{ ...round(1000, [], [0, 0], 0), use: undefined }];
    expect(nginxUse({ one, three })).toBe(
      "not a goal, behind nginx: what the rounds used is not measured here (it reads /proc: Linux)\n",
    );
  });

  it("per request: the instances' CPU and switches, nginx's CPU, each instance's share", () => {
    const one = [round(1000, [[180, 30]], [20, 100], 0.68), round(1000, [[182, 30]], [20, 100], 0.7)];
    const three = [
      round(
        1000,
        [
          [80, 150],
          [80, 150],
          [80, 150],
        ],
        [30, 600],
        0.94,
      ),
      round(
        1000,
        [
          [80, 150],
          [80, 150],
          [100, 150],
        ],
        [30, 600],
        0.94,
      ),
    ];
    expect(nginxUse({ one, three })).toBe(
      "not a goal, behind nginx (2000 and 2000 requests, /proc): the CPUs 69% busy with 1 instance, 94% with 3; " +
        "CPU time a request cost the instances 250.0 µs with 3 / 181.0 µs with 1 = 1.381×, " +
        "their context switches a request 0.45 / 0.03, nginx's CPU 30.0 µs / 20.0 µs; " +
        "each of the 3 instances' share of their CPU time 32%, 32%, 36%\n",
    );
  });
});

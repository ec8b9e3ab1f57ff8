// scripts/test-census.mjs: the accounting records it reads, what it calls each process, which
// processes are the run's and which test file started each. The run itself (accton, root, a whole
// vitest run) is not repeated here; these are the parts that decide what its table says.
import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain .mjs script, no declarations
import { descendants, fileOf, kindOf, parseAcct, tally } from "../../scripts/test-census.mjs";

interface Rec {
  pid: number;
  ppid: number;
  start: number;
  cpu: number;
  comm: string;
}

/** One acct_v3 record as Linux writes it (64 bytes, little-endian). */
function record(r: { pid: number; ppid: number; btime: number; utime: number; stime: number; comm: string }): Buffer {
  const b = Buffer.alloc(64);
  b[1] = 3;
  b.writeUInt32LE(r.pid, 16);
  b.writeUInt32LE(r.ppid, 20);
  b.writeUInt32LE(r.btime, 24);
  b.writeUInt16LE(r.utime, 32);
  b.writeUInt16LE(r.stime, 34);
  b.write(r.comm, 48, "latin1");
  return b;
}

describe("test-census", () => {
  it("reads acct v3 records: pid, parent, start, CPU in seconds (comp_t with its base-8 exponent), name", () => {
    // 0x2000 | 100: mantissa 100, exponent 1 -> 800 ticks
    const buf = Buffer.concat([
      record({ pid: 41, ppid: 7, btime: 1_800_000_000, utime: 25, stime: 5, comm: "node" }),
      record({ pid: 42, ppid: 41, btime: 1_800_000_001, utime: 0x2000 | 100, stime: 0, comm: "argv-echo.sh-long" }),
    ]);
    expect(parseAcct(buf)).toEqual([
      { pid: 41, ppid: 7, start: 1_800_000_000_000, cpu: 0.3, comm: "node" },
      { pid: 42, ppid: 41, start: 1_800_000_001_000, cpu: 8, comm: "argv-echo.sh-lon" },
    ]);
    const old = record({ pid: 1, ppid: 0, btime: 0, utime: 0, stime: 0, comm: "x" });
    old[1] = 2;
    expect(() => parseAcct(old)).toThrow(/not acct version 3/);
  });

  it("names a process by its command line: a worker, hcpx and its command, a Node script, a program; unseen by its name", () => {
    const rec = (pid: number, comm = "node"): Rec => ({ pid, ppid: 1, start: 0, cpu: 0, comm });
    const workers = new Set([10]);
    const cmd = (...a: string[]) => a.join("\0") + "\0";
    expect(kindOf(rec(10), cmd("/usr/bin/node", "forks.js"), workers)).toBe("vitest worker");
    expect(kindOf(rec(11), cmd("/usr/bin/node", "/w/main/dist/hcpx.cjs", "mcp", "--http", "0"), workers)).toBe(
      "hcpx mcp",
    );
    expect(kindOf(rec(12), cmd("node", "/w/main/node_modules/.bin/vitest", "run"), workers)).toBe("vitest");
    expect(kindOf(rec(13), cmd("/usr/bin/node", "--max-old-space-size=9", "/t/x/bins/calc.mjs", "ping"), workers)).toBe(
      "node bins/calc.mjs",
    );
    expect(kindOf(rec(14, "bwrap"), cmd("/usr/bin/bwrap", "--ro-bind", "/", "/"), workers)).toBe("bwrap");
    expect(kindOf(rec(15, "sed"), undefined, workers)).toBe("sed (unseen)");
  });

  it("sums by kind, largest CPU first", () => {
    expect(
      tally([
        { key: "a", cpu: 1 },
        { key: "b", cpu: 0.5 },
        { key: "a", cpu: 2 },
      ]),
    ).toEqual([
      { key: "a", n: 2, cpu: 3 },
      { key: "b", n: 1, cpu: 0.5 },
    ]);
  });

  it("keeps the run's processes only: the parent the poll saw first, else the record's", () => {
    const rec = (pid: number, ppid: number): Rec => ({ pid, ppid, start: 0, cpu: 0.1, comm: "node" });
    // 100 is the run's vitest; 300 belongs to something else on the machine; 203's parent ended first
    // (its record's parent is init), the poll saw 202 start it
    const recs = [rec(100, 50), rec(201, 100), rec(202, 201), rec(203, 1), rec(300, 60)];
    const polled = new Map([[203, { cmd: "x", ppid: 202 }]]);
    expect(descendants(recs, 100, polled).map((r: Rec) => r.pid)).toEqual([100, 201, 202, 203]);
    expect(descendants(recs, 100, new Map()).map((r: Rec) => r.pid)).toEqual([100, 201, 202]);
  });

  it("gives a process the test file its worker ran when its forebear (the worker's child) started", () => {
    const files = [
      { file: "a.test.ts", pid: 10, from: 1_000_000, to: 1_005_000 },
      { file: "b.test.ts", pid: 10, from: 1_005_000, to: 1_009_000 },
      { file: "c.test.ts", pid: 11, from: 1_000_000, to: 1_009_000 },
    ];
    const recs: Rec[] = [
      { pid: 20, ppid: 10, start: 1_006_000, cpu: 0, comm: "node" },
      { pid: 21, ppid: 20, start: 1_006_000, cpu: 0, comm: "node" },
      { pid: 22, ppid: 11, start: 1_002_000, cpu: 0, comm: "node" },
      { pid: 23, ppid: 99, start: 1_002_000, cpu: 0, comm: "node" },
    ];
    const byPid = new Map(recs.map((r) => [r.pid, r]));
    const parent = (r: Rec) => r.ppid;
    expect(recs.map((r) => fileOf(r, files, byPid, parent))).toEqual([
      "b.test.ts",
      "b.test.ts",
      "c.test.ts",
      undefined,
    ]);
    // a start in the second one file ended in and the next began: the file that ran for more of it
    const edge = [
      { file: "a.test.ts", pid: 10, from: 1_000_000, to: 1_005_400 },
      { file: "b.test.ts", pid: 10, from: 1_005_400, to: 1_009_000 },
    ];
    const at = (start: number): Rec => ({ pid: 30, ppid: 10, start, cpu: 0, comm: "node" });
    expect(fileOf(at(1_005_000), edge, byPid, parent)).toBe("b.test.ts");
    expect(fileOf(at(1_004_000), edge, byPid, parent)).toBe("a.test.ts");
  });
});

// The line the host and agent suites end with (test/hosts/runlog-summary.mjs, scripts/host-suite.sh):
// the runs closest to their timeouts first, a timed-out one marked, the longest wait for a slot.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const SCRIPT = join(import.meta.dirname, "runlog-summary.mjs");
const summary = (file: string) => spawnSync(process.execPath, [SCRIPT, file], { encoding: "utf8" });

describe("runlog-summary", () => {
  it("ranks the runs by their share of the timeout, marks one that timed out, says the longest wait", () => {
    const dir = mkdtempSync(join(tmpdir(), "hcpx-runlog-"));
    try {
      const file = join(dir, "runs.jsonl");
      const run = (cmd: string, ms: number, timeoutMs: number, waitedMs = 0, timedOut = false) =>
        JSON.stringify({ cmd, arg: "mcp", ms, waitedMs, timeoutMs, timedOut });
      writeFileSync(
        file,
        [run("quick", 1000, 60_000), run("hung", 30_000, 30_000, 2500, true), run("slow", 50_000, 120_000, 7000)].join(
          "\n",
        ) + "\n",
      );
      const r = summary(file);
      expect(r.status).toBe(0);
      expect(r.stdout.split("\n").filter(Boolean)).toEqual([
        "host runs: 3, 1 timed out; longest wait for a slot 7.0 s; closest to their timeouts:",
        "  hung mcp: 30.0 s of 30.0 s (100%) TIMED OUT, waited 2.5 s",
        "  slow mcp: 50.0 s of 120.0 s (42%), waited 7.0 s",
        "  quick mcp: 1.0 s of 60.0 s (2%), waited 0.0 s",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a missing or empty log: none logged, exit 0 (the suite's own status stands)", () => {
    const r = summary(join(tmpdir(), "hcpx-runlog-missing-file.jsonl"));
    expect([r.status, r.stdout.trim()]).toEqual([0, "host runs: none logged"]);
  });
});

// test/support/run-tmp.ts: a run's scratch folder names the process that made it, and the next run
// removes the folders of runs that were killed before their teardown (in /dev/shm they would hold
// memory until the machine restarts), never a live run's or one it cannot tell.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sweepDeadRuns } from "./run-tmp";
import { tmp } from "./project";

describe("the run's scratch folder", () => {
  it("names its owner", () => {
    expect(readdirSync(tmpdir())).toContain(".owner-pid");
  });

  it("a killed run's folder is swept by the next run; a live run's, one without an owner and other names are not", () => {
    const base = tmp("hcpx-sweep-");
    const gone = spawnSync(process.execPath, ["-e", ""]).pid!;
    const made = (name: string, owner?: number) => {
      mkdirSync(join(base, name, "project"), { recursive: true });
      if (owner !== undefined) writeFileSync(join(base, name, ".owner-pid"), String(owner));
    };
    made("hcpx-test-dead01", gone);
    made("hcpx-test-live01", process.pid);
    made("hcpx-test-new001");
    made("other-dead01", gone);
    writeFileSync(join(base, "hcpx-test-file"), "");
    expect(sweepDeadRuns(base)).toEqual(["hcpx-test-dead01"]);
    expect(readdirSync(base).sort()).toEqual([
      "hcpx-test-file",
      "hcpx-test-live01",
      "hcpx-test-new001",
      "other-dead01",
    ]);
    expect(sweepDeadRuns(join(base, "absent"))).toEqual([]);
    expect(existsSync(join(base, "hcpx-test-live01", "project"))).toBe(true);
  });
});

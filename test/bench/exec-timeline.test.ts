// bench/exec-timeline.mjs (the probe of exec's wall time, stage by stage) refuses a run whose preload
// missed a mark, instead of printing a stage measured from a stand-in. With HCPX_NO_CACHE=1 exec reads
// no code cache, so the preload never sees the cache's open: before 4ea5831 the probe printed "exec's
// code cache read and checked" with the bundle read's time in it; it must stop and name the mark.
// One run of the real probe against the built bin (it waits 3.1 s for its project to settle first).
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { REPO, run } from "../support/hcpx";

describe("bench: exec's timeline probe", () => {
  it("a run whose preload saw no code cache read stops and names the mark, printing no table", async () => {
    const r = await run(process.execPath, [join(REPO, "bench", "exec-timeline.mjs"), "1"], {
      cwd: REPO,
      env: { HCPX_NO_CACHE: "1" },
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("hcpx exec: the preload saw no cache:");
    expect(r.stdout).not.toContain("stage (medians)");
  });
});

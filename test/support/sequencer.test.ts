// test/support/sequencer.ts: a file vitest has no last duration for takes the one kept in the repository, so a
// fresh clone starts its longest files first; vitest's own duration wins where it has one.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestSpecification } from "vitest/node";
import { afterAll, describe, expect, it } from "vitest";
import { KeptDurationsSequencer } from "./sequencer";
import { tmp } from "./project";

const ROOT = "/r";
const original = KeptDurationsSequencer.file;
afterAll(() => {
  KeptDurationsSequencer.file = original;
});
const spec = (project: string, file: string, groupOrder = 0, isolate = false) =>
  ({
    project: { name: project, config: { sequence: { groupOrder }, isolate } },
    moduleId: `${ROOT}/${file}`,
  }) as unknown as TestSpecification;

function sequencer(results: Record<string, { duration: number; failed?: boolean }>, kept: Record<string, number>) {
  const dir = tmp("hcpx-seq-");
  mkdirSync(dir, { recursive: true });
  KeptDurationsSequencer.file = join(dir, "durations.json");
  writeFileSync(KeptDurationsSequencer.file, JSON.stringify(kept));
  const ctx = {
    config: { root: ROOT },
    cache: { getFileTestResults: (k: string) => results[k], getFileStats: () => ({ size: 1 }) },
  };
  return new KeptDurationsSequencer(ctx as never);
}
const names = (xs: TestSpecification[]) => xs.map((s) => `${s.project.name}:${s.moduleId.slice(ROOT.length + 1)}`);

describe("the test files' order", () => {
  it("with no results of vitest's, the kept durations: longest first, in each group and project", async () => {
    const files = [
      spec("shared", "a.test.ts", 1),
      spec("w", "b.test.ts"),
      spec("w", "c.test.ts"),
      spec("shared", "d.test.ts", 1),
    ];
    const s = sequencer(
      {},
      { "w:b.test.ts": 100, "w:c.test.ts": 9000, "shared:a.test.ts": 10, "shared:d.test.ts": 20 },
    );
    expect(names(await s.sort(files))).toEqual(["w:c.test.ts", "w:b.test.ts", "shared:d.test.ts", "shared:a.test.ts"]);
  });
  it("vitest's own durations win, a failed file first, a file known to neither before the known ones", async () => {
    const files = [spec("w", "b.test.ts"), spec("w", "c.test.ts"), spec("w", "new.test.ts"), spec("w", "f.test.ts")];
    const s = sequencer(
      { "w:b.test.ts": { duration: 5000 }, "w:f.test.ts": { duration: 1, failed: true } },
      { "w:b.test.ts": 1, "w:c.test.ts": 3000 },
    );
    expect(names(await s.sort(files))).toEqual(["w:f.test.ts", "w:new.test.ts", "w:b.test.ts", "w:c.test.ts"]);
  });
  it("an unreadable durations file orders by vitest's results alone", async () => {
    const s = sequencer({ "w:b.test.ts": { duration: 1 }, "w:c.test.ts": { duration: 2 } }, {});
    writeFileSync(KeptDurationsSequencer.file, "{ not json");
    expect(names(await s.sort([spec("w", "b.test.ts"), spec("w", "c.test.ts")]))).toEqual([
      "w:c.test.ts",
      "w:b.test.ts",
    ]);
  });
});

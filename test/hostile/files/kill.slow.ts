// Kill mid-write, the long run (`npm run test:hostile:slow`, called by .ci/run):
// 60 packs, six hosts (project scope) and three (user scope, scratch HOME);
// 56 SIGKILLs after random delays spread over a clean run's duration (measured
// first), plus 24 at deterministic write steps. See kill-scenario.ts for what
// is checked after each kill.
import { describe, expect, it } from "vitest";
import { killCase, makeScenario, type Scenario } from "./kill-scenario";
import { prng } from "./helpers";

async function randomKills(
  s: Scenario,
  n: number,
  seed: number,
  removeEvery: number,
): Promise<{ mid: number; before: number; after: number }> {
  const rnd = prng(seed);
  const tally = { mid: 0, before: 0, after: 0 };
  for (let i = 0; i < n; i++) {
    // one in three at a delay uniform over a clean run's duration; the others
    // at a delay uniform over 1.3x the write phase, counted from when the
    // run's journal appears (its first write), since start-up time varies
    const w = s.window[1] - s.window[0];
    const o =
      i % 3 === 0
        ? await killCase(s, { delayMs: Math.max(1, s.ms * 1.1 * rnd()) }, { remove: i % removeEvery === 0 })
        : await killCase(s, { delayMs: 1.3 * w * rnd(), afterJournal: true }, { remove: i % removeEvery === 0 });
    if (o.newCount === 0) tally.before++;
    else if (o.newCount === o.changing) tally.after++;
    else tally.mid++;
  }
  console.log(
    `${s.name}: ${n} random kills (clean run ${Math.round(s.ms)} ms, writes ${Math.round(s.window[0])}-${Math.round(s.window[1])} ms): ${tally.before} before any write, ${tally.mid} mid-write, ${tally.after} after all files`,
  );
  return tally;
}

describe("adopt --write SIGKILLed at random moments (60 packs)", () => {
  it("project scope, fresh: 24 random kills + 12 deterministic", async () => {
    const s = await makeScenario("fresh", "project", 60);
    await randomKills(s, 24, 1, 3);
    const rnd = prng(11);
    for (let i = 0; i < 12; i++)
      await killCase(s, { killAfterSteps: 1 + Math.floor(rnd() * s.steps) }, { remove: i % 3 === 0 });
  }, 1_200_000);

  it("project scope, update (deletes stale Skills): 16 random kills + 6 deterministic", async () => {
    const s = await makeScenario("update", "project", 60);
    await randomKills(s, 16, 2, 4);
    const rnd = prng(12);
    for (let i = 0; i < 6; i++)
      await killCase(s, { killAfterSteps: 1 + Math.floor(rnd() * s.steps) }, { remove: i % 3 === 0 });
  }, 1_200_000);

  it("user scope (~/.claude.json …): 16 random kills + 6 deterministic", async () => {
    const s = await makeScenario("fresh", "user", 60);
    await randomKills(s, 16, 3, 4);
    const rnd = prng(13);
    for (let i = 0; i < 6; i++)
      await killCase(s, { killAfterSteps: 1 + Math.floor(rnd() * s.steps) }, { remove: i % 3 === 0 });
    expect(s.steps).toBeGreaterThan(100);
  }, 1_200_000);
});

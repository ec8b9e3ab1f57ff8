// Kill mid-write (issue 6 item 1) at chosen moments (`npm run test:hostile:slow`,
// called by .ci/run): deterministic write steps (HCPX_TEST_KILL_AFTER_WRITES:
// after the journal, inside the first file, mid-way, before the ledger, before
// the journal is removed) and random delays, on a project with 16 packs and six
// hosts' user files, fresh, update and user scope. The 50+ random moments on 60
// packs are in kill.slow.ts; `npm test` keeps one quick scenario (kill.test.ts).
import { describe, expect, it } from "vitest";
import { killCase, makeScenario } from "./kill-scenario";
import { prng } from "./helpers";

describe("adopt --write killed mid-write: every file old or new, re-run converges, --check passes, --remove restores", () => {
  it("project scope, fresh adopt of 6 hosts: killed after the journal, inside the first file, mid-way, before the ledger, before the journal is removed", async () => {
    const s = await makeScenario("fresh", "project", 16);
    const S = s.steps;
    for (const n of [1, 2, 3, 4, Math.floor(S / 2), S - 2, S - 1, S]) await killCase(s, { killAfterSteps: n });
  }, 240_000);

  it("project scope, update (stale Skills deleted, entries rewritten): killed at deterministic and random moments", async () => {
    const s = await makeScenario("update", "project", 16);
    const S = s.steps;
    const rnd = prng(6);
    for (const n of [3, Math.floor(S / 3), S - 1]) await killCase(s, { killAfterSteps: n });
    for (let i = 0; i < 3; i++)
      await killCase(s, { delayMs: (s.window[1] - s.window[0]) * 1.3 * rnd(), afterJournal: true });
  }, 240_000);

  it("user scope (~/.claude.json, ~/.gemini/settings.json, ~/.codex/config.toml in a scratch HOME): killed mid-way", async () => {
    const s = await makeScenario("fresh", "user", 16);
    const S = s.steps;
    for (const n of [1, 2, Math.floor(S / 2), S]) await killCase(s, { killAfterSteps: n });
    expect(s.steps).toBeGreaterThan(10);
  }, 240_000);
});

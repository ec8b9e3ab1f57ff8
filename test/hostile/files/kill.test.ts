// Kill mid-write (issue 6 item 1), the quick part in `npm test`: a fresh
// project-scope adopt of six hosts over 4 packs, SIGKILLed (the
// HCPX_TEST_KILL_AFTER_WRITES hook) after the journal, inside the first file,
// mid-way and before the journal is removed; each case checks what
// kill-scenario.ts says (old or new bytes, re-run converges, --check, --remove).
// The same moments on 16 packs, update and user scope, are in
// kill-moments.slow.ts; 50+ random moments on 60 packs in kill.slow.ts (both
// `npm run test:hostile:slow`).
import { describe, expect, it } from "vitest";
import { killCase, makeScenario } from "./kill-scenario";

describe("adopt --write killed mid-write: every file old or new, re-run converges, --check passes, --remove restores", () => {
  it("project scope, fresh adopt of 6 hosts (4 packs): killed after the journal, inside the first file, mid-way, before the journal is removed", async () => {
    const s = await makeScenario("fresh", "project", 4);
    const S = s.steps;
    expect(S).toBeGreaterThan(10);
    for (const n of [1, 2, Math.floor(S / 2), S - 1]) await killCase(s, { killAfterSteps: n });
  }, 120_000);
});

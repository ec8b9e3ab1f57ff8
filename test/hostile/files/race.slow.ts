// Two adopt --write at once, the long run (`npm run test:hostile:slow`, called
// by .ci/run): five rounds of five racing adopts (race-cases.ts); race.test.ts
// runs two rounds and the rest of the race suite.
import { describe, it } from "vitest";
import { adoptRace } from "./race-cases";

describe("two adopt --write at once (long run)", () => {
  it("same host twice, and different hosts, five rounds: each waits for the lock; no entry of either is lost", async () => {
    await adoptRace(5);
  }, 600_000);
});

// The stamps' stat of `hcpx mcp --http` (src/util/stamp.ts statOncePerTurn, which serveHttp turns on):
// one stat of each stamped file per turn of the event loop, shared by the calls taken up in that turn,
// and never kept longer than TURN_MS; elsewhere a stat each time. The switch is process-wide, so this
// file runs in a worker of its own (it is not one of test/support/shared-worker.ts's SHARED_FILES).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { RACY_MS, Stamped, stampStat, statOncePerTurn, TURN_MS } from "../../src/mcp/stamp";
import { tmp } from "../support/hcpx";

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

/**
 * `fn` within one turn as the stamps measure it: Date.now() held, so that a loaded machine's slow write
 * cannot carry the turn past TURN_MS (a test of "the same turn", not of the clock; the next test times it).
 */
function sameTurn(fn: () => void): void {
  const spy = vi.spyOn(Date, "now").mockReturnValue(Date.now());
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
}

describe("the stamps' stat, once per turn of the event loop", () => {
  it("off (a command, exec, a stdio server): each stat sees the file as it is", () => {
    const f = join(tmp("hcpx-turn-"), "server.json5");
    writeFileSync(f, "{}");
    expect(stampStat(f)?.size).toBe(2);
    writeFileSync(f, "{ }");
    expect(stampStat(f)?.size).toBe(3);
  });

  it("on (hcpx mcp --http): a turn's calls share its first stat; the next turn stats again", async () => {
    statOncePerTurn();
    const dir = tmp("hcpx-turn-");
    const f = join(dir, "server.json5");
    const gone = join(dir, "config.json5");
    writeFileSync(f, "{}");
    await nextTurn();
    sameTurn(() => {
      expect(stampStat(f)?.size).toBe(2);
      expect(stampStat(gone)).toBeUndefined();
      // changed within this turn: the calls of this turn are decided on the turn's stat
      writeFileSync(f, "{ }");
      writeFileSync(gone, "{}");
      expect(stampStat(f)?.size).toBe(2);
      expect(stampStat(gone)).toBeUndefined();
    });
    // the next turn sees both changes
    await nextTurn();
    expect(stampStat(f)?.size).toBe(3);
    expect(stampStat(gone)?.size).toBe(2);
  });

  it("on: a stat is not kept past TURN_MS, however long the turn runs", async () => {
    statOncePerTurn();
    const f = join(tmp("hcpx-turn-"), "tokens.json");
    writeFileSync(f, "[]");
    await nextTurn();
    expect(stampStat(f)?.size).toBe(2);
    writeFileSync(f, "[ ]");
    const t0 = Date.now();
    while (Date.now() - t0 <= TURN_MS + 1); // one long turn
    expect(stampStat(f)?.size).toBe(3);
  });

  it("on: a value kept under the turn's stat is loaded again at the next turn's call when its file changed", async () => {
    statOncePerTurn();
    const f = join(tmp("hcpx-turn-"), "policy.json");
    writeFileSync(f, '{"op":"read"}');
    // the files' clock: aged past RACY_MS, so their stamps can vouch for what was read
    let now = Date.now() + RACY_MS + 1000;
    const kept = new Stamped<string>(undefined, () => now);
    let loads = 0;
    const load = () => (loads++, `load ${loads}`);
    await nextTurn();
    sameTurn(() => {
      expect(kept.get([f], load)).toBe("load 1");
      writeFileSync(f, '{"op":"write"}');
      // the same turn: the turn's stat, the value kept with it
      expect(kept.get([f], load)).toBe("load 1");
    });
    await nextTurn();
    now = Date.now() + RACY_MS + 1000;
    expect(kept.get([f], load)).toBe("load 2");
    expect(loads).toBe(2);
  });
});

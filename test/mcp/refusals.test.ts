// The folding of `hcpx mcp --http`'s refused authentications into audit lines
// (src/mcp/refusals.ts), on a fake clock: the first of a kind (result, reason,
// address) at once, the rest of each second as one counted line at its end, a
// kind quiet for a second starts over; past 16 kinds a second, other addresses
// fold per reason (address "*"), past 32 into one line; what the client sent
// is bounded and one neutral line; what is counted is written on the way out.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Refusal } from "../../src/mcp/auth";
import { RefusalLog } from "../../src/mcp/refusals";
import type { AuditRecord } from "../../src/runtime/audit";

const probe = (over: Partial<Refusal> = {}): Refusal => ({
  error: "invalid_token",
  description: "unknown token",
  address: "192.0.2.7",
  userAgent: "probe/1",
  ...over,
});

describe("RefusalLog", () => {
  let lines: AuditRecord[];
  let log: RefusalLog;
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.parse("2026-12-01T09:00:00.000Z") });
    lines = [];
    log = new RefusalLog((rec) => lines.push(rec));
  });
  afterEach(() => {
    log.flush();
    vi.useRealTimers();
  });
  const summary = () => lines.map((l) => [l.result, l.refused?.reason, l.refused?.address, l.refused?.count]);
  const counted = () => lines.reduce((a, l) => a + l.refused!.count, 0);

  it("writes the first refusal of a kind at once, the rest of its second as one counted line at the second's end", () => {
    log.refused(probe({ error: "invalid_request", description: undefined, userAgent: null }));
    expect(lines).toEqual([
      {
        time: "2026-12-01T09:00:00.000Z",
        principal: "(unknown)",
        via: "http",
        tool: "(none)",
        decision: "unauthenticated",
        result: "invalid_request",
        refused: { reason: "no token", address: "192.0.2.7", count: 1 },
        duration_ms: 0,
      },
    ]);
    vi.advanceTimersByTime(100);
    for (let i = 0; i < 500; i++) log.refused(probe({ userAgent: `probe/${i}` }));
    log.refused(probe({ address: "198.51.100.1" }));
    expect(lines).toHaveLength(3);
    vi.advanceTimersByTime(200);
    for (let i = 0; i < 499; i++) log.refused(probe());
    log.refused(probe({ error: "invalid_request", description: undefined }));
    expect(lines).toHaveLength(3);
    vi.advanceTimersByTime(700); // the second's end
    expect(summary()).toEqual([
      ["invalid_request", "no token", "192.0.2.7", 1],
      ["invalid_token", "unknown token", "192.0.2.7", 1],
      ["invalid_token", "unknown token", "198.51.100.1", 1],
      // in the order the kinds were first seen
      ["invalid_request", "no token", "192.0.2.7", 1],
      ["invalid_token", "unknown token", "192.0.2.7", 998],
    ]);
    // the counted line: the time and client of the first refusal it counts
    expect(lines[4]).toMatchObject({ time: "2026-12-01T09:00:00.100Z", client: "probe/1" });
    // a kind that went on stays folded: its next refusal waits for the next second's end
    log.refused(probe());
    expect(lines).toHaveLength(5);
    vi.advanceTimersByTime(1000);
    expect(summary().slice(5)).toEqual([["invalid_token", "unknown token", "192.0.2.7", 1]]);
    // a second with none: the kind starts over (its next refusal at once)
    vi.advanceTimersByTime(2000);
    log.refused(probe());
    expect(summary().slice(6)).toEqual([["invalid_token", "unknown token", "192.0.2.7", 1]]);
  });

  it("a flood for a minute writes about a line a second, whatever its rate", () => {
    for (let ms = 0; ms < 60_000; ms += 1) {
      log.refused(probe());
      vi.advanceTimersByTime(1);
    }
    vi.advanceTimersByTime(1000);
    expect(lines.length).toBeGreaterThanOrEqual(60);
    expect(lines.length).toBeLessThanOrEqual(62);
    expect(counted()).toBe(60_000);
  });

  it('many addresses: 16 kinds a second have lines of their own, the others fold by reason ("*"), past 32 kinds into one', () => {
    for (let i = 0; i < 1000; i++) log.refused(probe({ address: `2001:db8::${i.toString(16)}` }));
    // 16 addresses of their own, then every other address under its reason
    expect(lines).toHaveLength(17);
    expect(lines.slice(0, 16).every((l) => l.refused?.address !== "*")).toBe(true);
    expect(lines[16]!.refused).toEqual({ address: "*", reason: "unknown token", count: 1 });
    // more reasons than kinds left: one line for all
    for (let i = 0; i < 40; i++) log.refused(probe({ description: `reason ${i}`, address: `2001:db8::${i}` }));
    const all = lines.filter((l) => l.refused?.reason === "several reasons");
    expect(all.map((l) => [l.result, l.refused])).toEqual([
      ["refused", { reason: "several reasons", address: "*", count: 1 }],
    ]);
    expect(lines.length).toBeLessThanOrEqual(33);
    vi.advanceTimersByTime(1000);
    expect(counted()).toBe(1040);
    // at most 33 kinds were kept: 33 counted lines at the second's end at most
    expect(lines.length).toBeLessThanOrEqual(66);
  });

  it("what the client sent is cut and made one neutral line", () => {
    log.refused(probe({ userAgent: "evil\u001b]0;pwned\u0007\n\u202e" + "x".repeat(1000), address: "a\nb" }));
    const [l] = lines;
    expect(l!.client).toMatch(/^evil\\x1b\]0;pwned\\x07\\x0a\\u202ex+$/);
    expect(l!.client!.length).toBeLessThan(260);
    expect(l!.refused?.address).toBe("a\\x0ab");
  });

  it("what is counted is written on the way out (an exit listener while anything is kept), and nothing is kept after", () => {
    const exits = process.listenerCount("exit");
    log.refused(probe());
    log.refused(probe());
    log.refused(probe());
    expect(lines).toHaveLength(1);
    expect(process.listenerCount("exit")).toBe(exits + 1);
    log.flush();
    expect(summary()).toEqual([
      ["invalid_token", "unknown token", "192.0.2.7", 1],
      ["invalid_token", "unknown token", "192.0.2.7", 2],
    ]);
    expect(process.listenerCount("exit")).toBe(exits);
    vi.advanceTimersByTime(5000);
    expect(lines).toHaveLength(2);
    // and a quiet second drops the listener too
    log.refused(probe());
    expect(process.listenerCount("exit")).toBe(exits + 1);
    vi.advanceTimersByTime(1000);
    expect(process.listenerCount("exit")).toBe(exits);
  });

  it("a 403 and a closed stream are lines of their principal, folded per principal and reason; a mass close stays bounded", () => {
    log.refused(probe({ error: "unknown_principal", description: "not in the server config", principal: "carol" }));
    log.refused(probe({ error: "invalid_token", description: "unknown token", principal: "alice", openMs: 1500 }));
    // a token removed with a thousand streams open: one line at once, one at the second's end
    for (let i = 0; i < 999; i++)
      log.refused(probe({ error: "invalid_token", description: "unknown token", principal: "alice", openMs: i }));
    // another principal's, and a 401 of the same reason: kinds of their own
    log.refused(probe({ error: "invalid_token", description: "unknown token", principal: "bob", openMs: 7 }));
    log.refused(probe());
    vi.advanceTimersByTime(1000);
    expect(
      lines.map((l) => [l.principal, l.decision, l.result, l.refused?.reason, l.refused?.count, l.duration_ms]),
    ).toEqual([
      ["carol", "forbidden", "unknown_principal", "not in the server config", 1, 0],
      ["alice", "stream_closed", "invalid_token", "unknown token", 1, 1500],
      ["bob", "stream_closed", "invalid_token", "unknown token", 1, 7],
      ["(unknown)", "unauthenticated", "invalid_token", "unknown token", 1, 0],
      // the longest a counted stream was open
      ["alice", "stream_closed", "invalid_token", "unknown token", 999, 998],
    ]);
    expect(lines.every((l) => l.tool === "(none)" && l.via === "http")).toBe(true);
  });
});

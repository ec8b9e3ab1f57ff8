// The timer that closes a JWT's open stream when the JWT expires
// (src/mcp/auth.ts whenExpired, used by http.ts openStreams): at its expiry
// plus the clock tolerance jose allows, not before; an expiry further off than
// setTimeout's longest delay (~24.8 days) is waited for in steps; cancelled, it
// never fires. On a fake clock.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CLOCK_TOLERANCE_S, whenExpired } from "../../src/mcp/auth";

describe("whenExpired", () => {
  beforeEach(() => void vi.useFakeTimers({ now: Date.parse("2026-12-01T09:00:00.000Z") }));
  afterEach(() => void vi.useRealTimers());
  const nowS = () => Math.floor(Date.now() / 1000);

  it("fires at exp + the clock tolerance, not before; at once for a token already past it", () => {
    const fired = vi.fn();
    whenExpired(nowS() + 60, fired);
    vi.advanceTimersByTime((60 + CLOCK_TOLERANCE_S) * 1000 - 1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledOnce();
    const late = vi.fn();
    whenExpired(nowS() - 3600, late);
    vi.advanceTimersByTime(0);
    expect(late).toHaveBeenCalledOnce();
  });

  it("an expiry 40 days off fires then, not at once (setTimeout's longest delay is ~24.8 days)", () => {
    const fired = vi.fn();
    const days = 40 * 86_400;
    whenExpired(nowS() + days, fired);
    vi.advanceTimersByTime(30 * 86_400_000);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime((days + CLOCK_TOLERANCE_S) * 1000 - 30 * 86_400_000 - 1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledOnce();
  });

  it("cancelled (the stream ended first), it never fires", () => {
    const fired = vi.fn();
    whenExpired(nowS() + 5, fired)();
    vi.advanceTimersByTime(3_600_000);
    expect(fired).not.toHaveBeenCalled();
  });
});

// A call's cancel, as the runtime reads it (execute(), the adapters): is the
// caller gone, why, and tell me when. An AbortSignal has all of it, and the
// MCP server and the library pass theirs. `hcpx exec` passes a StopSignal:
// the same four members, without an AbortController. Node builds an
// AbortController on an EventTarget, and the functions behind both are
// compiled on first use: on exec's start path, where the bin cannot start
// before them, they were ~2 M instructions of a warm call (callgrind, `hcpx
// exec calc-wrap ping`, CA unset: 141.0 -> 138.5 M without them). Where a
// real AbortSignal is needed (fetch, the MCP SDK, a composite module's
// ctx.signal), abortSignalOf() makes one that follows the call's cancel.

/** What the runtime reads of a caller's cancel. An AbortSignal is one. */
export interface CallSignal {
  readonly aborted: boolean;
  /** why (exec: the signal's name, like "SIGTERM") */
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/**
 * `hcpx exec`'s cancel: aborted once, with a reason; each listener added before
 * that runs once, in the order added (as an AbortSignal's "abort" listeners
 * do), and one added after never runs (the event is over; callers check
 * `aborted` first, as they must with an AbortSignal).
 */
export class StopSignal implements CallSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] = [];

  addEventListener(_type: "abort", listener: () => void, _options?: { once?: boolean }): void {
    if (!this.aborted && !this.listeners.includes(listener)) this.listeners.push(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    const i = this.listeners.indexOf(listener);
    if (i >= 0) this.listeners.splice(i, 1);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const run = this.listeners;
    this.listeners = [];
    for (const l of run) l();
  }
}

/** The cancel of a caller that cannot cancel. */
export const NEVER: CallSignal = Object.freeze({
  aborted: false,
  reason: undefined,
  addEventListener() {},
  removeEventListener() {},
});

/** An AbortSignal that aborts when `s` does (with its reason): `s` itself when it is one. */
export function abortSignalOf(s: CallSignal): AbortSignal {
  if (s instanceof AbortSignal) return s;
  const ac = new AbortController();
  if (s.aborted) ac.abort(s.reason);
  else if (s !== NEVER) s.addEventListener("abort", () => ac.abort(s.reason), { once: true });
  return ac.signal;
}

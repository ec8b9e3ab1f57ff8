// The requestState of a modern confirm (src/mcp/confirm-state.ts), in-process:
// signed, bound to one call, single-use, expiring.
import { describe, expect, it } from "vitest";
import { ConfirmStateError, ConfirmStates, argsHash } from "../../src/mcp/confirm-state";

const call = { principal: "p", pack: "ledger", verb: "transfer" };
const reason = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfirmStateError) return e.reason;
    throw e;
  }
  return "accepted";
};

describe("confirm requestState", () => {
  it("round-trips once, within its time, for its call only", () => {
    let now = 1_000_000;
    const s = new ConfirmStates({ ttlMs: 1000, now: () => now });
    const h = argsHash({ b: 2, a: 1 });
    expect(h).toBe(argsHash({ a: 1, b: 2 }));
    const st = s.mint({ ...call, argsHash: h });
    expect(reason(() => s.redeem(st, { ...call, principal: "q" }))).toBe("mismatch");
    expect(reason(() => s.redeem(st, { ...call, verb: "entry.add" }))).toBe("mismatch");
    expect(s.redeem(st, call).argsHash).toBe(h);
    expect(reason(() => s.redeem(st, call))).toBe("replayed");
    const late = s.mint({ ...call, argsHash: h });
    now += 1001;
    expect(reason(() => s.redeem(late, call))).toBe("expired");
  });

  it("refuses a state signed with another key, altered, or not hcpx's", () => {
    const a = new ConfirmStates();
    const b = new ConfirmStates();
    const st = a.mint({ ...call, argsHash: argsHash({}) });
    // another key (another instance not sharing the key) is named as such, not as an alteration
    expect(reason(() => b.redeem(st, call))).toBe("other_key");
    expect(() => b.redeem(st, call)).toThrow(/signed by another key: instances must share one requestState key/);
    const [head, mac] = [st.slice(0, st.lastIndexOf(".")), st.slice(st.lastIndexOf(".") + 1)];
    const body = JSON.parse(Buffer.from(head.slice("hcpx1.".length), "base64url").toString());
    const forged = `hcpx1.${Buffer.from(JSON.stringify({ ...body, exp: body.exp + 1e9 })).toString("base64url")}.${mac}`;
    expect(reason(() => a.redeem(forged, call))).toBe("tampered");
    expect(reason(() => a.redeem("anything", call))).toBe("malformed");
    expect(() => new ConfirmStates({ key: new Uint8Array(16) })).toThrow(/32 bytes/);
  });

  it("a shared spent store makes an answer run once across instances that share the key", () => {
    const key = new Uint8Array(32).fill(7);
    const spent = new Set<string>();
    const spend = (n: string) => (spent.has(n) ? false : (spent.add(n), true));
    const a = new ConfirmStates({ key, spend });
    const b = new ConfirmStates({ key, spend });
    const st = a.mint({ ...call, argsHash: argsHash({}) });
    expect(b.redeem(st, call).verb).toBe("transfer");
    expect(reason(() => a.redeem(st, call))).toBe("replayed");
    // a mismatched call does not spend it
    const st2 = a.mint({ ...call, argsHash: argsHash({}) });
    expect(reason(() => b.redeem(st2, { ...call, principal: "q" }))).toBe("mismatch");
    expect(a.redeem(st2, call).verb).toBe("transfer");
  });
});

// The audit record's decision (src/runtime/audit.ts decisionOf): what the
// runtime answered decides it in one place, for exec's record (execRecord) as
// for hcpx mcp's and the library's (src/mcp/front.ts). A call cancelled before
// it started ran nothing: decision `cancelled`, never `ran`; a call cancelled
// while it ran stays `ran` (its result `cancelled` says how it ended). Before the
// fix every `cancelled` was `ran`.
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { loadPack, loadProject } from "../../src/pack/load";
import { runAdapter, type AdapterCall } from "../../src/runtime/adapters/index";
import { decisionOf, execRecord } from "../../src/runtime/audit";
import { StopSignal } from "../../src/runtime/cancel";
import { failure } from "../../src/runtime/envelope";
import { execute } from "../../src/runtime/execute";
import { cancelled } from "../../src/runtime/wrap";
import { fxPack, project } from "./support";

const ECHO = [{ verb_key: "echo", summary: "echo", cli: ["echo", "x"], args: {} }];

function scratch(confirm = false) {
  const p = project({
    packs: [fxPack("echo", "argv-echo.mjs", ECHO, {}, { echo: { operation: "write", land: "local", confirm } })],
  });
  return { p, project: loadProject({ config: p.config, user: false }) };
}

const decided = (env: { ok: boolean; error?: { code: string } }) =>
  decisionOf(env.ok ? "ok" : env.error!.code, env.error);

describe("decisionOf: a cancelled call that never started is `cancelled`, one that ran is `ran`", () => {
  it("the cancelled envelopes, as the runtime makes them", () => {
    expect(decided(cancelled("p v", undefined, false))).toBe("cancelled");
    expect(decided(cancelled("p v", undefined, true))).toBe("ran");
    // runAdapter's own: finished before it could be stopped
    expect(decided(failure("cancelled", "p v was cancelled while it ran", { finished: true }))).toBe("ran");
    // a `cancelled` that does not say it never started may have run: `ran`
    expect(decisionOf("cancelled")).toBe("ran");
    expect(decisionOf("ok")).toBe("ran");
    expect(decisionOf("confirm_declined")).toBe("declined");
  });

  it("an input the person declined or the client cannot answer ran nothing: `declined`, `refused` (not `ran`)", () => {
    expect(decisionOf("input_declined")).toBe("declined");
    expect(decisionOf("input_unavailable")).toBe("refused");
  });

  it("hcpx exec's record: a call cancelled before its bin started is `cancelled`; its envelope says it never started", async () => {
    const { project: proj } = scratch();
    const stop = new StopSignal();
    stop.abort("SIGTERM");
    const t0 = Date.now();
    const env = await execute(proj, { pack: "echo", verb: "echo", kv: [] }, { signal: stop });
    expect(env).toMatchObject({ ok: false, error: { code: "cancelled", started: false } });
    const rec = execRecord("echo", "echo", [], env, t0);
    expect({ decision: rec.decision, result: rec.result }).toEqual({ decision: "cancelled", result: "cancelled" });
  });

  it("a gated write cancelled before its question is asked: no one is asked, `cancelled` (no `withdrawn` answer of a question never put)", async () => {
    const { project: proj } = scratch(true);
    const stop = new StopSignal();
    stop.abort("SIGTERM");
    const asked: string[] = [];
    const env = await execute(
      proj,
      { pack: "echo", verb: "echo", kv: [] },
      { signal: stop, askPerson: async (q) => (asked.push(q.message), "withdrawn") },
    );
    expect(asked).toEqual([]);
    expect(env).toMatchObject({ ok: false, error: { code: "cancelled", started: false } });
  });

  it("a call cancelled while it ran is `ran` (runAdapter, the one way to every adapter)", async () => {
    const { p, project: proj } = scratch();
    const pack = loadPack(join(p.dir, "packs", "echo"));
    const ac = new AbortController();
    const call: AdapterCall = {
      pack,
      project: proj,
      cmd: pack.commands[0]!,
      values: {},
      literal: undefined,
      env: {},
      signal: ac.signal,
    };
    const ran = await runAdapter(call, {
      wrap: { load: async () => ({ run: async () => (ac.abort("SIGTERM"), { ok: true, data: null }) }) },
    });
    expect(execRecord("echo", "echo", [], ran, Date.now()).decision).toBe("ran");
    // and one cancelled before runAdapter started it
    const never = await runAdapter(call, {
      wrap: { load: async () => ({ run: async () => ({ ok: true, data: 1 }) }) },
    });
    expect(execRecord("echo", "echo", [], never, Date.now()).decision).toBe("cancelled");
  });
});

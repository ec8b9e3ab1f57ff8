// runAdapter(), the one way from execute() to an adapter: the cancel rules
// every kind gets from it, whatever its adapter does (a fake runner stands in
// for a kind whose adapter misbehaves).
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { loadPack, loadProject } from "../../src/pack/load";
import { runAdapter, type AdapterCall } from "../../src/runtime/adapters/index";
import { fxPack, project } from "./support";

function call(signal: AbortSignal): AdapterCall {
  const p = project({
    packs: [
      fxPack(
        "slow",
        "argv-echo.mjs",
        [{ verb_key: "echo", summary: "echo", cli: ["echo", "x"], args: {} }],
        {},
        { echo: { operation: "write", land: "local", confirm: false } },
      ),
    ],
  });
  const pack = loadPack(join(p.dir, "packs", "slow"));
  const cmd = pack.commands[0]!;
  return { pack, project: loadProject({ config: p.config }), cmd, values: {}, literal: undefined, env: {}, signal };
}

describe("runAdapter", () => {
  it("a call cancelled while it ran never answers ok, even when its adapter says ok (the write may have landed)", async () => {
    const ac = new AbortController();
    let ran = false;
    const env = await runAdapter(call(ac.signal), {
      wrap: {
        load: async () => ({
          run: async () => {
            ran = true;
            ac.abort("SIGTERM");
            return { ok: true, data: { landed: true } };
          },
        }),
      },
    });
    expect(ran).toBe(true);
    expect(env.ok).toBe(false);
    expect(!env.ok && env.error.code).toBe("cancelled");
    expect(!env.ok && env.error.message).toContain("SIGTERM");
    expect(!env.ok && env.error.finished).toBe(true);
  });

  it("a call already cancelled is never started", async () => {
    const ac = new AbortController();
    ac.abort("SIGINT");
    let ran = false;
    const env = await runAdapter(call(ac.signal), {
      wrap: { load: async () => ({ run: async () => ((ran = true), { ok: true, data: null }) }) },
    });
    expect(ran).toBe(false);
    expect(!env.ok && env.error.code).toBe("cancelled");
    expect(!env.ok && env.error.message).toMatch(/before it started; nothing was run/);
  });

  it("an error the adapter answered stays that error; an ok with no cancel stays ok", async () => {
    const ac = new AbortController();
    const err = await runAdapter(call(ac.signal), {
      wrap: { load: async () => ({ run: async () => ({ ok: false, error: { code: "exit_nonzero", message: "x" } }) }) },
    });
    expect(!err.ok && err.error.code).toBe("exit_nonzero");
    const ok = await runAdapter(call(ac.signal), {
      wrap: { load: async () => ({ run: async () => ({ ok: true, data: 1 }) }) },
    });
    expect(ok).toEqual({ ok: true, data: 1 });
  });

  it("a kind with no runner (sense_only) runs nothing", async () => {
    const ac = new AbortController();
    const env = await runAdapter(call(ac.signal), {});
    expect(!env.ok && env.error.code).toBe("unknown_verb");
  });
});

// hcpx mcp reads the called pack once per call and checks the call on what it read (a per-command tool's
// confirm, the args its inputs fill: src/mcp/front.ts), then hands the pack to execute(). When that read
// found no pack (its files mid-edit), execute() read it again and, if it loaded by then, ran the call on
// checks made on nothing (a race named in review, stop 63). Now the caller says so (pack: null): the pack
// is read again only to say why it does not load, and one that loads by then is refused, nothing run.
import { describe, expect, it } from "vitest";
import { loadProject } from "../../src/pack/load";
import { execute } from "../../src/runtime/execute";
import { scratchProject } from "../support/hcpx";

describe("execute() with the caller's read that found no pack (pack: null)", () => {
  it("refuses a pack that loads by then; the same call without the flag runs", async () => {
    const p = scratchProject({ packs: ["calc-wrap"] });
    const project = loadProject({ config: p.config, user: false });
    const req = { pack: "calc-wrap", verb: "add", kv: ["a=1", "b=2"] };
    const refused = await execute(project, req, { pack: null });
    expect(refused).toMatchObject({ ok: false, error: { code: "bad_pack" } });
    expect(!refused.ok && refused.error.message).toBe(
      "pack calc-wrap did not load when the call was read, and does now; nothing was run",
    );
    expect(await execute(project, req)).toMatchObject({ ok: true, data: { sum: 3 } });
  });

  it("a pack that still does not load says why, as before", async () => {
    const p = scratchProject({ packs: ["calc-wrap"] });
    const project = loadProject({ config: p.config, user: false });
    const r = await execute(project, { pack: "nope", verb: "add", args: {} }, { pack: null });
    expect(r).toMatchObject({ ok: false, error: { code: "unknown_pack" } });
  });
});

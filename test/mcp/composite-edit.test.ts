// A tools/call acts on the files as they are now, a composite pack's module too. hcpx exec imports it
// afresh each call (a process of its own); hcpx mcp keeps the module it imported while the file keeps
// its identity (src/runtime/composite.ts: one stat a call, the racy rule of src/util/stamp.ts) and
// imports it again under a URL of its own once it changed. Before, a running server imported it once
// (its `modules` map, and import()'s own by URL) and went on running the code that was on disk then
// after an editor saved a new one (found in review: 'v1' where exec answered 'v2').
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { envelope, ledgerProject, startMcp, type McpSession } from "./support";
import { RACY_MS } from "../../src/mcp/stamp";
import { runHcpx } from "../support/cli";

const aged = () => new Promise((r) => setTimeout(r, RACY_MS + 200));

describe("a composite module edited while hcpx mcp runs", () => {
  let s: McpSession | undefined;
  afterAll(async () => {
    await s?.close();
  });

  it("the next call runs the module as it is now: right after the edit, once it aged, and an edit of the same size", async () => {
    const p = ledgerProject({ packs: ["calc"], allow: ["calc.*"] });
    const mod = join(p.dir, "packs", "calc", "index.mjs");
    /** an editor's save: a new file renamed over the module (the same size for each answer) */
    const save = (answer: string) => {
      const t = `${mod}.tmp`;
      writeFileSync(
        t,
        `import { add, stats, convert } from './ops.mjs';\nexport default { ping: async () => (${JSON.stringify(answer)}), add: async (a) => add(a), stats: async (a) => stats(a), convert: async (a) => convert(a) };\n`,
      );
      renameSync(t, mod);
    };
    save("v1");
    await aged();
    s = await startMcp(p, { args: ["--no-watch"] });
    const ping = async () =>
      envelope(await s!.client.callTool({ name: "hcp", arguments: { pack: "calc", verb: "ping", args: {} } })).data;
    expect(await ping()).toBe("v1");
    expect(await ping()).toBe("v1");
    // within RACY_MS of the edit: the identity vouches for nothing, imported anew
    save("v2");
    expect(await ping()).toBe("v2");
    // aged: imported once more (by its identity), then kept; exec agrees
    await aged();
    expect(await ping()).toBe("v2");
    expect(await ping()).toBe("v2");
    const ex = await runHcpx(["exec", "calc", "ping", "--json"], { cwd: p.dir, env: { HOME: p.home } });
    expect(JSON.parse(ex.stdout)).toMatchObject({ ok: true, data: "v2" });
    // a kept module is not reused once its file changed (here with the same size)
    save("v3");
    expect(await ping()).toBe("v3");
    await aged();
    expect(await ping()).toBe("v3");
    // the module file removed: refused, as exec refuses it; back, it runs again
    renameSync(mod, `${mod}.away`);
    expect(
      envelope(await s.client.callTool({ name: "hcp", arguments: { pack: "calc", verb: "ping", args: {} } })),
    ).toMatchObject({ ok: false, error: { code: "bad_pack" } });
    renameSync(`${mod}.away`, mod);
    expect(await ping()).toBe("v3");
  }, 30_000);
});

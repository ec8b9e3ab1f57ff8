// issue 29: the build makes exec's and mcp's shipped code caches from one run each (scripts/build.mjs `runs`),
// and a user whose own cache folder has none reads that one on every call, not only the first: V8 takes it, so
// no cache of the user's is ever written (src/cli/load-command.ts). So a warm call through the shipped cache
// must compile about what a warm call through a cache of the user's own (made from their own first call) does,
// or every call pays for what the build's run did not reach. V8 tells how much bytecode a process compiled
// beyond what the bundle's cache gave (test/fixtures/preload/compiled-after.cjs: v8.getHeapCodeStatistics just
// after the bundle is compiled through a cache V8 took, and at the exit); Node's own modules loaded after that
// count on both sides alike.
// Measured (Node 20.20): exec 92.9 KB through the shipped cache against 91.8 KB through the user's own; mcp
// 163.3 KB against 159.5 KB. With exec's shipped cache made from a call that failed before its spawn (an unknown
// pack), a warm exec compiled 27.5 KB more than through the user's own; with mcp's made from a start that ended
// after initialize (no tools/list), a warm start compiled 8.8 KB more.
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { HCPX, REPO, run, scratchProject, tmp } from "../support/hcpx";
import { RACY_MS } from "../../src/util/stamp";
import { mcpStart } from "../support/mcp-lines.mjs";

const PRELOAD = join(REPO, "test/fixtures/preload/compiled-after.cjs");
/** past what a build's run and a user's own first run differ by (a few functions: 1.1 and 3.8 KB), below a missed path */
const SLACK = 6 * 1024;

/** Bytes of bytecode compiled after `bundle` (exec.cjs, mcp.cjs) was compiled through a cache V8 took. */
async function compiledAfter(bundle: string, args: string[], dir: string, env: Record<string, string>, input?: string) {
  const r = await run(process.execPath, ["-r", PRELOAD, HCPX, ...args], {
    cwd: dir,
    env: { ...env, COMPILED_AFTER: bundle },
    ...(input === undefined ? {} : { input }),
  });
  expect(r.code, r.stderr).toBe(0);
  const m = /^COMPILED (\d+)$/m.exec(r.stderr);
  expect(m, r.stderr).not.toBeNull(); // the bundle was compiled through a cache V8 took
  return Number(m![1]);
}

describe("the shipped code caches against a user's own, warm", () => {
  // a warm call remembers the project's files (src/pack/validcache.ts): they must be RACY_MS old first
  const p = scratchProject({ packs: ["calc-wrap"], allow: ["calc-wrap.*"] });
  const made = Date.now();
  const settled = () => new Promise((r) => setTimeout(r, Math.max(0, made + RACY_MS + 100 - Date.now())));

  /** The warm (third) call's figure with the shipped cache, and with the user's own (HCPX_NO_SHIPPED_CACHE=1). */
  async function both(bundle: string, args: string[], input?: string) {
    await settled();
    const figures: number[] = [];
    for (const extra of [{}, { HCPX_NO_SHIPPED_CACHE: "1" }] as Record<string, string>[]) {
      const env = { HOME: tmp("hcpx-warm-home-"), ...extra };
      // the first call writes the validation cache (and, without the shipped cache, the user's code cache);
      // the second is a warm one, as every later call is
      await run(process.execPath, [HCPX, ...args], { cwd: p.dir, env, ...(input === undefined ? {} : { input }) });
      figures.push(await compiledAfter(bundle, args, p.dir, env, input));
    }
    return { shipped: figures[0]!, own: figures[1]! };
  }

  it("a warm exec through the shipped cache compiles no more than one through the user's own", async () => {
    const { shipped, own } = await both("exec.cjs", ["exec", "calc-wrap", "ping", "--json"]);
    expect(own).toBeGreaterThan(0);
    expect(shipped - own).toBeLessThan(SLACK);
  });

  it("a host's warm start of hcpx mcp through the shipped cache compiles no more than one through the user's own", async () => {
    const { shipped, own } = await both("mcp.cjs", ["mcp"], mcpStart("legacy"));
    expect(own).toBeGreaterThan(0);
    expect(shipped - own).toBeLessThan(SLACK);
  });
});

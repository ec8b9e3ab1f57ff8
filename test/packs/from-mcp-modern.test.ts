// A modern-only MCP server (2026-07-28, answers no `initialize`; built on the
// SDK v2, test/fixtures/bins/modern-mcp.mjs) works as a pack: `hcpx pack
// from-mcp` probes it with server/discover, and the mcp adapter runs its tools.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO, runHcpx, tmp } from "../support/hcpx";
import { envelope } from "../cli/helpers";

const MODERN = join(REPO, "test/fixtures/bins/modern-mcp.mjs");
let dir: string;

beforeAll(async () => {
  dir = tmp("hcpx-from-mcp-modern-");
  expect((await runHcpx(["init", "--yes"], { cwd: dir })).code).toBe(0);
}, 60_000);

describe("a modern-only MCP server as a pack", () => {
  it("from-mcp writes the pack; its read runs; its destructive tool waits for a confirm, then runs once", async () => {
    const r = await runHcpx(
      ["pack", "from-mcp", "--id", "modern", "--env", "MODERN_FILE", "--json", "--", "node", MODERN],
      { cwd: dir, timeoutMs: 60_000 },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const e = envelope<{ commands: { verb_key: string; operation: string; confirm: boolean }[] }>(r);
    const byVerb = Object.fromEntries(e.data.commands.map((c) => [c.verb_key, c]));
    expect(byVerb.greet).toMatchObject({ operation: "read", confirm: false });
    expect(byVerb.stamp).toMatchObject({ operation: "write", confirm: true });
    expect((await runHcpx(["activate", "packs/modern"], { cwd: dir })).code).toBe(0);
    const exec = async (args: string[]) =>
      JSON.parse(
        (
          await runHcpx(["exec", "modern", ...args], {
            cwd: dir,
            env: { MODERN_FILE: join(dir, "stamps.txt") },
            timeoutMs: 30_000,
          })
        ).stdout,
      ) as { ok: boolean; data?: unknown; error?: { code: string } };
    expect(await exec(["greet", "--json", "--", "name=Ada"])).toEqual({ ok: true, data: { greeting: "hello Ada" } });
    expect((await runHcpx(["grant", "modern.stamp"], { cwd: dir })).code).toBe(0);
    expect(await exec(["stamp", "--json", "--", "text=one"])).toMatchObject({
      ok: false,
      error: { code: "confirm_required" },
    });
    expect(existsSync(join(dir, "stamps.txt"))).toBe(false);
    expect((await exec(["stamp", "--json", "--confirm", "--", "text=one"])).ok).toBe(true);
    expect(readFileSync(join(dir, "stamps.txt"), "utf8")).toBe("one\n");
  }, 120_000);
});

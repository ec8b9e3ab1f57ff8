// A wrap pack's surface is validated without building the schemas only other
// surfaces use (the openapi and mcp sections, a command's inputs, prompt and
// http: src/pack/schema-kinds.ts): about 40% of the schemas, ~6 M instructions
// of `hcpx exec`'s first call after install. Counted here as calls of zod's
// schema constructors (this file's module mock wraps each of zod/mini's
// functions; it runs in a worker of its own).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";

const made = vi.hoisted(() => ({ calls: 0, discriminatedUnion: 0 }));
vi.mock("zod/mini", async (importOriginal) => {
  const z = await importOriginal<Record<string, unknown>>();
  const counted = (name: string, f: (...a: unknown[]) => unknown) =>
    function (this: unknown, ...a: unknown[]) {
      made.calls++;
      if (name === "discriminatedUnion") made.discriminatedUnion++;
      return f.apply(this, a);
    };
  // the schema and check constructors (z.string(), z.strictObject(), z.regex(), …), not the classes
  return Object.fromEntries(
    Object.entries(z).map(([k, v]) => [k, typeof v === "function" && /^[a-z]/.test(k) ? counted(k, v as never) : v]),
  );
});

const { build } = await import("../../src/pack/schema-defs");
const { readValidated } = await import("../../src/pack/validate");

const dir = mkdtempSync(join(tmpdir(), "hcpx-lean-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, value: unknown) => {
  const f = join(dir, name);
  writeFileSync(f, JSON.stringify(value));
  return f;
};
const head = { hcp: "1.1", version: "0.1.0", description: "A pack" };
const wrapSurface = file("wrap.json", {
  ...head,
  id: "calc-wrap",
  kind: "wrap",
  wrap: { bin: "./calc", output: "json" },
  commands: [{ verb_key: "ping", summary: "Ping", cli: ["calc", "ping"], args: { a: { type: "number" } } }],
});
const mcpSurface = file("mcp.json", {
  ...head,
  id: "srv",
  kind: "mcp",
  mcp: { bin: "srv" },
  commands: [{ verb_key: "ping", summary: "Ping", tool: "ping" }],
});

describe("the schemas a wrap surface needs", () => {
  it("are the lean ones: validating a wrap surface builds no schema of openapi, mcp, inputs, prompt or http", () => {
    expect(made.calls).toBe(0); // nothing is built on import
    const v = readValidated("SurfaceSchema", wrapSurface, "wrap.json", 1 << 20);
    expect(v.data.id).toBe("calc-wrap");
    const wrapCalls = made.calls;
    // what build() makes without a read of the full schemas (a second, separate instance)
    const b = build();
    const lean = made.calls - wrapCalls;
    expect(wrapCalls).toBe(lean);
    expect(made.discriminatedUnion).toBe(0); // openapi's security schemes
    // the full schemas, built on first read: about 40% more
    expect(b.SurfaceSchema).toBe(b.SurfaceSchema);
    const heavy = made.calls - wrapCalls - lean;
    expect(heavy).toBeGreaterThan(lean / 2);
    expect(made.discriminatedUnion).toBe(1);
    // an mcp surface needs them: the process's schemas build them then, once
    const before = made.calls;
    expect(readValidated("SurfaceSchema", mcpSurface, "mcp.json", 1 << 20).data.mcp).toEqual({ bin: "srv" });
    expect(made.calls - before).toBe(heavy);
    readValidated("SurfaceSchema", mcpSurface, "mcp.json", 1 << 20);
    expect(made.calls - before).toBe(heavy);
  });
});

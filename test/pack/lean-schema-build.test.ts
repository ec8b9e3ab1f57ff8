// `hcpx exec` of a wrap pack validates its config, surface and policy without
// building the schemas only other files use (the openapi and mcp sections, a
// command's inputs, prompt and http: src/pack/schema-kinds.ts; a config's
// confirm and mcp; SKILL.md's frontmatter): about 45% of the schemas, ~7 M
// instructions of its first call after install. Counted here as calls of zod's
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

const config = file("config.json", { packs: ["./packs/calc-wrap"], grants: { allow: ["calc-wrap.*"] } });
const confirmConfig = file("confirm.json", { packs: ["./packs/calc-wrap"], confirm: "person" });
const policy = file("policy.json", { rows: { ping: { operation: "read" } } });
const MAX = 1 << 20;

describe("the schemas `hcpx exec` of a wrap pack needs", () => {
  it("are the lean ones: its config, surface and policy build no schema of openapi, mcp, inputs, prompt, http, confirm or SKILL.md", () => {
    expect(made.calls).toBe(0); // nothing is built on import
    expect(readValidated("ConfigSchema", config, "config.json", MAX).data.packs).toEqual(["./packs/calc-wrap"]);
    expect(readValidated("SurfaceSchema", wrapSurface, "wrap.json", MAX).data.id).toBe("calc-wrap");
    expect(readValidated("PolicySchema", policy, "policy.json", MAX).data.rows.ping?.operation).toBe("read");
    const exec = made.calls;
    // what build() makes before any getter is read (a second, separate instance)
    const b = build();
    const lean = made.calls - exec;
    expect(exec).toBe(lean);
    expect(made.discriminatedUnion).toBe(0); // openapi's security schemes
    // each getter builds its part on first read, once
    const cost = (read: () => unknown) => {
      const before = made.calls;
      read();
      const n = made.calls - before;
      read();
      expect(made.calls - before).toBe(n);
      return n;
    };
    const surface = cost(() => b.SurfaceSchema);
    expect(surface).toBeGreaterThan(lean / 2); // about 40% of all
    expect(made.discriminatedUnion).toBe(1);
    expect(cost(() => b.CommandSchema)).toBe(0); // with SurfaceSchema
    const fullConfig = cost(() => b.ConfigSchema);
    expect(fullConfig).toBeGreaterThan(10);
    expect(cost(() => b.SkillFrontmatterSchema)).toBeGreaterThan(5);
    // an mcp surface needs the full surface schema, and a config with confirm the full one: the process's schemas build them then, once
    expect(cost(() => readValidated("SurfaceSchema", mcpSurface, "mcp.json", MAX))).toBe(surface);
    expect(cost(() => readValidated("ConfigSchema", confirmConfig, "confirm.json", MAX))).toBe(fullConfig);
  });
});

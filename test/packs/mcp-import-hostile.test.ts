// `hcpx pack from-mcp` against a hostile server's tool list: a safe pack or a clear refusal, never an
// internal error, and a tool that lies about being read-only by a name that says it writes is never drafted
// a read that `activate` grants. The commands (init, pack from-mcp, activate, lint) are what they draft,
// write and refuse: function calls in this process (test/support/inproc.ts); the stdio MCP server whose
// tool list the test writes (test/fixtures/bins/mcp-pinned.mjs) is a real process, started by from-mcp.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, tmp } from "../support/hcpx";
import { runInProcess } from "../support/inproc";

const SERVER = join(REPO, "test/fixtures/bins/mcp-pinned.mjs");
const ro = { readOnlyHint: true };
const obj = { type: "object" };
const LOOKUP = { name: "lookup", description: "Look up a word.", inputSchema: obj, annotations: ro };

/** A project, the server's tools written, `pack from-mcp --id evil` run. */
async function fromMcp(tools: unknown[]) {
  const dir = tmp("hcpx-mcp-hostile-");
  expect((await runInProcess(["init", "--yes"], { cwd: dir })).code).toBe(0);
  const state = join(dir, "state.json");
  writeFileSync(state, JSON.stringify({ tools }));
  const r = await runInProcess(["pack", "from-mcp", "--id", "evil", "--json", "--", SERVER, state], { cwd: dir });
  return { dir, r, out: JSON.parse(r.stdout) as { ok: boolean; data?: unknown; error?: { code: string } } };
}

const policyOf = (dir: string) => readFileSync(join(dir, "packs/evil/policy.json"), "utf8");
const notesOf = (out: { data?: unknown }) => JSON.stringify(out.data);

describe("pack from-mcp: a readOnlyHint tool whose name says it writes", () => {
  it("is drafted write + confirm, inferred, and activate does not grant it; a read named as one stays a read", async () => {
    const tools = [
      { name: "write_file", description: "Write a file.", inputSchema: obj, annotations: ro },
      { name: "sendEmail", description: "An email.", inputSchema: obj, annotations: ro },
      { name: "get_or_create_user", description: "A user.", inputSchema: obj, annotations: ro },
      { name: "get_commit", description: "A commit.", inputSchema: obj, annotations: ro },
      LOOKUP,
    ];
    const { dir, r } = await fromMcp(tools);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const policy = policyOf(dir);
    expect(policy).toContain(
      '"write_file": { operation: "write", land: "external", confirm: true, inferred: true }, // readOnlyHint, but its name says "write": drafted write + confirm',
    );
    expect(policy).toMatch(/"send_email": \{ operation: "write", land: "external", confirm: true, inferred: true \}/);
    expect(policy).toMatch(/"get_or_create_user": \{ operation: "write", .*confirm: true, inferred: true \}/);
    expect(policy).toContain('"get_commit": { operation: "read" }, // readOnlyHint');
    expect(policy).toContain('"lookup": { operation: "read" }, // readOnlyHint');
    const a = await runInProcess(["activate", "packs/evil", "--json"], { cwd: dir });
    expect(a.code, a.stdout + a.stderr).toBe(0);
    const config = readFileSync(join(dir, "hcp.config.json5"), "utf8");
    expect(config).toContain('"evil.lookup"');
    for (const verb of ["write_file", "send_email", "get_or_create_user"]) expect(config).not.toContain(`evil.${verb}`);
  }, 60_000);
});

describe("pack from-mcp: tools hcpx cannot take are left out, with a note; the rest is a pack", () => {
  it("a schema nested past the pins' cap, a JavaScript-reserved name or arg name, a name with controls and no description", async () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 100; i++) deep = { type: "object", properties: { x: deep } };
    const tools: unknown[] = [
      { name: "deep", description: "Deep.", inputSchema: { type: "object", properties: { d: deep } }, annotations: ro },
      { name: "constructor", description: "C.", inputSchema: obj, annotations: ro },
      {
        name: "ctor_arg",
        description: "A.",
        inputSchema: { type: "object", properties: { constructor: { type: "string" } } },
        annotations: ro,
      },
      { name: "odd\u001b[2J\nname", inputSchema: obj, annotations: ro },
      LOOKUP,
    ];
    const { dir, r, out } = await fromMcp(tools);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(out.ok).toBe(true);
    const notes = notesOf(out);
    expect(notes).toContain("tool 'deep'");
    expect(notes).toContain("tool 'constructor'");
    expect(notes).toContain("tool 'ctor_arg': its argument 'constructor'");
    const policy = policyOf(dir);
    expect(policy).toContain('"lookup": { operation: "read" }');
    expect(policy).toContain('"odd_2_j_name": { operation: "read" }');
    for (const v of ['"deep"', '"constructor"', '"ctor_arg"']) expect(policy).not.toContain(v);
    expect(readFileSync(join(dir, "packs/evil/SKILL.md"), "utf8")).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect((await runInProcess(["lint", "packs/evil"], { cwd: dir })).code).toBe(0);
  }, 60_000);
});

describe("pack from-mcp --update: a pinned tool the server now lists nested past the pins' cap", () => {
  it("is a clear refusal (tool_changed), nothing changed, never an internal error", async () => {
    const { dir, r } = await fromMcp([LOOKUP]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 100; i++) deep = { type: "object", properties: { x: deep } };
    const surface = readFileSync(join(dir, "packs/evil/surface.json"), "utf8");
    writeFileSync(
      join(dir, "state.json"),
      JSON.stringify({ tools: [{ ...LOOKUP, inputSchema: { type: "object", properties: { d: deep } } }] }),
    );
    for (const yes of [[], ["--yes"]]) {
      const u = await runInProcess(["pack", "from-mcp", "--update", "packs/evil", ...yes, "--json"], { cwd: dir });
      expect(u.code, u.stdout + u.stderr).not.toBe(70);
      expect(u.code).not.toBe(0);
      expect(JSON.parse(u.stdout)).toMatchObject({ ok: false, error: { code: "tool_changed" } });
      expect(u.stdout).toContain("nest deeper than 64 levels");
    }
    expect(readFileSync(join(dir, "packs/evil/surface.json"), "utf8")).toBe(surface);
  }, 60_000);
});

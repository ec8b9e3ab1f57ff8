// Issue 29: what the model sees of the single `hcp` tool is bounded (≤ 8 KB of
// tools/list) whatever the number of packs; the packs that do not fit are
// listed by hcp__read_skill without a pack (the pack index, a page at a time);
// and nothing the entry does not serve — a withheld command, in a verb list, a
// lead or the index — is ever named (issue 26).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { McpFront } from "../../src/mcp/front";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** n packs of 6 verbs each; `vault.wipe` is denied in every pack and named in its leads. */
function project(n: number): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-bounded-")));
  dirs.push(dir);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `pack-${String(i).padStart(4, "0")}`;
    ids.push(id);
    const pd = join(dir, "packs", id);
    mkdirSync(pd, { recursive: true });
    const verbs = ["item.get", "item.list", "item.put", "item.remove", "status", "vault.wipe"];
    const commands = verbs.map((v) => ({
      verb_key: v,
      summary: `Do ${v} on the items of ${id}`,
      cli: [id, ...v.split("."), "{{name}}"],
      args: { name: { type: "string", required: true, description: "Item name" } },
    }));
    const rows = Object.fromEntries(
      verbs.map((v) => [
        v,
        v === "item.get" || v === "item.list" || v === "status"
          ? { operation: "read" }
          : { operation: "write", land: "remote", ...(v !== "item.put" ? { confirm: true } : {}) },
      ]),
    );
    writeFileSync(
      join(pd, "surface.json"),
      JSON.stringify({
        hcp: "1.1",
        id,
        version: "1.0.0",
        description: `Pack ${id}`,
        kind: "wrap",
        wrap: { bin: "../../bins/x.mjs", json_flag: "--json", output: "json" },
        commands,
      }),
    );
    writeFileSync(join(pd, "policy.json"), JSON.stringify({ rows }));
    writeFileSync(
      join(pd, "SKILL.md"),
      `---\nname: ${id}\ndescription: "Pack ${id}: items."\nleads:\n  - "${id}: items, read and changed"\n  - "${id}: vault.wipe empties the vault"\n---\n\n# ${id}\n\nUse \`item.get\`.\n`,
    );
  }
  writeFileSync(
    join(dir, "hcp.config.json5"),
    JSON.stringify({
      packs: ids.map((id) => `./packs/${id}`),
      principal: { id: "t", kind: "agent" },
      grants: { allow: ["*"], deny: ids.map((id) => `${id}.vault.wipe`) },
    }),
  );
  return dir;
}

const text = (r: unknown) => (r as { content: { text: string }[] }).content[0]!.text;
const call = (f: McpFront, name: string, input: Record<string, unknown>) =>
  f.callTool(name, input, { era: "legacy", signal: new AbortController().signal });

describe("hcpx mcp: the single tool's list is bounded", () => {
  for (const n of [1, 40, 600]) {
    it(`${n} pack(s): tools/list ≤ 8 KB, every pack reachable, no withheld command named`, async () => {
      const f = new McpFront({ shape: "single", cwd: project(n), audit: () => {} });
      expect(f.view.packs).toHaveLength(n);
      const listed = JSON.stringify(f.listed);
      expect(listed.length).toBeLessThanOrEqual(8192);
      expect(f.instructions.length).toBeLessThanOrEqual(8192);
      expect(listed).not.toContain("vault.wipe");
      expect(f.instructions).not.toContain("vault.wipe");
      // every granted pack is reachable: in the description, or through the index
      const desc = (f.listed[0] as { description: string }).description;
      const seen = new Set<string>();
      for (const m of desc.matchAll(/^- (pack-\d{4})/gm)) seen.add(m[1]!);
      if (seen.size < n) {
        expect(desc).toContain(`and ${n - seen.size} more of ${n} packs`);
        const read = f.listed[1] as { inputSchema: { required?: string[] } };
        expect(read.inputSchema.required ?? []).not.toContain("pack");
        for (let page = 1; seen.size < n; page++) {
          const t = text(await call(f, "hcp__read_skill", page === 1 ? {} : { page }));
          expect(t).not.toContain("vault.wipe");
          const before = seen.size;
          for (const m of t.matchAll(/^- (pack-\d{4}): (.*)$/gm)) {
            seen.add(m[1]!);
            expect(m[2]).toContain("item.remove[w:remote, confirm required]");
          }
          expect(seen.size).toBeGreaterThan(before);
        }
      } else expect(desc).not.toContain("more of");
      expect(seen.size).toBe(n);
    });
  }

  it("a page past the end lists none; a bad page is bad_args", async () => {
    const f = new McpFront({ shape: "single", cwd: project(3), audit: () => {} });
    expect(text(await call(f, "hcp__read_skill", { page: 9 }))).toContain("- (none)");
    const bad = (await call(f, "hcp__read_skill", { page: 0 })) as {
      isError?: boolean;
      structuredContent?: { ok: boolean; error?: { code: string } };
    };
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent?.error?.code).toBe("bad_args");
  });
});

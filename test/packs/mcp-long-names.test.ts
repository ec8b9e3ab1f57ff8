// pack from-mcp with tool names too long for a host: the verb_key is fitted so that `hcp` + `<pack>__<verb>`
// stays within every host's limit (the way from-openapi fits an operationId: src/openapi/names.ts fitVerb),
// deterministically, distinct after dots become `_`, the command keeping the tool's full name for the call,
// and the import's notes saying which tool was renamed and to what. The drafted pack lints clean.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { draftFromTools, renderPolicy, renderSkill, renderSurface, type McpToolInfo } from "../../src/mcpimport/import";
import { lintPackDir, MAX_SERVER_TOOL, SERVER_NAME, TOOL_NAME_RE } from "../../src/pack/lint";
import { toolName } from "../../src/pack/model";
import { HCPX, REPO, baseEnv, tmp } from "../support/hcpx";
import { runHere } from "../support/inproc";
import { connectMcp } from "../support/mcp";
import { envelope } from "../cli/helpers";

/** from-mcp, lint and exec as calls in this process (test/support/inproc.ts); `hcpx mcp` and the server are processes. */
const runHcpx = runHere;
const SERVER = join(REPO, "test/fixtures/bins/mcp-pinned.mjs");

const tool = (name: string): McpToolInfo => ({
  name,
  inputSchema: { type: "object" },
  annotations: { readOnlyHint: true },
});
const draft = (names: string[], id = "longnames") =>
  draftFromTools(names.map(tool), { id, bin: "node", args: [], env: [], server: { name: "long" } });

/** The 70-character name, and two long names that share their first 60 characters. */
const LONG70 = "get_the_complete_list_of_every_repository_in_an_organisation_sorted_xy";
const PREFIX60 = "search_repositories_issues_pull_requests_and_discussions_acr";
const SHARED = [`${PREFIX60}oss_org_by_label`, `${PREFIX60}oss_org_by_author`];

/** The drafted pack written to a directory and linted: its problems. */
function lintDraft(d: ReturnType<typeof draft>) {
  const dir = join(tmp("hcpx-mcp-long-"), d.id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "surface.json"), renderSurface(d));
  writeFileSync(join(dir, "policy.json"), renderPolicy(d));
  writeFileSync(join(dir, "SKILL.md"), renderSkill(d));
  return lintPackDir(dir).problems;
}

describe("pack from-mcp: a tool name too long for the hosts", () => {
  it("gets a verb_key that fits, distinct, deterministic; the command calls the full name; the notes say so", () => {
    expect(LONG70).toHaveLength(70);
    expect(SHARED[0]!.slice(0, 60)).toBe(SHARED[1]!.slice(0, 60));
    const d = draft([LONG70, ...SHARED, "lookup"]);
    expect(d.commands.map((c) => c.tool)).toEqual([LONG70, ...SHARED, "lookup"]);
    const names = d.commands.map((c) => toolName(d.id, c.verb_key));
    for (const n of names) {
      expect(n).toMatch(TOOL_NAME_RE);
      expect(SERVER_NAME.length + n.length).toBeLessThanOrEqual(MAX_SERVER_TOOL);
    }
    expect(new Set(names).size).toBe(4);
    expect(d.commands[3]!.verb_key).toBe("lookup"); // a name that fits is kept as it is
    // the same tool list gives the same keys
    expect(draft([LONG70, ...SHARED, "lookup"]).commands.map((c) => c.verb_key)).toEqual(
      d.commands.map((c) => c.verb_key),
    );
    for (const c of d.commands.slice(0, 3))
      expect(d.notes).toContainEqual(
        expect.stringContaining(`tool '${c.tool}': verb_key shortened to '${c.verb_key}'`),
      );
    expect(d.notes.join("\n")).toMatch(
      /a shorter pack id, --id, leaves more\); the command calls the tool by its full name/,
    );
    expect(lintDraft(d)).toEqual([]);
  });

  it("a tool named like another's fitted verb_key: both get keys that fit and differ", () => {
    const first = draft([LONG70]).commands[0]!.verb_key;
    const d = draft([LONG70, first]);
    const keys = d.commands.map((c) => c.verb_key);
    expect(keys[0]).toBe(first);
    expect(keys[1]).not.toBe(first);
    for (const k of keys) expect(SERVER_NAME.length + toolName(d.id, k).length).toBeLessThanOrEqual(MAX_SERVER_TOOL);
    expect(d.notes).toContainEqual(
      expect.stringContaining(`tool '${first}': verb_key '${first}' was taken, named '${keys[1]}'`),
    );
    expect(lintDraft(d)).toEqual([]);
  });

  it("a long pack id with ordinary tool names: the verbs are fitted to what the id leaves, and the pack lints", () => {
    const id = "a-very-long-pack-id-of-32-charss";
    expect(id).toHaveLength(32);
    const d = draft(["read_text_file", "list_directory", "lookup", "read_text_files"], id);
    for (const c of d.commands)
      expect(SERVER_NAME.length + toolName(id, c.verb_key).length).toBeLessThanOrEqual(MAX_SERVER_TOOL);
    expect(d.commands.find((c) => c.tool === "lookup")!.verb_key).toBe("lookup");
    expect(d.notes.join("\n")).toContain(
      `'${id}__<verb>', stays within ${MAX_SERVER_TOOL} characters: 13 for the verb`,
    );
    expect(lintDraft(d)).toEqual([]);
  });

  it("property: any tool names, any pack id — every host tool name fits, none meet, the same list gives the same keys", () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9]{0,20}$/);
    const name = fc.array(word, { minLength: 1, maxLength: 8 }).map((ws) => ws.join("_"));
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.oneof(
            name,
            name.map((n) => n.replace(/_/g, ".")),
            name.map((n) => `${n}${"_x".repeat(30)}`),
          ),
          { minLength: 1, maxLength: 12 },
        ),
        fc.stringMatching(/^[a-z][a-z0-9-]{0,31}$/),
        (names, id) => {
          const d = draft(names, id);
          expect(d.commands).toHaveLength(names.length);
          const tools = d.commands.map((c) => toolName(id, c.verb_key));
          for (const t of tools) expect(SERVER_NAME.length + t.length).toBeLessThanOrEqual(MAX_SERVER_TOOL);
          expect(new Set(tools).size).toBe(tools.length);
          expect(draft(names, id).commands.map((c) => c.verb_key)).toEqual(d.commands.map((c) => c.verb_key));
        },
      ),
      { numRuns: 200 },
    );
  });
});

type Imported = {
  commands: { verb_key: string; tool: string }[];
  notes: string[];
  lint: { errors: number; warnings: number };
};

describe("pack from-mcp of a server with long tool names, end to end", () => {
  it("the pack lints; exec and `hcpx mcp` reach the server by the full name; --update and a new import keep the keys", async () => {
    const dir = tmp("hcpx-mcp-long-e2e-");
    const state = join(dir, "state.json");
    const setTools = (tools: McpToolInfo[]) => writeFileSync(state, JSON.stringify({ tools }));
    expect((await runHcpx(["init", "--yes"], { cwd: dir })).code).toBe(0);
    setTools([LONG70, ...SHARED, "lookup"].map(tool));
    const r = await runHcpx(["pack", "from-mcp", "--id", "longnames", "--json", "--", SERVER, state], {
      cwd: dir,
      timeoutMs: 30_000,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const e = envelope<Imported>(r).data;
    expect(e.lint).toMatchObject({ errors: 0, warnings: 0 });
    const verbOf = (cmds: Imported["commands"], t: string) => cmds.find((c) => c.tool === t)!.verb_key;
    const keys = [LONG70, ...SHARED, "lookup"].map((t) => verbOf(e.commands, t));
    expect(e.notes).toHaveLength(3);
    const lint = await runHcpx(["lint", "packs/longnames", "--json"], { cwd: dir });
    expect(lint.code, lint.stdout).toBe(0);
    expect((await runHcpx(["activate", "packs/longnames"], { cwd: dir })).code).toBe(0);

    const exec = async (verb: string) => {
      const x = await runHcpx(["exec", "longnames", verb, "--json"], { cwd: dir, timeoutMs: 30_000 });
      return JSON.parse(x.stdout) as { ok: boolean; data?: { called?: string } };
    };
    expect((await exec(keys[0]!)).data?.called).toBe(LONG70);
    expect((await exec(keys[2]!)).data?.called).toBe(SHARED[1]);

    // `hcpx mcp`, one tool per command: every name within 64, the call reaching the server by the full name
    const conn = await connectMcp(
      [HCPX, "mcp", "--no-watch", "--shape", "per-command"],
      dir,
      baseEnv() as Record<string, string>,
    );
    try {
      const names = (await conn.client.listTools()).tools.map((t) => t.name);
      for (const k of keys) expect(names).toContain(toolName("longnames", k));
      for (const n of names) expect(n).toMatch(TOOL_NAME_RE);
      const call = await conn.client.callTool({ name: toolName("longnames", keys[1]!), arguments: {} });
      expect(JSON.stringify(call)).toContain(`"called":"${SHARED[0]}"`);
    } finally {
      await conn.client.close();
    }

    // the server changes a long-named tool: --update --yes pins it again, the keys stay
    setTools([{ ...tool(LONG70), description: "Lists them all." }, ...[...SHARED, "lookup"].map(tool)]);
    const upd = await runHcpx(["pack", "from-mcp", "--update", "packs/longnames", "--yes", "--json"], {
      cwd: dir,
      timeoutMs: 30_000,
    });
    expect(upd.code, upd.stdout + upd.stderr).toBe(0);
    expect(envelope<{ changes: { verb: string; tool: string }[] }>(upd).data.changes.map((c) => c.verb)).toEqual(keys);
    const surface = readFileSync(join(dir, "packs/longnames/surface.json"), "utf8");
    for (const k of keys) expect(surface).toContain(`"verb_key": "${k}"`);
    expect((await exec(keys[0]!)).data?.called).toBe(LONG70);
    // the same tool list imported again gives the same keys
    const again = await runHcpx(
      ["pack", "from-mcp", "--id", "longnames", "--out", "packs/again", "--json", "--", SERVER, state],
      { cwd: dir, timeoutMs: 30_000 },
    );
    expect(again.code, again.stdout).toBe(0);
    const cmds = envelope<Imported>(again).data.commands;
    expect([LONG70, ...SHARED, "lookup"].map((t) => verbOf(cmds, t))).toEqual(keys);
  }, 120_000);
});

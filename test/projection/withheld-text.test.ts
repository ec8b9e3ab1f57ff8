// Issue 26 §1: withheld means absent in free text too. On every bundled pack and
// on packs imported from real MCP servers (`pack from-mcp`), for every command
// withheld alone, for every write withheld, and for all but one withheld: the
// projected leads and Skill description name no withheld command, are not cut
// mid-name, and leave no dangling label or clause ("list and get are reads
// needs confirm.", "confirm: edit_f…", "Commands: …, write_file").
import { readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadPack } from "../../src/pack/load";
import type { Pack, Project } from "../../src/pack/model";
import { buildProjection } from "../../src/projection/build";
import { filterLeads, namesWithheld } from "../../src/projection/skillcopy";
import { REPO } from "../support/cli";
import { runInProcess } from "../support/inproc";
import { tmp } from "../support/project";

function project(allow: string[], deny: string[]): Project {
  return {
    root: REPO,
    packDirs: [],
    principal: { id: "t", kind: "agent" },
    grants: { allow, deny },
    sandbox: { bins: {}, roots: [REPO], cwd: REPO },
    confirm: { by: "host", timeoutMs: 120_000 },
    warnings: [],
  };
}

const bundled = readdirSync(join(REPO, "packs")).filter((d) => existsSync(join(REPO, "packs", d, "surface.json")));
const imported: Pack[] = [];

beforeAll(async () => {
  const dir = tmp("hcpx-withheld-");
  const servers: [string, string[]][] = [
    ["fs", ["node", join(REPO, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), dir]],
    ["everything", ["node", join(REPO, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"]],
  ];
  for (const [id, argv] of servers) {
    // in this process (test/support/inproc.ts); the MCP server is the process from-mcp starts
    const r = await runInProcess(["pack", "from-mcp", "--id", id, "--json", "--", ...argv], { cwd: dir });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    imported.push(loadPack(join(dir, "packs", id)));
  }
}, 120_000);

/** The withholdings tried on one pack: each command alone, every write, all but each one. */
function cases(p: Pack): string[][] {
  const verbs = p.commands.map((c) => c.verb_key);
  const writes = p.commands.filter((c) => c.policy.operation === "write").map((c) => c.verb_key);
  const out = verbs.map((v) => [v]);
  if (writes.length) out.push(writes);
  if (verbs.length > 1) for (const v of verbs) out.push(verbs.filter((x) => x !== v));
  return out;
}

function checkText(p: Pack, deny: string[], what: string, text: string, bare: boolean): void {
  const w = { packId: p.id, verbs: deny };
  const at = `${p.id} without ${deny.join(", ")}: ${what} ${JSON.stringify(text)}`;
  expect(namesWithheld(text, w, { prose: bare }), at).toBe(false);
  // an identifier-like command name (write_file, entry.delete) is never prose: not even as a plain word
  for (const v of deny.filter((x) => /[_.]/.test(x)))
    expect(new RegExp(`(?<![\\w.-])${v.replace(/[.]/g, "\\.")}(?![\\w-]|\\.\\w)`).test(text), at).toBe(false);
  // nothing cut mid-name: every identifier-like word is a whole command name or not a command at all
  const names = new Set(p.commands.map((c) => c.verb_key));
  for (const tok of text.match(/[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+…?/g) ?? [])
    if (tok.endsWith("…")) expect(names.has(tok.slice(0, -1)), `${at}: '${tok}'`).toBe(false);
  // no dangling label, separator or clause
  expect(text, at).not.toMatch(/:\s*(?:…|[.;,)]|$)|\(\s*\)|[,;]\s*[.)]|^[,;.\s]|\s[,;.]|\breads needs\b/);
}

function checkAll(p: Pack): void {
  for (const deny of cases(p)) {
    const proj = buildProjection(
      project(
        [`${p.id}.*`],
        deny.map((v) => `${p.id}.${v}`),
      ),
      [p],
    );
    const pp = proj.packs.find((x) => x.pack.id === p.id);
    if (!pp) continue; // nothing granted
    for (const l of pp.leads) checkText(p, deny, "lead", l, true);
    checkText(p, deny, "description", pp.description, false);
    const skill = proj.skills.find((s) => s.packId === p.id)!.content;
    const fm = skill.slice(0, skill.indexOf("\n---", 4));
    expect(
      namesWithheld(fm, { packId: p.id, verbs: deny }),
      `${p.id} without ${deny.join(", ")}: Skill frontmatter`,
    ).toBe(false);
    expect(proj.promptBlock, `${p.id} without ${deny.join(", ")}: prompt block`).not.toMatch(
      new RegExp(deny.map((v) => `\\b${p.id}__${v.replace(/\./g, "_")}\\b`).join("|") || "^$"),
    );
  }
}

describe("withheld commands are absent from free text", () => {
  for (const id of bundled) it(`bundled pack ${id}`, () => checkAll(loadPack(join(REPO, "packs", id))));
  it("packs imported from real MCP servers (server-filesystem, server-everything)", () => {
    expect(imported.length).toBe(2);
    for (const p of imported) checkAll(p);
  });

  it("a clause about a withheld command goes with it; a list loses only the item", () => {
    const todo = ["list", "get", "create", "update", "delete"];
    const lead = "todo: the user's to-do list; list and get are reads, delete needs confirm.";
    expect(filterLeads([lead], { packId: "todo", verbs: ["delete"], all: todo })).toEqual([
      "todo: the user's to-do list; list and get are reads.",
    ]);
    const fs = ["read_file", "list_directory", "write_file", "edit_file"];
    const fsLead =
      "fs: Secure MCP Filesystem Server tools; reads: read_file, list_directory; confirm: write_file, edit_file";
    expect(filterLeads([fsLead], { packId: "fs", verbs: ["write_file", "edit_file"], all: fs })).toEqual([
      "fs: Secure MCP Filesystem Server tools; reads: read_file, list_directory",
    ]);
    const ledger = "Read first (accounts, balance, entries). Needs confirm: transfer, entry.delete.";
    expect(
      filterLeads([ledger], {
        packId: "ledger",
        verbs: ["transfer", "entry.delete"],
        all: ["accounts", "balance", "entries", "transfer", "entry.delete"],
      }),
    ).toEqual(["Read first (accounts, balance, entries)."]);
  });
});

// Host descriptors are checked strictly when loaded: an unknown key, a keyed target
// without its `entry`, a template where the format takes none, a slot filled twice
// are errors naming the file and the JSON path. Every shipped descriptor loads.
import { describe, expect, it } from "vitest";
import { checkDescriptor, listHosts, loadDescriptor } from "../../src/host/descriptor";

let n = 0;
/**
 * A descriptor with one project-scope target, checked as loadDescriptor checks `hosts/<host>.json5`
 * (checkDescriptor): written into the repository's hosts/, it was seen by every file running beside this
 * one (adopt's plans listed it; test/adopt/paths-fast.test.ts counted its lookups).
 */
function load(target: Record<string, unknown>, top: Record<string, unknown> = {}) {
  const host = `zz-desc-${n++}`;
  const text = JSON.stringify({
    host,
    name: "Z",
    ...top,
    scopes: { project: { targets: [{ id: "mcp", path: "z.json", ...target }] } },
  });
  return () => checkDescriptor(host, text, `hosts/${host}.json5`);
}
const mcp = { format: "json", key: ["mcpServers", "hcp"], entry: { fields: { command: "command", args: "args" } } };

describe("host descriptors", () => {
  it("every shipped descriptor loads", () => {
    for (const h of [...listHosts(), ...listHosts("bundle")]) expect(() => loadDescriptor(h), h).not.toThrow();
  });
  it("a good entry loads", () =>
    expect(load(mcp)().scopes.project!.targets[0]!.entry!.fields).toEqual({ command: "command", args: "args" }));
  // what the host reads instead of a file, and a limit it reads from its own config (Codex: AGENTS.override.md, project_doc_max_bytes)
  const block = { path: "Z.md", format: "markdown-block", template: "instructions.md.hbs", maxBytes: 100 };
  const from = { path: [".z/config.toml", "~/.z/config.toml"], format: "toml", key: ["max"] };
  it("a block target with shadowedBy, maxBytesFrom and chain loads", () => {
    const t = load({
      ...block,
      shadowedBy: { files: ["Z.override.md"], empty: "hides" },
      maxBytesFrom: from,
      chain: { markers: [".git"] },
    })().scopes.project!.targets[0]!;
    expect(t.shadowedBy).toEqual({ files: ["Z.override.md"], empty: "hides" });
    expect(t.maxBytesFrom).toEqual(from);
    expect(t.chain).toEqual({ markers: [".git"] });
  });
  const bad: [string, Record<string, unknown>, RegExp, string, Record<string, unknown>?][] = [
    [
      "an unknown key in the entry",
      { ...mcp, entry: { ...mcp.entry, typo: 1 } },
      /typo/,
      "scopes.project.targets[0].entry.typo",
    ],
    [
      "an unknown slot",
      { ...mcp, entry: { fields: { command: "commandd" } } },
      /./,
      "scopes.project.targets[0].entry.fields.command",
    ],
    [
      "a keyed target without entry",
      { format: "json", key: ["a"] },
      /needs `entry`/,
      "scopes.project.targets[0].entry",
    ],
    [
      "a keyed target with a template",
      { ...mcp, template: "x.hbs" },
      /has no template/,
      "scopes.project.targets[0].template",
    ],
    [
      "both command and argv",
      { ...mcp, entry: { fields: { command: "command", x: "argv" } } },
      /not both or neither/,
      "scopes.project.targets[0].entry.fields",
    ],
    [
      "a slot filled twice",
      { ...mcp, entry: { fields: { command: "command", args: "args", more: "args" } } },
      /fills both/,
      "scopes.project.targets[0].entry.fields.more",
    ],
    [
      "env without envSyntax",
      { ...mcp, entry: { fields: { command: "command", env: "env" } } },
      /envSyntax/,
      "scopes.project.targets[0].envSyntax",
    ],
    [
      "a fixed field without a value",
      { ...mcp, entry: { fields: { command: "command", type: {} } } },
      /value/,
      "scopes.project.targets[0].entry.fields.type",
    ],
    [
      "toolApprovals without the descriptor's",
      { ...mcp, entry: { fields: { command: "command", tools: "toolApprovals" } } },
      /toolApprovals/,
      "scopes.project.targets[0].entry.fields",
    ],
    // issue 27: how the host reads its rules is data too, checked like the rest
    [
      "widens on a target without rules",
      { ...mcp, widens: { name: "x", match: "exact", order: "any" } },
      /widens\.at/,
      "scopes.project.targets[0].widens.at",
    ],
    [
      "widens with an unknown order",
      {
        format: "json",
        key: ["a"],
        items: { read: ["{tool}"] },
        widens: { name: "x", match: "exact", order: "latest" },
      },
      /./,
      "scopes.project.targets[0].widens.order",
    ],
    [
      "widens on members without allow",
      {
        format: "json",
        key: ["a"],
        members: { pattern: "{tool}", read: "allow" },
        widens: { name: "x", match: "glob", order: "any" },
      },
      /allow/,
      "scopes.project.targets[0].widens.allow",
    ],
    [
      "an object rule's field without its decision",
      {
        format: "json",
        key: ["a"],
        items: { read: [{ tool: "{tool}" }] },
        widens: { name: "x", match: "glob", field: "tool", order: "first" },
      },
      /field.*decision/,
      "scopes.project.targets[0].widens",
    ],
    [
      "an entry on a prose target",
      { format: "file", template: "rule.md.hbs", entry: mcp.entry },
      /no `key` or `entry`/,
      "scopes.project.targets[0].entry",
    ],
    [
      "an unknown key in shadowedBy",
      { ...block, shadowedBy: { files: ["Z.override.md"], empty: "hides", typo: 1 } },
      /typo/,
      "scopes.project.targets[0].shadowedBy.typo",
    ],
    [
      "a shadowedBy file in another folder",
      { ...block, shadowedBy: { files: ["../Z.override.md"], empty: "hides" } },
      /./,
      "scopes.project.targets[0].shadowedBy.files[0]",
    ],
    [
      "shadowedBy on a keyed target",
      { ...mcp, shadowedBy: { files: ["z.local.json"], empty: "skipped" } },
      /markdown-block/,
      "scopes.project.targets[0].shadowedBy",
    ],
    [
      "maxBytesFrom without maxBytes (the host's default)",
      { ...block, maxBytes: undefined, maxBytesFrom: from },
      /maxBytes/,
      "scopes.project.targets[0].maxBytesFrom",
    ],
    [
      "an unknown key in maxBytesFrom",
      { ...block, maxBytesFrom: { ...from, default: 5 } },
      /default/,
      "scopes.project.targets[0].maxBytesFrom.default",
    ],
    [
      "a maxBytesFrom path out of the project",
      { ...block, maxBytesFrom: { ...from, path: "../z.toml" } },
      /stay inside|start with ~\//,
      "scopes.project.targets[0].maxBytesFrom.path",
    ],
    [
      "chain without maxBytes",
      { ...block, maxBytes: undefined, chain: { markers: [".git"] } },
      /maxBytes/,
      "scopes.project.targets[0].chain",
    ],
    [
      "a home that moves no path of the descriptor (a misspelling would leave the host's files unread)",
      mcp,
      /would move nothing/,
      'homes["~/.z"]',
      { homes: { "~/.z": "$Z_HOME" } },
    ],
    ["a home whose value is not `$VAR` or `$VAR/<path>`", mcp, /./, 'homes["~/.z"]', { homes: { "~/.z": "Z_HOME" } }],
    ["a home key that is not a `~/…` path", mcp, /./, 'homes["~/../z"]', { homes: { "~/../z": "$Z_HOME" } }],
    [
      "a written field marked remote",
      { ...mcp, entry: { ...mcp.entry, remote: ["command"] } },
      /remote/,
      "scopes.project.targets[0].entry.remote",
    ],
  ];
  it("a home moves the user-scope paths below it (and a file of its own), with a variable each", () => {
    const host = `zz-desc-${n++}`;
    const homes = { "~/.z": "$Z_HOME", "~/.z.json": "$Z_HOME/.z.json" };
    const user = {
      targets: [
        { id: "mcp", path: "~/.z.json", ...mcp },
        { id: "skills", path: "~/.z/skills", format: "dir-of-skills" },
      ],
    };
    const text = JSON.stringify({ host, name: "Z", homes, scopes: { user } });
    expect(checkDescriptor(host, text, `hosts/${host}.json5`).homes).toEqual(homes);
  });
  for (const [what, target, message, path, top] of bad) {
    it(`refuses ${what}`, () => {
      let err: unknown;
      try {
        load(target, top)();
      } catch (e) {
        err = e;
      }
      const p = (err as { problems?: { code: string; message: string; path?: string; file?: string }[] }).problems?.[0];
      expect(p, what).toBeDefined();
      expect(p!.message).toMatch(message);
      expect(p!.file).toMatch(/^hosts\/zz-desc-/);
      expect(p!.path).toBe(path);
    });
  }
});

// src/host/yamledit.ts in-process: for each shape of file, an insertion adds only
// lines, a removal gives back the file byte for byte, a replacement changes only the
// entry's lines, and what it cannot edit exactly is refused (the file is never rewritten).
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { removeYaml, setYaml, yamlValueAt, parseYamlFor, type YamlKey } from "../../src/host/yamledit";
import { HcpxError } from "../../src/util/errors";

const GOOSE: YamlKey = { path: ["extensions", "hcp"] };
const LIST: YamlKey = { path: ["mcpServers", "hcp"], named: "name" };
const ext = { name: "hcp", type: "stdio", cmd: "hcpx", args: ["mcp"], enabled: true };
const item = { name: "hcp", command: "hcpx", args: ["mcp"] };

const texts: [string, YamlKey, unknown, string][] = [
  ["empty file", GOOSE, ext, ""],
  ["only comments", GOOSE, ext, "# nothing yet\n"],
  ["no trailing line break", GOOSE, ext, "GOOSE_MODEL: x"],
  [
    "map with comments and a blank line",
    GOOSE,
    ext,
    "# top\nextensions:\n  # dev\n  developer:\n    enabled: true   # on\n\n# after\nx: 1\n",
  ],
  ["4-space map at the end without a line break", GOOSE, ext, "extensions:\n    developer:\n        enabled: true"],
  ["CRLF", GOOSE, ext, "a: 1\r\nextensions:\r\n  developer:\r\n    enabled: true\r\n"],
  ["deeper key path, nothing there", { path: ["a", "b", "hcp"] }, ext, "a:\n  other: 1\n"],
  ["compact list", LIST, item, "mcpServers:\n- name: a   # c\n  command: x\n  # between\nmodels: []\n"],
  ["indented list", LIST, item, "name: x\nmcpServers:\n    - name: a\n      command: x\n"],
  ["no list yet", LIST, item, "name: x\nversion: 1.0.0\nschema: v1\n"],
  ["a BOM, and the list created at the top", LIST, item, "\ufeffname: x\n"],
  ["only a BOM, no line break: the list goes on a line of its own; the BOM stays", LIST, item, "\ufeff"],
  ["a BOM before the key holding the entry", GOOSE, ext, "\ufeffextensions:\n  developer:\n    enabled: true\n"],
  [
    "quoted scalars and anchors elsewhere",
    LIST,
    item,
    "base: &b {k: 'v'}\nuse: *b\nmcpServers:\n  - name: \"a\"\n    command: 'x y'\n",
  ],
];

/** The file's value without the entry (and without the maps and lists left empty by taking it out). */
function without(text: string, key: YamlKey): unknown {
  const root = (parse(text) ?? {}) as Record<string, unknown>;
  const holders: Record<string, unknown>[] = [root];
  for (const k of key.path.slice(0, -1)) {
    const next = holders.at(-1)?.[k];
    if (!next || typeof next !== "object") break;
    holders.push(next as Record<string, unknown>);
  }
  const last = holders.at(-1)!;
  if (holders.length === key.path.length) {
    if (key.named && Array.isArray(last))
      last.splice(0, last.length, ...last.filter((x: { name?: string }) => x.name !== key.path.at(-1)));
    else if (!key.named) delete last[key.path.at(-1)!];
  }
  for (let i = holders.length - 1; i > 0; i--) {
    const h = holders[i]!;
    if (Array.isArray(h) ? h.length === 0 : Object.keys(h).length === 0) delete holders[i - 1]![key.path[i - 1]!];
  }
  return root;
}

describe("setYaml / removeYaml", () => {
  for (const [what, key, value, text] of texts) {
    it(`${what}: only lines added; the entry reads back; --remove gives every byte back; a replacement touches only the entry`, () => {
      const r = setYaml(text, key, value, "f.yaml");
      const got = yamlValueAt(parseYamlFor(r.text, "f.yaml"), key, r.text, "f.yaml");
      expect(got).toEqual(value);
      // everything else parses as before
      expect(without(r.text, key)).toEqual(without(text, key));
      expect(removeYaml(r.text, key, "f.yaml", { insertedAt: r.insertedAt, prefix: r.prefix })).toBe(text);
      const changed = { ...(value as object), args: ["mcp", "--shape", "per-command"] };
      const r2 = setYaml(r.text, key, changed, "f.yaml");
      expect(yamlValueAt(parseYamlFor(r2.text, "f.yaml"), key, r2.text, "f.yaml")).toEqual(changed);
      expect(removeYaml(r2.text, key, "f.yaml", { insertedAt: r.insertedAt, prefix: r.prefix })).toBe(text);
    });
  }

  it("removal keeps the user's comment lines after the entry, and the other items", () => {
    const text = "mcpServers:\n  - name: a\n    command: a\n";
    const r = setYaml(text, LIST, item, "f.yaml");
    const edited = r.text + "  # a note the user added below\n";
    expect(removeYaml(edited, LIST, "f.yaml", { insertedAt: r.insertedAt })).toBe(
      text + "  # a note the user added below\n",
    );
  });

  it("refuses what it cannot edit exactly: flow style, an alias to the entry, a complex key", () => {
    const refuse = (text: string, key: YamlKey, re: RegExp) => {
      let err: unknown;
      try {
        setYaml(text, key, key.named ? item : ext, "f.yaml");
      } catch (e) {
        err = e;
      }
      expect(err, text).toBeInstanceOf(HcpxError);
      expect((err as HcpxError).message, `${text} → ${(err as Error).message}`).toMatch(re);
    };
    refuse("extensions: {developer: {enabled: true}}\n", GOOSE, /flow style/);
    refuse("mcpServers: [{name: a}]\n", LIST, /flow style/);
    refuse("extensions:\n  hcp: &h\n    cmd: x\nother: *h\n", GOOSE, /would leave YAML the host cannot read/);
    refuse("extensions: 3\n", GOOSE, /is not a map/);
    refuse("mcpServers:\n  a: 1\n", LIST, /is not a list/);
  });

  it("a parse error names the line and column", () => {
    expect(() => parseYamlFor("a: 1\nb: [\n", "c.yaml")).toThrow(/c\.yaml:\d+:\d+: cannot parse YAML/);
    expect(() => parseYamlFor("a: 1\na: 2\n", "c.yaml")).toThrow(
      /c\.yaml:2:1: a key appears twice in one map \(Map keys must be unique\)/,
    );
  });
});

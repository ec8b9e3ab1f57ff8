// The in-place edit of hcpx's MCP entry (src/host/tomlentry.ts, jsonentry.ts, yamlentry.ts,
// listedit.ts), property-tested through the format handlers' `set`: whatever the entry held
// and however the person laid it out (TOML: tools inline, as sub-tables, as a [tools] table,
// as dotted keys; lists over several lines; YAML: a map at a key or a named list item, args
// as a block list or a flow list), with a comment on every line, the result reads as the
// new entry, the rest of the file is as it was, every comment of the person's is still there
// (one on a line hcpx takes out on a line of its own where that line was), and setting the
// same entry again changes nothing.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parse as parseToml } from "smol-toml";
import { parse as parseJsonc, type ParseError } from "jsonc-parser";
import { tomlDoc } from "../../src/host/formats/toml";
import { jsonDoc, lenientJson } from "../../src/host/formats/json";
import type { Target } from "../../src/host/descriptor";
import type { VFile } from "../../src/host/formats";
import { tomlValue } from "../../src/util/text";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { yamlDoc } from "../../src/host/formats/yaml";

const KEY = ["mcp_servers", "hcp"];
const F = { show: "config", orig: { kind: "file", text: "" } } as unknown as VFile;
const MODES = ["approve", "auto", "prompt"] as const;
type Tools = Record<string, { approval_mode: string }>;
type Doc = Record<string, unknown>;
interface Entry {
  command: string;
  args: string[];
  tools: Tools;
  env_vars?: string[];
}

const word = fc.constantFrom("a", "b", "c", "d", "e", "f");
const tools: fc.Arbitrary<Tools> = fc.dictionary(
  fc.constantFrom("t1", "t2", "t3", "t4", "t5"),
  fc.constantFrom(...MODES).map((m) => ({ approval_mode: m })),
  { maxKeys: 5 },
);
const entry: fc.Arbitrary<Entry> = fc.record(
  { command: word, args: fc.array(word, { maxLength: 6 }), tools, env_vars: fc.array(word, { maxLength: 3 }) },
  { requiredKeys: ["command", "args", "tools"] },
);

/** hcpx's entry written by a person: each key on its line with a comment `# <token>`, tools in one of four layouts. */
function tomlText(e: Entry, layout: number, multiline: boolean): { text: string; tokens: Map<string, string> } {
  const tokens = new Map<string, string>();
  const c = (what: string) => {
    tokens.set(what, `c-${what}`);
    return ` # c-${what}`;
  };
  const args = multiline
    ? "[\n" + e.args.map((a, i) => `  ${tomlValue(a)}, # c-arg${i}\n`).join("") + "]"
    : tomlValue(e.args);
  if (multiline) e.args.forEach((_, i) => tokens.set(`arg${i}`, `c-arg${i}`));
  let main = `[mcp_servers.hcp]\n# above command\ncommand = ${tomlValue(e.command)}${c("command")}\nargs = ${args}${c("args")}\nmine = 1${c("mine")}\n`;
  if (e.env_vars) main += `env_vars = ${tomlValue(e.env_vars)}${c("env_vars")}\n`;
  const t = Object.entries(e.tools);
  let rest = "";
  if (layout === 0) main += `tools = ${tomlValue(e.tools)}${c("tools")}\n`;
  else if (layout === 1)
    rest = t
      .map(([k, v]) => `\n# ${k}\n[mcp_servers.hcp.tools.${k}]\napproval_mode = "${v.approval_mode}"${c(k)}\n`)
      .join("");
  else if (layout === 2 && t.length)
    rest = "\n[mcp_servers.hcp.tools]\n" + t.map(([k, v]) => `${k} = ${tomlValue(v)}${c(k)}\n`).join("");
  else main += t.map(([k, v]) => `tools.${k}.approval_mode = "${v.approval_mode}"${c(k)}\n`).join("");
  return { text: `# mine\nmodel = "o3"\n\n${main}${rest}\n[profiles.x]\nmodel = "y" # c-profile\n`, tokens };
}

/**
 * args of distinct values, and another list of some of them (in their order) with new values put in
 * between: an arg in both is the same item, and must keep its comment whatever changes around it.
 */
const argsEdit = fc
  .tuple(
    fc.uniqueArray(fc.constantFrom<string>("a", "b", "c", "d", "e", "f"), { maxLength: 6 }),
    fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    fc.array(fc.tuple(fc.nat(6), fc.constantFrom<string>("g", "h")), { maxLength: 4 }),
  )
  .map(([have, keep, ins]) => {
    const next = have.filter((_, i) => keep[i]);
    for (const [at, v] of ins) next.splice(Math.min(at, next.length), 0, v);
    return { have, next };
  });

/**
 * The comment `c-argI` of each arg kept is on that arg's line; one of an arg that goes is on a line of
 * its own, or beside a new arg (put in its place). `bare`: an arg as the format writes it.
 */
function argCommentsStay(out: string, have: string[], next: string[], marker: string, bare: (v: string) => string) {
  const lines = out.replaceAll("\r\n", "\n").split("\n");
  have.forEach((v, i) => {
    const line = lines.find((l) => l.includes(`c-arg${i}`));
    expect(line, `arg${i}'s comment`).toBeDefined();
    const item = line!
      .slice(0, line!.indexOf(marker))
      .replace(/^\s*(- )?/, "")
      .replace(/,?\s*$/, "");
    if (next.includes(v)) expect(item, `arg${i} (${v}) kept its comment`).toBe(bare(v));
    else expect(["", ...next.filter((x) => !have.includes(x)).map(bare)], `arg${i}'s comment`).toContain(item);
  });
}

describe("TOML: [mcp_servers.hcp] made another entry in place", () => {
  it("reads as the new entry, keeps the rest of the file and the comments of the lines it keeps; once more changes nothing", () => {
    fc.assert(
      fc.property(
        entry,
        entry,
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        fc.boolean(),
        (have, want, layout, multiline, crlf) => {
          const lf = tomlText(have, layout, multiline);
          const tokens = lf.tokens;
          const text = crlf ? lf.text.replaceAll("\n", "\r\n") : lf.text;
          const doc = parseToml(text) as Record<string, unknown>;
          const next = { ...want, mine: 1 };
          const r = tomlDoc.set(text, doc, KEY, next, F, {} as Target, "Codex");
          const after = parseToml(r.text) as Record<string, Record<string, unknown>>;
          expect(JSON.parse(JSON.stringify(after.mcp_servers!.hcp))).toEqual(next);
          expect(after.profiles).toEqual({ x: { model: "y" } });
          expect(
            r.text
              .replaceAll("\r\n", "\n")
              .startsWith('# mine\nmodel = "o3"\n\n[mcp_servers.hcp]\n# above command\ncommand = '),
          ).toBe(true);
          expect(/(^|[^\r])\n/.test(r.text), "the file's line breaks").toBe(!crlf);
          for (const [what, token] of tokens) expect(r.text, `${what} kept its comment`).toContain(`# ${token}`);
          expect(r.text.replaceAll("\r\n", "\n"), "no blank line more than the file had").not.toMatch(/\n\n\n/);
          expect(
            tomlDoc.set(r.text, parseToml(r.text) as Record<string, unknown>, KEY, next, F, {} as Target, "Codex").text,
          ).toBe(r.text);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("TOML: args over several lines with a comment each", () => {
  it("an arg kept keeps its comment, whatever goes or comes around it", () => {
    fc.assert(
      fc.property(argsEdit, ({ have, next }) => {
        const { text } = tomlText({ command: "a", args: have, tools: {} }, 0, true);
        const want = { command: "a", args: next, tools: {}, mine: 1 };
        const r = tomlDoc.set(text, parseToml(text) as Record<string, unknown>, KEY, want, F, {} as Target, "Codex");
        argCommentsStay(r.text, have, next, "#", (v) => JSON.stringify(v));
      }),
      { numRuns: 300 },
    );
  });
});

describe("a comment line above an item belongs to it: what is put in before the first item goes above it", () => {
  it("TOML, JSONC, YAML", () => {
    const toml = (args: string) => `[mcp_servers.hcp]\nargs = [\n${args}]\n`;
    const t = toml('  # about a\n  "a", # ca\n');
    expect(tomlDoc.set(t, parseToml(t) as Doc, KEY, { args: ["g", "a"] }, F, {} as Target, "Codex").text).toBe(
      toml('  "g",\n  # about a\n  "a", # ca\n'),
    );
    const json = (args: string) =>
      `{\n  "mcpServers": {\n    "hcp": {\n      "args": [\n${args}      ]\n    }\n  }\n}\n`;
    const j = json('        // about a\n        "a" // ca\n');
    const J = { format: "jsonc", trailingCommas: false } as Target;
    const key = ["mcpServers", "hcp"];
    expect(jsonDoc.set(j, lenientJson(j, "s.json"), key, { args: ["g", "a"] }, F, J, "Gemini").text).toBe(
      json('        "g",\n        // about a\n        "a" // ca\n'),
    );
    const yaml = (args: string) => `extensions:\n  hcp:\n    args:\n${args}z: 1\n`;
    const y = yaml("      # about a\n      - a # ca\n");
    const Y = { format: "yaml" } as Target;
    const yk = ["extensions", "hcp"];
    expect(yamlDoc.set(y, yamlDoc.read(y, "c.yaml", Y, "G"), yk, { args: ["g", "a"] }, F, Y, "G").text).toBe(
      yaml("      - g\n      # about a\n      - a # ca\n"),
    );
  });
});

describe("TOML: tables that go", () => {
  const set = (text: string, next: Record<string, unknown>) =>
    tomlDoc.set(text, parseToml(text) as Record<string, unknown>, KEY, next, F, {} as Target, "Codex").text;
  const head = '[mcp_servers.hcp]\ncommand = "x"\n';

  it("tools made empty: its tables go with the blank line that set them apart, not one blank line more", () => {
    const t1 = '\n[mcp_servers.hcp.tools.t1]\napproval_mode = "auto"\n';
    const t2 = '\n[mcp_servers.hcp.tools]\nt2 = { approval_mode = "auto" }\n';
    for (const tools of [t1, t2, t1 + t1.replaceAll("t1", "t3")]) {
      expect(set(head + tools + '\n[profiles.x]\nmodel = "y"\n', { command: "x", tools: {} })).toBe(
        head + 'tools = {}\n\n[profiles.x]\nmodel = "y"\n',
      );
      expect(set(head + tools, { command: "x", tools: {} })).toBe(head + "tools = {}\n");
    }
  });

  it("a comment on a line that goes stays, on a line of its own where that line was", () => {
    expect(set(head + 'env_vars = ["A"] # names\nmine = 1\n', { command: "x", mine: 1 })).toBe(
      head + "# names\nmine = 1\n",
    );
    // the file's end without a line break: kept so
    expect(set(head + 'env_vars = ["A"] # names', { command: "x" })).toBe(head + "# names");
    const t1 = '\n[mcp_servers.hcp.tools.t1] # t1\n  # why\napproval_mode = "auto" # m\n\n[profiles.x]\nmodel = "y"\n';
    expect(set(head + t1, { command: "x", tools: {} })).toBe(
      head + 'tools = {}\n\n# t1\n  # why\n# m\n\n[profiles.x]\nmodel = "y"\n',
    );
    const args = 'args = [\n  "a", # ca\n  "b", # cb\n  # c below\n  "c" # cc\n]\n';
    expect(set(head + args, { command: "x", args: ["a"] })).toBe(
      head + 'args = [\n  "a", # ca\n  # cb\n  # c below\n  # cc\n]\n',
    );
    expect(set(head + args, { command: "x", args: [] })).toBe(
      head + "args = [\n  # ca\n  # cb\n  # c below\n  # cc\n]\n",
    );
  });
});

describe("JSONC: mcpServers.hcp made another entry in place", () => {
  const T = { format: "jsonc", trailingCommas: false } as Target;
  const key = ["mcpServers", "hcp"];

  /** The entry as JSON.stringify lays it out, with a `// c-<key>` after each member and a `// c-argN` after each arg. */
  function jsonText(e: Entry): { text: string; tokens: Map<string, string> } {
    const tokens = new Map<string, string>();
    const body = JSON.stringify(
      { theme: "x", mcpServers: { other: { command: "o" }, hcp: { ...e, mine: 1 } } },
      null,
      2,
    );
    let argIndex = 0;
    let inArgs = false;
    let inHcp = false;
    const lines = body.split("\n").map((l) => {
      if (/^ {4}"hcp": \{$/.test(l)) inHcp = true;
      if (!inHcp) return l;
      if (/^ {6}"args": \[$/.test(l)) inArgs = true;
      else if (inArgs && /^ {6}\],?$/.test(l)) inArgs = false;
      else if (inArgs && /^ {8}"/.test(l)) {
        tokens.set(`arg${argIndex}`, `c-arg${argIndex}`);
        return `${l} // c-arg${argIndex++}`;
      }
      const m = /^ {6}"(\w+)": /.exec(l);
      if (m) {
        tokens.set(m[1]!, `c-${m[1]}`);
        // a member on one line: a comment after it too
        const after = /[[{]$/.test(l) ? "" : ` // t-${m[1]}`;
        if (after) tokens.set(`${m[1]}:after`, `t-${m[1]}`);
        return `      /* c-${m[1]} */\n${l}${after}`;
      }
      return l;
    });
    return { text: lines.join("\n") + "\n", tokens };
  }

  it("reads as the new entry, keeps the rest of the file and the comments of what it keeps; once more changes nothing", () => {
    fc.assert(
      fc.property(entry, entry, fc.boolean(), (have, want, crlf) => {
        const lf = jsonText(have);
        const tokens = lf.tokens;
        const text = crlf ? lf.text.replaceAll("\n", "\r\n") : lf.text;
        const tree = lenientJson(text, "settings.json");
        const next = { ...want, mine: 1 };
        const r = jsonDoc.set(text, tree, key, next, F, T, "Gemini");
        const errors: ParseError[] = [];
        const v = parseJsonc(r.text, errors, { allowTrailingComma: false }) as Record<string, Record<string, unknown>>;
        expect(errors).toEqual([]);
        expect(v.mcpServers!.hcp).toEqual(next);
        expect(v.mcpServers!.other).toEqual({ command: "o" });
        expect(
          r.text
            .replaceAll("\r\n", "\n")
            .startsWith('{\n  "theme": "x",\n  "mcpServers": {\n    "other": {\n      "command": "o"\n    },\n'),
        ).toBe(true);
        expect(/(^|[^\r])\n/.test(r.text), "the file's line breaks").toBe(!crlf);
        for (const [what, token] of tokens) expect(r.text, `${what} kept its comment`).toContain(token);
        expect(jsonDoc.set(r.text, lenientJson(r.text, "settings.json"), key, next, F, T, "Gemini").text).toBe(r.text);
      }),
      { numRuns: 300 },
    );
  });
  it("an arg kept keeps its comment, whatever goes or comes around it", () => {
    fc.assert(
      fc.property(argsEdit, ({ have, next }) => {
        const { text } = jsonText({ command: "a", args: have, tools: {} });
        const want = { command: "a", args: next, tools: {}, mine: 1 };
        const r = jsonDoc.set(text, lenientJson(text, "settings.json"), key, want, F, T, "Gemini");
        argCommentsStay(r.text, have, next, "//", (v) => JSON.stringify(v));
      }),
      { numRuns: 300 },
    );
  });
});

describe("JSONC: members that go and come", () => {
  const T = { format: "jsonc", trailingCommas: false } as Target;
  const key = ["mcpServers", "hcp"];
  const set = (text: string, next: Record<string, unknown>) =>
    jsonDoc.set(text, lenientJson(text, "settings.json"), key, next, F, T, "Gemini").text;
  const wrap = (entry: string) => `{\n  "mcpServers": {\n    "hcp": {\n${entry}\n    }\n  }\n}\n`;

  it("a member that goes leaves the comment that ended its line on a line of its own; the comment on the line before stays", () => {
    const text = wrap('      "command": "x", // c\n      "env": { "A": "1" } // e');
    expect(set(text, { command: "x" })).toBe(wrap('      "command": "x" // c\n      // e'));
    const inside = wrap(
      '      "command": "x",\n      "env": { // e\n        "A": "1" /* a */\n      },\n      "mine": 1',
    );
    expect(set(inside, { command: "x", mine: 1 })).toBe(
      wrap('      "command": "x",\n      // e\n        /* a */\n      "mine": 1'),
    );
  });

  it("an object whose only member goes keeps the comment in it, and a new member is indented as it would be", () => {
    const text = wrap('      // only\n      "env": { "A": "1" }');
    expect(set(text, { command: "x" })).toBe(wrap('      // only\n      "command": "x"'));
  });
});

describe("YAML: hcpx's entry (a map at a key, a named list item) made another entry in place", () => {
  const GOOSE = { key: ["extensions", "hcp"], t: { format: "yaml" } as Target };
  const CONTINUE = { key: ["mcpServers", "hcp"], t: { format: "yaml", named: "name" } as Target };
  const y = (v: unknown) => stringifyYaml(v, { lineWidth: 0 }).replace(/\n$/, "");
  const flow = (v: unknown) => stringifyYaml(v, { collectionStyle: "flow", lineWidth: 0 }).replace(/\n$/, "");

  /**
   * The entry written by a person at column `col` (a list item: `- ` before its first key), a comment above
   * `command` and after every value; args in a block list (a comment after each item, a comment line
   * between items), on one line or in a flow list over several lines with a comment after each item.
   */
  function yamlEntry(e: Entry, col: number, item: boolean, layout: number, envFirst = false) {
    const tokens = new Map<string, string>();
    const c = (what: string) => {
      tokens.set(what, `c-${what}`);
      return ` # c-${what}`;
    };
    const pad = " ".repeat(col);
    const lines: string[] = [];
    const key = (k: string, rest: string) =>
      lines.push(`${lines.length === 0 && item ? pad.slice(2) + "- " : pad}${k}:${rest}`);
    // a list item may start with a key hcpx takes out (env_vars, when the new entry has none)
    const env = () => e.env_vars && key("env_vars", ` ${flow(e.env_vars)}${c("env_vars")}`);
    if (item && envFirst) env();
    if (item) key("name", ` hcp${c("name")}`);
    else lines.push(`${pad.slice(2)}hcp:${c("name")}`);
    lines.push(`${pad}# above command`);
    key("command", ` ${y(e.command)}${c("command")}`);
    if (e.args.length === 0) key("args", ` []${c("args")}`);
    else if (layout === 0) {
      key("args", c("args"));
      e.args.forEach((a, i) => {
        if (i > 0) lines.push(`${pad}  # between`);
        lines.push(`${pad}  - ${y(a)}${c(`arg${i}`)}`);
      });
    } else if (layout === 1) key("args", ` ${flow(e.args)}${c("args")}`);
    else {
      key("args", ` [${c("args[")}`);
      e.args.forEach((a, i) => lines.push(`${pad}    ${y(a)},${c(`arg${i}`)}`));
      lines.push(`${pad}  ]`);
    }
    key("mine", ` 1${c("mine")}`);
    if (!(item && envFirst)) env();
    const t = Object.entries(e.tools);
    if (!t.length) key("tools", ` {}${c("tools")}`);
    else {
      key("tools", c("tools"));
      for (const [k, v] of t) {
        lines.push(`${pad}  ${k}:${c(k)}`);
        lines.push(`${pad}    approval_mode: ${v.approval_mode}${c(`${k}-mode`)}`);
      }
    }
    return { text: lines.map((l) => l + "\n").join(""), tokens };
  }

  const head = (item: boolean) =>
    item
      ? "# mine\nname: Mine\nmcpServers:\n  - name: other # c-other\n    command: o\n"
      : "# mine\nGOOSE_MODEL: o3\nextensions:\n  other: # c-other\n    cmd: o\n";
  const tail = "# after\nprofile:\n  x: y # c-profile\n";

  it("reads as the new entry, keeps the rest of the file and the comments of what it keeps; once more changes nothing", () => {
    fc.assert(
      fc.property(
        entry,
        entry,
        fc.boolean(),
        fc.integer({ min: 0, max: 2 }),
        fc.boolean(),
        fc.boolean(),
        (have, want, item, layout, crlf, envFirst) => {
          const { key, t } = item ? CONTINUE : GOOSE;
          const e = yamlEntry(have, 4, item, layout, envFirst);
          const lf = head(item) + e.text + tail;
          const text = crlf ? lf.replaceAll("\n", "\r\n") : lf;
          const next = { ...(item ? { name: "hcp" } : {}), ...want, mine: 1 };
          const doc = yamlDoc.read(text, "config.yaml", t, "Goose");
          expect(JSON.parse(JSON.stringify(yamlDoc.get(doc, key, t)))).toEqual({
            ...(item ? { name: "hcp" } : {}),
            ...have,
            mine: 1,
          });
          const r = yamlDoc.set(text, doc, key, next, F, t, "Goose");
          const v = parseYaml(r.text) as Record<string, unknown>;
          const got = item
            ? (v.mcpServers as Record<string, unknown>[]).find((x) => x.name === "hcp")
            : (v.extensions as Record<string, unknown>).hcp;
          expect(got).toEqual(next);
          const lfOut = r.text.replaceAll("\r\n", "\n");
          expect(lfOut.startsWith(head(item)), "the lines before the entry").toBe(true);
          expect(lfOut.endsWith(tail), "the lines after the entry").toBe(true);
          expect(/(^|[^\r])\n/.test(r.text), "the file's line breaks").toBe(!crlf);
          expect(r.text, "above command kept").toContain("# above command");
          for (const [what, token] of e.tokens) expect(r.text, `${what} kept its comment`).toContain(`# ${token}`);
          expect(
            yamlDoc.set(r.text, yamlDoc.read(r.text, "config.yaml", t, "Goose"), key, next, F, t, "Goose").text,
          ).toBe(r.text);
        },
      ),
      { numRuns: 300 },
    );
  });
  it("an arg kept keeps its comment, whatever goes or comes around it (a block list, a flow list)", () => {
    fc.assert(
      fc.property(argsEdit, fc.constantFrom(0, 2), ({ have, next }, layout) => {
        const e = yamlEntry({ command: "a", args: have, tools: {} }, 4, false, layout);
        const text = head(false) + e.text + tail;
        const want = { command: "a", args: next, tools: {}, mine: 1 };
        const r = yamlDoc.set(
          text,
          yamlDoc.read(text, "config.yaml", GOOSE.t, "Goose"),
          GOOSE.key,
          want,
          F,
          GOOSE.t,
          "Goose",
        );
        argCommentsStay(r.text, have, next, "#", (v) => v);
      }),
      { numRuns: 300 },
    );
  });
});

describe("YAML: a comment on a line that goes", () => {
  const T = { format: "yaml", named: "name" } as Target;
  const set = (text: string, next: Record<string, unknown>) =>
    yamlDoc.set(text, yamlDoc.read(text, "config.yaml", T, "C"), ["mcpServers", "hcp"], next, F, T, "C").text;
  const item = (lines: string) => `mcpServers:\n  - name: hcp # n\n${lines}z: 1\n`;

  it("stays, on a line of its own where that line was (a key, a list item, a list made empty)", () => {
    const text = item("    command: x # c\n    env_vars: # e\n      # a below\n      - a # a\n    mine: 1\n");
    expect(set(text, { name: "hcp", command: "x", mine: 1 })).toBe(
      item("    command: x # c\n    # e\n      # a below\n      # a\n    mine: 1\n"),
    );
    expect(set(text, { name: "hcp", command: "x", env_vars: [], mine: 1 })).toBe(
      item("    command: x # c\n    env_vars: [] # e\n      # a below\n      # a\n    mine: 1\n"),
    );
    const two = item("    args:\n      - a # a\n      - b # b\n");
    expect(set(two, { name: "hcp", args: ["a"] })).toBe(item("    args:\n      - a # a\n      # b\n"));
    // the file's end without a line break: kept so
    expect(set("mcpServers:\n  - name: hcp\n    env_vars: [a] # e", { name: "hcp" })).toBe(
      "mcpServers:\n  - name: hcp\n    # e",
    );
  });

  it("the item's first key taken out: the next key it keeps moves up to the `- ` line, the comments kept above it", () => {
    const list = (lines: string) => `mcpServers:\n  - name: other # o\n${lines}z: 1\n`;
    const first = list("  - command: x # c\n    # above name\n    name: hcp # n\n    mine: 1\n");
    expect(set(first, { name: "hcp", mine: 1 })).toBe(
      list("  # c\n    # above name\n  - name: hcp # n\n    mine: 1\n"),
    );
    const nested = list("  -   env: # e\n        A: 1 # a\n      args: [x] # x\n      name: hcp\n      mine: 1 # m\n");
    expect(set(nested, { name: "hcp", mine: 2 })).toBe(
      list("  # e\n        # a\n      # x\n  -   name: hcp\n      mine: 2 # m\n"),
    );
    const bare = list("  - command: x\n    name: hcp\n");
    expect(set(bare, { name: "hcp", args: ["y"] })).toBe(list("  - name: hcp\n    args:\n      - y\n"));
  });
});

describe("YAML: what is not edited in place", () => {
  const T = { format: "yaml" } as Target;
  const key = ["extensions", "hcp"];
  const next = { cmd: "npx", args: ["-y", "mcp"], timeout: 300 };
  const set = (text: string) =>
    yamlDoc.set(text, yamlDoc.read(text, "config.yaml", T, "Goose"), key, next, F, T, "Goose").text;
  const entry = (lines: string) => `# mine\nextensions:\n  hcp:\n${lines}x: 1 # after\n`;

  it("an anchor, alias, tag, merge key, block scalar or explicit key in an entry holding comments: refused, naming its line", () => {
    for (const lines of [
      "    <<: *b # mine\n    cmd: hcpx\n    args: [mcp]\n",
      "    cmd: *c\n    args: [mcp] # mine\n    timeout: 300\n",
      "    cmd: !!str hcpx # mine\n    args: [mcp]\n    timeout: 300\n",
      "    cmd: |- # mine\n      hcpx\n    args: [mcp]\n    timeout: 300\n",
      "    ? cmd # mine\n    : hcpx\n    args: [mcp]\n    timeout: 300\n",
      "    cmd: &c hcpx # mine\n    args: [mcp]\n    timeout: 300\n",
    ]) {
      const text = `base: &b {timeout: 300}\nc: &c hcpx\n` + entry(lines);
      expect(() => set(text), lines).toThrow(/config:5:3: cannot set hcpx's fields of `extensions\.hcp` in place/);
    }
  });

  it("without a comment in it, such an entry is written whole", () => {
    const text = "c: &c hcpx\n" + entry("    cmd: *c\n    args: [mcp]\n    timeout: 300\n");
    expect(set(text)).toBe(
      "c: &c hcpx\n" + entry("    cmd: npx\n    args:\n      - -y\n      - mcp\n    timeout: 300\n"),
    );
  });

  it("an entry in flow style: its values replaced where they are; a key added where a comment is, refused", () => {
    expect(set(entry("    {cmd: hcpx, # mine\n    args: [mcp], timeout: 300}\n"))).toBe(
      entry("    {cmd: npx, # mine\n    args: [-y, mcp], timeout: 300}\n"),
    );
    expect(set(entry("    {cmd: hcpx, args: [mcp]}\n"))).toBe(entry("    {cmd: npx, args: [-y, mcp], timeout: 300}\n"));
    expect(() => set(entry("    {cmd: hcpx, # mine\n    args: [mcp]}\n"))).toThrow(/in place/);
  });

  it("the file's end without a line break: kept so", () => {
    const text = "extensions:\n  hcp:\n    cmd: hcpx # mine\n    args:\n      - mcp";
    expect(set(text)).toBe(
      "extensions:\n  hcp:\n    cmd: npx # mine\n    args:\n      - -y\n      - mcp\n    timeout: 300",
    );
  });
});

describe("YAML: values that need quoting, keys of the person's", () => {
  const T = { format: "yaml", named: "name" } as Target;
  const key = ["mcpServers", "hcp"];
  const odd = fc.oneof(
    fc.constantFrom("300", "true", "null", "", "- x", "[a]", "{b}", "&x", "*y", "!t", "a #b", "a: b", "'q'", "x\ny"),
    fc.constantFrom("#c", " lead", "-y", "a,b", "?", "|", "<<", "é"),
    fc.string({ maxLength: 4 }),
  );
  const value = fc.oneof(odd, fc.integer(), fc.boolean(), fc.constant(null));
  const env = fc.dictionary(odd, fc.oneof(odd, fc.integer(), fc.array(odd, { maxLength: 2 })), { maxKeys: 4 });

  it("a command, args and env of any strings: written so that they read back, the comments kept", () => {
    fc.assert(
      fc.property(
        fc.tuple(value, fc.array(odd, { maxLength: 4 }), env),
        fc.tuple(value, fc.array(odd, { minLength: 1, maxLength: 4 }), env),
        fc.boolean(),
        fc.boolean(),
        ([c0, a0, e0], [c1, a1, e1], flowLists, crlf) => {
          const j = JSON.stringify;
          const args = !a0.length
            ? " [] # c-args"
            : flowLists
              ? ` [ # c-args\n      ${a0.map((x) => j(x) + ", # i").join("\n      ")}\n    ]`
              : " # c-args\n" + a0.map((x) => `      - ${j(x)} # i`).join("\n");
          const envText = !Object.keys(e0).length
            ? " {} # c-env"
            : flowLists
              ? ` ${j(e0)} # c-env`
              : " # c-env\n" +
                Object.entries(e0)
                  .map(([k, v]) => `      ${j(k)}: ${j(v)} # v`)
                  .join("\n");
          const lf = `mcpServers:\n  - name: a\n  - name: hcp # c-name\n    command: ${j(c0)} # c-command\n    args:${args}\n    env:${envText}\n    mine: 1 # c-mine\nz: 2\n`;
          const text = crlf ? lf.replaceAll("\n", "\r\n") : lf;
          const next = { name: "hcp", command: c1, args: a1, env: e1, mine: 1 };
          const out = yamlDoc.set(
            text,
            yamlDoc.read(text, "config.yaml", T, "Continue"),
            key,
            next,
            F,
            T,
            "Continue",
          ).text;
          expect((parseYaml(out) as { mcpServers: unknown[] }).mcpServers[1]).toEqual(next);
          for (const token of ["c-name", "c-command", "c-mine"]) expect(out).toContain(`# ${token}`);
          expect(out.startsWith(crlf ? "mcpServers:\r\n  - name: a\r\n" : "mcpServers:\n  - name: a\n")).toBe(true);
          expect(out.endsWith(crlf ? "\r\nz: 2\r\n" : "\nz: 2\n")).toBe(true);
          expect(/(^|[^\r])\n/.test(out), "the file's line breaks").toBe(!crlf);
        },
      ),
      { numRuns: 300 },
    );
  });
});

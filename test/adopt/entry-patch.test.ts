// The in-place edit of hcpx's MCP entry (src/host/tomlentry.ts, jsonentry.ts, listedit.ts),
// property-tested through the format handlers' `set`: whatever the entry held and however
// the person laid it out (TOML: tools inline, as sub-tables, as a [tools] table, as dotted
// keys; lists over several lines), with a comment on every line, the result reads as the
// new entry, the rest of the file is as it was, a comment on a line hcpx had no reason to
// touch is still there, and setting the same entry again changes nothing.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parse as parseToml } from "smol-toml";
import { parse as parseJsonc, type ParseError } from "jsonc-parser";
import { tomlDoc } from "../../src/host/formats/toml";
import { jsonDoc, lenientJson } from "../../src/host/formats/json";
import type { Target } from "../../src/host/descriptor";
import type { VFile } from "../../src/host/formats";
import { tomlValue } from "../../src/util/text";

const KEY = ["mcp_servers", "hcp"];
const F = { show: "config", orig: { kind: "file", text: "" } } as unknown as VFile;
const MODES = ["approve", "auto", "prompt"] as const;
type Tools = Record<string, { approval_mode: string }>;
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

/** Which comments must stay: those on the line of a key kept (its value may change), or by a list item kept or replaced one for one. */
function mustStay(what: string, have: Entry, next: Entry): boolean {
  if (what === "mine" || what === "profile") return true;
  if (/^arg\d+$/.test(what)) {
    const i = Number(what.slice(3));
    const [H, N] = [have.args.length, next.args.length];
    let p = 0;
    while (p < H && p < N && have.args[p] === next.args[p]) p++;
    let s = 0;
    while (s < H - p && s < N - p && have.args[H - 1 - s] === next.args[N - 1 - s]) s++;
    return i < p + Math.min(H - s - p, N - s - p) || i >= H - s;
  }
  if (what in have.tools) return what in next.tools;
  return what in have && what in next;
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
          for (const [what, token] of tokens)
            if (mustStay(what, have, next)) expect(r.text, `${what} kept its comment`).toContain(`# ${token}`);
          expect(
            tomlDoc.set(r.text, parseToml(r.text) as Record<string, unknown>, KEY, next, F, {} as Target, "Codex").text,
          ).toBe(r.text);
        },
      ),
      { numRuns: 300 },
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
        for (const [what, token] of tokens)
          if (what === "mine" || mustStay(what.replace(/:after$/, ""), have, next))
            expect(r.text, `${what} kept its comment`).toContain(token);
        expect(jsonDoc.set(r.text, lenientJson(r.text, "settings.json"), key, next, F, T, "Gemini").text).toBe(r.text);
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

  it("a member that goes takes the comment that ends its line; the comment on the line before stays", () => {
    const text = wrap('      "command": "x", // c\n      "env": { "A": "1" } // e');
    expect(set(text, { command: "x" })).toBe(wrap('      "command": "x" // c'));
  });

  it("an object whose only member goes keeps the comment in it, and a new member is indented as it would be", () => {
    const text = wrap('      // only\n      "env": { "A": "1" }');
    expect(set(text, { command: "x" })).toBe(wrap('      // only\n      "command": "x"'));
  });
});

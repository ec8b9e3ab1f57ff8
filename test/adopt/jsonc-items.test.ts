// hcpx's items in a JSONC list (or object) of the person's that holds comments:
// added and taken out in place, so the person's comments and layout stay; the
// ledger records what it can hold (the list's text only when it is plain JSON),
// so --check is clean right after, and --remove gives the file back byte for
// byte. adopt and revoke run in this process (test/support/inproc.ts: the same
// program, argv, cwd, environment, stdout, stderr and exit code), since what
// adopt decides and writes is under test.
import { beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { parse, parseTree, type ParseError } from "jsonc-parser/lib/esm/main.js";
import { HCPX, REPO } from "../support/hcpx";
import { inProcess } from "../support/inproc";
import { scratch as scratchChild } from "./helpers";
import { appendItems, removeItems } from "../../src/host/jsonlist";

const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

beforeAll(() => {
  if (!existsSync(HCPX)) execFileSync(process.execPath, [join(REPO, "scripts", "build.mjs")]);
});

const jsonc = (text: string): Record<string, Record<string, unknown>> => {
  const errors: ParseError[] = [];
  const v = parse(text, errors) as Record<string, Record<string, unknown>>;
  expect(errors).toEqual([]);
  return v;
};

describe("JSONC allow-lists with comments", () => {
  it("Gemini mcp.allowed: `// primary` stays, hcp is appended; --check is clean (no ledger warning); --remove restores the file", async () => {
    const s = scratch();
    const mine = `{\n  "mcp": {\n    "allowed": ["github", // primary\n      "fs"]\n  }\n}\n`;
    s.write(".gemini/settings.json", mine);
    expect((await s.adopt("gemini", "--write")).code).toBe(0);
    const after = s.read(".gemini/settings.json");
    expect(after).toContain(`"allowed": ["github", // primary\n      "fs", "hcp"]`);
    expect(jsonc(after).mcp!.allowed).toEqual(["github", "fs", "hcp"]);
    expect(s.read(".hcp/adopted.json")).not.toContain("// primary");
    const c = await s.adopt("gemini", "--check");
    expect(c.code, c.stdout + c.stderr).toBe(0);
    expect(c.stdout + c.stderr).not.toMatch(/ledger_entry_ignored|`original`/);
    const w = await s.adopt("gemini", "--write");
    expect(w.stdout + w.stderr).not.toMatch(/`original`/);
    expect(s.read(".gemini/settings.json")).toBe(after);
    expect((await s.adopt("gemini", "--remove", "--write")).code).toBe(0);
    expect(s.read(".gemini/settings.json")).toBe(mine);
  });

  it("Gemini tools.allowed one a line with comments: a revoke takes hcpx's stale items out in place, the comments stay; --remove restores", async () => {
    const s = scratch();
    const mine = [
      "{",
      "  // my own rules",
      '  "tools": {',
      '    "allowed": [',
      '      "run_shell_command(git status)", // mine',
      '      /* keep */ "read_file" // last',
      "    ]",
      "  }",
      "}",
      "",
    ].join("\n");
    s.write(".gemini/settings.json", mine);
    expect((await s.adopt("gemini", "--write")).code).toBe(0);
    let t = s.read(".gemini/settings.json");
    expect(t).toContain(
      '      "run_shell_command(git status)", // mine\n      /* keep */ "read_file", // last\n      "mcp_hcp_',
    );
    const allowed = () => jsonc(s.read(".gemini/settings.json")).tools!.allowed as string[];
    expect(allowed()).toContain("mcp_hcp_transit__departures");
    expect((await s.run(["revoke", "transit.*"])).code).toBe(0);
    expect((await s.adopt("gemini", "--write")).code).toBe(0);
    t = s.read(".gemini/settings.json");
    expect(allowed().slice(0, 2)).toEqual(["run_shell_command(git status)", "read_file"]);
    expect(allowed()).not.toContain("mcp_hcp_transit__departures");
    expect(t).toContain("// my own rules");
    expect(t).toContain('"run_shell_command(git status)", // mine\n      /* keep */ "read_file", // last\n');
    const c = await s.adopt("gemini", "--check");
    expect(c.code, c.stdout + c.stderr).toBe(0);
    expect((await s.adopt("gemini", "--remove", "--write")).code).toBe(0);
    expect(s.read(".gemini/settings.json")).toBe(mine);
  });

  it("opencode permission object with a comment: the comment stays through adopt; --remove restores the file", async () => {
    const s = scratch();
    const mine = `{\n  "$schema": "https://opencode.ai/config.json",\n  "permission": {\n    // mine: no edits\n    "edit": "deny"\n  }\n}\n`;
    s.write("opencode.jsonc", mine);
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    const after = s.read("opencode.jsonc");
    expect(after).toContain('    // mine: no edits\n    "edit": "deny",\n');
    expect(jsonc(after).permission!.hcp_hcp__read_skill).toBe("allow");
    const c = await s.adopt("opencode", "--check");
    expect(c.code, c.stdout + c.stderr).toBe(0);
    expect((await s.adopt("opencode", "--remove", "--write")).code).toBe(0);
    expect(s.read("opencode.jsonc")).toBe(mine);
  });
});

describe("appendItems / removeItems on lists with comments", () => {
  const sep = fc.constantFrom("", " ", "\n  ", "\r\n    ", " // c\n  ", "/* b */ ", "\n  // c\n  ");
  const list = fc
    .tuple(
      fc.array(fc.tuple(sep, fc.constantFrom('"a"', '"b"', "1", '{"x": 2}'), sep), { maxLength: 5 }),
      sep,
      fc.boolean(),
    )
    .map(([items, inner, trailing]) => {
      const body = items.map(([s1, v, s2]) => s1 + v + s2).join(",");
      return `{"k": [${body}${trailing && items.length ? "," : ""}${inner}]}\n`;
    });
  const listOf = (text: string) => parseTree(text, [], { allowTrailingComma: true })!.children![0]!.children![1]!;

  it("property: hcpx's items appended and taken out again give the text back byte for byte", () => {
    fc.assert(
      fc.property(list, fc.array(fc.constantFrom("hcp", "mcp_hcp_x"), { minLength: 1, maxLength: 3 }), (text, ours) => {
        const n = listOf(text);
        const kids = (n.children ?? []).length;
        if (kids === 0 && !/\/[/*]/.test(text)) return; // (an empty list of whitespace is written whole)
        const added = appendItems(text, n, ours);
        const errors: ParseError[] = [];
        expect((parse(added, errors, { allowTrailingComma: true }) as { k: unknown[] }).k.slice(kids)).toEqual(ours);
        expect(errors).toEqual([]);
        const drop = ours.map((_, i) => kids + i);
        expect(removeItems(added, listOf(added), drop, "x.json")).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it("property: any items taken out leave the others and every comment", () => {
    fc.assert(
      fc.property(list, fc.array(fc.boolean(), { maxLength: 5 }), (text, which) => {
        const n = listOf(text);
        const kids = n.children ?? [];
        const drop = kids.flatMap((_, i) => (which[i] ? [i] : []));
        const out = removeItems(text, n, drop, "x.json");
        const v = parse(out, [], { allowTrailingComma: true }) as { k: unknown[] };
        const was = parse(text, [], { allowTrailingComma: true }) as { k: unknown[] };
        expect(v.k).toEqual(was.k.filter((_, i) => !drop.includes(i)));
        for (const c of text.match(/\/\/ c|\/\* b \*\//g) ?? []) expect(out).toContain(c);
        expect((out.match(/\/\/ c|\/\* b \*\//g) ?? []).length).toBe((text.match(/\/\/ c|\/\* b \*\//g) ?? []).length);
      }),
      { numRuns: 500 },
    );
  });
});

// The SKILL.md frontmatter fast path (src/pack/frontmatter.ts) reads a text
// only when the YAML library would read the very same value from it; anything
// else is left to the library (undefined).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { simpleFrontmatter } from "../../src/pack/frontmatter";
import { REPO } from "../support/hcpx";

const yamlValue = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: parse(text) };
  } catch {
    return { ok: false };
  }
};

const pieces = [
  "a",
  "Z",
  "x1",
  "-",
  "_",
  ":",
  ": ",
  " :",
  "#",
  " #",
  "# ",
  " ",
  "  ",
  ",",
  "[",
  "]",
  "{",
  "}",
  "'",
  "''",
  '"',
  "\\",
  "\\n",
  "\\u0041",
  "\\x41",
  "\\t",
  "!",
  "&",
  "*",
  "|",
  ">",
  "%",
  "@",
  "`",
  "?",
  "é",
  "→",
  "⚠",
  "😀",
  "\u00a0",
  "\u2028",
  "\u0085",
  "\u0007",
  "\u007f",
  "\ufeff",
  "true",
  "null",
  "No",
  "yes",
  "1",
  "0x1",
  ".5",
  "1e3",
  "~",
  "---",
  "...",
];
const text = fc.array(fc.constantFrom(...pieces), { maxLength: 6 }).map((xs) => xs.join(""));
const scalar = fc.oneof(
  text,
  text.map((t) => JSON.stringify(t)),
  text.map((t) => `'${t.replace(/'/g, "''")}'`),
  text.map((t) => `"${t}"`),
  text.map((t) => `'${t}'`),
);
const key = fc.constantFrom("name", "description", "leads", "x", "__proto__", "a-b", "A_1", "1a", "-k", "k k", "name");
const line = fc.oneof(
  fc.tuple(key, fc.constantFrom(": ", ":", ":  ", " : "), scalar).map(([k, sep, v]) => `${k}${sep}${v}`),
  fc.tuple(key, fc.constantFrom(":", ": ", ":\t")).map(([k, sep]) => `${k}${sep}`),
  fc
    .tuple(fc.constantFrom("", " ", "  ", "    ", "\t"), fc.constantFrom("- ", "-  ", "-"), scalar)
    .map(([i, d, v]) => `${i}${d}${v}`),
  fc.constantFrom("", " ", "# comment", "  continued", "---", "key: [a, b]", "key: |", "  block"),
);
const doc = fc.array(line, { minLength: 0, maxLength: 8 }).map((ls) => ls.join("\n"));

describe("simpleFrontmatter", () => {
  it("returns a value only where the YAML library reads the same one (property)", () => {
    fc.assert(
      fc.property(doc, (t) => {
        const fast = simpleFrontmatter(t);
        if (fast === undefined) return;
        const ref = yamlValue(t);
        expect(ref.ok, `the library refuses ${JSON.stringify(t)} but the fast path read it`).toBe(true);
        if (ref.ok) expect(fast).toEqual(ref.value);
      }),
      { numRuns: 20000 },
    );
  });

  it("the same, on texts mostly inside the subset (so that many are read)", () => {
    const word = fc
      .array(fc.constantFrom("a", "Z", "b:c", ":", " ", ",", "'", '"', "é", "⚠", "true", "1", "#", "-"), {
        minLength: 1,
        maxLength: 5,
      })
      .map((xs) => xs.join(""));
    const value = fc.oneof(
      word,
      word.map((t) => JSON.stringify(t)),
      word.map((t) => `'${t.replace(/'/g, "''")}'`),
    );
    const entry = fc.oneof(
      fc.tuple(fc.constantFrom("name", "description", "x"), value).map(([k, v]) => `${k}: ${v}`),
      fc
        .tuple(
          fc.constantFrom("leads", "y"),
          fc.constantFrom("  ", "", "    "),
          fc.array(value, { minLength: 1, maxLength: 3 }),
        )
        .map(([k, i, vs]) => `${k}:\n${vs.map((v) => `${i}- ${v}`).join("\n")}`),
    );
    let read = 0;
    fc.assert(
      fc.property(
        fc.array(entry, { minLength: 1, maxLength: 4 }).map((l) => l.join("\n")),
        (t) => {
          const fast = simpleFrontmatter(t);
          if (fast === undefined) return;
          read++;
          const ref = yamlValue(t);
          expect(ref.ok, `the library refuses ${JSON.stringify(t)}`).toBe(true);
          if (ref.ok) expect(fast).toEqual(ref.value);
        },
      ),
      { numRuns: 10000 },
    );
    expect(read).toBeGreaterThan(1000);
  });

  it("reads the frontmatter every bundled Skill and the scaffold write", () => {
    const t =
      'name: ledger\ndescription: "Household ledger: balances, entries and transfers. Use it to read balances."\nleads:\n  - "ledger: balances and entries; transfer needs confirm."\n  - plain lead, with a comma';
    expect(simpleFrontmatter(t)).toEqual(parse(t));
    expect(simpleFrontmatter(t)).toBeDefined();
    for (const d of readdirSync(join(REPO, "packs"), { withFileTypes: true })) {
      if (!d.isDirectory()) continue;
      const fm = /^---\n([\s\S]*?)\n---/.exec(readFileSync(join(REPO, "packs", d.name, "SKILL.md"), "utf8"))![1]!;
      expect(simpleFrontmatter(fm), d.name).toEqual(parse(fm));
    }
  });

  it("leaves everything outside the subset to the library", () => {
    for (const t of [
      "name: x # c",
      "leads:\n",
      "a: true",
      "a: 1",
      "a: b\na: c",
      "__proto__: x",
      "a: |\n  b",
      "a: [b]",
      "a: b\n  c",
      "",
      "a: 'x' # c",
      'a: "\\x41"',
      'name: \u00a0\n- ""',
      "name: \u2028",
    ])
      expect(simpleFrontmatter(t), t).toBeUndefined();
  });
});

// The JSON5 comment-preserving editor behind activate/deactivate/grant/revoke.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import JSON5 from "json5";
import { arrayAppend, arrayRemove, objectSet } from "../../src/config/edit";
import { HAND } from "./helpers";

describe("config editor (JSON5, comment-preserving)", () => {
  it("appends to a multi-line array with a trailing comma and a comment, in the document's quote style", () => {
    const out = arrayAppend(HAND, ["packs"], "./packs/transit");
    expect(out).toBe(
      HAND.replace("'./packs/ledger',   // money\n", "'./packs/ledger',   // money\n    './packs/transit',\n"),
    );
    const out2 = arrayAppend(out, ["grants", "allow"], "transit.plan");
    expect(out2).toBe(out.replace("'ledger.balance',\n", "'ledger.balance',\n      'transit.plan',\n"));
    expect(JSON5.parse(out2).grants.allow).toEqual(["ledger.balance", "transit.plan"]);
  });

  it("appends to inline and empty arrays", () => {
    expect(arrayAppend(`{ a: ["x", "y"] }`, ["a"], "z")).toBe(`{ a: ["x", "y", "z"] }`);
    expect(arrayAppend(`{ a: ["x", "y",] }`, ["a"], "z")).toBe(`{ a: ["x", "y", "z",] }`);
    expect(arrayAppend(`{ a: [] }`, ["a"], "z")).toBe(`{ a: ["z"] }`);
    expect(arrayAppend(`{\n  a: [\n  ],\n}`, ["a"], "z")).toBe(`{\n  a: [\n    "z",\n  ],\n}`);
    expect(arrayAppend(`{\n  a: [\n    "x"\n  ]\n}`, ["a"], "z")).toBe(`{\n  a: [\n    "x",\n    "z"\n  ]\n}`);
    expect(arrayAppend(`{\n  a: [\n    "x"]\n}`, ["a"], "z")).toBe(`{\n  a: [\n    "x",\n    "z"]\n}`);
  });

  it("keeps a CRLF document's line ends: every line it adds ends in CRLF too", () => {
    const crlf = (s: string) => s.replace(/\n/g, "\r\n");
    const lf = HAND.replace("    deny: [],\n", "    deny: [\n    ],\n");
    const a = arrayAppend(crlf(lf), ["packs"], "./packs/transit");
    expect(a).toBe(crlf(arrayAppend(lf, ["packs"], "./packs/transit")));
    const d = arrayAppend(a, ["grants", "deny"], "ledger.transfer");
    expect(d).toBe(
      crlf(arrayAppend(arrayAppend(lf, ["packs"], "./packs/transit"), ["grants", "deny"], "ledger.transfer")),
    );
    expect(d.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    expect(arrayRemove(arrayRemove(d, ["grants", "deny"], "ledger.transfer"), ["packs"], "./packs/transit")).toBe(
      crlf(lf),
    );
  });

  it("creates a missing key path in the object, matching key style", () => {
    expect(arrayAppend(`{\n  packs: [],\n}\n`, ["grants", "allow"], "a.b")).toBe(
      `{\n  packs: [],\n  grants: { allow: ["a.b"] },\n}\n`,
    );
    expect(arrayAppend(`{ "packs": [] }`, ["grants", "allow"], "a.b")).toBe(
      `{ "packs": [], "grants": { "allow": ["a.b"] } }`,
    );
    expect(arrayAppend(`{}`, ["packs"], "./p")).toBe(`{ packs: ["./p"] }`);
    expect(arrayAppend(HAND, ["grants", "deny"], "ledger.entry.delete")).toBe(
      HAND.replace("deny: []", "deny: ['ledger.entry.delete']"),
    );
  });

  it("removes elements: own line (with its comment), inline, the only one", () => {
    expect(arrayRemove(HAND, ["packs"], "./packs/ledger")).toBe(HAND.replace("    './packs/ledger',   // money\n", ""));
    expect(arrayRemove(`{ a: ["x", "y", "z"] }`, ["a"], "y")).toBe(`{ a: ["x", "z"] }`);
    expect(arrayRemove(`{ a: ["x", "y", "z"] }`, ["a"], "z")).toBe(`{ a: ["x", "y"] }`);
    expect(arrayRemove(`{ a: ["x"] }`, ["a"], "x")).toBe(`{ a: [] }`);
    expect(arrayRemove(`{\n  a: [\n    "x",\n    "y"\n  ]\n}`, ["a"], "y")).toBe(`{\n  a: [\n    "x"\n  ]\n}`);
    expect(arrayRemove(`{ a: ["x"] }`, ["a"], "nope")).toBe(`{ a: ["x"] }`);
    expect(arrayRemove(`{ a: ["x", "x"] }`, ["a"], "x")).toBe(`{ a: [] }`);
  });

  it("sets an object member, adding it or replacing only its value", () => {
    expect(objectSet(HAND, ["sandbox", "bins"], "rg", "/usr/bin/rg")).toBe(
      HAND.replace("{ git: '/usr/bin/git' }", "{ git: '/usr/bin/git', rg: '/usr/bin/rg' }"),
    );
    expect(objectSet(HAND, ["sandbox", "bins"], "git", "/opt/git")).toBe(HAND.replace("'/usr/bin/git'", "'/opt/git'"));
    expect(objectSet(`{ sandbox: { bins: {} } }`, ["sandbox", "bins"], "git", "/usr/bin/git")).toBe(
      `{ sandbox: { bins: { git: "/usr/bin/git" } } }`,
    );
    expect(objectSet(`{\n  packs: [],\n}`, ["sandbox", "bins"], "my-tool", "/x")).toBe(
      `{\n  packs: [],\n  sandbox: { bins: { "my-tool": "/x" } },\n}`,
    );
  });

  it("property: append then remove gives back the text byte for byte, and the parse always matches", () => {
    const layouts = [
      (xs: string[]) => `{ allow: [${xs.map((x) => JSON.stringify(x)).join(", ")}] }`,
      (xs: string[]) => `// c\n{\n  allow: [\n${xs.map((x) => `    '${x}', // why ${x}\n`).join("")}  ],\n}\n`,
      (xs: string[]) => `{\n\tallow: [\n${xs.map((x) => `\t\t"${x}"`).join(",\n")}${xs.length ? "\n" : ""}\t]\n}`,
      // (an empty array is written "[]": insertion normalises the blanks inside an empty one)
      (xs: string[]) => `{ "allow" : [${xs.length ? ` ${xs.map((x) => `"${x}"`).join(" , ")} ` : ""}] , /* x */ }`,
    ];
    const word = fc.stringMatching(/^[a-z][a-z0-9]{0,6}\.[a-z*]{1,5}$/);
    fc.assert(
      fc.property(
        fc.uniqueArray(word, { maxLength: 5 }),
        word,
        fc.integer({ min: 0, max: layouts.length - 1 }),
        (xs, extra, li) => {
          fc.pre(!xs.includes(extra));
          const text = layouts[li]!(xs);
          const added = arrayAppend(text, ["allow"], extra);
          expect(JSON5.parse(added).allow).toEqual([...xs, extra]);
          expect(arrayRemove(added, ["allow"], extra)).toBe(text);
          if (xs.length) {
            const removed = arrayRemove(text, ["allow"], xs[0]!);
            expect(JSON5.parse(removed).allow).toEqual(xs.slice(1));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

// generate's JSON printer: the same bytes as JSON.stringify(v, null, 2) with
// every all-scalar array folded onto one line (what the regex fold gave).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { json } from "../../src/projection/plan";

const SCALAR = String.raw`(?:"(?:[^"\\\n]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)`;
const FOLD = new RegExp(String.raw`\[\n\s*(${SCALAR}(?:,\n\s*${SCALAR})*)\n\s*\]`, "g");
const reference = (v: unknown) => JSON.stringify(v, null, 2).replace(FOLD, (_m, items: string) => `[${items.split(/,\n\s*/).join(", ")}]`) + "\n";

const opts = { maxDepth: 5, values: [fc.string({ unit: "binary" }), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined)] };

describe("json()", () => {
  it("equals the native stringify + fold on arbitrary JSON-like values", () => {
    fc.assert(
      fc.property(fc.oneof(fc.object(opts), fc.array(fc.anything(opts))), (v) => {
        expect(json(v)).toBe(reference(v));
      }),
      { numRuns: 2000 },
    );
  });

  it("folds scalar arrays, keeps nested ones open, drops undefined keys like JSON.stringify", () => {
    const v = { a: [1, "x", null, true], b: [[1, 2], { c: [] }], d: undefined, e: [undefined, () => 1], f: {}, g: { toJSON: () => ["t"] } };
    expect(json(v)).toBe(reference(v));
    expect(json(v)).toContain('"a": [1, "x", null, true]');
  });
});

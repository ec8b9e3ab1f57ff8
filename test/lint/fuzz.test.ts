// Property: whatever JSON a pack's files hold, lint answers with Problems (each
// naming a file) and never throws anything but a user-facing HcpxError.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { lintPackDir } from "../../src/pack/lint";
import { parseSkill } from "../../src/pack/skill";
import { HcpxError } from "../../src/util/errors";
import { baseSurface, basePolicy, miniPack, skillText, type Json } from "./minipack";

/** Replace the value at a random path of `base` with `value`. */
function graft(base: Json, pick: number[], value: unknown): Json {
  const copy = structuredClone(base);
  let node: unknown = copy;
  let parent: Record<string | number, unknown> | undefined;
  let key: string | number | undefined;
  for (const n of pick) {
    if (node === null || typeof node !== "object") break;
    const keys = Object.keys(node as object);
    if (keys.length === 0) break;
    parent = node as Record<string | number, unknown>;
    key = keys[n % keys.length]!;
    node = parent[key];
  }
  if (parent && key !== undefined) parent[key] = value;
  else return value as Json;
  return copy;
}

const value = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    "{{x}}",
    "x{{id}}",
    "../x",
    "a__b",
    "constructor",
    "__proto__",
    "",
    "-",
    "run",
    "/abs",
    "A".repeat(70),
  ),
);
const picks = fc.array(fc.nat(50), { minLength: 0, maxLength: 6 });

describe("lint never crashes on malformed packs", () => {
  const dir = miniPack();
  let withProblems = 0;
  const check = () => {
    try {
      const r = lintPackDir(dir);
      if (r.problems.length) withProblems++;
      for (const p of r.problems) {
        expect(p.file, JSON.stringify(p)).toBeTruthy();
        expect(p.message).toBeTruthy();
      }
    } catch (e) {
      // only a user-facing error may escape (none is expected: load errors become problems)
      expect(e).toBeInstanceOf(HcpxError);
    }
  };

  it("surface.json with any subtree replaced by any JSON value", () => {
    fc.assert(
      fc.property(picks, value, (pick, v) => {
        writeFileSync(join(dir, "surface.json"), JSON.stringify(graft(baseSurface(), pick, v), null, 2));
        check();
      }),
      { numRuns: 400 },
    );
    writeFileSync(join(dir, "surface.json"), JSON.stringify(baseSurface(), null, 2));
    expect(withProblems, "the generator does produce bad packs").toBeGreaterThan(100);
  });

  it("policy.json with any subtree replaced by any JSON value", () => {
    fc.assert(
      fc.property(picks, value, (pick, v) => {
        writeFileSync(join(dir, "policy.json"), JSON.stringify(graft(basePolicy(), pick, v), null, 2));
        check();
      }),
      { numRuns: 300 },
    );
    writeFileSync(join(dir, "policy.json"), JSON.stringify(basePolicy(), null, 2));
  });

  it("SKILL.md with arbitrary text spliced into it", () => {
    const base = skillText();
    fc.assert(
      fc.property(
        fc.nat(base.length),
        fc.nat(40),
        fc.string({
          unit: fc.constantFrom(
            "-",
            "|",
            ":",
            "\n",
            " ",
            "`",
            "[",
            "{",
            "'",
            '"',
            "a",
            "write",
            "confirm",
            "name",
            "---\n",
          ),
        }),
        (at, cut, ins) => {
          const text = base.slice(0, at) + ins + base.slice(at + cut);
          writeFileSync(join(dir, "SKILL.md"), text);
          check();
          try {
            parseSkill(text, "SKILL.md");
          } catch (e) {
            expect(e).toBeInstanceOf(HcpxError);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

// A file that decides what may run (a project or user config, a pack's surface.json and policy.json, the
// lock, a host descriptor) must read as it parses. A bidi control written as it is in the text (an override,
// an embedding, an isolate, a mark) makes an editor or a review show it in another order: found in review, a
// config whose grants read `allow: ["gitx.status"]` on screen granted "*" (the comment seemed to close
// before it: "Trojan Source"). The one JSON5 reader (src/pack/json5.ts) refuses such a file, naming the
// character and its line; written as an escape (`\u202e`) it shows as the escape, and stays allowed where
// pack text does not refuse it.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseJson5 } from "../../src/pack/json5";
import { findPack, loadProject } from "../../src/pack/load";
import { HcpxError } from "../../src/util/errors";
import { scratchProject } from "../support/project";

/** The trick: on screen the comment seems to close before `"*"`; the parser reads `"*"` as a grant. */
const TROJAN = `{\n  packs: ["./packs/calc-wrap"],\n  grants: { allow: ["calc-wrap.ping" /*\u202e } ] \u2066*/, "*" /*\u2069\u2066 keep */] },\n}\n`;

const problem = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof HcpxError) return e.problems[0];
    throw e;
  }
  return undefined;
};

describe("a bidi control written as it is, in a file that decides what may run", () => {
  it("a project config with one in a comment is refused, naming the character and its line; nothing is granted", () => {
    const p = scratchProject({ packs: ["calc-wrap"], configText: TROJAN });
    expect(problem(() => loadProject({ config: p.config, user: false }))).toMatchObject({
      code: "bidi_control",
      line: 3,
      message: expect.stringContaining("U+202E"),
    });
  });

  it("a policy.json with an isolate in a comment: the pack does not load", () => {
    const p = scratchProject({ packs: ["calc-wrap"] });
    writeFileSync(
      join(p.dir, "packs", "calc-wrap", "policy.json"),
      `{ rows: { /* \u2067 */ ping: { operation: "read" }, add: { operation: "read" }, stats: { operation: "read" }, convert: { operation: "read" } } }\n`,
    );
    const project = loadProject({ config: p.config, user: false });
    const e = problem(() => findPack(project, "calc-wrap"));
    expect(e).toMatchObject({ code: "bidi_control", line: 1, message: expect.stringContaining("U+2067") });
  });

  it("each of the set: marks, embeddings, overrides, isolates; an escape of one, and other text, read as before", () => {
    for (const cp of [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069])
      expect(problem(() => parseJson5(`{ a: 1 } // ${String.fromCodePoint(cp)}\n`, "x.json5"))?.code).toBe(
        "bidi_control",
      );
    expect(parseJson5(`{ a: "\\u202e", b: "שלום", c: "ok" } // \\u2066\n`, "x.json5").value).toEqual({
      a: "\u202e",
      b: "שלום",
      c: "ok",
    });
  });
});

// checkJsonFor (src/host/jsonedit.ts): the check that a host can read the JSON hcpx is about to
// write. Plain JSON with an object at the top passes without a parse tree (JSON.parse); anything
// else is refused, or taken, exactly as parseJsonFor refuses or takes it.
import { describe, expect, it } from "vitest";
import { checkJsonFor, parseJsonFor } from "../../src/host/jsonedit";
import { HcpxError } from "../../src/util/errors";

const STRICT = { comments: false, trailingCommas: false };
const JSONC = { comments: true, trailingCommas: true };

/** The problem checkJsonFor refuses `text` with (undefined: taken). */
function refusal(text: string, rules = STRICT) {
  try {
    checkJsonFor(text, ".claude/settings.json", rules, "Claude Code");
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(HcpxError);
    return (e as HcpxError).problems[0];
  }
}

/** What parseJsonFor says of the same text (the reference). */
function reference(text: string, rules = STRICT) {
  try {
    parseJsonFor(text, ".claude/settings.json", rules, "Claude Code");
    return undefined;
  } catch (e) {
    return (e as HcpxError).problems[0];
  }
}

describe("checkJsonFor", () => {
  it("takes plain JSON with an object at the top, under strict and JSONC rules", () => {
    const text = JSON.stringify({ permissions: { allow: ["mcp__hcp__a", "Bash(hcpx exec a b:*)"] } }, null, 2) + "\n";
    expect(refusal(text)).toBeUndefined();
    expect(refusal(text, JSONC)).toBeUndefined();
  });

  it("refuses a trailing comma in strict JSON with parseJsonFor's message, line and column", () => {
    const text = '{\n  "permissions": {\n    "allow": ["a",]\n  }\n}\n';
    const p = refusal(text);
    expect(p).toMatchObject({ code: "bad_json", file: ".claude/settings.json", line: 3 });
    expect(p?.message).toMatch(/trailing comma/);
    expect(p).toEqual(reference(text));
  });

  it("refuses a comment in strict JSON, takes it in JSONC (as parseJsonFor does)", () => {
    const text = '{\n  // the person\'s note\n  "mcpAllowlist": ["hcp:a"]\n}\n';
    const p = refusal(text);
    expect(p?.message).toMatch(/comments are not allowed/);
    expect(p).toEqual(reference(text));
    expect(refusal(text, JSONC)).toBeUndefined();
  });

  it("refuses JSON whose top level is not an object", () => {
    for (const text of ['["a"]\n', '"a"\n', "null\n", "1\n"]) {
      const p = refusal(text);
      expect(p?.code, text).toBe("bad_json");
      expect(p?.message, text).toMatch(/top level is/);
      expect(p).toEqual(reference(text));
    }
  });

  it("takes what JSON.parse does not but the host's reader does (a leading BOM), as parseJsonFor does", () => {
    const text = '\ufeff{\n  "a": 1\n}\n';
    expect(() => JSON.parse(text)).toThrow();
    expect(reference(text)).toBeUndefined();
    expect(refusal(text)).toBeUndefined();
  });
});

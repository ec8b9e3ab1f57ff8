// argsHash (src/util/argshash.ts) is SHA-256 of the canonical JSON, taken from
// @noble/hashes instead of node:crypto: the digest must be node:crypto's, byte
// for byte, for any args (a requestState minted by one build is checked by the
// same build, but the audit log's args_sha256 is compared across versions).
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { argsHash, canonical, sha256Hex } from "../../src/util/argshash";

const nodeSha = (v: unknown) => createHash("sha256").update(canonical(v)).digest("hex");

describe("argsHash", () => {
  it("is node:crypto's sha256 of the canonical JSON (known vectors)", () => {
    expect(argsHash({})).toBe(createHash("sha256").update("{}").digest("hex"));
    expect(argsHash([])).toBe("4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945");
    expect(argsHash({ b: 2, a: 1 })).toBe(createHash("sha256").update('{"a":1,"b":2}').digest("hex"));
    // past one 64-byte block, and multi-byte UTF-8
    const long = { text: "é".repeat(100) + "😀" + "x".repeat(200) };
    expect(argsHash(long)).toBe(nodeSha(long));
  });
  it("agrees with node:crypto for any JSON value, lone surrogates included", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.string({ unit: "binary" }), (v, s) => {
        expect(argsHash(v)).toBe(nodeSha(v));
        expect(argsHash({ s })).toBe(nodeSha({ s }));
      }),
      { numRuns: 50 },
    );
  });
});

describe("sha256Hex", () => {
  it("is node:crypto's sha256 on both sides of the switch to node:crypto (256 KiB of text)", () => {
    for (const n of [0, 1, 262_143, 262_144, 262_145, 1_000_000]) {
      const text = "é😀x".repeat(Math.ceil(n / 4)).slice(0, n);
      expect(sha256Hex(text), `${n} characters`).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
    }
  });
});

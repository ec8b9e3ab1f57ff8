// The hand-written SHA-256 (src/util/sha256.ts, the audit record's args hash on
// exec's path) against node:crypto: the same hex digest for any text, at every
// length around the 55/56/64-byte padding edges, non-ASCII and lone surrogates included.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/util/sha256";
import { argsHash } from "../../src/util/argshash";

const ref = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

describe("sha256Hex", () => {
  it("gives the FIPS 180-4 test vectors", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  });

  it("agrees with node:crypto at every length from 0 to 300 bytes", () => {
    for (let n = 0; n <= 300; n++) {
      const s = "x".repeat(n);
      expect(sha256Hex(s), `length ${n}`).toBe(ref(s));
    }
  });

  it("agrees with node:crypto on any text (600 seeded random texts: any code unit, non-ASCII, lone surrogates)", () => {
    let seed = 29;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const units = ["a", "é", "😀", "\ud800", "\udc00", "\u0000", "\u00a0", "\uffff"];
    for (let n = 0; n < 600; n++) {
      let s = "";
      const len = Math.floor(next() * 200);
      for (let i = 0; i < len; i++) s += next() < 0.5 ? String.fromCharCode(Math.floor(next() * 0x10000)) : units[Math.floor(next() * units.length)]!;
      expect(sha256Hex(s), JSON.stringify(s)).toBe(ref(s));
    }
  });

  it("is what argsHash gives for canonical JSON", () => {
    expect(argsHash({ b: 1, a: ["x", null] })).toBe(ref('{"a":["x",null],"b":1}'));
    expect(argsHash(["name=a", "--", "é"])).toBe(ref('["name=a","--","é"]'));
  });

  it("hashes a megabyte like node:crypto", () => {
    const s = "ab\u00e9".repeat(350_000);
    expect(sha256Hex(s)).toBe(ref(s));
  });
});

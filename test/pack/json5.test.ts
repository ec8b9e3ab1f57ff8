// The hand-written JSON5 parser (src/pack/json5.ts `fastJson5`) against the
// json5 library: every input gives the library's value, or is declined and then
// gives the library's value or error (message, line, column) via parseJson5.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import JSON5 from "json5";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  DECLINE,
  MAX_NESTING,
  fastJson5,
  locate,
  nestingDepth,
  parseJson5,
  readTree,
  type Json5Node,
} from "../../src/pack/json5";
import { HcpxError } from "../../src/util/errors";
import { BIDI_RAW } from "../../src/util/bidi";

const ROOT = join(import.meta.dirname, "..", "..");

type Outcome =
  { ok: true; value: unknown } | { ok: false; message: string; line: number | undefined; column: number | undefined };

/** What parseJson5 gave before the fast parser: the library on the BOM-less text, its error mapped. */
function reference(text: string): Outcome {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON5.parse(body) };
  } catch (e) {
    const err = e as Error & { lineNumber?: number; columnNumber?: number };
    const msg = String(err.message)
      .replace(/^JSON5: /, "")
      .replace(/ at \d+:\d+$/, "");
    return { ok: false, message: `cannot parse: ${msg}`, line: err.lineNumber, column: err.columnNumber };
  }
}

function actual(text: string, code = "bad_json5"): Outcome {
  try {
    return { ok: true, value: parseJson5(text, "f.json5").value };
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    const p = e.problems[0]!;
    expect(p.code).toBe(code);
    expect(p.file).toBe("f.json5");
    return { ok: false, message: p.message, line: p.line, column: p.column };
  }
}

/** "" when a and b are the same JSON5 value: Object.is on leaves, own keys in the same order, plain data properties. */
function diff(a: unknown, b: unknown, at = "$"): string {
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") {
    return Object.is(a, b) ? "" : `${at}: ${String(a)} vs ${String(b)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${at}: array vs object`;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${at}: prototypes differ`;
  const ka = Reflect.ownKeys(a);
  const kb = Reflect.ownKeys(b);
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i]))
    return `${at}: keys ${JSON.stringify(ka.map(String))} vs ${JSON.stringify(kb.map(String))}`;
  for (const k of ka) {
    if (Array.isArray(a) && k === "length") continue;
    const da = Object.getOwnPropertyDescriptor(a, k)!;
    const db = Object.getOwnPropertyDescriptor(b, k)!;
    if (
      da.enumerable !== db.enumerable ||
      da.writable !== db.writable ||
      da.configurable !== db.configurable ||
      "get" in da
    )
      return `${at}.${String(k)}: descriptor differs`;
    const d = diff(da.value, db.value, `${at}.${String(k)}`);
    if (d) return d;
  }
  return "";
}

/** JSON.stringify with every non-printable-ASCII char as a \u escape (so failures show BOMs and separators). */
const show = (s: string): string =>
  JSON.stringify(s).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** The property: the fast parser agrees with the library whenever it answers; parseJson5 agrees always. */
function check(text: string, opts: { mustHandle?: boolean } = {}): void {
  const ref = reference(text);
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const fast = fastJson5(body);
  if (fast !== DECLINE) {
    expect(ref.ok, `fast parser accepted what json5 rejects: ${show(text)}`).toBe(true);
    if (ref.ok) expect(diff(fast, ref.value), show(text)).toBe("");
  } else if (opts.mustHandle && ref.ok) {
    expect.fail(`fast parser declined valid input: ${show(text)}`);
  }
  // a bidi control as it is: parseJson5 refuses the text (src/util/bidi.ts, Trojan Source), whatever the library says
  if (BIDI_RAW.test(text)) {
    expect(actual(text, "bidi_control").ok, show(text)).toBe(false);
    return;
  }
  const got = actual(text);
  if (ref.ok) {
    expect(got.ok, show(text)).toBe(true);
    if (got.ok) expect(diff(got.value, ref.value), show(text)).toBe("");
  } else {
    expect(got, show(text)).toEqual(ref);
  }
}

// ---- generators -------------------------------------------------------------

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const specialKeys = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "null",
  "true",
  "Infinity",
  "NaN",
  "a",
  "$",
  "_x1",
  "0",
  "1",
  "-1",
  "",
  "a b",
  "1e3",
];
const asciiKey = fc.oneof(fc.constantFrom(...specialKeys), fc.string({ maxLength: 8 }));
const anyKey = fc.oneof(
  asciiKey,
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.constantFrom("é", "ünï", "a\u200cb", "Ω$", "ℵ0"),
);

function valueArb(key: fc.Arbitrary<string>, str: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  return fc.letrec<{ v: unknown }>((tie) => ({
    v: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      fc.double(),
      fc.integer(),
      fc.constantFrom(0, 1, 255, 0.5, 1e21, 1e-7, Number.MAX_SAFE_INTEGER),
      str,
      fc.array(tie("v"), { maxLength: 5 }),
      fc.dictionary(key, tie("v"), { maxKeys: 5, noNullPrototype: true }),
    ),
  })).v;
}
const asciiValue = valueArb(
  asciiKey,
  fc.oneof(fc.string({ maxLength: 10 }), fc.string({ unit: "binary", maxLength: 10 })),
);
const anyValue = valueArb(anyKey, fc.string({ unit: "binary", maxLength: 10 }));
const stringifyOpts = fc.record({
  space: fc.constantFrom(undefined, 0, 1, 2, 4, "\t", " "),
  quote: fc.constantFrom(undefined, "'", '"'),
});

const TRIVIA = [
  " ",
  "\t",
  "\n",
  "\r\n",
  "\r",
  "\v",
  "\f",
  "\u00a0",
  "\ufeff",
  "\u2028",
  "\u2029",
  "\u1680",
  "\u2000",
  "\u200a",
  "\u202f",
  "\u205f",
  "\u3000",
  "// line\n",
  "//\r",
  "// x\u2028",
  "//\u2029",
  "/* block */",
  "/**/",
  "/***/",
  "/* a * b / c \n */",
  "/*/ */",
];

type Tok = { kind: "ws" | "punct" | "string" | "atom"; text: string };

/** Tokens of JSON5.stringify output (strings, punctuators, whitespace runs, atoms). */
function tokenize(text: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const start = i;
    if (c === '"' || c === "'") {
      i++;
      while (text[i] !== c) i += text[i] === "\\" ? 2 : 1;
      i++;
      out.push({ kind: "string", text: text.slice(start, i) });
    } else if ("{}[]:,".includes(c)) {
      i++;
      out.push({ kind: "punct", text: c });
    } else if (c === " " || c === "\n" || c === "\t") {
      while (i < text.length && " \n\t".includes(text[i]!)) i++;
      out.push({ kind: "ws", text: text.slice(start, i) });
    } else {
      while (i < text.length && !"{}[]:, \n\t\"'".includes(text[i]!)) i++;
      out.push({ kind: "atom", text: text.slice(start, i) });
    }
  }
  return out;
}

const hex = (n: number, w: number, r: () => number) => {
  const h = n.toString(16).padStart(w, "0");
  return r() < 0.5 ? h : h.toUpperCase();
};

/** A string literal for s with quote q, with random (valid) escapes and line continuations. */
function renderString(s: string, q: string, r: () => number): string {
  let out = q;
  for (let k = 0; k < s.length; k++) {
    const ch = s[k]!;
    const code = ch.charCodeAt(0);
    if (r() < 0.05) out += ["\\\n", "\\\r\n", "\\\r", "\\\u2028", "\\\u2029"][Math.floor(r() * 5)];
    const next = s.charCodeAt(k + 1);
    if (ch === "\\") out += "\\\\";
    else if (ch === q) out += `\\${q}`;
    else if (ch === "\n") out += r() < 0.5 ? "\\n" : "\\x0a";
    else if (ch === "\r") out += r() < 0.5 ? "\\r" : "\\u000D";
    else if (code === 0x2028 || code === 0x2029) out += `\\u${hex(code, 4, r)}`;
    else if (code === 0 && !(next >= 0x30 && next <= 0x39) && r() < 0.7) out += "\\0";
    else if (code === 8 && r() < 0.7) out += "\\b";
    else if (code === 9 && r() < 0.7) out += "\\t";
    else if (code === 11 && r() < 0.7) out += "\\v";
    else if (code === 12 && r() < 0.7) out += "\\f";
    else if (r() < 0.15 && code < 0x100) out += `\\x${hex(code, 2, r)}`;
    else if (r() < 0.15) out += `\\u${hex(code, 4, r)}`;
    else if (r() < 0.1 && /[ac-eg-mo-qswyzA-Z'"/ ]/.test(ch))
      out += `\\${ch}`; // identity escape
    else out += ch;
  }
  return out + q;
}

function renderNumber(t: string, r: () => number): string {
  if (!/^-?\d/.test(t)) return t;
  const neg = t.startsWith("-");
  const abs = neg ? t.slice(1) : t;
  const v = Number(abs);
  const sign = neg ? "-" : r() < 0.3 ? "+" : "";
  const x = r();
  if (x < 0.25 && Number.isSafeInteger(v)) return `${sign}0${r() < 0.5 ? "x" : "X"}${hex(v, 1, r)}`;
  if (x < 0.5 && abs.startsWith("0.")) return sign + abs.slice(1);
  if (x < 0.75 && /^\d+$/.test(abs)) return `${sign + abs}.`;
  if (x < 0.85 && /^\d+$/.test(abs)) return `${sign + abs}e0`;
  return sign + abs;
}

/** Inserts comments/whitespace and trailing commas at token boundaries, swaps quote styles, respells numbers and keys. */
function mutate(text: string, seed: number): string {
  const r = rng(seed);
  const toks = tokenize(text);
  let out = r() < 0.1 ? "\ufeff" : "";
  let prevSig = ""; // last significant token text
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k]!;
    if (r() < 0.3) out += TRIVIA[Math.floor(r() * TRIVIA.length)];
    if (
      t.kind === "punct" &&
      (t.text === "}" || t.text === "]") &&
      prevSig !== "{" &&
      prevSig !== "[" &&
      prevSig !== "," &&
      r() < 0.5
    )
      out += ",";
    if (t.kind === "string" && r() < 0.7) {
      // a literal without an escape is its text between the quotes (the library's parse for the others:
      // ~0.3 of the 5 MB test's ~1.4 CPU-s of input making, for the same text)
      const value = t.text.includes("\\") ? (JSON5.parse(t.text) as string) : t.text.slice(1, -1);
      out += renderString(value, r() < 0.5 ? "'" : '"', r);
    } else if (t.kind === "atom") {
      let j = k + 1; // the next token that is not whitespace
      while (toks[j]?.kind === "ws") j++;
      const isKey = toks[j]?.text === ":";
      if (isKey && r() < 0.3) out += renderString(t.text, r() < 0.5 ? "'" : '"', r);
      else out += isKey ? t.text : renderNumber(t.text, r);
    } else out += t.text;
    if (t.kind !== "ws") prevSig = t.text;
  }
  if (r() < 0.3) out += TRIVIA[Math.floor(r() * TRIVIA.length)];
  return out;
}

const GARBAGE_CHARS = [
  ..."{}[]:,'\"\\/*+-.0123456789eExXabcfnrtuvINaIfinity$_ \n\r\t\v\f",
  "\u00a0",
  "\ufeff",
  "\u2028",
  "\u2029",
  "\u3000",
  "\u200c",
  "é",
  "\u0000",
  "\ud83d",
  "\ude00",
];
const garbage = fc.string({ unit: fc.constantFrom(...GARBAGE_CHARS), maxLength: 40 });

// ---- tests ------------------------------------------------------------------

describe("json5 fast parser", () => {
  // The library warns (console.warn) on raw U+2028/U+2029 in strings; the fast parser declines those.
  beforeAll(() => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
  });
  afterAll(() => {
    vi.restoreAllMocks();
  });

  it("parses JSON5.stringify output of ASCII-keyed values itself, equal to JSON5.parse", () => {
    fc.assert(
      fc.property(asciiValue, stringifyOpts, (v, o) => {
        check(JSON5.stringify(v, o), { mustHandle: true });
      }),
      { numRuns: 400 },
    );
  });

  it("agrees with JSON5.parse on values with any keys (non-ASCII identifiers go to the library)", () => {
    fc.assert(
      fc.property(anyValue, stringifyOpts, (v, o) => {
        check(JSON5.stringify(v, o));
      }),
      { numRuns: 300 },
    );
  });

  it("agrees after comments, whitespace, trailing commas, quote swaps, escapes and number spellings are inserted", () => {
    fc.assert(
      fc.property(asciiValue, stringifyOpts, fc.integer(), (v, o, seed) => {
        check(mutate(JSON5.stringify(v, o), seed), { mustHandle: true });
      }),
      { numRuns: 500 },
    );
  });

  it("gives the library's error (message, line, column) for truncated and edited texts", () => {
    fc.assert(
      fc.property(
        asciiValue,
        stringifyOpts,
        fc.integer(),
        fc.nat(),
        fc.constantFrom(...GARBAGE_CHARS),
        fc.boolean(),
        (v, o, seed, at, ch, cut) => {
          const text = mutate(JSON5.stringify(v, o), seed);
          const p = at % (text.length + 1);
          check(cut ? text.slice(0, p) : text.slice(0, p) + ch + text.slice(p + 1));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("agrees with the library on random garbage", () => {
    fc.assert(
      fc.property(garbage, (s) => {
        check(s);
      }),
      { numRuns: 1000 },
    );
  });

  it("handles the edge cases itself, exactly as json5 does", () => {
    const cases = [
      "{}",
      "[]",
      "{a:{b:[{},[],[[]]]}}",
      "-0",
      "-0.0",
      "+0",
      "1e309",
      "-1e309",
      ".5",
      "-.5",
      "5.",
      "5.e2",
      "+1",
      "0x1F",
      "-0x1f",
      "+0XaB",
      "0e5",
      "0.",
      "Infinity",
      "-Infinity",
      "+Infinity",
      "NaN",
      "-NaN",
      "+NaN",
      "'\\u00e9'",
      '"\\u00E9"',
      "'a\\\nb'",
      "'a\\\r\nb'",
      "'a\\\rb'",
      "'a\\\u2028b'",
      "'a\\\u2029b'",
      "'\\x41\\x7a'",
      "'\\0'",
      "'\\b\\f\\n\\r\\t\\v'",
      "'\\a\\c\\/\\'\\\"\\\\'",
      "'\\\ud83d\\ude00'",
      "'\ud83d\ude00'",
      "'\ud800'",
      "'tab\there'",
      "'nul\u0000'",
      "{__proto__: 1}",
      "{'__proto__': {a: 1}}",
      "{constructor: 1, toString: 2, hasOwnProperty: 3, valueOf: null}",
      "{'2': 'a', '1': 'b', x: 'c'}",
      "{null: 1, true: 2, false: 3, Infinity: 4, NaN: 5}",
      "{$: 1, _: 2, a$_0: 3}",
      "{'': 1}",
      "[1,]",
      "{a:1,}",
      "[1 , 2 ,\n]",
      "// c\n1",
      "/* c */ 1 /* d */",
      "1 // trailing",
      "\ufeff{a:1}",
      "{a:1}\ufeff",
      "\u00a0\u2028\u2029\u3000[\u1680]\u202f",
      "null",
      "true",
      "false",
      "'str'",
      '"str"',
      "[null,true,false]",
      '{"a":1,"b":[1,2,{"c":"d"}]}',
    ];
    for (const c of cases) check(c, { mustHandle: true });
    expect(Object.is(fastJson5("-0"), -0)).toBe(true);
    const proto = fastJson5("{__proto__: {polluted: true}}") as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses a key written twice in one object, by every path (fast reader, library, JSON.parse fast path), with its line", () => {
    const err = (text: string) => {
      try {
        parseJson5(text, "policy.json");
      } catch (e) {
        return (e as HcpxError).problems[0];
      }
      return undefined;
    };
    // the fast reader; the library (an escaped identifier); a nested object; __proto__ twice
    expect(
      err("{\n  rows: {\n    save: { operation: 'write', confirm: true },\n    save: { operation: 'read' },\n  },\n}"),
    ).toMatchObject({ code: "duplicate_key", file: "policy.json", line: 4 });
    expect(err("{ \\u0073ave: 1,\n  save: 2 }")).toMatchObject({ code: "duplicate_key", line: 2 });
    expect(err("{__proto__: 1, __proto__: 2}")).toMatchObject({ code: "duplicate_key" });
    expect(err("{a: 1, b: {a: 2}}")).toBeUndefined();
    // a large plain-JSON file (JSON.parse keeps the last copy silently): still refused, at the second copy
    const big = { commands: Array.from({ length: 3000 }, (_, i) => ({ verb_key: `v${i}`, summary: "s ".repeat(10) })) };
    const text = JSON.stringify(big, null, 2).replace(
      '"verb_key": "v2999"',
      '"verb_key": "v2999",\n      "verb_key": "other"',
    );
    expect(text.length).toBeGreaterThan(64 * 1024);
    const p = err(text)!;
    expect(p).toMatchObject({ code: "duplicate_key" });
    expect(text.split("\n")[p.line! - 1]).toContain('"verb_key": "other"');
    expect(err(JSON.stringify(big))).toBeUndefined();
  });

  it("declines what it leaves to the library, which then parses or reports it", () => {
    const declined = [
      "{é: 1}",
      "{a\u200cb: 1}",
      "{\\u0061: 1}",
      "{a\\u0062: 1}",
      "'raw\u2028sep'",
      "\u2003",
      "",
      "01",
      "00",
      "1x",
      "- 1",
      ".",
      ".e1",
      "1e",
      "1e+",
      "0x",
      "0xg",
      "[,]",
      "{,}",
      "[1,,]",
      "{a}",
      "{a:}",
      "{1: 2}",
      "{'a' 1}",
      "[1 2]",
      ..."123456789".split("").map((d) => `'\\${d}'`),
      "'\\01'",
      "'\\x4'",
      "'\\u12'",
      "'a\nb'",
      "'unterminated",
      "/* open",
      "/ x",
      "nul",
      "tru",
      "Infinit",
      "Na",
      "-I",
      "{a:1}}",
      "[]]",
      "1 2",
    ];
    for (const c of declined) {
      expect(fastJson5(c), JSON.stringify(c)).toBe(DECLINE);
      check(c);
    }
    const err = actual("{\n  a: 1,\n  b: 01,\n}");
    expect(err).toEqual({ ok: false, message: "cannot parse: invalid character '1'", line: 3, column: 7 });
  });

  it("the fast parser survives deep nesting: 5,000 levels go to the library, 900 levels are parsed directly", () => {
    for (const [open, close] of [
      ["[", "]"],
      ["{a:", "}"],
    ] as const) {
      const deep = open.repeat(5000) + "1" + close.repeat(5000);
      expect(fastJson5(deep)).toBe(DECLINE);
      const mid = open.repeat(900) + "1" + close.repeat(900);
      expect(fastJson5(mid)).not.toBe(DECLINE);
      check(open.repeat(5000) + "1" + close.repeat(4999)); // an error: the library's message and position
      check(open.repeat(MAX_NESTING) + "1" + close.repeat(MAX_NESTING), { mustHandle: true });
    }
    expect(() => fastJson5("[".repeat(200_000))).not.toThrow();
  });

  it("parseJson5 refuses nesting deeper than MAX_NESTING, by either parser, naming the file (no stack overflow later)", () => {
    for (const [open, close] of [
      ["[", "]"],
      ["{a:", "}"],
      ["{\\u0061:", "}"],
    ] as const) {
      for (const depth of [MAX_NESTING + 1, 900, 5000, 100_000]) {
        const text = open.repeat(depth) + "1" + close.repeat(depth);
        let err: unknown;
        try {
          parseJson5(text, "deep.json5");
        } catch (e) {
          err = e;
        }
        expect(err, `${open} x${depth}`).toBeInstanceOf(HcpxError);
        expect((err as HcpxError).problems[0]).toMatchObject({ code: "too_deep", file: "deep.json5" });
        expect((err as HcpxError).problems[0]!.message).toContain(String(MAX_NESTING));
      }
    }
    expect(nestingDepth(JSON5.parse("[[1], {a: [{}]}]"))).toBe(4);
    expect(nestingDepth(5)).toBe(0);
  });

  // the text is a quarter of it four times over: making the items and the library's parse are ~3/4 of the
  // test's CPU, and the library's value of [q, q, q, q] is its value of [q] four times; the fast parser still
  // reads all 5 MB
  it("parses a 5 MB file equal to JSON5.parse", () => {
    const r = rng(7);
    const parts: string[] = [];
    let size = 0;
    for (let k = 0; size < 1_250_000; k++) {
      const item = mutate(
        JSON5.stringify(
          {
            id: k,
            name: `item ${k} – ünïcödé`,
            tags: ["a", "b'c", 'd"e'],
            ratio: r() * 1000,
            nested: { ok: k % 2 === 0, none: null, big: 1e300 * k },
          },
          { space: k % 3 },
        ),
        k,
      );
      parts.push(item);
      size += item.length + 2;
    }
    const quarter = parts.join(",\n");
    const text = `// big\n[\n${[quarter, quarter, quarter, quarter].join(",\n")},\n]\n`;
    expect(text.length).toBeGreaterThan(5_000_000);
    const fast = fastJson5(text);
    expect(fast).not.toBe(DECLINE);
    const one = JSON5.parse(`// big\n[\n${quarter},\n]\n`) as unknown[];
    expect(diff(fast, [...one, ...one, ...one, ...one])).toBe("");
  }, 180_000);

  it("parses every JSON5 file the project ships (packs, hosts, config) without the library", () => {
    const files = [join(ROOT, "hcp.config.json5")];
    for (const p of readdirSync(join(ROOT, "packs"), { withFileTypes: true })) {
      if (!p.isDirectory()) continue;
      for (const f of readdirSync(join(ROOT, "packs", p.name)))
        if (/\.json5?$/.test(f)) files.push(join(ROOT, "packs", p.name, f));
    }
    for (const f of readdirSync(join(ROOT, "hosts"))) if (f.endsWith(".json5")) files.push(join(ROOT, "hosts", f));
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const text = readFileSync(f, "utf8");
      expect(fastJson5(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text), f).not.toBe(DECLINE);
      check(text, { mustHandle: true });
    }
  });

  it("locate still maps JSON paths to lines", () => {
    const text = "// c\n{\n  a: 1,\n  'b': [\n    10,\n    { c: \"x\" },\n  ],\n}\n";
    expect(locate(text, ["a"])).toEqual({ line: 3, column: 3 });
    expect(locate(text, ["b", 1])).toEqual({ line: 6, column: 5 });
    expect(locate(text, ["b", 1, "c"])).toEqual({ line: 6, column: 7 });
    expect(locate(text, ["zz"])).toEqual({ line: 2, column: 1 });
  });
});

/** "" when every node's text (start..end) reads back as the node's value, and an item's key is where it starts. */
function treeDiff(text: string, n: Json5Node, at = "$"): string {
  const own = JSON5.parse(text.slice(n.start, n.end));
  const d = diff(n.value, own, at);
  if (d) return `${at} [${n.start}, ${n.end}): ${d}`;
  for (const [k, it] of n.items.entries()) {
    if (it.key !== undefined && !text.slice(it.start).startsWith(it.keyQuoted ? text[it.start]! : it.key))
      return `${at}.${it.key}: key not at ${it.start}`;
    if (it.comma !== undefined && text[it.comma] !== ",") return `${at}[${k}]: no comma at ${it.comma}`;
    const sub = treeDiff(text, it.value, `${at}.${it.key ?? k}`);
    if (sub) return sub;
  }
  return "";
}

describe("the one reader's tree (locate and the config editor read it)", () => {
  beforeAll(() => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
  });
  afterAll(() => {
    vi.restoreAllMocks();
  });
  it("has the library's value at every node, its positions exact, for texts the value reader parses", () => {
    fc.assert(
      fc.property(asciiValue, stringifyOpts, fc.integer(), (v, o, seed) => {
        const text = mutate(JSON5.stringify(v, o), seed);
        const t = readTree(text);
        if (fastJson5(text) === DECLINE) return;
        expect(t, show(text)).toBeDefined();
        expect(treeDiff(text, t!.root), show(text)).toBe("");
      }),
      { numRuns: 300 },
    );
  });
  it("reads what the value reader leaves to the library (non-ASCII and escaped identifiers, raw U+2028): locate works there too", () => {
    fc.assert(
      fc.property(anyValue, stringifyOpts, (v, o) => {
        const text = JSON5.stringify(v, o);
        const t = readTree(text);
        expect(t, show(text)).toBeDefined();
        expect(treeDiff(text, t!.root), show(text)).toBe("");
      }),
      { numRuns: 200 },
    );
    const text = "{\n  caf\u00e9: 1,\n  \\u0061b: 'x\u2028y',\n  z: [true],\n}";
    expect(fastJson5(text)).toBe(DECLINE);
    expect(readTree(text)!.root.value).toEqual(JSON5.parse(text));
    expect(locate(text, ["ab"])).toEqual({ line: 3, column: 3 });
    expect(locate(text, ["z", 0])).toEqual({ line: 4, column: 7 });
  });
  it("is undefined for a text that does not read; locate then gives no position", () => {
    for (const bad of ["", "{", "{a:1}}", "[1 2]", "'open"]) {
      expect(readTree(bad), bad).toBeUndefined();
      expect(locate(bad, ["a"]), bad).toBeUndefined();
    }
  });
});

describe("large files: JSON.parse fast path and cached positions", () => {
  const big = (extra = "") => {
    const cmds = Array.from(
      { length: 3000 },
      (_, i) => `    {"verb_key":"v${i}","summary":"command number ${i}","args":{"a":{"type":"string"}}}`,
    );
    return `// a generated surface\n// two comment lines\n{\n  "id": "big",${extra}\n  "commands": [\n${cmds.join(",\n")}\n  ]\n}\n`;
  };

  it("a large JSON file after leading comments gives the same value as the JSON5 parsers", () => {
    const text = big();
    expect(text.length).toBeGreaterThan(64 * 1024);
    const v = parseJson5(text, "big.json").value;
    expect(v).toEqual(fastJson5(text));
    expect(v).toEqual(JSON5.parse(text));
    // __proto__ stays an own property, as the library has it
    const proto = parseJson5(big(`\n  "__proto__": {"polluted": true},`), "p.json").value as Record<string, unknown>;
    expect(Object.hasOwn(proto, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    // JSON5 syntax in a large file still parses (the fast path declines)
    const json5 = big().replace('"id": "big",', "id: 'big', // unquoted");
    expect(parseJson5(json5, "j.json5").value).toEqual(JSON5.parse(json5));
  });

  it("locate gives each command's line, in any order, repeatedly (positions cached per text)", () => {
    const text = big();
    const order = [2999, 0, 1500, 17, 2998, 1500, 1];
    for (const i of order) {
      expect(locate(text, ["commands", i, "verb_key"])).toEqual({ line: 6 + i, column: 6 });
      expect(locate(text, ["commands", i, "args", "a", "type"])?.line).toBe(6 + i);
    }
    // a missing member: the nearest existing parent, as before
    expect(locate(text, ["commands", 5, "nope"])).toEqual(locate(text, ["commands", 5]));
    expect(locate(text, ["commands", 5000])).toEqual(locate(text, ["commands"]));
    const t0 = performance.now();
    for (let i = 0; i < 3000; i++) locate(text, ["commands", i, "summary"]);
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});

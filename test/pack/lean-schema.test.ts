// A surface whose keys (top level, each command's and each arg's) are all the lean
// surface schema's is validated with LeanSurfaceSchema (src/pack/schema.ts
// schemaFor, schema-defs.ts leanFits), and a config without confirm and mcp
// with LeanConfigSchema: each must come out exactly as through the full schema
// — the same value (key order included), the same issues in the same order,
// the same problems with their hints and lines. Generated surfaces and
// configs, valid and invalid, with and without the keys only the full schema
// has (openapi, mcp, a command's inputs, prompt, http, an arg's in; confirm,
// mcp), with
// typos of them and keys in any order.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HcpxError } from "../../src/util/errors";
import { parseJson5 } from "../../src/pack/json5";
import { schemaFor, schemas } from "../../src/pack/schema";
import { validate, validateDoc } from "../../src/pack/validate";

type Entry = [string, unknown];
type Arb<T> = fc.Arbitrary<T>;
const obj = (entries: Entry[]) => Object.fromEntries(entries);
const junk = fc.constantFrom<unknown>(null, 7, -1, 1.5, "", "x", true, [], {}, ["a"], { a: 1 });

/** Makers of values all valid (`clean`), or with wrong values, typos and missing keys here and there. */
function kit(clean: boolean) {
  /** good values, or (not clean) also bad ones, and once in a while junk */
  const pick = (good: unknown[], bad: unknown[] = []): Arb<unknown> =>
    clean
      ? fc.constantFrom(...good)
      : fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...good, ...bad) }, { weight: 1, arbitrary: junk });
  const mostly = (good: Arb<unknown>): Arb<unknown> =>
    clean ? good : fc.oneof({ weight: 4, arbitrary: good }, { weight: 1, arbitrary: junk });
  const key = (k: string, v: Arb<unknown>) => v.map((x): Entry => [k, x]);
  /** a key no schema has (not clean), next to the key it is a typo of */
  const typos = (keys: string[], v: unknown): Arb<Entry>[] =>
    clean
      ? []
      : [
          fc
            .constantFrom(...keys)
            .chain((k) => fc.constantFrom(k.slice(1), `${k}s`, k.toUpperCase(), k[1]! + k[0]! + k.slice(2), "zzz"))
            .map((k): Entry => [k, v]),
        ];
  /** the required entries (all, when clean) and some of the others, in any order */
  const some = (required: Arb<Entry>[], optional: Arb<Entry>[], min = 0) =>
    fc
      .tuple(fc.tuple(...required), fc.tuple(...optional))
      .chain(([req, opt]) =>
        clean
          ? fc
              .shuffledSubarray(opt)
              .chain((o) => fc.shuffledSubarray([...req, ...o], { minLength: req.length + o.length }))
          : fc.shuffledSubarray([...req, ...opt], { minLength: min }),
      )
      .map(obj);
  return { pick, mostly, key, typos, some };
}

/** Surfaces (see kit) */
function surfaces(clean: boolean): Arb<unknown> {
  const { pick, mostly, key, typos, some } = kit(clean);
  const arg = some(
    [key("type", pick(["string", "number", "object"], ["nope"]))],
    [
      key("required", pick([true, false])),
      key("description", pick(["d", ""])),
      key("in", pick(["path", "query", "body"], ["nowhere"])),
      key("values", pick([["a", 1]], [[]])),
      ...typos(["type", "flag", "in"], 1),
    ],
  );
  const inputs = fc.dictionary(
    clean ? fc.constantFrom("who", "n") : fc.constantFrom("who", "Bad-Key", "n"),
    mostly(
      some(
        [key("ask", pick(["form", "sampling"], ["never"])), key("arg", pick(["a"], ["b c"]))],
        [key("message", pick(["hi"], [""])), ...typos(["ask", "arg"], "x")],
      ),
    ),
    { maxKeys: 2 },
  );
  const leanCommand: [Arb<Entry>[], Arb<Entry>[]] = [
    [key("verb_key", pick(["ping", "entry.add"], ["Bad Verb"])), key("summary", pick(["Ping"], [""]))],
    [
      key("description", pick(["d"])),
      key("cli", pick([["x", "ping"]], [[]])),
      key("output", pick(["json", "text"], ["xml"])),
      key(
        "args",
        mostly(
          fc.dictionary(clean ? fc.constantFrom("a", "b") : fc.constantFrom("a", "b", "bad name"), mostly(arg), {
            maxKeys: 2,
          }),
        ),
      ),
      key("tool", pick(["ping"], [""])),
    ],
  ];
  const heavyCommand = [
    key("inputs", mostly(inputs)),
    key("prompt", mostly(some([], [key("description", pick(["p"], [""])), key("inputs", inputs)]))),
    key(
      "http",
      mostly(
        some(
          [key("method", pick(["GET", "post"], ["FETCH"])), key("path", pick(["/a/{id}"], ["a"]))],
          [key("security", pick([[["key"], []]], [[[1]]])), ...typos(["method", "path"], "x")],
        ),
      ),
    ),
  ];
  const command = fc.oneof(
    { weight: 3, arbitrary: some(leanCommand[0], leanCommand[1], 1) },
    { weight: 2, arbitrary: some(leanCommand[0], [...leanCommand[1], ...heavyCommand], 1) },
    {
      weight: 1,
      arbitrary: some(leanCommand[0], [...leanCommand[1], ...typos(["inputs", "prompt", "http", "tool"], {})]),
    },
    ...(clean ? [] : [{ weight: 1, arbitrary: junk }]),
  );

  const wrap = some(
    [key("bin", pick(["./bin"], [""]))],
    [key("output", pick(["json"], ["xml"])), key("timeout_ms", pick([1000], [0])), ...typos(["bin", "output"], 1)],
  );
  const mcp = some(
    [],
    [
      key("bin", pick(["srv"], [""])),
      key("url", pick(["https://example.test/mcp"])),
      key("headers", pick([{ Authorization: { env: "TOKEN", scheme: "Bearer" } }], [{ "bad header": "x" }])),
      ...typos(["bin", "url"], 1),
    ],
  );
  const openapi = some(
    [],
    [
      key("base_url", pick(["https://example.test"])),
      key(
        "schemes",
        pick([{ key: { type: "apiKey", in: "header", name: "X-Key", env: "KEY" } }], [{ k: { type: "x" } }]),
      ),
      key("security", pick([[["key"]]])),
      ...typos(["schemes", "security"], 1),
    ],
  );
  const leanTop: [Arb<Entry>[], Arb<Entry>[]] = [
    [
      key("hcp", pick(["1.1"], ["2"])),
      key("id", pick(["calc"], ["Bad/Id"])),
      key("version", pick(["0.1.0"], [""])),
      key("description", pick(["A pack"])),
      key("kind", pick(["wrap", "composite", "openapi", "mcp"], ["other"])),
    ],
    [
      key("$schema", pick(["./s.json"])),
      key("wrap", mostly(wrap)),
      key("composite", pick([{ module: "./i.mjs" }], [{ modul: "x" }])),
      key("pass_through", pick([{ allowedSubcommands: ["a"], maxArgv: 3 }], [{ maxArgv: -1 }])),
      key("reach", pick([{ network: ["api.example.test:443"] }], [{ network: ["nope"], path: [] }])),
      key("binding", pick([{ env: ["TOKEN"] }], [{ env: ["bad-name"] }])),
      key(
        "commands",
        clean
          ? fc.array(command, { maxLength: 3 })
          : fc.oneof({ weight: 6, arbitrary: fc.array(command, { maxLength: 3 }) }, { weight: 1, arbitrary: junk }),
      ),
      key("stimuli", pick([[{ id: "s", extra: 1 }]], [[{}]])),
    ],
  ];
  return fc.oneof(
    { weight: 4, arbitrary: some(leanTop[0], leanTop[1], 3) },
    {
      weight: 3,
      arbitrary: some(leanTop[0], [...leanTop[1], key("openapi", mostly(openapi)), key("mcp", mostly(mcp))], 3),
    },
    {
      weight: 1,
      arbitrary: some(leanTop[0], [...leanTop[1], ...typos(["openapi", "mcp", "commands", "wrap", "kind"], {})]),
    },
    ...(clean ? [] : [{ weight: 1, arbitrary: junk }]),
  );
}
const surface = fc.oneof(surfaces(true), surfaces(false));

/** Configs (see kit) */
function configs(clean: boolean): Arb<unknown> {
  const { pick, key, typos, some } = kit(clean);
  const lean = [
    key("$schema", pick(["./c.json"])),
    key("packs", pick([["./packs/a"]], [[""]])),
    key("principal", pick([{ id: "me", kind: "person" }], [{ id: "" }, { id: "me", knd: "x" }])),
    key("grants", pick([{ allow: ["a.*"], deny: ["a.b"] }], [{ allow: [""] }, { alow: [] }])),
    key("sandbox", pick([{ roots: ["."], cwd: ".", enforce: "os" }], [{ enforce: "on" }, { root: [] }])),
  ];
  const full = [
    key("confirm", pick(["person", { by: "host", timeout_ms: 5000 }], ["nobody", { by: "agent", timeout_ms: 1 }])),
    key("mcp", pick([{ tool_names: { calc: "verb" } }], [{ tool_names: { "Bad/Id": "verb" } }, { tool_name: {} }])),
  ];
  return fc.oneof(
    { weight: 3, arbitrary: some([], lean) },
    { weight: 3, arbitrary: some([], [...lean, ...full]) },
    { weight: 1, arbitrary: some([], [...lean, ...typos(["confirm", "mcp", "packs", "grants"], {})]) },
    ...(clean ? [] : [{ weight: 1, arbitrary: junk }]),
  );
}
const config = fc.oneof(configs(true), configs(false));

/** What validation says: the value as JSON (its key order too), or every problem (message, path, line, hint). */
function outcome(schema: Parameters<typeof validate>[0], value: unknown, text: string) {
  try {
    return { data: JSON.stringify(validate(schema, value, "surface.json", text).data) };
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    return { problems: e.problems, message: e.message };
  }
}

/**
 * Checks that each value of `values` comes out of the schema schemaFor picks as
 * out of the full one; says how many took each schema, and how many were valid.
 */
function sameAsFull(kind: "SurfaceSchema" | "ConfigSchema", values: Arb<unknown>, numRuns: number) {
  const s = schemas();
  const full = s[kind] as Parameters<typeof validate>[0];
  const seen = { lean: 0, full: 0, leanValid: 0, fullValid: 0 };
  fc.assert(
    fc.property(values, (value) => {
      const text = JSON.stringify(value, null, 2) ?? "null";
      const chosen = schemaFor(kind, value) as Parameters<typeof validate>[0];
      const viaFull = full.safeParse(value);
      const way = chosen === full ? "full" : "lean";
      seen[way]++;
      if (viaFull.success) seen[`${way}Valid`]++;
      // zod's own result: the value (its key order too), or the issues in order
      const raw = (x: typeof viaFull) => (x.success ? { data: JSON.stringify(x.data) } : { issues: x.error.issues });
      expect(raw(chosen.safeParse(value))).toEqual(raw(viaFull));
      // validate's: the value, or the problems (message, path, line, column, hint)
      expect(outcome(chosen, value, text)).toEqual(outcome(full, value, text));
      // the path exec takes (a parsed file)
      const doc = parseJson5(text, "surface.json");
      let viaDoc;
      try {
        viaDoc = { data: JSON.stringify(validateDoc(kind, doc, Date.now()).data) };
      } catch (e) {
        viaDoc = { problems: (e as HcpxError).problems, message: (e as HcpxError).message };
      }
      expect(viaDoc).toEqual(outcome(full, doc.value, text));
    }),
    { numRuns },
  );
  return seen;
}

describe("the lean surface schema", () => {
  it("validates each surface it is chosen for exactly as the full schema does (value, issues, problems, hints)", () => {
    const seen = sameAsFull("SurfaceSchema", surface, 400);
    // both ways were taken often, by valid surfaces and by invalid ones (about 230 lean, 135 of them valid)
    expect(seen.lean - seen.leanValid).toBeGreaterThan(40);
    expect(seen.leanValid).toBeGreaterThan(40);
    expect(seen.full - seen.fullValid).toBeGreaterThan(40);
    expect(seen.fullValid).toBeGreaterThan(20);
  });

  it("is chosen for a wrap or composite surface, and never for one with a key only the full schema has, or a typo", () => {
    const s = schemas();
    const base = { hcp: "1.1", id: "p", version: "1", description: "d", kind: "wrap", wrap: { bin: "./b" } };
    const cmd = { verb_key: "ping", summary: "Ping", args: { a: { type: "string" } } };
    expect(schemaFor("SurfaceSchema", { ...base, commands: [cmd] })).toBe(s.LeanSurfaceSchema);
    expect(schemaFor("SurfaceSchema", { ...base, kind: "composite", composite: { module: "./i.mjs" } })).toBe(
      s.LeanSurfaceSchema,
    );
    for (const other of [
      { ...base, mcp: { bin: "srv" } },
      { ...base, openapi: {} },
      { ...base, mpc: {} },
      { ...base, commands: [cmd, { ...cmd, inputs: {} }] },
      { ...base, commands: [{ ...cmd, http: { method: "GET", path: "/" } }] },
      { ...base, commands: [{ ...cmd, promt: {} }] },
      { ...base, commands: [{ ...cmd, args: { a: { type: "string", in: "query" } } }] },
      { ...base, commands: [{ ...cmd, args: { a: { type: "string", inn: "query" } } }] },
      { ...base, commands: [{ ...cmd, args: [{ type: "string" }] }] },
      { ...base, commands: [{ ...cmd, args: { a: "string" } }] },
      { ...base, commands: [cmd, "ping"] },
      { ...base, commands: {} },
      [base],
      null,
    ])
      expect(schemaFor("SurfaceSchema", other), JSON.stringify(other)).toBe(s.SurfaceSchema);
  });
});

describe("the lean config schema", () => {
  it("validates each config it is chosen for exactly as the full schema does (value, issues, problems, hints)", () => {
    const seen = sameAsFull("ConfigSchema", config, 300);
    // about 210 lean, 165 of them valid; 90 full, 40 of them valid
    expect(seen.lean - seen.leanValid).toBeGreaterThan(20);
    expect(seen.leanValid).toBeGreaterThan(100);
    expect(seen.full - seen.fullValid).toBeGreaterThan(20);
    expect(seen.fullValid).toBeGreaterThan(15);
  });

  it("is chosen for a config without confirm and mcp, and never for one with them, or a typo", () => {
    const s = schemas();
    const base = { packs: ["./packs/calc"], grants: { allow: ["calc.*"] }, sandbox: { roots: ["."] } };
    expect(schemaFor("ConfigSchema", base)).toBe(s.LeanConfigSchema);
    for (const other of [{ ...base, confirm: "person" }, { ...base, mcp: {} }, { ...base, confrim: "host" }, [], null])
      expect(schemaFor("ConfigSchema", other), JSON.stringify(other)).toBe(s.ConfigSchema);
  });
});

// The projection's pure parts, in-process: JSON Schema mapping, names, Skill filtering.
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { loadPack } from "../../src/pack/load";
import type { Command, Pack, Project } from "../../src/pack/model";
import { parseSkill } from "../../src/pack/skill";
import { buildProjection } from "../../src/projection/build";
import fc from "fast-check";
import { SharedTexts, foldedStringify, json, jsonChunks, projectionFiles } from "../../src/projection/plan";
import { filterSkillBody, namesWithheld } from "../../src/projection/skillcopy";
import { checkToolNames, inputSchema, toAnthropic, toMcp, toOpenAI } from "../../src/projection/tools";
import { HcpxError } from "../../src/util/errors";
import { REPO } from "../support/hcpx";

const cmd = (over: Partial<Command>): Command => ({
  verb_key: "x",
  summary: "X",
  args: {},
  policy: { operation: "read", confirm: false, inferred: false },
  ...over,
});

function project(allow: string[], deny: string[] = []): Project {
  return {
    root: REPO,
    packDirs: [],
    principal: { id: "t", kind: "agent" },
    grants: { allow, deny },
    sandbox: { bins: {}, roots: [REPO], cwd: REPO },
    confirm: { by: "host", timeoutMs: 120_000 },
    warnings: [],
  };
}
const examples = (...ids: string[]): Pack[] => ids.map((id) => loadPack(join(REPO, "packs", id)));

describe("input schemas", () => {
  it("maps every arg type, required, descriptions and defaults; no extra properties", () => {
    const s = inputSchema(
      "p",
      cmd({
        args: {
          s: { type: "string", required: true, description: "a string" },
          i: { type: "integer", default: 5 },
          n: { type: "number" },
          b: { type: "boolean" },
          e: { type: "enum", values: ["a", "b"] },
          en: { type: "enum", values: [1, 2, 3] },
        },
      }),
    );
    expect(s).toEqual({
      type: "object",
      properties: {
        s: { type: "string", description: "a string" },
        i: { type: "integer", default: 5 },
        n: { type: "number" },
        b: { type: "boolean" },
        e: { type: "string", enum: ["a", "b"] },
        en: { type: "number", enum: [1, 2, 3] },
      },
      required: ["s"],
      additionalProperties: false,
    });
  });
  it("confirm-gated writes take a confirm boolean; pass_through verbs take a bounded argv", () => {
    const gated = inputSchema(
      "p",
      cmd({ policy: { operation: "write", land: "remote", confirm: true, inferred: false } }),
    );
    expect((gated.properties as Record<string, unknown>).confirm).toEqual(expect.objectContaining({ type: "boolean" }));
    const pt = inputSchema("p", cmd({ passThrough: { maxArgv: 4 } }));
    expect(pt.properties).toEqual({
      argv: expect.objectContaining({ type: "array", items: { type: "string" }, maxItems: 4 }),
    });
    expect(() =>
      inputSchema(
        "p",
        cmd({ args: { confirm: { type: "string" } }, policy: { operation: "write", confirm: true, inferred: false } }),
      ),
    ).toThrow(/reserved|clashes/);
  });
  it("renders the three dialects", () => {
    const t = { name: "a__b", description: "d", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } };
    expect(toMcp(t)).toEqual({
      name: "a__b",
      description: "d",
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: true },
    });
    expect(toAnthropic(t)).toEqual({ name: "a__b", description: "d", input_schema: { type: "object" } });
    expect(toOpenAI(t)).toEqual({
      type: "function",
      function: { name: "a__b", description: "d", parameters: { type: "object" } },
    });
  });
});

describe("tool names", () => {
  const pack = examples("ledger")[0]!;
  it("accepts 64 characters and refuses 65", () => {
    const v64 = "a".repeat(64 - "ledger__".length);
    expect(checkToolNames([{ pack, command: cmd({ verb_key: v64 }) }]).size).toBe(1);
    expect(() => checkToolNames([{ pack, command: cmd({ verb_key: v64 + "b" }) }])).toThrow(/65 characters/);
  });
  it("refuses a collision, also with hcp__read_skill", () => {
    const e = (() => {
      try {
        checkToolNames([
          { pack, command: cmd({ verb_key: "a.b" }) },
          { pack, command: cmd({ verb_key: "a_b" }) },
        ]);
      } catch (err) {
        return err as HcpxError;
      }
    })();
    expect(e).toBeInstanceOf(HcpxError);
    expect(e!.problems[0]!.code).toBe("tool_name_collision");
    const hcp = { ...pack, id: "hcp" };
    expect(() => checkToolNames([{ pack: hcp, command: cmd({ verb_key: "read.skill" }) }])).toThrow(/hcp__read_skill/);
  });
});

describe("Skill copies", () => {
  const text = [
    "---",
    "name: p",
    "description: d",
    "---",
    "",
    "Intro mentions `zap` in code, so this paragraph goes,",
    "all of it.",
    "",
    "- a bullet about `keep`",
    "  continued here",
    "- a bullet about `zap` that",
    "  wraps onto a second line",
    "",
    "```sh",
    "hcpx exec p keep",
    "hcpx exec p zap -- x=1",
    "```",
    "",
    "| verb | what it does | read/write |",
    "|---|---|---|",
    "| `keep` | Keep | read |",
    "| `zap` | Zap | write, confirm |",
    "| `gate` | Gate | write |",
    "",
    "Plain prose about zapping stays.",
    "",
  ].join("\n");
  const skill = parseSkill(text, "SKILL.md");
  const keep = cmd({ verb_key: "keep" });
  const gate = cmd({
    verb_key: "gate",
    summary: "Gate",
    policy: { operation: "write", confirm: true, inferred: false },
  });
  const extra = cmd({ verb_key: "extra.one", summary: "Extra one" });
  const body = filterSkillBody(skill, [keep, gate, extra], { packId: "p", verbs: ["zap"] });
  it("drops whole units naming a withheld command, keeps the rest", () => {
    expect(body).not.toMatch(/`zap`|p zap|\| `zap`/);
    expect(body).not.toContain("wraps onto a second line");
    expect(body).not.toContain("all of it.");
    expect(body).toContain("- a bullet about `keep`\n  continued here");
    expect(body).toContain("hcpx exec p keep");
    expect(body).toContain("Plain prose about zapping stays.");
    expect(body).not.toMatch(/\n\n\n/);
  });
  it("fixes the policy cell so a gated write keeps its confirm marker, and adds missing rows", () => {
    expect(body).toContain("| `gate` | Gate | write, confirm |");
    expect(body).toMatch(/\| `gate` \| Gate \| write, confirm \|\n\| `extra\.one` \| Extra one \| read \|/);
  });
  it("names: dotted verbs anywhere, one-word verbs only in code; tool names always", () => {
    const w = { packId: "ledger", verbs: ["entry.delete", "transfer"] };
    expect(namesWithheld("use entry.delete carefully", w)).toBe(true);
    expect(namesWithheld("a transfer writes two entries", w)).toBe(false);
    expect(namesWithheld("run `transfer` first", w)).toBe(true);
    expect(namesWithheld("call ledger__transfer", w)).toBe(true);
    expect(namesWithheld("a transfer writes", w, { prose: true })).toBe(true);
    expect(namesWithheld("entry.add is fine", { packId: "ledger", verbs: ["add"] }, { prose: true })).toBe(false);
    expect(namesWithheld("then add.", { packId: "ledger", verbs: ["add"] }, { prose: true })).toBe(true);
  });
});

describe("buildProjection", () => {
  it("sorts packs by id, keeps commands in surface order, and is pure", () => {
    const packs = examples("transit", "ledger", "inbox-watch");
    const a = buildProjection(project(["*"], ["ledger.entry.delete"]), packs);
    const b = buildProjection(project(["*"], ["ledger.entry.delete"]), [...packs].reverse());
    expect(a.packs.map((p) => p.pack.id)).toEqual(["inbox-watch", "ledger", "transit"]);
    expect(a.packs[1]!.commands.map((c) => c.command.verb_key)).toEqual([
      "accounts",
      "balance",
      "entries",
      "account.open",
      "entry.add",
      "transfer",
      "doctor",
    ]);
    expect(a.packs[1]!.withheld).toEqual(["entry.delete"]);
    // the tool lists are lazy files (rendered when read): their texts are compared
    const texts = (p: typeof a) => projectionFiles(p).map((f) => [f.path, f.content]);
    expect(texts(a)).toEqual(texts(b));
    expect(a.tools.map((t) => t.name)).not.toContain("inbox-watch__");
    expect(a.tools.at(-1)!.name).toBe("hcp__read_skill");
    expect(a.promptBlock.startsWith(`<!-- hcp:prompt sha256:${a.hash} -->\n`)).toBe(true);
  });
  it("the hash changes with the grants", () => {
    const packs = examples("ledger");
    expect(buildProjection(project(["ledger.*"]), packs).hash).not.toBe(
      buildProjection(project(["ledger.balance"]), packs).hash,
    );
  });
  it("Skill copies have spec-valid frontmatter", () => {
    const p = buildProjection(project(["*"]), examples("ledger", "notes", "git"));
    for (const s of p.skills) {
      const parsed = parseSkill(s.content, "copy");
      const fm = parsed.frontmatter as Record<string, unknown>;
      expect(fm.name).toBe(s.packId);
      expect(Object.keys(fm).sort()).toEqual(["description", "metadata", "name"]);
      expect(String(fm.description).length).toBeLessThanOrEqual(1024);
      for (const v of Object.values(fm.metadata as object)) expect(typeof v).toBe("string");
    }
  });
  it("json() prints what native stringify + the scalar-array fold prints, for any JSON value and the odd ones", () => {
    const odd: unknown[] = [
      [undefined, 1],
      { a: undefined, b: () => 1 },
      [NaN, -0, 1e21],
      new Date(0),
      { d: new Date(0) },
      [new Number(1), new String("x")],
      [[]],
      [{}],
      [[1], [2]],
      { 'k\n"': ["a\n\u2028", null, true] },
      [],
    ];
    for (const v of odd) expect(json(v), JSON.stringify(v)).toBe(foldedStringify(v));
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => {
        expect(json(v)).toBe(foldedStringify(v));
      }),
      { numRuns: 300 },
    );
  });

  it("json() with shared objects (printed once, indented where used) prints what the reference prints, at every depth, odd ones too", () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 1, maxLength: 4 }), (parts) => {
        // each part used three times at three depths, as the tool lists use one input schema
        const objs = parts.filter((x): x is object => x !== null && typeof x === "object");
        const v = parts.map((x) => ({ a: x, b: { c: x, d: [x, { e: x }] } }));
        const shared = new SharedTexts(new Set(objs));
        expect(json(v, shared)).toBe(foldedStringify(v));
        expect(json(v, shared)).toBe(foldedStringify(v)); // again, from the texts kept
      }),
      { numRuns: 200 },
    );
    const odd = { x: [undefined, 1] };
    expect(json([odd, { y: odd }], new SharedTexts(new Set([odd])))).toBe(foldedStringify([odd, { y: odd }]));
  });

  it("jsonChunks() yields json()'s text in pieces: a list of objects item by item (odd items the reference way), anything else whole", () => {
    const whole = (v: unknown, shared?: SharedTexts) => [...jsonChunks(v, shared)].join("");
    const odd = [
      { a: NaN },
      { b: [undefined, 1] },
      { c: new Date(0) },
      { d: { toJSON: () => "x" } },
      { e: [1, "y"], f: [] },
    ];
    expect(whole(odd)).toBe(foldedStringify(odd));
    for (const v of [[], [1, 2], [{ a: 1 }, 2], [new Date(0)], "s", { a: [{}] }, [Object.create(null) as object]])
      expect(whole(v), JSON.stringify(v)).toBe(foldedStringify(v));
    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })), { maxLength: 30 }), (v) => {
        expect(whole(v)).toBe(foldedStringify(v));
        const objs = v.flatMap((o) => Object.values(o)).filter((x): x is object => x !== null && typeof x === "object");
        expect(whole(v, new SharedTexts(new Set(objs)))).toBe(foldedStringify(v));
      }),
      { numRuns: 200 },
    );
    // a long list comes in several pieces, none of them the whole text
    const long = Array.from({ length: 2000 }, (_, i) => ({
      name: `t${i}`,
      description: "x".repeat(50),
      inputSchema: { type: "object", required: ["a"] },
    }));
    const pieces = [...jsonChunks(long)];
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.join("")).toBe(json(long));
  });

  it("json() keeps scalar arrays on one line", () => {
    expect(json({ a: [1, "x"], b: [{ c: [] }], d: {} })).toBe(
      '{\n  "a": [1, "x"],\n  "b": [\n    {\n      "c": []\n    }\n  ],\n  "d": {}\n}\n',
    );
  });
});

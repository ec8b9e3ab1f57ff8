// An arg's `default` and an enum's `values` as the runtime takes them: a default
// that is not a value of its arg fails the pack at load (lint, generate, mcp and
// exec agree: before, lint passed, the schema advertised it and every call that
// omitted the arg failed bad_args); an enum of numbers and strings is advertised
// as the runtime accepts it. lint, generate and exec run in this process
// (test/support/inproc.ts: the same program, argv, cwd, environment, stdout,
// stderr and exit code; exec through execInProcess, its bin a real process):
// what each decides of the pack is under test.
import { describe, expect, it } from "vitest";
import { execInProcess, runInProcess } from "../support/inproc";
import { fxPack, project } from "../runtime/support";
import { inputSchema } from "../../src/projection/tools";
import { coerce } from "../../src/runtime/args";
import { defaultProblem } from "../../src/pack/arg-rules";
import type { Command } from "../../src/pack/model";
import type { ArgSpec } from "../../src/pack/schema";

const show = (args: Record<string, unknown>) => ({ verb_key: "show", summary: "show", cli: ["p", "show"], args });

function packWith(args: Record<string, unknown>) {
  const p = project({ packs: [fxPack("p", "argv-echo.mjs", [show(args)])] });
  p.write(
    "packs/p/SKILL.md",
    '---\nname: p\ndescription: test pack\nleads: ["p: a test pack"]\n---\n# p\n\n| verb | what | read/write |\n|---|---|---|\n| `show` | show | read |\n',
  );
  return p;
}

describe("a default that is not a value of its arg: the pack does not load", () => {
  it.each([
    ['an integer\'s default "abc"', { n: { type: "integer", default: "abc" } }, /default "abc" of arg 'n'/],
    ["an integer's default 2.5", { n: { type: "integer", default: 2.5 } }, /default 2\.5 of arg 'n'/],
    ["an enum's default not among its values", { m: { type: "enum", values: ["a", "b"], default: "c" } }, /'m'/],
    ['an enum\'s default "1" for values [1, 2]', { m: { type: "enum", values: [1, 2], default: "1" } }, /'m'/],
    ['a boolean\'s default "yes"', { b: { type: "boolean", default: "yes" } }, /'b'/],
    [
      "a string's default starting with '-' in a wrap pack",
      { s: { type: "string", flag: "--s", default: "-rf" } },
      /'-'/,
    ],
  ])("%s: lint, generate and exec say arg_default at its path", async (_name, args, message) => {
    const p = packWith(args);
    const lint = await runInProcess(["lint", "--json", "packs/p"], { cwd: p.dir });
    expect(lint.code).toBe(1);
    const env = JSON.parse(lint.stdout);
    const problems = (env.ok ? env.data : env.error.details).packs[0].problems as {
      code: string;
      path: string;
      file: string;
      message: string;
      line?: number;
    }[];
    const hit = problems.find((x) => x.code === "arg_default");
    expect(hit, JSON.stringify(problems)).toBeDefined();
    expect(hit!.message).toMatch(message);
    expect(hit!.file).toMatch(/surface\.json$/);
    expect(hit!.path).toMatch(/^commands\[0\]\.args\.\w+\.default$/);
    expect(hit!.line).toBeGreaterThan(0);
    const gen = await runInProcess(["generate", "--json"], { cwd: p.dir });
    expect(gen.code).toBe(1);
    expect(gen.stdout).toContain("arg_default");
    const ex = await execInProcess(["exec", "p", "show", "--json"], { cwd: p.dir });
    expect(JSON.parse(ex.stdout).error.code).toBe("bad_pack");
  });

  it("a default that is a value of its arg loads, is advertised and used", async () => {
    const p = packWith({
      n: { type: "integer", flag: "--n", default: 3 },
      m: { type: "enum", flag: "--m", values: [1, 2], default: 2 },
    });
    const lint = await runInProcess(["lint", "packs/p"], { cwd: p.dir });
    expect(lint.code, lint.stdout + lint.stderr).toBe(0);
    const ex = await execInProcess(["exec", "p", "show", "--json"], { cwd: p.dir });
    expect(JSON.parse(ex.stdout).ok, ex.stdout).toBe(true);
  });
});

describe("defaultProblem", () => {
  const t = (spec: Partial<ArgSpec>, d: string | number | boolean, wrap = false) =>
    defaultProblem({ type: "string", ...spec } as ArgSpec, d, wrap);
  it("takes the values the runtime takes as they are", () => {
    expect(t({ type: "integer" }, 3)).toBeUndefined();
    expect(t({ type: "number" }, 2.5)).toBeUndefined();
    expect(t({ type: "string" }, "x")).toBeUndefined();
    expect(t({ type: "boolean" }, false)).toBeUndefined();
    expect(t({ type: "enum", values: [1, "a"] }, "a")).toBeUndefined();
    expect(t({ type: "json" }, "x")).toBeUndefined();
    expect(t({ type: "string", allow_dash: true }, "-x", true)).toBeUndefined();
    expect(t({ type: "integer" }, -1, false)).toBeUndefined();
  });
  it("refuses the others", () => {
    expect(t({ type: "integer" }, "3")).toBeDefined();
    expect(t({ type: "string" }, 3)).toBeDefined();
    expect(t({ type: "enum", values: [1, "a"] }, "1")).toBeDefined();
    expect(t({ type: "array" }, "[]")).toBeDefined();
    expect(t({ type: "integer" }, -1, true)).toBeDefined();
  });
});

describe("an enum's advertised schema", () => {
  const schemaOf = (values: (string | number)[]) => {
    const c = {
      verb_key: "v",
      summary: "v",
      args: { e: { type: "enum", values } },
      policy: { operation: "read", confirm: false, inferred: false },
    } as unknown as Command;
    return (inputSchema("p", c).properties as Record<string, Record<string, unknown>>).e!;
  };
  it("of numbers and strings: a type for each, and every advertised value is one the runtime accepts", () => {
    const s = schemaOf([1, "a"]);
    expect(s).toMatchObject({ type: ["number", "string"], enum: [1, "a"] });
    for (const v of s.enum as (string | number)[]) expect(coerce("e", { type: "enum", values: [1, "a"] }, v)).toBe(v);
  });
  it("of one type: that type", () => {
    expect(schemaOf([1, 2])).toMatchObject({ type: "number", enum: [1, 2] });
    expect(schemaOf(["a"])).toMatchObject({ type: "string", enum: ["a"] });
  });
});

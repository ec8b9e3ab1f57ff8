// Issue 6, item 5 (argv): for any generated arg values the bin (an argv echo, a
// shell script: ECHO_SH) receives exactly the rendered argv — no split, no glob, no shell, no env
// expansion; NUL is refused; a value starting with '-' never reaches a
// positional slot or a flag value unless its arg says allow_dash. Most runs go
// through the runtime's execute() in-process; fewer through the real CLI and
// the real MCP server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadProject } from "../../../src/pack/load";
import type { Project } from "../../../src/pack/model";
import { execute } from "../../../src/runtime/execute";
import { runHcpx } from "../../support/hcpx";
import { fxPack, project } from "../../runtime/support";
import { hcpCall, startServer, type Env, type Session } from "./support";

const wellFormed = (s: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
const cmd = (verb: string, cli: string[], args: Record<string, unknown>) => ({
  verb_key: verb,
  summary: verb,
  cli,
  args,
});

// pos: positionals a, b (no dash), c embedded after literal text, h embedded at the
// start of an element (no dash), g positional with allow_dash; optional flags
// d (no dash), e (allow_dash), f (boolean).
const POS_ARGS = {
  a: { type: "string", required: true },
  b: { type: "string", required: true },
  c: { type: "string", required: true },
  h: { type: "string", required: true },
  g: { type: "string", required: true, allow_dash: true },
  d: { type: "string", flag: "--d" },
  e: { type: "string", flag: "--e", allow_dash: true },
  f: { type: "boolean", flag: "--f" },
};
const NO_DASH = ["a", "b", "h", "d"];

/**
 * The echo bin: `{"argv": [...]}` of what it received, each element JSON-escaped (a backslash, a quote, the
 * control characters as \u00XX) by one GNU sed over the NUL-separated arguments. A shell script, not
 * test/fixtures/bins/argv-echo.mjs: ~300 of them run here, each Node start ~40 ms of CPU, each of these ~4 ms.
 * What the runtime renders and spawns is under test, not the bin; the script expands nothing of its arguments.
 */
const ECHO_SH = (() => {
  const hex = (c: number) => c.toString(16).padStart(2, "0");
  const ctl = Array.from({ length: 31 }, (_, i) => `s/\\x${hex(i + 1)}/\\\\u00${hex(i + 1)}/g`).join(";");
  const sed = `s/\\\\/\\\\\\\\/g;s/"/\\\\"/g;${ctl};s/^/"/;s/$/"/;1!s/^/,/`;
  return (
    [
      "#!/bin/sh",
      "export PATH=/usr/bin:/bin LC_ALL=C",
      `printf '{"argv":['`,
      `[ $# -eq 0 ] || printf '%s\\0' "$@" | sed -z '${sed}' | tr -d '\\000'`,
      `printf ']}\\n'`,
    ].join("\n") + "\n"
  );
})();

let dir: string;
let proj: Project;
const run = (req: Parameters<typeof execute>[1]) => execute(proj, req) as Promise<Env>;
const shellMarks = () => readdirSync(dir).filter((f) => f.startsWith("pwned"));

beforeAll(() => {
  const p = project({
    packs: [
      fxPack("echo", "argv-echo.sh", [
        cmd("pos", ["echo", "pos", "{{a}}", "{{b}}", "x={{c}}", "{{h}}.txt", "{{g}}"], POS_ARGS),
        cmd("num", ["echo", "num", "{{n}}", "{{m}}"], {
          n: { type: "integer", required: true },
          m: { type: "number", required: true, allow_dash: true },
        }),
      ]),
      {
        id: "ptecho",
        surface: {
          kind: "wrap",
          wrap: {
            bin: "../../fx/argv-echo.sh",
            json_flag: null,
            output: "json",
            pass_through: { allowedSubcommands: ["say"], maxArgv: 8 },
          },
        },
        rows: { say: { operation: "read" } },
      },
    ],
  });
  dir = p.dir;
  writeFileSync(join(dir, "fx", "argv-echo.sh"), ECHO_SH, { mode: 0o755 });
  proj = loadProject({ config: p.config });
});

// ---- value generators ----
const SPECIAL = [
  ";",
  "|",
  "&",
  "&&",
  "$",
  "$(",
  ")",
  "`",
  "'",
  '"',
  "*",
  "?",
  "~",
  "{",
  "}",
  "[",
  "]",
  "<",
  ">",
  "!",
  "#",
  "\n",
  "\r\n",
  " ",
  "\t",
  "\\",
  "$HOME",
  "${PATH}",
  "$(touch pwned1)",
  "`touch pwned2`",
  "; touch pwned3",
  "| touch pwned4",
  "{{a}}",
  "{{verb}}",
  "-",
  "--",
  "=",
  "*.mjs",
  "~/",
  "é",
  "✓",
  "👩‍💻",
  "\u202e",
  "\uFEFF",
];
const piece = fc.oneof(
  fc.constantFrom(...SPECIAL),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.string({ unit: "grapheme", maxLength: 6 }),
  fc.string({ unit: "grapheme-ascii", maxLength: 6 }),
);
const longValue = fc
  .tuple(fc.integer({ min: 1000, max: 140_000 }), fc.constantFrom("a", "é", "; ", "$(x)"))
  .map(([n, s]) => s.repeat(Math.ceil(n / s.length)));
const baseValue = fc.oneof(
  { weight: 20, arbitrary: fc.array(piece, { maxLength: 6 }).map((p) => p.join("")) },
  { weight: 2, arbitrary: fc.constant("") },
  { weight: 1, arbitrary: longValue },
);
/** A value that often starts with '-'. */
const value = fc
  .tuple(fc.integer({ min: 0, max: 5 }), baseValue)
  .map(([k, v]) => (k === 0 ? `-${v}` : k === 1 ? `--${v}` : v));
/** Only what an OS argv can carry (no NUL, well-formed UTF-16): for the CLI. */
const cliValue = value.filter((v) => !v.includes("\0") && wellFormed(v) && v.length < 60_000);

const posInput = (v: fc.Arbitrary<string>) =>
  fc.record({
    a: v,
    b: v,
    c: v,
    h: v,
    g: v,
    d: fc.option(v, { nil: undefined }),
    e: fc.option(v, { nil: undefined }),
    f: fc.option(fc.boolean(), { nil: undefined }),
  });
type PosInput = { a: string; b: string; c: string; h: string; g: string; d?: string; e?: string; f?: boolean };

/** Linux refuses one argv element longer than this (MAX_ARG_STRLEN) — the runtime must refuse it cleanly, not crash. */
const MAX_ARG_BYTES = 128 * 1024 - 1;

/** What the bin must receive, or why the runtime must refuse (bad_args). */
function expected(i: PosInput): { argv: string[] } | { refuse: "dash" | "nul" | "unpaired" | "long"; args: string[] } {
  const given = Object.entries(i).filter(([, v]) => typeof v === "string") as [string, string][];
  const argv = ["pos", i.a, i.b, `x=${i.c}`, `${i.h}.txt`, i.g];
  if (i.d !== undefined) argv.push("--d", i.d);
  if (i.e !== undefined) argv.push("--e", i.e);
  if (i.f === true) argv.push("--f");
  const dash = given.filter(([k, v]) => NO_DASH.includes(k) && v.startsWith("-")).map(([k]) => k);
  if (dash.length) return { refuse: "dash", args: dash };
  if (given.some(([, v]) => v.includes("\0")))
    return { refuse: "nul", args: given.filter(([, v]) => v.includes("\0")).map(([k]) => k) };
  if (given.some(([, v]) => !wellFormed(v)))
    return { refuse: "unpaired", args: given.filter(([, v]) => !wellFormed(v)).map(([k]) => k) };
  if (
    argv.some((a) => Buffer.byteLength(a) > MAX_ARG_BYTES) ||
    argv.reduce((n, a) => n + Buffer.byteLength(a) + 1, 0) > 1024 * 1024
  )
    return { refuse: "long", args: [] };
  return { argv };
}

function check(i: PosInput, env: Env): void {
  const want = expected(i);
  if ("argv" in want) {
    expect(env.error).toBeUndefined();
    expect(env.ok).toBe(true);
    expect(env.data.argv).toEqual(want.argv);
  } else {
    expect(env.ok).toBe(false);
    expect(env.error!.code).toBe("bad_args");
    if (want.refuse === "dash") expect(want.args).toContain(env.error!.arg);
    if (want.refuse === "nul") expect(env.error!.message).toMatch(/NUL/);
    if (want.refuse === "unpaired") expect(env.error!.message).toMatch(/UTF|surrogate|unicode/i);
    if (want.refuse === "long") expect(env.error!.message).toMatch(/long|bytes/i);
  }
  expect(shellMarks()).toEqual([]);
}

describe("argv: in-process execute()", () => {
  it("any generated values: exactly the rendered argv, or a bad_args refusal for dash / NUL / unpaired surrogate / too long", async () => {
    let ran = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(posInput(value), async (i) => {
        const args = Object.fromEntries(Object.entries(i).filter(([, v]) => v !== undefined));
        const env = await run({ pack: "echo", verb: "pos", args });
        check(i, env);
        if (env.ok) ran++;
        else refused++;
      }),
      { numRuns: 220 },
    );
    // the generator must exercise both sides, or the property proves nothing
    expect(ran).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(20);
  }, 120_000);

  it("NUL anywhere is refused before anything is spawned (positional, embedded, flag, pass-through)", async () => {
    for (const [k, v] of [
      ["a", "x\0y"],
      ["c", "\0"],
      ["h", "a\0"],
      ["g", "\0-"],
      ["d", "x\0"],
      ["e", "-\0"],
    ] as const) {
      const args: Record<string, string> = { a: "a", b: "b", c: "c", h: "h", g: "g", [k]: v };
      const env = (await run({ pack: "echo", verb: "pos", args })) as Env;
      expect(env.error).toMatchObject({ code: "bad_args" });
      expect(env.error!.message).toMatch(/NUL/);
    }
    const env = (await run({ pack: "ptecho", verb: "say", argv: ["ok", "a\0b"] })) as Env;
    expect(env.error).toMatchObject({ code: "bad_args" });
  }, 120_000);

  it("numbers: a negative integer in a positional slot is refused, a negative number with allow_dash passes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -1e9, max: 1e9 }),
        fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }),
        async (n, m) => {
          const env = await run({ pack: "echo", verb: "num", args: { n, m } });
          if (n < 0) return void expect(env.error).toMatchObject({ code: "bad_args", arg: "n" });
          expect(env.ok).toBe(true);
          expect(env.data.argv).toEqual(["num", String(n), String(m)]);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it("pass_through: any literal argv (≤ maxArgv) arrives literally after the subcommand; more is refused", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          value.filter((v) => !v.includes("\0") && wellFormed(v) && v.length < 5000),
          { maxLength: 10 },
        ),
        async (argv) => {
          const env = await run({ pack: "ptecho", verb: "say", argv });
          if (argv.length > 8) return void expect(env.error).toMatchObject({ code: "bad_args" });
          expect(env.error).toBeUndefined();
          expect(env.data.argv).toEqual(["say", ...argv]);
          expect(shellMarks()).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});

describe("argv: through the real CLI", () => {
  it("k=v operands after --: exactly the rendered argv (or bad_args), exit code agrees", async () => {
    await fc.assert(
      fc.asyncProperty(posInput(cliValue), async (i) => {
        const kv = Object.entries(i)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => `${k}=${String(v)}`);
        const r = await runHcpx(["exec", "echo", "pos", "--json", "--", ...kv], { cwd: dir });
        const env = JSON.parse(r.stdout) as Env;
        check(i, env);
        expect(r.code).toBe(env.ok ? 0 : 1);
      }),
      { numRuns: 25 },
    );
    expect(existsSync(join(dir, "pwned1"))).toBe(false);
  }, 120_000);
});

describe("argv: through the real MCP server", () => {
  let s: Session;
  beforeAll(async () => {
    s = await startServer(dir);
  });
  afterAll(async () => {
    await s?.close();
  });

  it("typed args of the hcp tool: exactly the rendered argv; NUL and unpaired surrogates refused", async () => {
    await fc.assert(
      fc.asyncProperty(posInput(value.filter((v) => v.length < 60_000)), async (i) => {
        const args = Object.fromEntries(Object.entries(i).filter(([, v]) => v !== undefined));
        check(i, await hcpCall(s, "echo", "pos", args));
      }),
      { numRuns: 30 },
    );
    const nul = await hcpCall(s, "echo", "pos", { a: "x\0", b: "b", c: "c", h: "h", g: "g" });
    expect(nul.error).toMatchObject({ code: "bad_args" });
    const pt = await hcpCall(s, "ptecho", "say", { argv: ["a b", "$(touch pwned9)", "*"] });
    expect(pt.data.argv).toEqual(["say", "a b", "$(touch pwned9)", "*"]);
    expect(shellMarks()).toEqual([]);
  }, 120_000);
});

// Malformed packs and configs (issue 2: ≥ 25 malformed inputs; issue 6 item 4:
// ≥ 40 across surface, policy, SKILL.md and hcp.config.json5). Each one goes
// through the parser and validator `hcpx lint` calls (lintDirs: the project
// loader, lintPackDir), in-process: an error (exit 1), the file, the JSON path
// or line, and nothing thrown but a user-facing HcpxError. A handful go through
// the real CLI for the contract: exit 1, the human message with file and line,
// the --json envelope (ok false, the file/line in it), no stack trace.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { lintDirs } from "../../src/cli/commands/lint";
import { formatProblem, HcpxError, type Problem } from "../../src/util/errors";
import { envelope, noStack, REPO, runHcpx } from "../support/cli";
import { tmp } from "../support/project";
import { miniPack, skillText, type MiniOptions } from "./minipack";

interface Case {
  name: string;
  /** the file the error must name */
  file: string;
  /** what the output must say about where (JSON path, line:col, …) */
  where: RegExp;
  /** the Problem's code, where the case names one */
  code?: string;
  /** build the input: the cwd, the pack dirs `lint` is given, and --config */
  make: () => Input;
}

interface Input {
  cwd: string;
  dirs: string[];
  config?: string;
}
const argv = (i: Input) => [...(i.config ? ["--config", i.config] : []), "lint", ...i.dirs];

const packCase = (name: string, file: string, where: RegExp, o: MiniOptions): Case => ({
  name,
  file,
  where,
  make: () => {
    const dir = miniPack(o);
    return { cwd: dirname(dir), dirs: ["mini"] };
  },
});
const surfaceText = (name: string, text: string | Buffer, where: RegExp) =>
  packCase(name, "surface.json", where, { raw: { "surface.json": text } });
const surface = (name: string, mut: MiniOptions["surface"], where: RegExp) =>
  packCase(name, "surface.json", where, { surface: mut });
const policyText = (name: string, text: string, where: RegExp) =>
  packCase(name, "policy.json", where, { raw: { "policy.json": text } });
const policy = (name: string, mut: MiniOptions["policy"], where: RegExp) =>
  packCase(name, "policy.json", where, { policy: mut });
const skill = (name: string, text: string, where: RegExp) =>
  packCase(name, "SKILL.md", where, { raw: { "SKILL.md": text } });

/** A project dir holding one clean pack and the given config text; runs `lint` with no dirs. */
const config = (name: string, text: string, where: RegExp, config?: string): Case => ({
  name,
  file: "hcp.config.json5",
  where,
  make: () => {
    const dir = tmp("hcpx-proj-");
    miniPack({ parent: join(dir, "packs") });
    writeFileSync(join(dir, "hcp.config.json5"), text);
    return { cwd: dir, dirs: [], config };
  },
});
const goodConfig = (body: string) => `{\n  packs: ["./packs/mini"],\n  grants: { allow: ["mini.*"] },\n${body}\n}\n`;

const cases: Case[] = [
  // ---- surface.json: syntax ----
  surfaceText(
    "surface: missing comma",
    '{\n  hcp: "1.1"\n  id: "mini",\n}\n',
    /surface\.json:3:3: cannot parse: invalid character 'i'/,
  ),
  surfaceText(
    "surface: truncated",
    '{\n  hcp: "1.1",\n  id: "mi',
    /surface\.json:3:\d+: cannot parse: invalid end of input/,
  ),
  surfaceText("surface: empty file", "", /surface\.json:1:1: cannot parse: invalid end of input/),
  surfaceText("surface: only a comment", "// nothing here\n", /surface\.json:2:1: cannot parse/),
  surfaceText(
    "surface: binary garbage",
    Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x7b]),
    /surface\.json:1:1: cannot parse/,
  ),
  surfaceText("surface: null", "null\n", /surface\.json:1:1: expected object, got null/),
  surfaceText("surface: an array", "[1, 2]\n", /surface\.json:1:1: expected object, got array/),
  surfaceText("surface: a string", '"mini"\n', /surface\.json:1:1: expected object, got string/),
  // ---- surface.json: schema ----
  surface("surface: hcp is a number", (s) => (s.hcp = 1.1), /surface\.json:2:3 at hcp: expected string, got number/),
  surface(
    "surface: missing id",
    (s) => delete s.id,
    /surface\.json:\d+:\d+: missing required key .* at id|at id: missing required key/,
  ),
  surface("surface: id ../x", (s) => (s.id = "../x"), /surface\.json:3:3 at id: "\.\.\/x": a pack id matches/),
  surface("surface: id a__b", (s) => (s.id = "a__b"), /surface\.json:3:3 at id: "a__b": a pack id matches/),
  surface("surface: id A", (s) => (s.id = "A"), /surface\.json:3:3 at id: "A": a pack id matches/),
  surface("surface: id empty", (s) => (s.id = ""), /surface\.json:3:3 at id: "": a pack id matches/),
  surface("surface: id with a slash", (s) => (s.id = "mini/x"), /at id: "mini\/x"/),
  surface(
    "surface: unknown kind",
    (s) => (s.kind = "plugin"),
    /surface\.json:6:3 at kind: "plugin" is not one of "wrap", "composite", "openapi", "sense_only"/,
  ),
  surface(
    "surface: commands is an object",
    (s) => (s.commands = { show: {} }),
    /at commands: expected array, got object/,
  ),
  surface(
    "surface: command without summary",
    (s) => delete s.commands[1].summary,
    /surface\.json:\d+:\d+ at commands\[1\]\.summary: missing required key/,
  ),
  surface(
    "surface: verb_key with spaces",
    (s) => (s.commands[0].verb_key = "Show It"),
    /at commands\[0\]\.verb_key: "Show It": a verb_key is lower-case words/,
  ),
  surface(
    "surface: arg of unknown type",
    (s) => (s.commands[0].args.id.type = "float"),
    /at commands\[0\]\.args\.id\.type: "float" is not one of/,
  ),
  surface(
    "surface: arg required is a string",
    (s) => (s.commands[0].args.id.required = "yes"),
    /at commands\[0\]\.args\.id\.required: expected boolean, got string/,
  ),
  surface("surface: empty cli[]", (s) => (s.commands[0].cli = []), /at commands\[0\]\.cli: must have at least 1 item/),
  surface(
    "surface: flag without dashes",
    (s) => (s.commands[1].args.note.flag = "note"),
    /at commands\[1\]\.args\.note\.flag: "note": a flag looks like --name/,
  ),
  surface(
    "surface: wrap without bin",
    (s) => delete s.wrap.bin,
    /surface\.json:7:3 at wrap\.bin: missing required key/,
  ),
  surface("surface: empty wrap.bin", (s) => (s.wrap.bin = ""), /at wrap\.bin: must not be empty/),
  surface(
    "surface: negative timeout",
    (s) => (s.wrap.timeout_ms = -5),
    /at wrap\.timeout_ms: -5 is too small: must be greater than 0/,
  ),
  surface(
    "surface: pass_through maxArgv too big",
    (s) => (s.wrap.pass_through = { allowedSubcommands: ["x"], maxArgv: 1000 }),
    /at wrap\.pass_through\.maxArgv: 1000 is too big: must be at most 256/,
  ),
  surface(
    "surface: binding.env with a bad name",
    (s) => (s.binding = { env: ["MINI-TOKEN"] }),
    /at binding\.env\[0\]: "MINI-TOKEN": an env name is letters, digits and _/,
  ),
  surface(
    "surface: http method FETCH",
    (s) => (s.commands[0].http = { method: "FETCH", path: "/x" }),
    /at commands\[0\]\.http\.method: "FETCH" is not one of/,
  ),
  surface("surface: stimuli is a string", (s) => (s.stimuli = "webhook"), /at stimuli: expected array, got string/),
  // ---- surface.json: lint errors ----
  surface(
    "surface: duplicate verbs",
    (s) => s.commands.push({ ...s.commands[2] }),
    /surface\.json:\d+:\d+ at commands\[3\]\.verb_key: verb_key 'item\.delete' is declared twice/,
  ),
  surface(
    "surface: wrap without commands",
    (s) => delete s.commands,
    /surface\.json:6:3 at kind: a wrap declares neither named commands nor pass_through/,
  ),
  surface(
    "surface: composite module outside",
    (s) => ((s.kind = "composite"), delete s.wrap, (s.composite = { module: "../../x.mjs" })),
    /at composite\.module: composite\.module '\.\.\/\.\.\/x\.mjs' is outside the pack/,
  ),
  // ---- surface.json: missing / wrong kind of file ----
  packCase("surface: missing surface.json", "mini", /^error mini: no surface\.json here, so this is not a pack/m, {
    raw: { "surface.json": null },
  }),
  {
    name: "surface: surface.json is a directory",
    file: "surface.json",
    where: /surface\.json: is a directory, expected a regular file/,
    make: () => {
      const dir = miniPack({ raw: { "surface.json": null } });
      mkdirSync(join(dir, "surface.json"));
      return { cwd: dir, dirs: [dir] };
    },
  },
  {
    name: "pack dir does not exist",
    file: "nope",
    where: /nope: pack directory not found/,
    make: () => {
      const dir = tmp();
      return { cwd: dir, dirs: [join(dir, "nope")] };
    },
  },
  // ---- policy.json ----
  packCase("policy: missing", "policy.json", /policy\.json: file not found/, { raw: { "policy.json": null } }),
  policyText(
    "policy: bad JSON5",
    '{ rows: { show: { operation: "read" } }\n',
    /policy\.json:2:1: cannot parse: invalid end of input/,
  ),
  policyText("policy: empty", "", /policy\.json:1:1: cannot parse/),
  policy("policy: rows missing", (p) => delete p.rows, /policy\.json:1:1 at rows: missing required key/),
  policy("policy: rows is an array", (p) => (p.rows = []), /policy\.json:2:3 at rows: expected record, got array/),
  policy(
    "policy: operation delete",
    (p) => (p.rows.show.operation = "delete"),
    /policy\.json:4:7 at rows\.show\.operation: "delete" is not one of "read", "write"/,
  ),
  policy(
    "policy: land space",
    (p) => (p.rows["item.add"].land = "space"),
    /at rows\["item\.add"\]\.land: "space" is not one of "local", "remote", "external"/,
  ),
  policy(
    "policy: confirm is a string",
    (p) => (p.rows["item.delete"].confirm = "yes"),
    /at rows\["item\.delete"\]\.confirm: expected boolean, got string/,
  ),
  policy(
    "policy: row for an unknown verb",
    (p) => (p.rows["item.move"] = { operation: "write" }),
    /policy\.json:\d+:\d+ at rows\["item\.move"\]: policy row 'item\.move' names no command/,
  ),
  // ---- SKILL.md ----
  packCase("skill: missing SKILL.md", "SKILL.md", /^error mini\/SKILL\.md: file not found/m, {
    raw: { "SKILL.md": null },
  }),
  skill("skill: no frontmatter", "# mini\n\nNo frontmatter here.\n", /SKILL\.md:1: SKILL\.md has no YAML frontmatter/),
  skill(
    "skill: frontmatter never closed",
    "---\nname: mini\ndescription: x\n\n# mini\n",
    /SKILL\.md:1: SKILL\.md has no YAML frontmatter/,
  ),
  {
    ...skill(
      "skill: bad YAML",
      "---\nname: mini\ndescription: [unclosed\n---\n",
      /SKILL\.md:3:23: frontmatter is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a \]$/m,
    ),
    code: "skill_frontmatter",
  },
  skill(
    "skill: frontmatter is a list",
    "---\n- name\n- mini\n---\n",
    /SKILL\.md:2: frontmatter must be a YAML mapping/,
  ),
  skill(
    "skill: name mismatch",
    skillText({ name: "other" }),
    /SKILL\.md:2 at name: Skill name 'other' is not the pack id 'mini'/,
  ),
  skill(
    "skill: name invalid",
    skillText({ name: "Mini_Pack" }),
    /SKILL\.md:2 at name: "Mini_Pack": a Skill name is 1-64 of \[a-z0-9-\]/,
  ),
  skill(
    "skill: description over 1024",
    skillText({ description: "d".repeat(1025) }),
    /SKILL\.md:3 at description: must be at most 1024 characters/,
  ),
  skill(
    "skill: description missing",
    '---\nname: mini\nleads: ["mini"]\n---\n',
    /SKILL\.md:2 at description: missing required key/,
  ),
  skill("skill: four leads", skillText({ leads: ["a", "b", "c", "d"] }), /SKILL\.md:4 at leads: /),
  skill(
    "skill: hot-path row missing",
    skillText({ rows: [] }),
    /SKILL\.md:\d+: the hot-path table has no row for 'show'/,
  ),
  // ---- hcp.config.json5 (loaded by `lint` with no dirs) ----
  config(
    "config: syntax error",
    '{\n  packs: ["./packs/mini"]\n  grants: {},\n}\n',
    /^error hcp\.config\.json5:3:3: cannot parse: invalid character 'g'/m,
  ),
  config(
    "config: unclosed",
    '{\n  packs: ["./packs/mini",\n',
    /^error hcp\.config\.json5:3:1: cannot parse: invalid end of input/m,
  ),
  config(
    "config: packs is a string",
    '{\n  packs: "./packs/mini",\n}\n',
    /hcp\.config\.json5:2:3 at packs: expected array, got string/,
  ),
  config(
    "config: grants.allow is a string",
    '{\n  packs: ["./packs/mini"],\n  grants: { allow: "mini.*" },\n}\n',
    /hcp\.config\.json5:3:13 at grants\.allow: expected array, got string/,
  ),
  config(
    "config: bad grant pattern",
    goodConfig('  // no pattern\n  principal: { id: "me" },\n').replace(
      'allow: ["mini.*"]',
      'allow: ["mini.*", "mini"]',
    ),
    /hcp\.config\.json5:3:31 at grants\.allow\[1\]: 'mini' is not a grant pattern/,
  ),
  config(
    "config: grant pattern with ..",
    '{\n  packs: ["./packs/mini"],\n  grants: {\n    allow: ["mini.*"],\n    deny: ["../x.*"],\n  },\n}\n',
    /hcp\.config\.json5:5:12 at grants\.deny\[0\]: '\.\.\/x\.\*' is not a grant pattern/,
  ),
  config(
    "config: grant pattern with a star in the middle",
    '{ packs: [], grants: { allow: ["mini.*.add"] } }\n',
    /hcp\.config\.json5:1:32 at grants\.allow\[0\]: 'mini\.\*\.add' is not a grant pattern/,
  ),
  config(
    "config: principal.kind robot",
    goodConfig('  principal: { id: "me", kind: "robot" },'),
    /hcp\.config\.json5:4:26 at principal\.kind: "robot" is not one of "person", "agent"/,
  ),
  config(
    "config: sandbox.bins value a number",
    goodConfig("  sandbox: { bins: { git: 1 } },"),
    /hcp\.config\.json5:4:22 at sandbox\.bins\.git: expected string, got integer/,
  ),
  config("config: top level is an array", "[]\n", /hcp\.config\.json5:1:1: expected object, got array/),
  config("config: empty file", "", /hcp\.config\.json5:1:1: cannot parse: invalid end of input/),
  {
    ...config(
      "config: activates a missing pack dir",
      '{ packs: ["./packs/nope"] }\n',
      /^error hcp\.config\.json5:1:11 at packs\[0\]: pack directory not found: packs\/nope$/m,
    ),
    code: "not_a_pack",
  },
  {
    ...config(
      "config: --config to a missing file",
      goodConfig(""),
      /^error missing\.json5: config file not found$/m,
      "missing.json5",
    ),
    file: "missing.json5",
  },
];

/**
 * What `hcpx lint` would report, from the functions it calls, in-process (cwd
 * and HOME as the CLI run would have them: paths are shown relative to the
 * cwd; no user config leaks in). A load error is thrown (the CLI prints its
 * problems and exits with its exitCode); lint problems are returned (exit 1
 * when one is an error). Anything else thrown fails the test.
 */
function lintInProcess(i: Input): { problems: Problem[]; exit: number; text: string } {
  const cwd = process.cwd();
  process.chdir(i.cwd);
  try {
    const report = lintDirs(i.dirs, { cwd: i.cwd, config: i.config });
    const problems = report.packs.flatMap((p) => p.problems);
    return { problems, exit: report.errors > 0 ? 1 : 0, text: problems.map(formatProblem).join("\n") };
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    return { problems: e.problems, exit: e.exitCode, text: e.problems.map(formatProblem).join("\n") };
  } finally {
    process.chdir(cwd);
  }
}

const saved = {
  HOME: process.env.HOME,
  XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME,
  HCP_CONFIG: process.env.HCP_CONFIG,
};
beforeAll(() => {
  expect(existsSync(join(REPO, "dist", "hcpx.mjs")), "run `npm run build` first").toBe(true);
  process.env.HOME = tmp("hcpx-malformed-home-");
  delete process.env.XDG_CONFIG_HOME;
  delete process.env.HCP_CONFIG;
});
afterAll(() => {
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

const byName = new Map(cases.map((c) => [c.name, c]));

describe("malformed inputs: an error naming the file and the JSON path or line, and only a user-facing error thrown", () => {
  it("there are at least 40 cases, across surface, policy, SKILL.md and the config", () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    for (const f of ["surface.json", "policy.json", "SKILL.md", "hcp.config.json5"])
      expect(cases.filter((c) => c.file === f).length, f).toBeGreaterThanOrEqual(f === "surface.json" ? 20 : 8);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s", (_n, c) => {
    const input = c.make();
    try {
      const r = lintInProcess(input);
      if (process.env.SHOW_LINT_OUTPUT) console.log(`--- ${c.name} (exit ${r.exit})\n${r.text}`);
      expect(r.exit, "exit code").toBe(1);
      expect(
        r.problems.some((p) => p.severity !== "warning"),
        "an error, not only warnings",
      ).toBe(true);
      expect(r.text).toContain(c.file);
      expect(r.text).toMatch(c.where);
      // the problem that says so names the file itself (not only its message)
      const hit = r.problems.find((p) => c.where.test(formatProblem(p)));
      expect(hit, "one problem matches").toBeDefined();
      expect(hit!.file, "the problem's file").toContain(c.file);
      if (c.code) expect(hit!.code).toBe(c.code);
      for (const p of r.problems) expect(p.message.length, JSON.stringify(p)).toBeGreaterThan(0);
    } finally {
      rmSync(input.cwd, { recursive: true, force: true });
    }
  });
});

// The contract, through the real CLI: one case per kind of failure (a pack
// file that does not parse, a schema error, bad YAML, a file of the wrong kind,
// a config that does not parse, a config naming a missing pack, a missing
// --config file).
const CONTRACT = [
  "surface: missing comma",
  "surface: unknown kind",
  "skill: bad YAML",
  "surface: surface.json is a directory",
  "config: syntax error",
  "config: activates a missing pack dir",
  "config: --config to a missing file",
];

describe("malformed inputs through the CLI: exit 1, the file and line in the message and in the --json envelope, no stack trace", () => {
  it.concurrent.each(CONTRACT.map((n) => [n, byName.get(n)!] as const))("%s", async (_n, c) => {
    expect(c, "a case of the list above").toBeDefined();
    const input = c.make();
    const want = lintInProcess(input).problems.find((p) => c.where.test(formatProblem(p)))!;
    try {
      const r = await runHcpx(argv(input), { cwd: input.cwd });
      const all = r.stdout + r.stderr;
      expect(r.code, "exit code").toBe(1);
      expect(all).toContain(c.file);
      // the human line is the problem's (lint adds the rule code after it)
      expect(all.replace(/ \[[a-z_]+\]$/gm, "")).toMatch(c.where);
      if (c.code) expect(all).toMatch(new RegExp(` \\[${c.code}\\]$`, "m"));
      expect(all).not.toMatch(/^\s+at \S/m); // no stack frames
      expect(all).not.toMatch(/internal error|TypeError|ReferenceError|SyntaxError:|\bError:/);
      expect(all).toMatch(/^(error|warning) /m);
      noStack(r);

      const j = await runHcpx([...argv(input), "--json"], { cwd: input.cwd });
      expect(j.code, "exit code with --json").toBe(1);
      expect(j.stderr).toBe("");
      const env = envelope<never>(j);
      expect(env.ok).toBe(false);
      expect(env.error.code).toMatch(/^[a-z0-9_]+$/);
      // the problem, with its file and line, is in the envelope: error.problems (a load error) or the lint report
      const details = env.error.details as { packs: { problems: Problem[] }[] } | undefined;
      const problems: Problem[] = details
        ? details.packs.flatMap((p) => p.problems)
        : (env.error.problems as Problem[]);
      expect(problems).toContainEqual(
        expect.objectContaining({
          code: want.code,
          file: want.file,
          message: want.message,
          ...(want.line !== undefined ? { line: want.line } : {}),
          ...(want.path ? { path: want.path } : {}),
        }),
      );
    } finally {
      rmSync(input.cwd, { recursive: true, force: true });
    }
  });
});

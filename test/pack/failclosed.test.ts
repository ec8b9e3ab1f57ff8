// Policy and pack files fail closed (issue 9, §2), and one id is one pack (§8):
// through the built CLI, on real packs over a real bin (argv-echo). An
// unknown or misspelt key, a row for a verb the surface does not declare, a
// command without a row: lint fails, and exec, mcp, generate and adopt
// refuse the pack (bad_pack); nothing runs.
import { describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runHcpx as runChild, tmp } from "../support/hcpx";
import { execInProcess, needsProcess, runInProcess } from "../support/inproc";
import { connectMcp } from "../support/mcp";
import { HCPX } from "../support/hcpx";
import { fxPack, project } from "../runtime/support";

/** mcp, exec (and what else needs a process of its own) as a child; the other commands, whose output and files are under test here, as function calls in this process (test/support/inproc.ts); execJson below runs most execs in this process too */
const runHcpx = (args: string[], opts?: Parameters<typeof runChild>[1]) =>
  needsProcess(args) ? runChild(args, opts) : runInProcess(args, opts);

/** The packs of a `hcpx lint --json` envelope: data when clean, error.details when not (exit ≠ 0 ⇒ ok: false). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the report's shape is checked by the assertions
function lintPacks(stdout: string): any[] {
  const env = JSON.parse(stdout);
  return (env.ok ? env.data : env.error.details).packs;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test data of any shape
type Json = Record<string, any>;

const cmd = (verb: string, cli: string[], args: Record<string, unknown> = {}) => ({
  verb_key: verb,
  summary: verb,
  cli,
  args,
});

/** A project with one pack `p` over argv-echo (commands `show` read, `send` write), the policy and surface then edited. */
function packProject(
  edit: { policy?: (rows: Record<string, Record<string, unknown>>) => void; surface?: (s: Json) => void } = {},
) {
  const p = project({
    packs: [
      fxPack("p", "argv-echo.mjs", [
        cmd("show", ["p", "show"]),
        cmd("send", ["p", "send", "{{to}}"], { to: { type: "string", required: true } }),
      ]),
    ],
  });
  const dir = join(p.dir, "packs", "p");
  const rows: Record<string, Record<string, unknown>> = {
    show: { operation: "read" },
    send: { operation: "write", land: "remote", confirm: true },
  };
  edit.policy?.(rows);
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ rows }, null, 2));
  const sf = join(dir, "surface.json");
  const s = JSON.parse(readFileSync(sf, "utf8"));
  edit.surface?.(s);
  writeFileSync(sf, JSON.stringify(s, null, 2));
  writeFileSync(
    join(dir, "SKILL.md"),
    '---\nname: p\ndescription: test pack\nleads: ["p: a test pack"]\n---\n# p\n\n| verb | what | read/write |\n|---|---|---|\n| `show` | show | read |\n| `send` | send | write, confirm |\n',
  );
  return { ...p, pack: dir };
}

/**
 * `hcpx exec <pack> <verb> --json ...` and its envelope: in this process (execInProcess: what the call
 * decides), or with `run` = runChild through the bin, for the cases whose process is under test (its exit
 * code on a refused write, its own argv parsing).
 */
const execJson = async (dir: string, args: string[], run: typeof runChild = execInProcess) => {
  const r = await run(["exec", ...args.slice(0, 2), "--json", ...args.slice(2)], { cwd: dir });
  return { code: r.code, env: JSON.parse(r.stdout) as Json, stderr: r.stderr };
};

describe("a misspelt key in a policy row is an error, never an ungated write", () => {
  it("`confrim: true`: lint fails with did-you-mean, exec refuses (bad_pack) and runs nothing", async () => {
    const p = packProject({ policy: (r) => (r.send = { operation: "write", land: "remote", confrim: true }) });
    const lint = await runHcpx(["lint", "--json", p.pack], { cwd: p.dir });
    expect(lint.code).toBe(1);
    const problems = lintPacks(lint.stdout)[0].problems as {
      code: string;
      severity: string;
      path: string;
      hint: string;
      line: number;
      column: number;
      file: string;
    }[];
    const typo = problems.find((x) => x.code === "unknown_key")!;
    expect(typo).toMatchObject({ severity: "error", path: "rows.send.confrim" });
    expect(typo.file).toMatch(/policy\.json$/);
    expect(typo.hint).toContain("did you mean 'confirm'?");
    expect(typo.line).toBeGreaterThan(1);
    expect(typo.column).toBeGreaterThan(1);
    // readable form: file:line:column, the path and the hint
    const plain = await runHcpx(["lint", p.pack], { cwd: p.dir });
    expect(plain.stdout).toMatch(
      /^error \S*policy\.json:\d+:\d+ at rows\.send\.confrim: unknown key 'confrim' in rows\.send \[unknown_key\]$/m,
    );
    expect(plain.stdout).toContain("hint: did you mean 'confirm'?");
    // exec: without confirm, the old code ran the write
    const r = await execJson(p.dir, ["p", "send", "--", "to=bob"], runChild);
    expect(r.code).toBe(1);
    expect(r.env.ok).toBe(false);
    expect(r.env.error.code).toBe("bad_pack");
    expect(r.env.error.message).toContain("confrim");
    expect(r.env.data).toBeUndefined();
    // the read of the same pack is refused too: the pack is broken, not one row
    expect((await execJson(p.dir, ["p", "show"], runChild)).env.error.code).toBe("bad_pack");
  });

  it("generate and adopt refuse the pack (exit 1, the file and key named), writing nothing", async () => {
    const p = packProject({ policy: (r) => (r.send = { operation: "write", confrim: true }) });
    for (const args of [["generate"], ["adopt", "claude"], ["adopt", "claude", "--write"]]) {
      const r = await runHcpx([...args, "--json"], { cwd: p.dir });
      expect(r.code, args.join(" ")).toBe(1);
      const e = (JSON.parse(r.stdout) as { ok: boolean; error: Record<string, unknown> }).error;
      expect(e, args.join(" ")).toMatchObject({
        code: "unknown_key",
        file: expect.stringMatching(/policy\.json$/),
        path: "rows.send.confrim",
        line: expect.any(Number),
        column: expect.any(Number),
        message: expect.stringContaining("unknown key 'confrim'"),
      });
    }
  });

  it("hcpx mcp does not serve the pack and a call to it is bad_pack", async () => {
    const p = packProject({ policy: (r) => (r.send = { operation: "write", confrim: true }) });
    const s = await connectMcp([HCPX, "mcp"], p.dir, {
      PATH: process.env.PATH ?? "",
      HOME: tmp("hcpx-fc-home-"),
      NO_COLOR: "1",
    });
    try {
      const tools = await s.client.listTools();
      const hcp = tools.tools.find((t) => t.name === "hcp")!;
      expect(hcp.description).not.toMatch(/^- p: /m);
      expect(hcp.description).toMatch(/broken[^\n]*\n- p \(.*\): \S*policy\.json:\d+: unknown key 'confrim'/);
      const res = (await s.client.callTool({
        name: "hcp",
        arguments: { pack: "p", verb: "send", args: { to: "bob" } },
      })) as unknown as { structuredContent: Json };
      expect(res.structuredContent.ok).toBe(false);
      expect(res.structuredContent.error.code).toBe("bad_pack");
    } finally {
      await s.client.close();
    }
  });

  it.each([
    [
      "a row for a verb the surface does not declare",
      { policy: (r: Record<string, unknown>) => (r.sned = { operation: "write" }) },
      "policy_unknown_row",
      /policy row 'sned' names no command/,
    ],
    [
      "a command without a policy row (refused, not read)",
      { policy: (r: Record<string, unknown>) => delete r.send },
      "policy_missing_row",
      /no policy row for 'send'/,
    ],
    [
      "confirm: true on a read (hcpx asks before writes only: it ran unasked)",
      { policy: (r: Json) => (r.show.confirm = true) },
      "policy_read_confirm",
      /'show' is a read with confirm: true/,
    ],
    [
      'a value of the wrong type (confirm: "yes")',
      { policy: (r: Json) => (r.send.confirm = "yes") },
      "schema",
      /expected boolean, got string/,
    ],
    [
      "an unknown key in wrap (agent_envs)",
      { surface: (s: Json) => (s.wrap.agent_envs = { X: "1" }) },
      "unknown_key",
      /unknown key 'agent_envs' in wrap/,
    ],
    [
      "an unknown key in binding (envs)",
      { surface: (s: Json) => (s.binding = { envs: ["TOKEN"] }) },
      "unknown_key",
      /unknown key 'envs' in binding/,
    ],
    [
      "an unknown key in an arg (requird)",
      { surface: (s: Json) => (s.commands[1].args.to.requird = true) },
      "unknown_key",
      /unknown key 'requird' in commands\[1\]\.args\.to/,
    ],
    [
      "an unknown key in pass_through (maxargv)",
      { surface: (s: Json) => (s.wrap.pass_through = { allowedSubcommands: ["show"], maxargv: 2 }) },
      "unknown_key",
      /unknown key 'maxargv'/,
    ],
    [
      "a reach path with a .. segment (it looked narrow and opened ~/.ssh)",
      { surface: (s: Json) => (s.reach = { paths: ["~/.config/gh/../../.ssh/known_hosts/.."] }) },
      "schema",
      /no \. or \.\. segment/,
    ],
    [
      "an unknown key in openapi",
      { surface: (s: Json) => (s.openapi = { base_url: "http://127.0.0.1:1", redirects: "follow" }) },
      "unknown_key",
      /unknown key 'redirects' in openapi/,
    ],
    [
      "an unknown top-level key of surface.json (comands)",
      { surface: (s: Json) => (s.comands = []) },
      "unknown_key",
      /unknown key 'comands'/,
    ],
  ])("%s: lint error %s, exec refuses", async (_name, edit, code, message) => {
    const p = packProject(edit as never);
    const lint = lintPacks((await runHcpx(["lint", "--json", p.pack], { cwd: p.dir })).stdout);
    const hit = (lint[0].problems as { code: string; severity: string; message: string; line?: number }[]).find(
      (x) => x.code === code,
    );
    expect(hit, JSON.stringify(lint[0].problems)).toBeDefined();
    expect(hit!.severity).toBe("error");
    expect(hit!.message).toMatch(message);
    expect(hit!.line).toBeGreaterThan(0);
    const r = await execJson(p.dir, ["p", "show"]);
    expect(r.env.error?.code).toBe("bad_pack");
  });

  it("the validation cache never lets a refused file through (cold and warm)", async () => {
    const p = packProject();
    const home = tmp("hcpx-fc-home-");
    const ok = await runHcpx(["exec", "p", "show", "--json"], { cwd: p.dir, env: { HOME: home } });
    expect(JSON.parse(ok.stdout).ok).toBe(true);
    const pol = join(p.pack, "policy.json");
    writeFileSync(pol, readFileSync(pol, "utf8").replace('"confirm": true', '"confrim": true'));
    for (let i = 0; i < 2; i++) {
      const r = await runHcpx(["exec", "p", "send", "--json", "--", "to=bob"], { cwd: p.dir, env: { HOME: home } });
      expect(JSON.parse(r.stdout).error.code, `run ${i}`).toBe("bad_pack");
    }
  });
});

describe("a surface is one member of the union on kind (src/pack/adapters)", () => {
  it("a wrap pack that also sets an mcp section: lint says kind_config_mismatch, exec refuses it (bad_pack) and runs nothing", async () => {
    const p = packProject({ surface: (s) => (s.mcp = { bin: "node" }) });
    const lint = await runHcpx(["lint", "--json", p.pack], { cwd: p.dir });
    expect(lint.code).toBe(1);
    const problems = lintPacks(lint.stdout)[0].problems as { code: string; path: string }[];
    expect(problems.filter((x) => x.code === "kind_config_mismatch").map((x) => x.path)).toEqual(["mcp"]);
    // the old runtime ran the wrap and ignored the section it was not meant to carry
    const r = await execJson(p.dir, ["p", "show"]);
    expect(r.code).toBe(1);
    expect(r.env.error.code).toBe("bad_pack");
    expect(r.env.error.message).toContain("'mcp' is set but kind is 'wrap'");
    expect(r.env.data).toBeUndefined();
  });
});

describe("JavaScript's own names (__proto__, constructor, prototype)", () => {
  it("as an arg name: refused by lint and exec, with or without the cache", async () => {
    const p = packProject();
    const sf = join(p.pack, "surface.json");
    // JSON.stringify cannot write an own __proto__ key from an object literal: write the text
    writeFileSync(sf, readFileSync(sf, "utf8").replace('"args": {}', '"args": { "__proto__": { "type": "string" } }'));
    expect(readFileSync(sf, "utf8")).toContain("__proto__");
    const home = tmp("hcpx-fc-home-");
    for (let i = 0; i < 2; i++) {
      const r = await runHcpx(["exec", "p", "show", "--json"], { cwd: p.dir, env: { HOME: home } });
      const env = JSON.parse(r.stdout);
      expect(env.error.code).toBe("bad_pack");
      expect(JSON.stringify(env.error.problems)).toContain("reserved_key");
    }
    const lint = lintPacks((await runHcpx(["lint", "--json", p.pack], { cwd: p.dir })).stdout);
    expect(lint[0].problems.map((x: { code: string }) => x.code)).toContain("reserved_key");
  });

  it.each(["constructor", "prototype"])(
    "%s as a policy row name or an agent_env name is refused by name, not a confusing type error",
    async (name) => {
      const p = packProject({ surface: (s) => (s.wrap.agent_env = { [name]: "x" }) });
      const lint = lintPacks((await runHcpx(["lint", "--json", p.pack], { cwd: p.dir })).stdout);
      const hit = lint[0].problems.find((x: { code: string }) => x.code === "reserved_key");
      expect(hit.path).toBe(`wrap.agent_env.${name}`);
    },
  );

  it("`__proto__=x` on the command line is an unknown argument, not dropped", async () => {
    const p = packProject();
    const r = await execJson(p.dir, ["p", "show", "--", "__proto__=x"], runChild);
    expect(r.env.ok).toBe(false);
    expect(r.env.error).toMatchObject({ code: "bad_args", arg: "__proto__" });
  });

  it("a bare bin named like an Object.prototype member is bin_denied, not an internal error", async () => {
    for (const bin of ["constructor", "toString", "hasOwnProperty"]) {
      const p = packProject({ surface: (s) => (s.wrap.bin = bin) });
      const r = await execJson(p.dir, ["p", "show"]);
      expect(r.env.error, bin).toMatchObject({ code: "bin_denied" });
    }
  });

  it("a bin's `__proto__` key survives redaction as a key, its secret redacted", async () => {
    const p = project({
      packs: [
        fxPack("echo", "argv-echo.mjs", [cmd("env", ["e"])], {
          wrap: { agent_env: { ARGV_ECHO_ENV: "ECHO_TOKEN" } },
          binding: { env: ["ECHO_TOKEN"] },
        }),
      ],
    });
    // a bin whose output has a __proto__ key holding the token
    writeFileSync(
      join(p.dir, "fx", "argv-echo.mjs"),
      'process.stdout.write(\'{"__proto__": {"t": "\' + process.env.ECHO_TOKEN + \'"}, "constructor": 1}\')\n',
    );
    const r = await runHcpx(["exec", "echo", "env", "--json"], { cwd: p.dir, env: { ECHO_TOKEN: "tok-3f9a7c" } });
    expect(r.stdout).not.toContain("tok-3f9a7c");
    expect(r.stdout).toBe('{"ok":true,"data":{"__proto__":{"t":"***"},"constructor":1}}\n');
  });
});

describe("one id, one pack", () => {
  function twins() {
    const p = project({
      packs: [
        fxPack("a", "argv-echo.mjs", [cmd("show", ["a", "show"])]),
        fxPack("b", "argv-echo.mjs", [cmd("show", ["a", "show"])]),
        fxPack("ok", "argv-echo.mjs", [cmd("show", ["ok", "show"])]),
      ],
    });
    // packs/b declares the id of packs/a
    const sf = join(p.dir, "packs", "b", "surface.json");
    writeFileSync(sf, readFileSync(sf, "utf8").replace('"id": "b"', '"id": "a"'));
    writeFileSync(
      join(p.dir, "packs", "b", "SKILL.md"),
      readFileSync(join(p.dir, "packs", "b", "SKILL.md"), "utf8").replace("name: b", "name: a"),
    );
    return p;
  }

  it("exec refuses the id (either directory first), and still runs an unrelated pack", async () => {
    const p = twins();
    const r = await execJson(p.dir, ["a", "show"]);
    expect(r.env.error?.code).toBe("duplicate_pack");
    expect(r.env.error.message).toMatch(/packs\/b|packs\/a/);
    expect((await execJson(p.dir, ["ok", "show"])).env.ok).toBe(true);
  });

  it("lint, status, generate, adopt and doctor report it (exit 1)", async () => {
    const p = twins();
    for (const args of [["lint"], ["status"], ["generate"], ["adopt", "claude"], ["doctor", "--mcp-timeout", "8000"]]) {
      const r = await runHcpx(args, { cwd: p.dir });
      expect(r.code, `${args.join(" ")}\n${r.stdout}${r.stderr}`).toBe(1);
      expect(r.stdout + r.stderr, args.join(" ")).toMatch(/pack id 'a' is (activated more than once|also the id of)/);
    }
  });

  it("hcpx mcp serves neither twin, serves the rest, and says why", async () => {
    const p = twins();
    const s = await connectMcp([HCPX, "mcp"], p.dir, {
      PATH: process.env.PATH ?? "",
      HOME: tmp("hcpx-fc-home-"),
      NO_COLOR: "1",
    });
    try {
      const hcp = (await s.client.listTools()).tools.find((t) => t.name === "hcp")!;
      expect(hcp.description).toMatch(/^- ok: show$/m);
      expect(hcp.description).not.toMatch(/^- a: /m);
      expect(hcp.description).toMatch(/^- a \(.*packs\/a\): .*activated more than once/m);
      const res = (await s.client.callTool({ name: "hcp", arguments: { pack: "a", verb: "show" } })) as unknown as {
        structuredContent: Json;
      };
      expect(res.structuredContent.error.code).toBe("duplicate_pack");
      expect(s.stderr()).toMatch(/not serving 2 broken pack\(s\)/);
    } finally {
      await s.client.close();
    }
  });
});

describe("exec's duplicate-id pre-check (mayDeclareText) never misses a declared id", () => {
  it("however the id is spelt in JSON5 (\\u, \\x, identity escapes, line continuations, quotes)", async () => {
    const fc = (await import("fast-check")).default;
    const JSON5 = (await import("json5")).default;
    const { mayDeclareText } = await import("../../src/pack/load");
    const idArb = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
    const spell = (ch: string, how: number): string => {
      const code = ch.charCodeAt(0);
      if (how === 0) return ch;
      if (how === 1) return `\\u${code.toString(16).padStart(4, "0")}`;
      if (how === 2) return `\\x${code.toString(16).padStart(2, "0")}`;
      if (how === 3 && /[a-z]/.test(ch) && !"bfnrtvux".includes(ch)) return `\\${ch}`;
      if (how === 4) return `\\\n${ch}`;
      return ch;
    };
    fc.assert(
      fc.property(
        idArb,
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 12, maxLength: 12 }),
        fc.constantFrom('"', "'"),
        (id, hows, q) => {
          const spelt = [...id].map((ch, i) => spell(ch, hows[i]!)).join("");
          const text = `{ hcp: "1.1", id: ${q}${spelt}${q}, description: "a \\"quoted\\" word\\n" }`;
          expect(JSON5.parse(text).id).toBe(id);
          expect(mayDeclareText(text, id), text).toBe(true);
          expect(mayDeclareText(Buffer.from(text), id), text).toBe(true); // the bytes, as exec scans them
        },
      ),
    );
    expect(mayDeclareText('{ id: "other", description: "say \\"hi\\"\\n" }', "git")).toBe(false);
    expect(mayDeclareText(Buffer.from('{ id: "other", description: "say \\"hi\\"\\n" }'), "git")).toBe(false);

    // named, not declared: in a comment, or inside a longer string (no escape that could spell a character)
    for (const text of ['// packs/git\n{ id: "other" }', '{ id: "other", description: "not git but \\"gitx\\"" }'])
      for (const t of [text, Buffer.from(text)]) expect(mayDeclareText(t, "git"), text).toBe(false);
    for (const text of ['{ id: "git" }', "{ id: 'git' }"])
      for (const t of [text, Buffer.from(text)]) expect(mayDeclareText(t, "git"), text).toBe(true);
  });

  it("the byte scan answers as the text scan does, for any bytes (invalid UTF-8, backslashes, the id split across characters)", async () => {
    const fc = (await import("fast-check")).default;
    const { mayDeclareText } = await import("../../src/pack/load");
    const byteArb = fc.oneof(
      fc.constantFrom(0x5c, 0x22, 0x27, 0x62, 0x75, 0x78, 0x0a, 0xc3, 0xa9, 0xff, 0xe2, 0x80),
      fc.integer({ min: 0, max: 255 }),
    );
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z][a-z0-9-]{0,4}$/),
        fc.array(fc.oneof(byteArb, byteArb, fc.constant(-1)), { maxLength: 40 }),
        (id, parts) => {
          const bytes = Buffer.from(parts.flatMap((b) => (b === -1 ? [...Buffer.from(id)] : [b])));
          expect(mayDeclareText(bytes, id)).toBe(mayDeclareText(bytes.toString("utf8"), id));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("one broken pack breaks only itself", () => {
  it("hcpx mcp with a pack whose policy.json does not parse: starts, serves the other, says which and why; doctor shows it", async () => {
    const p = project({
      packs: [
        fxPack("bad", "argv-echo.mjs", [cmd("show", ["bad", "show"])]),
        fxPack("good", "argv-echo.mjs", [cmd("show", ["good", "show"])]),
      ],
    });
    writeFileSync(join(p.dir, "packs", "bad", "policy.json"), "{ rows: { show: { operation: 'read' } ");
    const s = await connectMcp([HCPX, "mcp"], p.dir, {
      PATH: process.env.PATH ?? "",
      HOME: tmp("hcpx-fc-home-"),
      NO_COLOR: "1",
    });
    try {
      const hcp = (await s.client.listTools()).tools.find((t) => t.name === "hcp")!;
      expect(hcp.description).toMatch(/^- good: show$/m);
      expect(hcp.description).toMatch(
        /^- bad \(\S*packs\/bad\): \S*policy\.json:1: cannot parse: invalid end of input$/m,
      );
      const init = s.client.getInstructions() ?? "";
      expect(init).toContain("Not served, broken");
      const good = (await s.client.callTool({ name: "hcp", arguments: { pack: "good", verb: "show" } })) as unknown as {
        structuredContent: Json;
      };
      expect(good.structuredContent.ok).toBe(true);
      const bad = (await s.client.callTool({ name: "hcp", arguments: { pack: "bad", verb: "show" } })) as unknown as {
        structuredContent: Json;
      };
      expect(bad.structuredContent.error.code).toBe("bad_pack");
      expect(s.stderr()).toMatch(/not serving 1 broken pack\(s\):\n {2}- bad .*policy\.json:1: cannot parse/);
    } finally {
      await s.client.close();
    }
    const d = await runHcpx(["doctor", "--json", "--mcp-timeout", "8000"], { cwd: p.dir, timeoutMs: 20_000 });
    expect(d.code).toBe(1);
    const doctor = JSON.parse(d.stdout) as {
      ok: boolean;
      error: { details: { checks: { id: string; status: string; message: string; problems?: Json[] }[] } };
    };
    expect(doctor.ok).toBe(false);
    const checks = doctor.error.details.checks;
    const bad = checks.find((c) => /^pack:\S*packs\/bad$/.test(c.id));
    expect(bad).toMatchObject({
      status: "fail",
      problems: [expect.objectContaining({ code: "bad_json5", file: "packs/bad/policy.json", line: 1 })],
    });
    const mcp = checks.find((c) => c.id === "mcp");
    expect(mcp?.status).toBe("fail");
    expect(mcp?.message).toMatch(
      /starts and lists 2 tool\(s\) in both MCP eras \([^)]*\): hcp, hcp__read_skill; it does not serve 1 broken pack\(s\): bad/,
    );
  });
});

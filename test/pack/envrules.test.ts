// A pack cannot make the runtime load code it should not (issue 9, §3):
// wrap.agent_env and binding.env never name a variable that makes a program
// load other code or find other programs. One list (src/pack/envrules.ts),
// used by lint (error) and the runtime (bad_pack); docs/security.md prints it.
// lint and exec run in this process (runInProcess, execInProcess: test/support/inproc.ts): what
// they decide about the pack is the subject; the bin that must not start would be a child. The
// composite pack is refused before its module loads (test/support/shared-composites.ts fails
// the file when one loads in this shared worker).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  FORBIDDEN_ENV_EXCEPTIONS,
  FORBIDDEN_ENV_NAMES,
  FORBIDDEN_ENV_PREFIXES,
  forbiddenEnvOf,
  isForbiddenEnv,
} from "../../src/pack/envrules";
import { REPO } from "../support/hcpx";
import { execInProcess, runInProcess } from "../support/inproc";
import { fxPack, project } from "../runtime/support";

/** The packs of a `hcpx lint --json` envelope: data when clean, error.details when not (exit ≠ 0 ⇒ ok: false). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the report's shape is checked by the assertions
function lintPacks(stdout: string): any[] {
  const env = JSON.parse(stdout);
  return (env.ok ? env.data : env.error.details).packs;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const nameChar = fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_".split(""));
const suffix = fc.array(nameChar, { maxLength: 12 }).map((a) => a.join(""));
/** the same name in a random mix of upper and lower case */
const anyCase = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((flips) => [...name].map((ch, i) => (flips[i] ? ch.toLowerCase() : ch.toUpperCase())).join(""));

describe("the forbidden env list", () => {
  it("every listed name, in any case, is forbidden", () => {
    fc.assert(fc.property(fc.constantFrom(...FORBIDDEN_ENV_NAMES).chain(anyCase), (n) => isForbiddenEnv(n)));
  });

  it("every name under a forbidden prefix, in any case, is forbidden unless it is a listed exception", () => {
    fc.assert(
      fc.property(fc.constantFrom(...FORBIDDEN_ENV_PREFIXES), suffix, fc.boolean(), (prefix, rest, lower) => {
        const name = prefix + rest;
        const shown = lower ? name.toLowerCase() : name;
        expect(isForbiddenEnv(shown), shown).toBe(!FORBIDDEN_ENV_EXCEPTIONS.includes(name.toUpperCase()));
      }),
    );
  });

  it("the names the issue lists are all refused", () => {
    const named = [
      "NODE_OPTIONS",
      "NODE_PATH",
      "LD_PRELOAD",
      "LD_LIBRARY_PATH",
      "LD_AUDIT",
      "DYLD_INSERT_LIBRARIES",
      "PYTHONSTARTUP",
      "PYTHONPATH",
      "PYTHONHOME",
      "PYTHONWARNINGS",
      "PERL5OPT",
      "PERL5LIB",
      "RUBYOPT",
      "RUBYLIB",
      "BASH_ENV",
      "ENV",
      "SHELLOPTS",
      "PS4",
      "GIT_CONFIG_COUNT",
      "GIT_CONFIG_KEY_0",
      "GIT_CONFIG_VALUE_0",
      "GIT_CONFIG_GLOBAL",
      "GIT_EXEC_PATH",
      "GIT_SSH",
      "GIT_SSH_COMMAND",
      "PATH",
      "HOME",
      "JAVA_TOOL_OPTIONS",
      "_JAVA_OPTIONS",
    ];
    for (const n of named) {
      expect(isForbiddenEnv(n), n).toBe(true);
      expect(isForbiddenEnv(n.toLowerCase()), n.toLowerCase()).toBe(true);
    }
    expect(isForbiddenEnv("Path")).toBe(true); // Windows spells it so
  });

  it("a pack's own variables are allowed (random names outside the list)", () => {
    fc.assert(
      fc.property(fc.constantFrom("MYAPP_", "LEDGER_", "TODO_", "X"), suffix, (p, rest) => {
        const n = p + rest;
        fc.pre(ENV_NAME.test(n));
        expect(isForbiddenEnv(n), n).toBe(false);
      }),
    );
    for (const ok of [
      "LEDGER_OUTPUT",
      "NO_COLOR",
      "PYTHONUNBUFFERED",
      "PYTHONIOENCODING",
      "GIT_TERMINAL_PROMPT",
      "NODE_ENV",
      "LANG",
      "TZ",
    ])
      expect(isForbiddenEnv(ok), ok).toBe(false);
  });

  it("forbiddenEnvOf finds them in agent_env and binding.env with their JSON paths", () => {
    expect(
      forbiddenEnvOf({
        wrap: { agent_env: { OK: "1", node_options: "--require x" } },
        binding: { env: ["TOKEN", "LD_PRELOAD"] },
      }),
    ).toEqual([
      { path: ["wrap", "agent_env", "node_options"], name: "node_options" },
      { path: ["binding", "env", 1], name: "LD_PRELOAD" },
    ]);
  });

  it("the Security model (docs/security.md) prints exactly this list", () => {
    const readme = readFileSync(join(REPO, "docs/security.md"), "utf8");
    const start = readme.indexOf("<!-- forbidden-env:start -->");
    const end = readme.indexOf("<!-- forbidden-env:end -->");
    expect(start).toBeGreaterThan(0);
    const block = readme.slice(start, end);
    const codes = (label: string) => {
      const line = block.split("\n").find((l) => l.startsWith(label))!;
      expect(line, label).toBeDefined();
      return [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    };
    expect(codes("- names:")).toEqual([...FORBIDDEN_ENV_NAMES]);
    expect(codes("- prefixes:").map((p) => p.replace(/\*$/, ""))).toEqual([...FORBIDDEN_ENV_PREFIXES]);
    expect(codes("- allowed under a prefix:")).toEqual([...FORBIDDEN_ENV_EXCEPTIONS]);
  });
});

describe("lint and the runtime refuse a pack that sets one", () => {
  const cmd = { verb_key: "show", summary: "show", cli: ["p", "show"], args: {} };

  it("agent_env NODE_OPTIONS=--require: lint error, exec bad_pack, and the code it names never runs", async () => {
    const p = project({
      packs: [fxPack("p", "argv-echo.mjs", [cmd], { wrap: { agent_env: { NODE_OPTIONS: "--require ./evil.cjs" } } })],
    });
    const marker = join(p.dir, "pwned");
    writeFileSync(join(p.dir, "evil.cjs"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x");\n`);
    const lint = await runInProcess(["lint", "--json", join(p.dir, "packs", "p")], { cwd: p.dir });
    expect(lint.code).toBe(1);
    const hit = lintPacks(lint.stdout)[0].problems.find((x: { code: string }) => x.code === "env_forbidden");
    expect(hit).toMatchObject({ severity: "error", path: "wrap.agent_env.NODE_OPTIONS" });
    expect(hit.line).toBeGreaterThan(0);
    const r = await execInProcess(["exec", "p", "show", "--json"], { cwd: p.dir });
    expect(r.code).toBe(1);
    const env = JSON.parse(r.stdout);
    expect(env.error.code).toBe("bad_pack");
    expect(env.error.message).toContain("NODE_OPTIONS");
    expect(existsSync(marker)).toBe(false);
  });

  it.each([
    ["binding.env LD_PRELOAD", { binding: { env: ["LD_PRELOAD"] } }],
    ["binding.env path (lower case)", { binding: { env: ["path"] } }],
    [
      "agent_env GIT_CONFIG_COUNT",
      { wrap: { agent_env: { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "core.pager", GIT_CONFIG_VALUE_0: "sh -c x" } } },
    ],
    ["agent_env HOME", { wrap: { agent_env: { HOME: "/tmp/elsewhere" } } }],
    ["agent_env BASH_ENV", { wrap: { agent_env: { BASH_ENV: "./x.sh" } } }],
  ])("%s: exec refuses (bad_pack), the bin is never spawned", async (_n, extra) => {
    const p = project({ packs: [fxPack("p", "argv-echo.mjs", [cmd], extra)] });
    const r = await execInProcess(["exec", "p", "show", "--json"], { cwd: p.dir, env: { LD_PRELOAD: "" } });
    const env = JSON.parse(r.stdout);
    expect(env.ok).toBe(false);
    expect(env.error.code).toBe("bad_pack");
    expect(env.data).toBeUndefined();
  });

  it("a composite pack's binding.env is refused the same way", async () => {
    const p = project({
      packs: [
        {
          id: "c",
          surface: {
            kind: "composite",
            composite: { module: "./index.mjs" },
            binding: { env: ["NODE_OPTIONS"] },
            commands: [{ verb_key: "show", summary: "s", args: {} }],
          },
        },
      ],
    });
    writeFileSync(join(p.dir, "packs", "c", "index.mjs"), "export default { show: async () => ({ ran: true }) };\n");
    const env = JSON.parse((await execInProcess(["exec", "c", "show", "--json"], { cwd: p.dir })).stdout);
    expect(env.error.code).toBe("bad_pack");
  });
});

// What every command owes a person and an agent: --help with an example, one
// envelope shape with --json, no prompt without a TTY, no stack trace, colour
// only when allowed, and a completion script that completes.
import { describe, expect, it } from "vitest";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { envelope, hcpx as hcpxChild, hcpxBin, noStack, project, tmp } from "./helpers";
import { needsProcess, runInProcessChecked } from "../support/inproc";
import type { RunResult } from "../support/cli";

/**
 * `hcpx ...args` in this process (test/support/inproc.ts: the same argv, cwd, environment, no TTY,
 * stdout, stderr and exit code; no stack trace) for what a command prints: help, colour, the
 * completion scripts, and the --json envelope of most commands. The runs whose subject is the
 * process (stdin closed, the envelope on its stdout, its exit code: viaProcess; the completion
 * script calling the bin) stay real processes: hcpxChild.
 */
const hcpx = (args: string[], cwd: string, env?: NodeJS.ProcessEnv) => runInProcessChecked(args, { cwd, env });

/**
 * The runs of the --json contract that stay real processes of the built CLI: those that need one
 * (init without --yes asks on stdin, exec, mcp: test/support/inproc.ts needsProcess), adopt (the
 * entry's own start path, src/cli/fast-exec.ts), help and version, and the usage errors (exit 64).
 * The others (what a command decides and prints) run in this process: the same envelope and code.
 */
function viaProcess(args: string[]): boolean {
  const usage = args.includes("--bogus") || (args[0] === "grant" && args.length === 2);
  const helpOrVersion = args[0] === "help" || args.includes("--help") || args.includes("--version");
  return needsProcess(args) || args[0] === "adopt" || helpOrVersion || usage;
}

const CONFIG = `{ packs: ["./packs/ledger", "./packs/git"], grants: { allow: ["ledger.*", "git.*"] }, sandbox: { bins: { git: "/usr/bin/git" } } }\n`;

const HELP = [
  "generate",
  "adopt",
  "lint",
  "mcp",
  "exec",
  "pack",
  "pack new",
  "pack from-openapi",
  "init",
  "activate",
  "deactivate",
  "grant",
  "revoke",
  "doctor",
  "status",
  "completion",
];

describe("the CLI contract", () => {
  it("every command's --help shows an example", async () => {
    const dir = tmp("hcpx-help-");
    const root = await hcpx(["--help"], dir);
    expect(root.code).toBe(0);
    expect(root.stdout).toContain("Exit codes: 0 ok");
    for (const c of HELP) {
      const r = await hcpx([...c.split(" "), "--help"], dir);
      expect(r.code, c).toBe(0);
      expect(r.stdout, c).toMatch(/\nExamples?:\n {2}\$ hcpx /);
    }
  });

  it("with no TTY and stdin closed, no command waits for input; --json always prints one envelope, ok exactly when exit 0; no stack traces", async () => {
    const p = project(CONFIG);
    mkdirSync(join(p.dir, "fresh"));
    const runs: [string[], string][] = [
      [["init", "--json"], join(p.dir, "fresh")],
      [["init", "--json"], p.dir], // exists: refused
      [["pack", "new", "demo", "--composite", "--json"], p.dir],
      [["pack", "new", "BAD", "--sense", "--json"], p.dir],
      [["activate", "packs/transit", "--json"], p.dir],
      [["activate", "packs/nosuch", "--json"], p.dir],
      [["deactivate", "transit", "--json"], p.dir],
      [["deactivate", "nosuch", "--json"], p.dir],
      [["grant", "ledger.entry.*", "--json"], p.dir],
      [["grant", "bad pattern", "--json"], p.dir],
      [["revoke", "ledger.entry.*", "--json"], p.dir],
      [["revoke", "ledger.balance", "--json"], p.dir],
      [["status", "--json"], p.dir],
      [["doctor", "--json"], p.dir],
      [["completion", "bash", "--json"], p.dir],
      [["completion", "fish", "--json"], p.dir],
      [["lint", "--json"], p.dir],
      [["generate", "--check", "--json"], p.dir], // out of date: exit 1
      [["generate", "--json"], p.dir],
      [["generate", "--check", "--json"], p.dir], // current: exit 0
      [["adopt", "claude", "--check", "--json"], p.dir], // not adopted: drift, exit 1
      [["adopt", "claude", "--json"], p.dir],
      [["lint", "--strict", "--json"], p.dir],
      [["exec", "ledger", "accounts", "--json"], p.dir],
      [["exec", "nosuch", "x", "--json"], p.dir],
      [["exec", "ledger", "nosuch", "--json"], p.dir],
      [["grant", "--json"], p.dir], // usage: missing argument
      [["status", "--bogus", "--json"], p.dir], // usage: unknown option
      [["--version", "--json"], p.dir], // help and version are envelopes too
      [["exec", "--help", "--json"], p.dir],
      [["help", "status", "--json"], p.dir],
    ];
    const one = async (args: string[], cwd: string): Promise<RunResult> => {
      // asserts: not killed by the timeout, no stack trace
      const r = await (viaProcess(args) ? hcpxChild(args, cwd) : hcpx(args, cwd));
      // (a run in this process is never killed by a guard: one that waited would time the test out)
      if (!viaProcess(args)) expect(r.signal, args.join(" ")).toBeNull();
      return r;
    };
    // one after the other while they change the project; the last ones, real processes that only read it, at once
    const reads = runs.findIndex(([args]) => args.join(" ") === "exec ledger accounts --json");
    expect(runs.slice(reads).every(([args]) => viaProcess(args))).toBe(true);
    const ran: RunResult[] = [];
    for (const [args, cwd] of runs.slice(0, reads)) ran.push(await one(args, cwd));
    const mcp = hcpxChild(["mcp"], p.dir);
    ran.push(...(await Promise.all(runs.slice(reads).map(([args, cwd]) => one(args, cwd)))));
    const results = new Map<string, RunResult>();
    for (const [i, [args]] of runs.entries()) {
      const r = ran[i]!;
      results.set(args.join(" "), r);
      const env = envelope(r);
      expect(typeof env.ok, args.join(" ")).toBe("boolean");
      // ok exactly when the exit code is 0 (a doctor or lint --strict with warnings exits 2: ok false)
      expect(env.ok, `${args.join(" ")}: exit ${r.code}`).toBe(r.code === 0);
      if (!env.ok) {
        expect(r.code, args.join(" ")).not.toBe(0);
        expect(env.error.code, args.join(" ")).toMatch(/^[a-z_]+$/);
        expect(env.error.message.length, args.join(" ")).toBeGreaterThan(0);
      }
    }
    // the real processes' runs of these above (none of them reads or writes the project), checked again
    const again = (args: string): RunResult => {
      const r = results.get(args)!;
      expect(r.signal, args).toBeNull();
      noStack(r);
      return r;
    };
    const usage = again("status --bogus --json");
    expect(usage.code).toBe(64);
    expect(envelope(usage).error.code).toBe("usage");
    const version = again("--version --json");
    expect(envelope(version).data).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    const help = again("exec --help --json");
    expect(envelope(help).data.help).toMatch(/^Usage: hcpx exec /);
    expect(help.stdout.trimEnd().split("\n").at(-1)).toBe("}"); // the envelope alone: no help text after it
    // mcp with stdin closed ends by itself
    const m = await mcp;
    expect(m.signal).toBeNull();
  }, 120_000); // ~30 runs one after the other: the default 30 s is too short on a busy 2-core machine

  it("colour only when allowed: never without a TTY unless FORCE_COLOR, never with NO_COLOR", async () => {
    const p = project(CONFIG);
    const plain = await hcpx(["doctor"], p.dir);
    expect(plain.stdout).not.toMatch(/\u001b\[/);
    const forced = await hcpx(["doctor"], p.dir, { NO_COLOR: "", FORCE_COLOR: "1" });
    expect(forced.stdout).toMatch(/\u001b\[32m✓/);
    const both = await hcpx(["doctor"], p.dir, { NO_COLOR: "1", FORCE_COLOR: "1" });
    expect(both.stdout).not.toMatch(/\u001b\[/);
  });

  it("completion bash completes commands, subcommands, options, and active pack names", async () => {
    const p = project(CONFIG);
    const r = await hcpx(["completion", "bash"], p.dir);
    expect(r.code).toBe(0);
    const bin = tmp("hcpx-bin-");
    symlinkSync(hcpxBin(), join(bin, "hcpx"));
    const script = join(bin, "complete.bash");
    writeFileSync(script, r.stdout);
    expect(spawnSync("bash", ["-n", script]).status).toBe(0);
    const complete = (words: string[]) => {
      const cmd = `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _hcpx; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const out = spawnSync("bash", ["-c", cmd], {
        cwd: p.dir,
        encoding: "utf8",
        env: { ...process.env, PATH: `${bin}:/usr/bin:/bin:${process.env.PATH}` },
        timeout: 20_000,
      });
      return out.stdout.trim().split("\n").filter(Boolean).sort();
    };
    expect(complete(["hcpx", "gr"])).toEqual(["grant"]);
    expect(complete(["hcpx", "pack", ""])).toEqual(expect.arrayContaining(["from-openapi", "new"]));
    expect(complete(["hcpx", "pack", "new", "--c"])).toEqual(["--composite", "--confirm"]);
    expect(complete(["hcpx", "doctor", "--j"])).toEqual(["--json"]);
    expect(complete(["hcpx", "grant", "ledger.entry."])).toEqual(["ledger.entry.add", "ledger.entry.delete"]);
    expect(complete(["hcpx", "exec", "l"])).toEqual(["ledger"]);
    expect(complete(["hcpx", "exec", "ledger", "entry."])).toEqual(["entry.add", "entry.delete"]);
    expect(complete(["hcpx", "exec", "git", "s"])).toEqual(["show", "status"]);
    const z = await hcpx(["completion", "zsh"], p.dir);
    expect(z.stdout.startsWith("#compdef hcpx\n")).toBe(true);
    // host ids where a host is taken, directories where a pack dir is, files after --config (issue 26)
    expect(complete(["hcpx", "adopt", "c"])).toEqual(
      expect.arrayContaining(["claude", "cline", "codex", "continue", "copilot", "cursor"]),
    );
    expect(complete(["hcpx", "adopt", "a"])).toEqual(expect.arrayContaining(["all", "amp", "antigravity", "auggie"]));
    expect(complete(["hcpx", "import", "gem"])).toEqual(["gemini"]);
    expect(complete(["hcpx", "activate", "pack"])).toEqual(["packs"]);
    expect(complete(["hcpx", "lint", "packs/le"])).toEqual(["packs/ledger"]);
    expect(complete(["hcpx", "status", "--config", "hcp.con"])).toEqual(["hcp.config.json5"]);
  });

  it("completion fish: subcommands, options, host ids, directories and the active packs' names", async () => {
    const p = project(CONFIG);
    const r = await hcpx(["completion", "fish"], p.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^# hcpx completion \(fish\)/);
    expect(r.stdout).toContain("complete -c hcpx -n 'test (__hcpx_path) = \"adopt\"' -a 'amp antigravity");
    expect(r.stdout).toMatch(
      /complete -c hcpx -n 'test \(__hcpx_path\) = "activate"' -a '\(__fish_complete_directories\)'/,
    );
    expect(r.stdout).toMatch(/complete -c hcpx -n 'test \(__hcpx_path\) = "grant"' -a '\(hcpx completion names/);
    expect(r.stdout).toContain("complete -c hcpx -l config -r -F");
    const fish = spawnSync("fish", ["--version"]);
    if (fish.status === 0) {
      const f = join(tmp("hcpx-fish-"), "hcpx.fish");
      writeFileSync(f, r.stdout);
      expect(spawnSync("fish", ["-n", f]).status).toBe(0);
    }
  });
});

// The --json contract, command by command, over the commander program itself:
// every command (a new one included: it fails here until it has a row in
// CASES) takes --json; its success prints one envelope with ok: true and
// exits 0; its failure prints one envelope with ok: false, a code of the one
// code list (src/util/codes.ts), and a non-zero exit; a usage error (an
// unknown option, a missing argument, a wrong option value) exits 64 with a
// `usage`-class envelope. `hcpx mcp` is the one command without --json: its
// stdout is the MCP stream; its errors before it serves are text on stderr.
import { describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { program } from "../../src/cli/program";
import { ERRORS } from "../../src/util/codes";
import { LINT_CODES } from "../../src/util/errors";
import { HCPX, REPO, runHcpx as runChild, scratchProject, type RunOptions, type RunResult } from "../support/hcpx";
import { needsProcess, runInProcess } from "../support/inproc";

// The commander program's runs are made in this process (test/support/inproc.ts:
// the same argv, cwd, environment, stdout, stderr and exit code, ~5 ms of CPU
// instead of a Node start). The bin's own start paths stay real processes: exec
// and mcp (they end or keep the process), init without --yes (it asks), and the
// adopt forms src/cli/main.ts runs without commander (parseFastAdopt).
const ownProcess = (args: string[]) => needsProcess(args) || args[0] === "adopt";
const runHcpx = (args: string[], opts?: RunOptions) =>
  ownProcess(args) ? runChild(args, opts) : runInProcess(args, opts);

interface Mode {
  args: string[];
  /** prepare the scratch project (files, an earlier command) */
  setup?: (dir: string) => Promise<void> | void;
  /** the run's cwd below the scratch project (default: the project) */
  cwd?: string;
  /** expected exit code (default: 0 for ok, 1 for fail) */
  exit?: number;
}
interface Case {
  ok: Mode;
  fail: Mode;
}

const mcpJson = (dir: string) =>
  writeFileSync(
    join(dir, ".mcp.json"),
    JSON.stringify({ mcpServers: { self: { command: process.execPath, args: [HCPX, "mcp"] } } }),
  );
/** A server config (`server.json5`) in `dir` naming `principal` (hcpx token add checks the principal against it). */
const serverConfigIn = (dir: string, principal: string) =>
  writeFileSync(
    join(dir, "server.json5"),
    JSON.stringify({ principals: { [principal]: { grants: { allow: ["*"] } } } }),
  );
const hcpxIn = async (dir: string, args: string[]) => {
  const r = await runHcpx(args, { cwd: dir });
  if (r.code !== 0) throw new Error(`setup: hcpx ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
};

/** One row per command of the program (path as typed): how it succeeds and how it fails. */
const CASES: Record<string, Case> = {
  generate: { ok: { args: ["generate"] }, fail: { args: ["generate", "--check"] } },
  adopt: { ok: { args: ["adopt", "claude"] }, fail: { args: ["adopt", "claude", "--check"] } },
  lint: { ok: { args: ["lint", "packs/ledger"] }, fail: { args: ["lint", "packs/nosuch"] } },
  log: { ok: { args: ["log", "--since", "1h"] }, fail: { args: ["log", "--since", "yesterday-ish"], exit: 64 } },
  exec: {
    ok: { args: ["exec", "ledger", "accounts"] },
    fail: { args: ["exec", "ledger", "accounts", "--", "nokey=1"] },
  },
  "pack from-openapi": {
    ok: { args: ["pack", "from-openapi", join(REPO, "test/fixtures/openapi/petstore.yaml"), "--id", "pets"] },
    fail: { args: ["pack", "from-openapi", "nosuch.yaml", "--id", "pets"] },
  },
  "pack add": {
    ok: { args: ["pack", "add", "./packs/notes", "--yes"] },
    fail: { args: ["pack", "add", "./nosuch-dir", "--yes"] },
  },
  "pack install": {
    ok: { args: ["pack", "install"] },
    fail: { args: ["pack", "install"], setup: (d) => writeFileSync(join(d, "hcp.lock"), "not json {") },
  },
  "pack update": {
    ok: { args: ["pack", "update", "notes"], setup: (d) => hcpxIn(d, ["pack", "add", "./packs/notes", "--yes"]) },
    fail: { args: ["pack", "update"], setup: (d) => writeFileSync(join(d, "hcp.lock"), "not json {") },
  },
  "pack remove": {
    ok: { args: ["pack", "remove", "notes"], setup: (d) => hcpxIn(d, ["pack", "add", "./packs/notes", "--yes"]) },
    fail: { args: ["pack", "remove", "notes"], setup: (d) => writeFileSync(join(d, "hcp.lock"), "not json {") },
  },
  "pack from-mcp": {
    ok: { args: ["pack", "from-mcp", "--id", "self", "--", process.execPath, HCPX, "mcp"] },
    fail: { args: ["pack", "from-mcp", "--", "hcpx-no-such-program"] },
  },
  "pack new": {
    ok: { args: ["pack", "new", "demo", "--composite"] },
    fail: { args: ["pack", "new", "ledger", "--composite", "--dir", "packs/ledger"] },
  },
  "pack add-verb": {
    ok: { args: ["pack", "add-verb", "packs/git", "--verb", "tags=tag --list"] },
    fail: { args: ["pack", "add-verb", "packs/nosuch", "--verb", "tags=tag --list"] },
  },
  "pack sync": { ok: { args: ["pack", "sync", "packs/ledger"] }, fail: { args: ["pack", "sync", "packs/nosuch"] } },
  import: { ok: { args: ["import", "claude"], setup: mcpJson }, fail: { args: ["import", "claude"] } },
  init: {
    ok: { args: ["init", "--yes"], cwd: "fresh", setup: (d) => mkdirSync(join(d, "fresh")) },
    fail: { args: ["init", "--yes"] },
  },
  activate: { ok: { args: ["activate", "packs/notes"] }, fail: { args: ["activate", "packs/nosuch"] } },
  deactivate: { ok: { args: ["deactivate", "ledger"] }, fail: { args: ["deactivate", "nosuch"], exit: 64 } },
  grant: { ok: { args: ["grant", "ledger.entry.*"] }, fail: { args: ["grant", "bad pattern"], exit: 64 } },
  revoke: {
    ok: { args: ["revoke", "ledger.*"] },
    fail: { args: ["revoke", "ledger.*"], setup: (d) => writeFileSync(join(d, "hcp.config.json5"), "{ packs: [ \n") },
  },
  doctor: {
    ok: { args: ["doctor"] },
    fail: { args: ["doctor"], setup: (d) => writeFileSync(join(d, "hcp.config.json5"), "{ packs: [ \n") },
  },
  status: {
    ok: { args: ["status"] },
    fail: {
      args: ["status"],
      setup: (d) => writeFileSync(join(d, "hcp.config.json5"), '{ packs: ["./packs/nosuch"] }\n'),
    },
  },
  completion: { ok: { args: ["completion", "bash"] }, fail: { args: ["completion", "tcsh"], exit: 64 } },
  // the runs share one scratch HOME (and state directory): each row its own principal
  "token add": {
    ok: {
      args: ["token", "add", `ta-${process.pid}`, "--server-config", "server.json5"],
      setup: (d) => serverConfigIn(d, `ta-${process.pid}`),
    },
    fail: { args: ["token", "add", "alice", "--server-config", "nosuch.json5"] },
  },
  "token list": {
    ok: { args: ["token", "list"] },
    fail: { args: ["token", "list", "--server-config", "nosuch.json5"] },
  },
  "token remove": {
    ok: {
      args: ["token", "remove", `tr-${process.pid}`],
      setup: async (d) => {
        serverConfigIn(d, `tr-${process.pid}`);
        await hcpxIn(d, ["token", "add", `tr-${process.pid}`, "--server-config", "server.json5"]);
      },
    },
    fail: { args: ["token", "remove", `nobody-${process.pid}`] },
  },
};
/** Commands without --json, and why. */
const NO_JSON: Record<string, string> = { mcp: "its stdout is the MCP stream (README: Exit codes)" };
/** Wrong option values: usage errors, exit 64. */
const BAD_VALUES: string[][] = [
  ["adopt", "claude", "--scope", "galaxy"],
  ["generate", "--as", "nosuch-kind", "out"],
  ["generate", "--host", "nosuch-host"],
  ["pack", "from-openapi", "x.yaml", "--id", "BAD"],
  ["pack", "from-openapi", "x.yaml", "--id", "pets", "--base-url", "not a url"],
  ["pack", "from-mcp", "--timeout", "soon", "--", "hcpx-no-such-program"],
  ["import", "nosuch-host"],
  ["import", "claude", "--timeout", "-5"],
  ["doctor", "--mcp-timeout", "abc"],
  ["pack", "new", "BAD", "--sense"],
  ["completion", "tcsh"],
];

const KNOWN = new Set<string>([...Object.keys(ERRORS), ...LINT_CODES]);

function leaves(cmd: Command, prefix: string[] = []): { path: string; cmd: Command }[] {
  return cmd.commands.flatMap((c) =>
    c.commands.length ? leaves(c, [...prefix, c.name()]) : [{ path: [...prefix, c.name()].join(" "), cmd: c }],
  );
}
const LEAVES = leaves(program);

function envelopeOf(
  r: RunResult,
  what: string,
): { ok: boolean; data?: unknown; error?: { code: string; message: string; hint?: string } } {
  const text = r.stdout.trim();
  expect(text, `${what}: stdout is one JSON envelope (exit ${r.code}, stderr: ${r.stderr.slice(0, 400)})`).toMatch(
    /^\{[\s\S]*\}$/,
  );
  const env = JSON.parse(text) as { ok: boolean; error?: { code: string; message: string } };
  expect(typeof env.ok, what).toBe("boolean");
  // ok exactly when the exit code is 0
  expect(env.ok, `${what}: ok is ${env.ok} but exit ${r.code} (stderr: ${r.stderr.slice(0, 400)})`).toBe(r.code === 0);
  if (!env.ok) {
    expect(KNOWN.has(env.error!.code), `${what}: code '${env.error!.code}' is in the one code list`).toBe(true);
    expect(env.error!.message.length, what).toBeGreaterThan(0);
  }
  expect(r.stdout + r.stderr, `${what}: no stack trace`).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
  return env;
}

/** `--json` before a `--` (after it, it would be an operand). */
function withJson(args: readonly string[]): string[] {
  const a = [...args];
  const dd = a.indexOf("--");
  a.splice(dd < 0 ? a.length : dd, 0, "--json");
  return a;
}

async function runMode(path: string, kind: "ok" | "fail", m: Mode): Promise<void> {
  const p = scratchProject({ packs: ["ledger", "git"], allow: ["ledger.*", "git.*"] });
  await m.setup?.(p.dir);
  const args = withJson(m.args);
  const r = await runHcpx(args, { cwd: m.cwd ? join(p.dir, m.cwd) : p.dir, timeoutMs: 30_000 });
  const what = `${path} (${kind}): hcpx ${args.join(" ")}`;
  const env = envelopeOf(r, what);
  expect(r.code, what).toBe(m.exit ?? (kind === "ok" ? 0 : 1));
  expect(env.ok, what).toBe(kind === "ok");
}

/** Batches of `n` at a time: a shared 2-core machine. */
async function inBatches<T>(items: T[], n: number, f: (t: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += n) await Promise.all(items.slice(i, i + n).map(f));
}

describe("--json: one envelope per command, ok exactly when exit 0, usage errors exit 64", () => {
  it("every command of the program has a row (ok and fail) here, and takes --json unless it says why not", () => {
    const paths = LEAVES.map((l) => l.path).sort();
    expect(paths.length).toBeGreaterThan(15);
    expect([...Object.keys(CASES), ...Object.keys(NO_JSON)].sort()).toEqual(paths);
    for (const { path, cmd } of LEAVES) {
      const json = cmd.options.some((o) => o.long === "--json");
      expect(json, `${path}: --json ${json ? "offered" : "missing"}`).toBe(!(path in NO_JSON));
    }
  });

  it("each command's success: ok true, exit 0", { timeout: 240_000 }, async () => {
    await inBatches(Object.entries(CASES), 3, ([path, c]) => runMode(path, "ok", c.ok));
  });

  it("each command's failure: ok false, a known code, exit not 0", { timeout: 240_000 }, async () => {
    await inBatches(Object.entries(CASES), 3, ([path, c]) => runMode(path, "fail", c.fail));
  });

  it(
    "usage errors exit 64 with a usage envelope: an unknown option, a missing argument (every command), a wrong value",
    { timeout: 240_000 },
    async () => {
      const p = scratchProject({ packs: ["ledger"] });
      const runs: string[][] = [];
      for (const { path, cmd } of LEAVES) {
        runs.push([...path.split(" "), "--no-such-option", "--json"]);
        if (cmd.registeredArguments.some((a) => a.required)) runs.push([...path.split(" "), "--json"]);
      }
      for (const v of BAD_VALUES) runs.push(withJson(v));
      const not64: string[] = [];
      await inBatches(runs, 4, async (args) => {
        const r = await runHcpx(args, { cwd: p.dir });
        const what = `hcpx ${args.join(" ")}`;
        envelopeOf(r, what);
        if (r.code !== 64) not64.push(`${what}: exit ${r.code}`);
      });
      expect(not64).toEqual([]);
    },
  );

  it("hcpx mcp: --json is a usage error (64, an envelope); an error before it serves is text on stderr, nothing on stdout", async () => {
    const p = scratchProject({ packs: ["ledger"] });
    const j = await runHcpx(["mcp", "--json"], { cwd: p.dir });
    expect(j.code).toBe(64);
    expect(envelopeOf(j, "mcp --json").error!.code).toBe("usage");
    const s = await runHcpx(["mcp", "--shape", "galaxy"], { cwd: p.dir });
    expect(s.code).toBe(64);
    expect(s.stdout).toBe("");
    expect(s.stderr).toMatch(/^error: unknown --shape 'galaxy'\n {2}hint: /);
    writeFileSync(join(p.dir, "hcp.config.json5"), "{ packs: [\n");
    const broken = await runHcpx(["mcp"], { cwd: p.dir });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toBe("");
    expect(broken.stderr).toMatch(/^error hcp\.config\.json5:2:1: .*\n {2}hint: /);
  });
});

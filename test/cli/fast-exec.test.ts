// main.ts reads the plain `hcpx exec` form itself (no commander on the hot
// path); anything else goes to commander. Both must mean the same thing.
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseFastAdopt, parseFastExec, parseFastMcp } from "../../src/cli/fast-exec";
import { runHcpx, scratchProject } from "../support/hcpx";

describe("exec fast path: parsing", () => {
  it("reads pack, verb, flags anywhere before --, k=v operands before and after --", () => {
    expect(parseFastExec(["exec", "ledger", "balance", "--json", "--", "account=x"])).toEqual({
      pack: "ledger",
      verb: "balance",
      operands: ["account=x"],
      confirm: false,
      json: true,
    });
    expect(parseFastExec(["exec", "ledger", "transfer", "from=a", "--confirm", "to=b", "--json"])).toEqual({
      pack: "ledger",
      verb: "transfer",
      operands: ["from=a", "to=b"],
      confirm: true,
      json: true,
    });
    // after --, everything is an operand, dashes and option names included
    expect(parseFastExec(["exec", "notes", "search", "--", "--json", "-x", "--"])).toEqual({
      pack: "notes",
      verb: "search",
      operands: ["--json", "-x", "--"],
      confirm: false,
      json: false,
    });
  });
  it("leaves everything else to commander", () => {
    for (const args of [
      [],
      ["exec"],
      ["exec", "ledger"],
      ["exec", "--help"],
      ["exec", "ledger", "balance", "--help"],
      ["exec", "ledger", "balance", "-h"],
      ["exec", "ledger", "balance", "--jsn"],
      ["exec", "-x", "y"],
      ["--config", "c.json5", "exec", "a", "b"],
      ["lint"],
      ["generate", "exec", "a"],
    ]) {
      expect(parseFastExec(args), args.join(" ")).toBeUndefined();
    }
  });
});

describe("exec fast path: same results as the commander path", () => {
  it("ok, refused, confirm-gated and bad-args calls print the same envelope and exit code either way", async () => {
    const p = scratchProject({ packs: ["ledger"], allow: ["ledger.*"], deny: ["ledger.entry.delete"] });
    const env = { LEDGER_SEED: "1" };
    const cases = [
      ["ledger", "accounts", "--json"],
      ["ledger", "balance", "--json", "--", "account=checking"],
      ["ledger", "balance", "account=checking", "--json"],
      ["ledger", "transfer", "--json", "--", "from=checking", "to=savings", "amount=1"],
      ["ledger", "entry.delete", "--json", "--", "id=1"],
      ["ledger", "balance", "--json", "--", "nope=1"],
      ["nope", "x", "--json"],
      ["ledger", "balance", "--", "account=checking"],
    ];
    for (const c of cases) {
      const fast = await runHcpx(["exec", ...c], { cwd: p.dir, env });
      // `--config` before the command is not the plain form: commander parses it
      const slow = await runHcpx(["--config", p.config, "exec", ...c], { cwd: p.dir, env });
      expect(fast.stdout, c.join(" ")).toBe(slow.stdout);
      expect(fast.stderr, c.join(" ")).toBe(slow.stderr);
      expect(fast.code, c.join(" ")).toBe(slow.code);
    }
    // and the ledger file was never written by these (reads, refusals)
    expect(() => readFileSync(join(p.dir, "ledger.json"))).toThrow();
  });
  it("a missing config is the same user error either way, with --json an envelope", async () => {
    // no hcp.config.json5 in / (and the test HOME has no user config)
    const a = await runHcpx(["exec", "ledger", "accounts", "--json"], { cwd: "/" });
    expect(a.code).toBe(1);
    expect(JSON.parse(a.stdout).error.code).toBe("no_config");
    const b = await runHcpx(["exec", "ledger", "accounts"], { cwd: "/" });
    expect(b.code).toBe(1);
    expect(b.stderr).toContain("hcpx init");
    expect(b.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("exec: --config after the pack", () => {
  it("is refused (usage, exit 64) before any config is read: a host's allow rule for `hcpx exec <pack> <verb>` must not run another config's pack", async () => {
    const p = scratchProject({ packs: ["ledger"], allow: ["ledger.*"] });
    // another config: every command of its own ledger granted, confirm left to the agent
    const other = join(p.dir, "other.json5");
    writeFileSync(other, '{ packs: ["./packs/ledger"], grants: { allow: ["*"] }, confirm: "agent" }\n');
    for (const args of [
      ["exec", "ledger", "accounts", "--config", other, "--json"],
      ["exec", "ledger", `--config=${other}`, "accounts", "--json"],
    ]) {
      const r = await runHcpx(args, { cwd: p.dir });
      expect(r.code, args.join(" ")).toBe(64);
      expect(JSON.parse(r.stdout).error).toMatchObject({
        code: "usage",
        message: expect.stringContaining("give it before exec"),
      });
    }
    // before the command, or after exec and before the pack, it names the config as always; after `--` it is a bin's
    for (const args of [
      ["--config", other, "exec", "ledger", "accounts", "--json"],
      ["exec", "--config", other, "ledger", "accounts", "--json"],
    ]) {
      const r = await runHcpx(args, { cwd: p.dir });
      expect(r.code, `${args.join(" ")}: ${r.stdout}`).toBe(0);
    }
    const after = await runHcpx(["exec", "ledger", "accounts", "--json", "--", "--config"], { cwd: p.dir });
    expect(JSON.parse(after.stdout).error?.code).not.toBe("usage");
  });
});

describe("hcpx --version skips commander", () => {
  it("answers from dist/hcpx.cjs alone, the bin (commands/program.cjs, the commander bundle, is never loaded)", async () => {
    const { cpSync, rmSync } = await import("node:fs");
    const { REPO, run } = await import("../support/cli");
    const { tmp } = await import("../support/project");
    const d = tmp("hcpx-ver-");
    cpSync(join(REPO, "dist", "hcpx.cjs"), join(d, "hcpx.cjs"));
    try {
      const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
      for (const flag of ["--version", "-V"]) {
        const r = await run(process.execPath, [join(d, "hcpx.cjs"), flag]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toBe(`${pkg.version}\n`);
      }
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});

describe("the bin's start path", () => {
  it("is dist/hcpx.cjs, and the plain exec form starts neither Node's ESM loader nor a stream for stdin", async () => {
    const { REPO, run, tmp } = await import("../support/hcpx");
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { bin: Record<string, string> };
    expect(pkg.bin).toEqual({ hcpx: "dist/hcpx.cjs" });
    const p = scratchProject({ packs: ["calc-wrap"], allow: ["calc-wrap.*"] });
    const d = tmp("hcpx-mods-");
    // Node's list of what the run loaded, written to mods.txt at its exit
    const probe = join(REPO, "test", "fixtures", "preload", "loaded-at-exit.cjs");
    const r = await run(
      process.execPath,
      ["--require", probe, join(REPO, pkg.bin.hcpx), "exec", "calc-wrap", "ping", "--json"],
      { cwd: p.dir, env: { LOADED_AT_EXIT: join(d, "mods.txt") } },
    );
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
    const mods = readFileSync(join(d, "mods.txt"), "utf8").split("\n");
    expect(mods).toContain("NativeModule child_process"); // the probe saw the run
    expect(mods.filter((m) => /esm\/loader|fs\/streams|NativeModule module$/.test(m))).toEqual([]);
    // the old entry name still works
    const old = await run(process.execPath, [join(REPO, "dist", "hcpx.mjs"), "exec", "calc-wrap", "ping", "--json"], {
      cwd: p.dir,
    });
    expect(old.stdout).toBe(r.stdout);
  });
});

describe("adopt fast path", () => {
  it("reads hosts, --write, --check, --json and --command <cmd> as commander does; leaves everything else to commander", () => {
    expect(parseFastAdopt(["adopt", "claude", "--write", "--command", "hcpx mcp"])).toEqual({
      hosts: ["claude"],
      opts: { scope: "project", write: true, command: "hcpx mcp" },
    });
    expect(parseFastAdopt(["adopt", "--json", "claude", "cursor"])).toEqual({
      hosts: ["claude", "cursor"],
      opts: { scope: "project", json: true },
    });
    expect(parseFastAdopt(["adopt", "all", "--check"])).toEqual({
      hosts: ["all"],
      opts: { scope: "project", check: true },
    });
    for (const args of [
      ["adopt"],
      ["adopt", "--write"],
      ["adopt", "claude", "--help"],
      ["adopt", "claude", "--scope", "user"],
      ["adopt", "claude", "--command"],
      ["adopt", "claude", "--command", "-x"],
      ["adopt", "claude", "--command=hcpx mcp"],
      ["adopt", "claude", "--command", "a", "--command", "b"],
      ["adopt", "claude", "--"],
      ["--config", "c.json5", "adopt", "claude"],
      ["exec", "adopt"],
    ]) {
      expect(parseFastAdopt(args), args.join(" ")).toBeUndefined();
    }
  });

  it("writes the same files and prints the same output and exit code as the commander path", async () => {
    const cases = [
      ["claude", "--command", "hcpx mcp"],
      ["claude", "cursor", "--write", "--command", "hcpx mcp"],
      ["claude", "--write", "--json", "--command", "hcpx mcp"],
      ["nosuchhost", "--json"],
      // CI's and a hook's check: nothing adopted (drift, exit 1), in both output forms
      ["claude", "--check", "--command", "hcpx mcp"],
      ["all", "--check", "--json"],
      ["claude", "--check", "--write"],
    ];
    for (const c of cases) {
      const runs = [];
      for (const slow of [false, true]) {
        const p = scratchProject({ packs: ["ledger"], allow: ["ledger.*"] });
        const r = await runHcpx([...(slow ? ["--config", p.config] : []), "adopt", ...c], { cwd: p.dir });
        const files = readdirSync(p.dir, { recursive: true, encoding: "utf8" })
          .filter((f) => /^(\.claude|\.cursor|\.mcp\.json|CLAUDE\.md|AGENTS\.md)/.test(f))
          .sort();
        runs.push({
          code: r.code,
          stdout: r.stdout.replaceAll(p.dir, "<dir>"),
          stderr: r.stderr.replaceAll(p.dir, "<dir>"),
          files,
        });
      }
      expect(runs[0], c.join(" ")).toEqual(runs[1]);
    }
  });
});

describe("mcp fast path", () => {
  it("reads the forms adopt writes (--shape, --host, --config, --no-watch) as commander does; leaves everything else to commander", () => {
    expect(parseFastMcp(["mcp"])).toEqual({ shape: "single", watch: true, auth: true });
    expect(
      parseFastMcp([
        "mcp",
        "--shape",
        "per-command",
        "--host",
        "claude",
        "--config",
        "/home/u/.config/hcpx/config.json5",
      ]),
    ).toEqual({
      shape: "per-command",
      watch: true,
      auth: true,
      host: "claude",
      config: "/home/u/.config/hcpx/config.json5",
    });
    expect(parseFastMcp(["mcp", "--no-watch", "--shape", "single"])).toEqual({
      shape: "single",
      watch: false,
      auth: true,
    });
    for (const args of [
      ["mcp", "--shape"],
      ["mcp", "--shape", "tools"],
      ["mcp", "--shape=single"],
      ["mcp", "--host", "-x"],
      ["mcp", "--http", "8080"],
      ["mcp", "--help"],
      ["mcp", "--shape", "single", "--shape", "single"],
      ["mcp", "extra"],
      ["--config", "c.json5", "mcp"],
      ["exec", "mcp"],
    ]) {
      expect(parseFastMcp(args), args.join(" ")).toBeUndefined();
    }
  });
});

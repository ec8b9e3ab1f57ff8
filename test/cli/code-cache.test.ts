// `hcpx exec` loads its bundle through V8's code cache (src/cli/load-command.ts).
// The cache may only ever save work: the same envelopes with and without it,
// a garbage cache is rejected and rewritten, composite modules still import
// from a script compiled from the cache, and HCPX_NO_CACHE=1 writes none.
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO, run, runHcpx, scratchProject, tmp } from "../support/hcpx";
import { RAW_OPENING } from "../support/raw-mcp";

const v8Dir = (home: string) => join(home, ".cache", "hcpx", "v8");

/**
 * A scratch project with the calc-wrap pack (and `also`), whose bin answers `ping` as bins/calc.mjs does
 * ({"pong":true}) but is a shell script: ~30 exec runs here call it, a Node start ~40 ms of CPU each, the
 * shell's ~2 ms. exec's own start (its code cache) is under test, not the bin's. Where the call is confined
 * (sandbox.enforce "os") the pack keeps calc.mjs.
 */
function pingProject(also: string[] = []): ReturnType<typeof scratchProject> {
  const p = scratchProject({ packs: [...also, "calc-wrap"] });
  writeFileSync(join(p.dir, "bins", "calc-ping.sh"), `#!/bin/sh\n[ "$1" = ping ] || exit 2\necho '{"pong":true}'\n`, {
    mode: 0o755,
  });
  const surface = join(p.dir, "packs", "calc-wrap", "surface.json");
  const text = readFileSync(surface, "utf8");
  const to = text.replace('bin: "../../bins/calc.mjs"', 'bin: "../../bins/calc-ping.sh"');
  if (to === text) throw new Error(`${surface}: no bin "../../bins/calc.mjs" to replace`);
  writeFileSync(surface, to);
  return p;
}

/**
 * A calc-wrap project, and a HOME in which `exec calc-wrap ping` wrote its code caches (no shipped
 * cache read), made once: the cases that start from such a HOME get a copy of it (its files in the
 * order they were written), not a run of their own.
 */
let wrap: { dir: string; primed: string };
beforeAll(async () => {
  const p = pingProject();
  const primed = tmp("hcpx-cc-home-");
  const r = await runHcpx(["exec", "calc-wrap", "ping", "--json"], {
    cwd: p.dir,
    env: { HOME: primed, HCPX_NO_SHIPPED_CACHE: "1" },
  });
  if (r.code !== 0 || readdirSync(v8Dir(primed)).length === 0) throw new Error(`priming the cache failed: ${r.stderr}`);
  wrap = { dir: p.dir, primed };
});

/** A HOME of its own, as `exec calc-wrap ping` left it (above). */
function primedHome(): string {
  const home = tmp("hcpx-cc-home-");
  cpSync(wrap.primed, home, { recursive: true });
  return home;
}

// The cases run at once: each has a HOME (and, but for the primed ones' shared project, which exec
// only reads, a project) of its own, and most of a case is a wait on its processes. 60 s each: the
// in-place corruption runs 16 execs, beside the others' on a busy 2-core machine.
describe.concurrent("exec's code cache", { timeout: 60_000 }, () => {
  it("is written by the first exec and gives the same envelopes after, for wrap and composite", async () => {
    const p = pingProject(["calc"]);
    const home = tmp("hcpx-cc-home-");
    const env = { HOME: home, HCPX_NO_SHIPPED_CACHE: "1" };
    const first = await runHcpx(["exec", "calc", "add", "--json", "--", "a=1", "b=2"], { cwd: p.dir, env });
    expect(JSON.parse(first.stdout)).toEqual({ ok: true, data: { sum: 3 } });
    // exec's, and its schemas' (the first call validates: src/cli/load-command.ts compiles that bundle too)
    const files = readdirSync(v8Dir(home)).sort();
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(/^exec-[0-9a-f]{16}-v\d+\.\d+\.\d+-\w+\.bin$/);
    expect(files[1]).toMatch(/^exec-schemas-[0-9a-f]{16}-v\d+\.\d+\.\d+-\w+\.bin$/);
    // from the cache now: a composite's import() must still work
    for (const [args, data] of [
      [["exec", "calc", "add", "--json", "--", "a=2", "b=2"], { sum: 4 }],
      [["exec", "calc-wrap", "ping", "--json"], { pong: true }],
    ] as const) {
      const r = await runHcpx([...args], { cwd: p.dir, env });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, data });
    }
  });

  it("a garbage cache file is rejected by V8 and rewritten; exec works meanwhile", async () => {
    const p = wrap;
    const home = primedHome();
    const env = { HOME: home, HCPX_NO_SHIPPED_CACHE: "1" };
    const file = join(v8Dir(home), readdirSync(v8Dir(home))[0]!);
    const good = readFileSync(file);
    for (const junk of [Buffer.alloc(0), Buffer.from("not a code cache"), Buffer.alloc(good.length, 0x5a)]) {
      writeFileSync(file, junk);
      const r = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
      expect(readFileSync(file).equals(junk)).toBe(false);
    }
  });

  // issue 22 §8: V8 checks a cache's length and flags, not its content; hcpx compares the entry's two copies first
  it("a cache corrupted in place (same length, bytes flipped anywhere) never crashes exec and is rewritten", async () => {
    const p = wrap;
    const home = primedHome();
    const env = { HOME: home, HCPX_NO_SHIPPED_CACHE: "1" };
    const file = join(v8Dir(home), readdirSync(v8Dir(home))[0]!);
    const good = readFileSync(file);
    for (let k = 0; k < 8; k++) {
      const bad = Buffer.from(good);
      const at = Math.floor(bad.length * (0.2 + 0.09 * k));
      for (let i = 0; i < 64; i++) bad[at + i]! ^= 0xff;
      writeFileSync(file, bad);
      const r = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env });
      expect(r.signal, `flipped at ${at}: ${r.stderr.slice(0, 300)}`).toBeNull();
      expect(r.code, `flipped at ${at}: ${r.stderr.slice(0, 300)}`).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
      expect(readFileSync(file).equals(bad), `flipped at ${at}: rewritten`).toBe(false);
      // and the exec after it runs from a good cache
      const again = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env });
      expect(again.code).toBe(0);
    }
  });

  it("a cache that is a symlink, or writable by others, is ignored and rewritten as hcpx's own file; the link's target is untouched", async () => {
    const p = wrap;
    const home = primedHome();
    const env = { HOME: home, HCPX_NO_SHIPPED_CACHE: "1" };
    const file = join(v8Dir(home), readdirSync(v8Dir(home))[0]!);
    const elsewhere = join(tmp("hcpx-cc-planted-"), "cache.bin");
    writeFileSync(elsewhere, readFileSync(file));
    const planted = readFileSync(elsewhere);
    rmSync(file);
    symlinkSync(elsewhere, file);
    const r = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env });
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(readFileSync(elsewhere).equals(planted)).toBe(true);
    chmodSync(file, 0o666);
    const w = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env });
    expect(JSON.parse(w.stdout)).toEqual({ ok: true, data: { pong: true } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("the cache of an earlier build is removed when this build writes its own, and only that bundle's", async () => {
    const p = pingProject();
    const home = tmp("hcpx-cc-home-");
    const old = ["exec-0123456789abcdef-v20.0.0-x64.bin", "exec-schemas-0123456789abcdef-v20.0.0-x64.bin"];
    mkdirSync(v8Dir(home), { recursive: true });
    for (const f of old) writeFileSync(join(v8Dir(home), f), "an earlier build's cache");
    const env = { HOME: home, HCPX_NO_SHIPPED_CACHE: "1" };
    const r = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env });
    expect(r.code).toBe(0);
    for (const f of old) expect(existsSync(join(v8Dir(home), f))).toBe(false);
    const mine = readdirSync(v8Dir(home)).sort();
    expect(mine).toHaveLength(2);
    // exec's cache rewritten alone (garbage in it): its prune leaves the schemas' cache (exec-schemas-…) in place
    writeFileSync(join(v8Dir(home), mine[0]!), "garbage");
    const again = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env });
    expect(JSON.parse(again.stdout)).toEqual({ ok: true, data: { pong: true } });
    expect(readdirSync(v8Dir(home)).sort()).toEqual(mine);
    expect(readFileSync(join(v8Dir(home), mine[0]!), "utf8")).not.toBe("garbage");
  });

  // issue 29: the first call after install (no ~/.cache/hcpx) reads the cache the build made, beside the bundle
  it("with no cache of the user's, the one shipped in dist/cache is used and none is written; same envelopes", async () => {
    // exec's, and adopt's (read only: adopt writes none of the user's)
    const shipped = readdirSync(join(REPO, "dist", "cache")).filter((f) => /^exec-[0-9a-f]{16}-/.test(f));
    expect(shipped).toHaveLength(1);
    expect(readdirSync(join(REPO, "dist", "cache")).filter((f) => f.startsWith("exec-schemas-"))).toHaveLength(1);
    expect(readdirSync(join(REPO, "dist", "cache")).filter((f) => f.startsWith("adopt-"))).toHaveLength(1);
    expect(shipped[0]).toMatch(/^exec-[0-9a-f]{16}-v\d+\.\d+\.\d+-\w+\.bin$/);
    const p = pingProject(["calc"]);
    const home = tmp("hcpx-cc-home-");
    for (const [args, data] of [
      [["exec", "calc-wrap", "ping", "--json"], { pong: true }],
      [["exec", "calc", "add", "--json", "--", "a=2", "b=2"], { sum: 4 }],
    ] as const) {
      const r = await runHcpx([...args], { cwd: p.dir, env: { HOME: home } });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, data });
    }
    expect(existsSync(v8Dir(home))).toBe(false);
  });

  // the sandbox's bundle (dist/commands/exec-sandbox.cjs) too: the build confines a call where bubblewrap can
  // (this suite needs it: test/runtime/os-sandbox.test.ts), so a user's first confined call compiles nothing
  it("under sandbox.enforce \"os\", the sandbox bundle's shipped cache is read and none written; without it, the user's own", async () => {
    const shipped = readdirSync(join(REPO, "dist", "cache")).filter((f) => f.startsWith("exec-sandbox-"));
    const p = scratchProject({
      packs: ["calc-wrap"],
      extraConfig: { sandbox: { roots: ["."], cwd: ".", enforce: "os" } },
    });
    for (const env of [{}, { HCPX_NO_SHIPPED_CACHE: "1" }] as Record<string, string>[]) {
      const home = tmp("hcpx-cc-home-");
      const r = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env: { ...env, HOME: home } });
      expect(r.code, r.stdout).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
      // the shipped one read: no sandbox cache of the user's; without the shipped caches, this compile's
      const mine = (existsSync(v8Dir(home)) ? readdirSync(v8Dir(home)) : []).filter((f) =>
        f.startsWith("exec-sandbox-"),
      );
      expect(mine).toEqual("HCPX_NO_SHIPPED_CACHE" in env ? shipped : []);
    }
    expect(shipped).toHaveLength(1);
  });

  it("a shipped cache corrupted in place, or a link, is never used: exec works and writes the user's own", async () => {
    const dist = join(tmp("hcpx-cc-dist-"), "dist");
    cpSync(join(REPO, "dist"), dist, { recursive: true });
    const name = readdirSync(join(dist, "cache")).find((f) => /^exec-[0-9a-f]{16}-/.test(f))!;
    const file = join(dist, "cache", name);
    const good = readFileSync(file);
    const bad = Buffer.from(good);
    for (let i = 0; i < 64; i++) bad[Math.floor(bad.length / 2) + i]! ^= 0xff;
    const elsewhere = join(tmp("hcpx-cc-planted-"), "cache.bin");
    writeFileSync(elsewhere, good);
    for (const plant of [() => writeFileSync(file, bad), () => (rmSync(file), symlinkSync(elsewhere, file))]) {
      plant();
      const p = pingProject();
      const home = tmp("hcpx-cc-home-");
      const r = await run(process.execPath, [join(dist, "hcpx.cjs"), "exec", "calc-wrap", "ping", "--json"], {
        cwd: p.dir,
        env: { HOME: home },
      });
      expect(r.signal, r.stderr.slice(0, 300)).toBeNull();
      expect(r.code, r.stderr.slice(0, 300)).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
      expect(readdirSync(v8Dir(home))).toEqual([name]);
    }
  });

  it("HCPX_NO_CACHE=1 writes no code cache", async () => {
    const p = pingProject();
    const home = tmp("hcpx-cc-home-");
    const r = await runHcpx(["exec", "calc-wrap", "ping", "--json"], {
      cwd: p.dir,
      env: { HOME: home, HCPX_NO_CACHE: "1" },
    });
    expect(r.code).toBe(0);
    expect(existsSync(v8Dir(home))).toBe(false);
  });
});

describe("mcp's code cache", () => {
  // the user's own: written when the build's (dist/cache) is not read
  const noShipped = { env: { HCPX_NO_SHIPPED_CACHE: "1" } };
  /** One start of `hcpx mcp` in `dir` with `home`: its tools, and a call of calc-wrap ping (which must succeed). */
  async function listAndCall(dir: string, home: string, env?: Record<string, string>) {
    const { startMcp } = await import("../mcp/support");
    const s = await startMcp({ dir, home }, { env });
    const tools = (await s.client.listTools()).tools;
    const r = await s.client.callTool({ name: "hcp", arguments: { pack: "calc-wrap", verb: "ping", args: {} } });
    expect(r.isError).not.toBe(true);
    await s.close();
    return { tools, content: r.structuredContent };
  }
  it("plain `hcpx mcp` writes its own cache beside exec's and serves the same tools, calls and --shape form from it", async () => {
    const { startMcp } = await import("../mcp/support");
    const p = pingProject();
    const home = tmp("hcpx-cc-home-");
    const listed: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      listed.push((await listAndCall(p.dir, home, noShipped.env)).tools);
      const files = readdirSync(v8Dir(home));
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/^mcp-[0-9a-f]{16}-v\d+\.\d+\.\d+-\w+\.bin$/);
    }
    expect(listed[1]).toEqual(listed[0]);
    // the commander form loads the same bundle through the same cache
    const s = await startMcp({ dir: p.dir, home }, { shape: "per-command", ...noShipped });
    expect((await s.client.listTools()).tools.map((t) => t.name)).toContain("calc-wrap__ping");
    await s.close();
    // the racy rule (src/util/stamp.ts): the mcp runs put the project's files in the validation cache once they
    // were written 3 s before (a slow machine), and an exec that hits it builds no schemas, so writes no
    // exec-schemas cache: changed now, as when this runs at once, they are validated by the exec again
    for (const f of [
      p.config,
      ...readdirSync(join(p.dir, "packs", "calc-wrap")).map((f) => join(p.dir, "packs", "calc-wrap", f)),
    ])
      utimesSync(f, new Date(), new Date());
    await runHcpx(["exec", "calc-wrap", "ping", "--json"], {
      cwd: p.dir,
      env: { HOME: home, HCPX_NO_SHIPPED_CACHE: "1" },
    });
    expect(
      readdirSync(v8Dir(home))
        .sort()
        .map((f) => f.replace(/-[0-9a-f]{16}-.*/, "")),
    ).toEqual(["exec", "exec-schemas", "mcp"]);
  });

  // issue 29: the cache holds the code that answers a host's start, so it is saved once the first tools/list
  // is answered (src/mcp/server.ts serve), not once connected, before any request was read
  it("is saved once the first tools/list is answered, not at connect; a start that ends before one saves it as it stops", async () => {
    const { startMcp } = await import("../mcp/support");
    const p = scratchProject({ packs: ["calc-wrap"] });
    const home = tmp("hcpx-cc-home-");
    const s = await startMcp({ dir: p.dir, home }, noShipped); // initialize answered
    try {
      expect(existsSync(v8Dir(home))).toBe(false);
      expect((await s.client.listTools()).tools.map((t) => t.name)).toContain("hcp");
      // saved just after the answer went out: through the door, a temporary file renamed into place, so
      // wait for the file's own name (the folder appears with the temporary file, before the rename)
      const saved = /^mcp-[0-9a-f]{16}-v\d+\.\d+\.\d+-\w+\.bin$/;
      const names = () => (existsSync(v8Dir(home)) ? readdirSync(v8Dir(home)) : []);
      for (let i = 0; i < 100 && !names().some((n) => saved.test(n)); i++) await new Promise((r) => setTimeout(r, 50));
      expect(names()).toEqual([expect.stringMatching(saved)]);
    } finally {
      await s.close();
    }
    // a client that initializes, then closes stdin: the cache is written before the exit
    const home2 = tmp("hcpx-cc-home-");
    const r = await runHcpx(["mcp"], { cwd: p.dir, env: { HOME: home2, ...noShipped.env }, input: RAW_OPENING });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout.split("\n")[0]!)).toMatchObject({ id: 1, result: { protocolVersion: "2025-06-18" } });
    expect(readdirSync(v8Dir(home2))).toHaveLength(1);
  });

  // issue 29: a host's first `hcpx mcp` after install (a fresh container, CI, a new HOME) reads the build's
  it("with no cache of the user's, the one shipped in dist/cache is used and none is written; the same tools and calls", async () => {
    const shipped = readdirSync(join(REPO, "dist", "cache")).filter((f) => /^mcp-[0-9a-f]{16}-/.test(f));
    expect(shipped).toHaveLength(1);
    const p = pingProject();
    const seen: unknown[] = [];
    const envs: Record<string, string>[] = [{}, { HCPX_NO_SHIPPED_CACHE: "1" }];
    for (const env of envs) {
      const home = tmp("hcpx-cc-home-");
      seen.push(await listAndCall(p.dir, home, env));
      // read from dist/cache: nothing of the user's; without it: the user's own, from this compile
      expect(existsSync(join(v8Dir(home), shipped[0]!))).toBe("HCPX_NO_SHIPPED_CACHE" in env);
    }
    expect(seen[1]).toEqual(seen[0]);
  });
});

// issue 29: the program (commander) and every other command are CommonJS bundles too, read through the
// code cache the build ships (scripts/build.mjs); they never write one of the user's
describe.concurrent("the program's and the other commands' code caches", () => {
  const commandsDir = join(REPO, "dist", "commands");
  const bundles = () =>
    readdirSync(commandsDir)
      .filter((f) => f.endsWith(".cjs"))
      .map((f) => f.slice(0, -4));

  it("every command is a CommonJS bundle without an import() (none in a script node:vm compiles, Node 20), and all but three ship a cache", () => {
    const names = bundles();
    expect(names).toEqual(expect.arrayContaining(["program", "status", "lint", "generate", "init", "doctor"]));
    expect(readdirSync(commandsDir).filter((f) => !f.endsWith(".cjs"))).toEqual([]);
    for (const n of names) expect(readFileSync(join(commandsDir, `${n}.cjs`), "latin1"), n).not.toMatch(/\bimport\(/);
    const shipped = new Set(readdirSync(join(REPO, "dist", "cache")).map((f) => f.replace(/-[0-9a-f]{16}-v.*$/, "")));
    // exec-sandbox's is shipped too: the build confines a call where bubblewrap can (this suite needs it)
    expect(names.filter((n) => !shipped.has(n)).sort()).toEqual(["import", "pack-from-mcp", "pack-from-openapi"]);
  });

  it("the shipped caches name their bundles as the package does, not by the folder the build ran in (V8 keeps a cache's name)", () => {
    // Node 20's V8 shows the name a cache was made under in the stack frames of a process that takes it,
    // and that name was the build's checkout path: in every user's stack frame, and different from one
    // checkout's build to another's (src/cli/load-command.ts scriptName)
    const files = readdirSync(join(REPO, "dist", "cache"));
    expect(files.length).toBeGreaterThan(20);
    for (const f of files) {
      const bytes = readFileSync(join(REPO, "dist", "cache", f));
      const bundle = `${f.replace(/-[0-9a-f]{16}-v.*$/, "")}.cjs`;
      expect(bytes.includes(`hcpx/dist/commands/${bundle}`), f).toBe(true);
      expect(bytes.includes(join(REPO, "dist")), f).toBe(false);
    }
  });

  it("status and lint read the shipped caches (nothing written even when saving is allowed); without them the same output", async () => {
    const p = scratchProject({ packs: ["calc-wrap"] });
    const outs: string[] = [];
    for (const env of [{}, { HCPX_NO_SHIPPED_CACHE: "1" }] as Record<string, string>[]) {
      const home = tmp("hcpx-cc-home-");
      // HCPX_BUILD_CACHE=1 lets these bundles save a cache when none usable was read (the build's runs)
      const e = { HOME: home, HCPX_BUILD_CACHE: "1", ...env };
      const s = await runHcpx(["status"], { cwd: p.dir, env: e });
      const l = await runHcpx(["lint", "packs/calc-wrap"], { cwd: p.dir, env: e });
      expect([s.code, l.code], s.stderr + l.stderr).toEqual([0, 0]);
      outs.push(s.stdout + l.stdout);
      const written = existsSync(v8Dir(home))
        ? readdirSync(v8Dir(home)).map((f) => f.replace(/-[0-9a-f]{16}-.*/, ""))
        : [];
      expect(written.sort()).toEqual("HCPX_NO_SHIPPED_CACHE" in env ? ["lint", "program", "status"] : []);
    }
    expect(outs[1]).toEqual(outs[0]);
  });

  it("without HCPX_BUILD_CACHE no command but exec and mcp writes a cache of the user's, shipped cache or not", async () => {
    const p = scratchProject({ packs: ["calc-wrap"] });
    const home = tmp("hcpx-cc-home-");
    for (const args of [["status"], ["lint", "packs/calc-wrap"], ["generate", "--out", "gen"]]) {
      const r = await runHcpx(args, { cwd: p.dir, env: { HOME: home, HCPX_NO_SHIPPED_CACHE: "1" } });
      expect(r.code, r.stderr).toBe(0);
    }
    expect(existsSync(v8Dir(home))).toBe(false);
  });
});

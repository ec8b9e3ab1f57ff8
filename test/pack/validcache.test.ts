// The validation cache (src/pack/validcache.ts) may only ever save work: an
// edited file is validated again, a broken cache is ignored, and it can be
// turned off. Through the built CLI, where the cache is on.
import { beforeAll, describe, expect, it } from "vitest";
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { HCPX, REPO, run, runHcpx, scratchProject, spawnHcpx, tmp, type ScratchProject } from "../support/hcpx";
import { projectConfig } from "../support/project";
import { ledgerCopies } from "../support/ledger-copies.mjs";
import { RACY_MS } from "../../src/util/stamp";
import { frame, unframe } from "../support/cache-frame";
import { MCP_OPENING, mcpRequest, mcpStart } from "../support/mcp-lines.mjs";
import { calcWrapOnShell } from "../support/sh-bins";

/**
 * A scratch project over calc-wrap whose bin is a shell script answering ping (test/support/sh-bins.ts):
 * the cache is under test here, not the bin, and ~30 calls here start it (a Node start each, ~80 ms of CPU)
 */
function calcProject(opts: Parameters<typeof scratchProject>[0]): ScratchProject {
  const p = scratchProject(opts);
  calcWrapOnShell(p.dir);
  return p;
}

const cacheOf = (home: string) => join(home, ".cache", "hcpx", "validated");
interface Entry {
  key: string;
  value: unknown;
  /** the text the value came from (after the JSON, a NUL between: src/pack/validcache.ts) */
  text: string;
}
/** An entry's key, value and text, from its framed bytes. */
const entryOf = (b: Buffer): Entry => {
  const payload = unframe(b);
  const nul = payload.indexOf("\0");
  return { ...(JSON.parse(payload.slice(0, nul)) as Omit<Entry, "text">), text: payload.slice(nul + 1) };
};
/** An entry's framed bytes, as hcpx writes one. */
const entryBytes = (e: Entry): Buffer => frame(`${JSON.stringify({ key: e.key, value: e.value })}\0${e.text}`);
/** The cache's entries: file name → { key, value, text } */
const entries = (home: string) =>
  Object.fromEntries(readdirSync(cacheOf(home)).map((f) => [f, entryOf(readFileSync(join(cacheOf(home), f)))]));

/** a host's start of hcpx mcp: the opening, then tools/list; the server ends with its input */
const MCP_START = mcpStart("legacy");

/** what an entry's files need (src/pack/validcache.ts settledAt): their last change RACY_MS before the read */
const settle = (made: number) => new Promise((r) => setTimeout(r, Math.max(0, made + RACY_MS + 100 - Date.now())));

describe("validation cache", () => {
  // the projects of the cases below, made first and settled once (a file changed within RACY_MS of its read
  // is never remembered): `shared` is only read; the others are changed by their case. They settle while
  // the first case waits for its own project to: each case takes its project through aged(), which waits
  // for what is left of RACY_MS since they were made (nothing, after the first case)
  let shared: ScratchProject;
  let edited: ScratchProject;
  let other: ScratchProject;
  let named: ScratchProject;
  let compiled: ScratchProject;
  let adopted: ScratchProject;
  let crowded: ScratchProject;
  /** crowded's 129 copies of ledger (one pack more than hcpx mcp keeps in the cache), by id */
  let crowd: string[];
  let firstAdopt: ScratchProject;
  let warmAdopt: ScratchProject;
  let made: number;
  const aged = async (p: ScratchProject) => (await settle(made), p);
  beforeAll(() => {
    shared = calcProject({ packs: ["calc-wrap"], allow: ["calc-wrap.*"] });
    edited = calcProject({ packs: ["calc-wrap"], allow: ["calc-wrap.*"] });
    other = calcProject({ packs: ["calc-wrap"], allow: ["calc-wrap.*"] });
    compiled = calcProject({ packs: ["calc-wrap"], allow: ["calc-wrap.*"] });
    adopted = scratchProject({ packs: ["ledger"], allow: ["ledger.*"] });
    firstAdopt = scratchProject({ packs: ["ledger"], allow: ["ledger.*"] });
    warmAdopt = scratchProject({ packs: ["ledger"], allow: ["ledger.*"] });
    // one pack more than hcpx mcp keeps in the cache (src/mcp/view-cache.ts CACHED_PACKS): copies of ledger
    crowded = scratchProject({ packs: ["ledger"], allow: ["ledger.*"] });
    crowd = ledgerCopies(crowded.dir, 129, "crowd");
    writeFileSync(crowded.config, JSON.stringify(projectConfig({ packs: crowd })));
    // calc's surface names calc-wrap in a comment; here in a string too (quoted, so it is parsed for its id)
    named = calcProject({ packs: ["calc", "calc-wrap"], allow: ["calc-wrap.*"] });
    const f = join(named.dir, "packs/calc/surface.json");
    const text = readFileSync(f, "utf8");
    writeFileSync(f, text.replace(/description: "/, "description: \"not 'calc-wrap': "));
    expect(readFileSync(f, "utf8")).not.toBe(text);
    // after the last file is written (taken before, a slow machine's writes ended past settle()'s 100 ms margin)
    made = Date.now();
  });

  it(
    "a file changed within RACY_MS of its read is not remembered (a same-size edit in the same clock tick cannot hide behind it); once settled, it is",
    async () => {
      const p = calcProject({ packs: ["calc-wrap"], allow: ["calc-wrap.*"] });
      const made = Date.now(); // after its files are written
      const home = tmp("hcpx-vc-home-");
      const first = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env: { HOME: home } });
      expect(JSON.parse(first.stdout)).toEqual({ ok: true, data: { pong: true } });
      expect(existsSync(cacheOf(home)) ? readdirSync(cacheOf(home)) : []).toEqual([]);
      await settle(made);
      await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env: { HOME: home } });
      expect(readdirSync(cacheOf(home))).toHaveLength(3);
    },
    RACY_MS + 30_000,
  );

  it("a call that validates compiles exec's schemas bundle (dist/commands/exec-schemas.cjs); one whose files are all remembered does not", async () => {
    const p = await aged(compiled);
    const home = tmp("hcpx-vc-home-");
    // the bundles V8 compiles (src/cli/load-command.ts compiles each through vm.Script), one call's per line
    const log = join(tmp("hcpx-vc-log-"), "scripts.txt");
    const preload = join(REPO, "test/fixtures/preload/scripts-log.cjs");
    const call = async () => {
      const r = await run(process.execPath, ["-r", preload, HCPX, "exec", "calc-wrap", "ping", "--json"], {
        cwd: p.dir,
        env: { HOME: home, SCRIPTS_LOG: log },
      });
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
    };
    await call(); // the first: config, surface and policy validated
    expect(Object.keys(entries(home))).toHaveLength(3);
    await call(); // every file remembered
    expect(readFileSync(log, "utf8").split("\n").filter(Boolean)).toEqual(["exec.cjs exec-schemas.cjs", "exec.cjs"]);
  });

  it("remembers clean files, and an edited file is validated again (the error shows, with its line)", async () => {
    const p = await aged(edited);
    const home = tmp("hcpx-vc-home-");
    const env = { HOME: home };
    const first = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env });
    expect(JSON.parse(first.stdout)).toEqual({ ok: true, data: { pong: true } });
    const kept = entries(home);
    expect(Object.keys(kept)).toHaveLength(3); // config, surface, policy
    const again = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env });
    expect(again.stdout).toBe(first.stdout);
    expect(entries(home)).toEqual(kept);
    // now break the policy: a cached earlier text must not let the new one through
    // (same size, and the mtime set back as someone hiding the edit would: the cache keys on the
    // file's identity, whose ctime the kernel sets on every write and no one can set back)
    const policy = join(p.dir, "packs/calc-wrap/policy.json");
    const was = statSync(policy);
    writeFileSync(policy, readFileSync(policy, "utf8").replace(/"read"/, '"reed"'));
    utimesSync(policy, was.atimeMs / 1000, was.mtimeMs / 1000); // to the microsecond (a Date rounds to the millisecond)
    expect(statSync(policy).size).toBe(was.size);
    const bad = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env });
    expect(bad.code).toBe(1);
    const err = JSON.parse(bad.stdout).error;
    expect(err.code).toBe("bad_pack");
    expect(JSON.stringify(err)).toMatch(/policy\.json/);
    expect(JSON.stringify(err)).toContain("reed");
    expect(JSON.stringify(err)).toMatch(/policy\.json:\d+:\d+|"line":\d+/);
  });

  it("the first call validates the called pack alone: another whose text names its id but declares its own is not read as a pack", async () => {
    const p = await aged(named);
    const home = tmp("hcpx-vc-home-");
    const r = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env: { HOME: home } });
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
    const keys = Object.values(entries(home)).map((e) => e.key);
    expect(keys).toHaveLength(3); // config, calc-wrap's surface and policy
    expect(keys.filter((k) => k.includes(join(p.dir, "packs/calc/")))).toEqual([]);
  });

  it("a cache file that is garbage, or not JSON, or unwritable, changes nothing", async () => {
    const p = await aged(shared);
    // one call fills a cache; each content below goes over a copy of it (modes kept: cpSync), as over the cache
    // a call of its own would have filled (the same project, files and keys)
    const filled = tmp("hcpx-vc-home-");
    await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env: { HOME: filled } });
    for (const content of ["not json", '{"keys": 5}', "[]", "null", '{"value": {}}']) {
      const home = tmp("hcpx-vc-home-");
      cpSync(join(filled, ".cache"), join(home, ".cache"), { recursive: true });
      for (const f of readdirSync(cacheOf(home))) writeFileSync(join(cacheOf(home), f), content);
      const r = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env: { HOME: home } });
      expect(JSON.parse(r.stdout), content).toEqual({ ok: true, data: { pong: true } });
    }
    {
      const home = tmp("hcpx-vc-home-");
      mkdirSync(join(home, ".cache", "hcpx"), { recursive: true });
      writeFileSync(cacheOf(home), "a file where the cache dir would go");
      const r = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env: { HOME: home } });
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
    }
    const home = tmp("hcpx-vc-home-");
    writeFileSync(join(home, ".cache"), "a file where the cache dir would go");
    const r = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env: { HOME: home } });
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
  });

  it("only exec, mcp and the library write it (lint, status, generate and adopt write none); HCPX_NO_CACHE=1 writes no cache; XDG_CACHE_HOME moves it", async () => {
    const p = await aged(other);
    const home = tmp("hcpx-vc-home-");
    for (const cmd of [["lint"], ["status"], ["generate"], ["adopt", "claude", "--write"]]) {
      const r = await runHcpx(cmd, { cwd: p.dir, env: { HOME: home } });
      expect(r.code, cmd.join(" ")).toBe(0);
    }
    expect(existsSync(join(home, ".cache"))).toBe(false);
    await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env: { HOME: home, HCPX_NO_CACHE: "1" } });
    expect(existsSync(cacheOf(home))).toBe(false);
    const xdg = tmp("hcpx-vc-xdg-");
    await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env: { HOME: home, XDG_CACHE_HOME: xdg } });
    expect(readdirSync(join(xdg, "hcpx", "validated"))).toHaveLength(3);
    expect(existsSync(cacheOf(home))).toBe(false);
  });

  it("a hit takes the value remembered for the file's text as it is now (no parser), and only for that text and identity", async () => {
    const p = await aged(shared);
    const home = tmp("hcpx-vc-home-");
    const env = { HOME: home };
    expect(JSON.parse((await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env })).stdout).ok).toBe(
      true,
    );
    // the config's entry holds its parsed, validated value and the text it came from, under a key naming the config's path
    const [name, entry] = Object.entries(entries(home)).find(([, e]) => e.key.includes(p.config))!;
    expect((entry.value as { grants: { allow: string[] } }).grants.allow).toEqual(["calc-wrap.*"]);
    expect(entry.text).toBe(readFileSync(p.config, "utf8"));
    const plant = (e: Entry) => writeFileSync(join(cacheOf(home), name), entryBytes(e));
    const none = { ...(entry.value as object), grants: { allow: [] } };
    const exec = async () =>
      JSON.parse((await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env })).stdout);
    // changed in the cache only: exec now goes by the remembered value (the file's text is the entry's), not the parser's
    plant({ key: entry.key, value: none, text: entry.text });
    const denied = await exec();
    expect(denied.ok).toBe(false);
    expect(denied.error.code).toBe("not_granted");
    // the same entry under another key (another identity of the file) is a miss: the file is parsed again
    plant({
      key: entry.key.replace(/:(\d+)$/, (_m, ns: string) => `:${BigInt(ns) + 1n}`),
      value: none,
      text: entry.text,
    });
    expect(await exec()).toEqual({ ok: true, data: { pong: true } });
    // the file's identity as it is, but another text than the file's now: a miss too (an identity does not vouch
    // for content everywhere: sshfs's ctime is its mtime, an NFS client's stat is cached, a shared mapping's
    // writes change no time), so the file is parsed again; an entry without its text (no NUL) is never a hit
    plant({ key: entry.key, value: none, text: entry.text.replace("calc-wrap.*", "calc-wrap.x") });
    expect(await exec()).toEqual({ ok: true, data: { pong: true } });
    writeFileSync(join(cacheOf(home), name), frame(JSON.stringify({ key: entry.key, value: none })));
    expect(await exec()).toEqual({ ok: true, data: { pong: true } });
  });

  // scripts/build.mjs makes adopt's shipped code cache from a run with nothing remembered (its `fresh: true`):
  // the code of a miss (the JSON5 reader, the schemas) is then in it, and a user's first adopt after install
  // compiles none of it. V8 tells how much bytecode a process compiled beyond what the cache gave
  // (test/fixtures/preload/compiled-after.cjs: v8.getHeapCodeStatistics just after adopt's bundle is compiled
  // through the shipped cache, and at the exit).
  // Measured: ~52 KB either way with the cache the build ships; made from a run that hit (no `fresh`), the
  // first adopt compiled ~127 KB.
  it("a first adopt after install compiles about what one after hcpx mcp remembered its files does: the shipped cache holds a miss's code", async () => {
    const first = await aged(firstAdopt);
    const warm = await aged(warmAdopt);
    const preload = join(REPO, "test/fixtures/preload/compiled-after.cjs");
    const compiled = async (dir: string, home: string) => {
      const r = await run(process.execPath, ["-r", preload, HCPX, "adopt", "claude", "--write"], {
        cwd: dir,
        env: { HOME: home, COMPILED_AFTER: "adopt.cjs" },
      });
      expect(r.code, r.stderr).toBe(0);
      const m = /^COMPILED (\d+)$/m.exec(r.stderr);
      expect(m, r.stderr).not.toBeNull(); // the preload saw adopt's bundle compiled through the shipped cache, taken
      return Number(m![1]);
    };
    const cold = await compiled(first.dir, tmp("hcpx-vc-home-"));
    // a host's start of hcpx mcp remembers the config, the packs' files and the Skills; then adopt takes them
    const home = tmp("hcpx-vc-home-");
    const started = await runHcpx(["mcp"], { cwd: warm.dir, env: { HOME: home }, input: MCP_START });
    expect(started.code, started.stderr).toBe(0);
    expect(Object.values(entries(home)).some((e) => e.key.includes(`\0ConfigSchema\0${warm.config}\0`))).toBe(true);
    const hit = await compiled(warm.dir, home);
    expect(cold - hit).toBeLessThan(16 * 1024);
  });

  it("adopt takes what mcp remembered (the packs' files, a Skill's frontmatter: no parser, no schemas) and writes none, only for those files as they are", async () => {
    const p = await aged(adopted);
    const home = tmp("hcpx-vc-home-");
    const env = { HOME: home };
    const adopt = async () => {
      rmSync(join(p.dir, "CLAUDE.md"), { force: true });
      const r = await runHcpx(["adopt", "claude", "--write"], { cwd: p.dir, env });
      expect(r.code, r.stderr).toBe(0);
      return readFileSync(join(p.dir, "CLAUDE.md"), "utf8");
    };
    const lead = "\nledger: balances, entries and transfers of the household accounts.\n";
    expect(await adopt()).toContain(lead);
    expect(existsSync(join(home, ".cache"))).toBe(false); // nothing remembered, and adopt wrote none
    // a host's start of hcpx mcp (initialize, tools/list) reads and validates them all, the Skills too
    const started = await runHcpx(["mcp"], { cwd: p.dir, env, input: MCP_START });
    expect(started.code, started.stderr).toBe(0);
    const skill = join(p.dir, "packs", "ledger", "SKILL.md");
    const all = entries(home);
    const [name, entry] = Object.entries(all).find(([, e]) => e.key.includes(`\0SkillFrontmatterSchema\0${skill}\0`))!;
    expect((entry.value as { leads: string[] }).leads[0]).toBe(lead.trim());
    const surface = join(p.dir, "packs", "ledger", "surface.json");
    expect(Object.values(all).some((e) => e.key.includes(`\0SurfaceSchema\0${surface}\0`))).toBe(true);
    // and the config it read before it knew how many packs it serves
    expect(Object.values(all).some((e) => e.key.includes(`\0ConfigSchema\0${p.config}\0`))).toBe(true);
    // changed in the cache only: adopt now goes by the remembered frontmatter, so it never parsed the file's
    // (its text, the frontmatter block it came from, as it is)
    const changed = entryBytes({ ...entry, value: { ...(entry.value as object), leads: ["the remembered lead"] } });
    writeFileSync(join(cacheOf(home), name), changed);
    const second = await adopt();
    expect(second).toContain("\nthe remembered lead\n");
    expect(second).not.toContain(lead);
    expect(readdirSync(cacheOf(home)).sort()).toEqual(Object.keys(all).sort());
    expect(readFileSync(join(cacheOf(home), name)).equals(Buffer.from(changed))).toBe(true);
    // the Skill edited (its identity changes): read, parsed and validated again, whatever the cache holds
    writeFileSync(skill, readFileSync(skill, "utf8").replace("household accounts.", "household's accounts."));
    const third = await adopt();
    expect(third).toContain("\nledger: balances, entries and transfers of the household's accounts.\n");
    expect(third).not.toContain("the remembered lead");
  });

  it("hcpx mcp remembers the config, and its packs' files only while they fit (at most 128 packs: at 129, none of them)", async () => {
    const p = await aged(crowded);
    const home = tmp("hcpx-vc-home-");
    const started = await runHcpx(["mcp"], { cwd: p.dir, env: { HOME: home }, input: MCP_START });
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout).toContain("(129 packs: hcp__read_skill {} lists them)");
    const keys = Object.values(entries(home)).map((e) => e.key);
    expect(keys.filter((k) => k.includes(`\0${p.config}\0`))).toHaveLength(1);
    expect(keys.filter((k) => k.includes(join(p.dir, "packs")))).toEqual([]);
  });

  it("a config grown past 128 packs while hcpx mcp runs: the packs it then serves are not remembered", async () => {
    const p = await aged(crowded);
    const home = tmp("hcpx-vc-home-");
    // a config of its own beside the project's (the case above serves that one): ledger alone at start
    const grown = join(p.dir, "grown.json5");
    writeFileSync(grown, JSON.stringify(projectConfig({ packs: ["ledger"] })));
    const child = spawnHcpx(["mcp", "--config", grown], { cwd: p.dir, env: { HOME: home } });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const answer = async (id: number) => {
      for (let i = 0; i < 200 && !out.includes(`"id":${id}}`); i++) await new Promise((r) => setTimeout(r, 25));
      return out.slice(out.lastIndexOf("\n", out.indexOf(`"id":${id}}`)) + 1);
    };
    const list = (id: number) => child.stdin.write(mcpRequest("legacy", id, "tools/list"));
    const closed = new Promise((r) => child.on("close", r));
    try {
      child.stdin.write(MCP_OPENING.legacy);
      list(2);
      expect(await answer(2)).toContain("\\n- ledger: accounts, balance");
      writeFileSync(grown, JSON.stringify(projectConfig({ packs: crowd })));
      // the next request after the server saw the change serves the 129 packs (a watch event may come a moment late)
      let id = 3;
      for (; id < 40; id++) {
        list(id);
        if ((await answer(id)).includes("(129 packs: hcp__read_skill {} lists them)")) break;
      }
      expect(id).toBeLessThan(40);
    } finally {
      child.stdin.end();
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
      await closed;
    }
    const keys = Object.values(entries(home)).map((e) => e.key);
    expect(keys.some((k) => k.includes(join(p.dir, "packs", "ledger", "surface.json")))).toBe(true);
    expect(keys.filter((k) => k.includes(join(p.dir, "packs", "crowd-")))).toEqual([]);
  });

  // issue 22 §8: a cache never changes a result, only its speed
  it("an entry corrupted in place (same length, a value changed) is a miss and is written over: the result stays", async () => {
    const p = await aged(shared);
    const home = tmp("hcpx-vc-home-");
    const env = { HOME: home };
    expect(JSON.parse((await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env })).stdout).ok).toBe(
      true,
    );
    const name = readdirSync(cacheOf(home)).find((f) => readFileSync(join(cacheOf(home), f)).includes("calc-wrap.*"))!;
    const file = join(cacheOf(home), name);
    const good = readFileSync(file);
    // bit rot: the grant's text changes, nothing else (the length stays)
    const bad = Buffer.from(good.toString("latin1").replace("calc-wrap.*", "calc-wrap.x"), "latin1");
    expect(bad.length).toBe(good.length);
    writeFileSync(file, bad);
    const r = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env });
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
    expect(readFileSync(file).equals(bad)).toBe(false); // rewritten
  });

  it("an entry that is a symlink, or another's / writable by others, is ignored and rewritten; the link's target is untouched", async () => {
    const p = await aged(shared);
    const home = tmp("hcpx-vc-home-");
    const env = { HOME: home };
    expect(JSON.parse((await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env })).stdout).ok).toBe(
      true,
    );
    const name = readdirSync(cacheOf(home)).find((f) => readFileSync(join(cacheOf(home), f)).includes("calc-wrap.*"))!;
    const file = join(cacheOf(home), name);
    const entry = entryOf(readFileSync(file));
    // a well-formed entry that would deny the command (the config's own text, so only where it lies stops it),
    // planted through a link
    const elsewhere = join(tmp("hcpx-vc-planted-"), "entry.json");
    const forged = entryBytes({ ...entry, value: { ...(entry.value as object), grants: { allow: [] } } });
    writeFileSync(elsewhere, forged);
    rmSync(file);
    symlinkSync(elsewhere, file);
    const r = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env });
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
    expect(lstatSync(file).isSymbolicLink()).toBe(false); // rewritten as hcpx's own file
    expect(readFileSync(elsewhere).equals(forged)).toBe(true);
    // the same entry as a plain file anyone may write: not trusted either
    writeFileSync(file, forged);
    chmodSync(file, 0o666);
    const w = await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env });
    expect(JSON.parse(w.stdout)).toEqual({ ok: true, data: { pong: true } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

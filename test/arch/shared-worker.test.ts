// The files that share a worker process (test/support/shared-worker.ts,
// vitest.config.ts's "shared" project, isolate: false) keep no state between
// files: this walks every module each one imports, at any depth (test/, src/,
// scripts/; relative imports, import(), require()), and fails on one that
// writes process-wide state, registers a hook at a shared module's top level
// (it would run for the first file only), or is one of src's modules that keep
// call state. A file that fails here goes back to the isolated project.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../support/cli";
import { KEPT_ISOLATED, SHARED_FILES, WAITING_FILES } from "../support/shared-worker";

/** Process-wide state a module could leave behind for the next file. */
const PROCESS_STATE: [string, RegExp][] = [
  [
    "sets process.env",
    /process\.env(\.[A-Za-z_$][\w$]*|\[[^\]]+\])\s*=[^=]|delete process\.env|Object\.assign\(process\.env/,
  ],
  ["changes the cwd", /process\.chdir\(/],
  ["sets the exit code or argv", /process\.exitCode\s*=[^=]|process\.argv(\[\d+\])?\s*=[^=]/],
  ["adds a process listener", /process\.(on|once|addListener|prependListener)\(/],
  ["replaces a stream's method", /process\.(stdout|stderr|stdin)\.\w+\s*=[^=]/],
  ["mocks a module or a global", /vi\.(mock|doMock|stubEnv|stubGlobal)\(|globalThis\.\w+\s*=[^=]/],
  ["uses fake timers", /useFakeTimers/],
  ["sets the umask", /process\.umask\(\s*\w/],
  [
    "sets the MCP adapter's keep-alive switch",
    /Symbol\.for\("hcpx\.mcp\.keepAlive"\)\]\s*=[^=]|\[KEEP_ALIVE\]\s*=[^=]/,
  ],
  // src/util/stamp.ts: a switch with no way back (serveHttp's); a call of it, not its definition or a comment naming it
  ["turns the stamps' once-per-turn stat on", /^\s*statOncePerTurn\(\);/m],
];
const SETS_KEEP_ALIVE = PROCESS_STATE.find(([what]) => what.includes("keep-alive"))![1];
/**
 * The module-level state of src that one call leaves for the next, and what takes it away between
 * the files of a shared worker (each pinned below): the composite modules and their checked stamps
 * (COMPOSITE): a file that loaded one fails (the setup file COMPOSITE_GUARD), since import() would
 * keep the module; the redaction's values and names in play (REDACT): forgotten after each file
 * (FORGETS); the MCP server pool (POOL): off without the server's keep-alive switch; a config
 * edit's lock (HELD): released after each file. Not state: the validation cache's switch
 * (src/pack/validcache.ts: off in the sources, which have no schema hash), the kill-after-writes
 * hook (src/util/atomic.ts: read from process.env, which no shared file sets; its made-directories
 * memo holds only the scratch directories of the file that made them) and the memos of static data
 * (the host descriptors, the schemas, the error table).
 */
/**
 * The MCP adapter's server pool and its exit hook (src/runtime/mcp-adapter.ts open()) are used only
 * under the keep-alive switch (globalThis[Symbol.for("hcpx.mcp.keepAlive")]), which only the server
 * (src/mcp/server.ts) sets; without it each call connects and closes, and the module keeps nothing
 * (its `listed` memo is a WeakMap keyed by the connection). A file whose modules set the switch is
 * refused (PROCESS_STATE: the global outlives the file); one that reaches the adapter without it
 * (adopt's probe of a remote server takes the SDK's client from it, src/host/remote.ts) may share.
 * Pinned below: the switch's only setter, and the pool and the hook behind it.
 */
const POOL = "src/runtime/mcp-adapter.ts";
/**
 * What a command holds (src/util/held.ts: a config edit's lock) has one 'exit' listener, registered
 * while something is held and removed when it is released: by the program after each command, and
 * after each test file by the setup file test/support/release-held.ts. Pinned below.
 */
const HELD = "src/util/held.ts";
/**
 * A server's audit records kept until the end of an event-loop turn (src/runtime/audit.ts
 * AuditWriter.record) have one 'exit' listener, registered while any record is kept and removed
 * when the turn's write is done (a setImmediate): nothing outlives the turn. Pinned below.
 */
const AUDIT = "src/runtime/audit.ts";
const RELEASES_HELD = "test/support/release-held.ts";
/**
 * The redaction's values in play (src/util/redact.ts: given to secretsFrom() by the runtime and the
 * library) and Binding names (of the packs loaded) are forgotten after each file by the setup file
 * test/support/forget-secrets.ts, as a new process starts with none.
 */
const REDACT = "src/util/redact.ts";
const FORGETS = "test/support/forget-secrets.ts";
const HOOK_AT_TOP = /^(beforeAll|afterAll|beforeEach|afterEach)\(/m;
/**
 * The in-process runner (test/support/inproc.ts) sets the run's environment, cwd, argv[1], exit
 * code, streams and signal listeners, and gives each back when the run ends (RESTORES below); it
 * registers its module mock again before each run (a worker keeps modules between files, not
 * mocks), and its top-level hook only imports the program early. Its runInProcess refuses exec and
 * mcp, so the program it runs (not walked here) never reaches the runtime's call state (the
 * server pool, the composite modules, the values secretsFrom() is given, exec's and the server's
 * signal listeners); the Binding names its pack loads hold are forgotten after each file
 * (test/support/forget-secrets.ts). Its execInProcess does run exec, and what a call leaves is
 * accounted for: exec's signal listeners go with the run (RESTORES), the values it gives
 * secretsFrom() are forgotten after each file (forget-secrets.ts), the server pool is behind the
 * keep-alive switch exec never sets (POOL), and a composite module, which would stay in the worker
 * (import() keeps it), fails the shared file that loaded one (the setup file COMPOSITE_GUARD).
 * All pinned below.
 */
const INPROC = "test/support/inproc.ts";
const RUNS_EXEC_IN_PROCESS = /\bexecInProcess\(/;
const COMPOSITE = "src/runtime/composite.ts";
const COMPOSITE_GUARD = "test/support/shared-composites.ts";
const RESTORES = [
  "Object.assign(process.env, saved.env)",
  "process.chdir(saved.cwd)",
  "process.argv[1] = saved.argv1!",
  "process.exitCode = saved.exitCode",
  "process.stdout.write = saved.out",
  "process.stderr.write = saved.err",
  "process.removeListener(sig, l)",
];

function resolveImport(from: string, spec: string): string | undefined {
  if (spec === "hcpx" || spec.startsWith("hcpx/")) return join(REPO, "src", "lib", "index.ts");
  if (!spec.startsWith(".")) return undefined; // node: builtins and node_modules
  const base = resolve(dirname(from), spec);
  for (const c of [base, `${base}.ts`, base.replace(/\.js$/, ".ts"), join(base, "index.ts")])
    if (existsSync(c) && statSync(c).isFile()) return c;
  return undefined;
}

/** Every module `file` loads, itself included (of the in-process runner, its test helpers, not the program it runs). */
function closure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  const inproc = relative(REPO, file) === INPROC;
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["']([^"']+)["']/g)) {
    const dep = resolveImport(file, m[1]!);
    if (dep && !(inproc && relative(REPO, dep).startsWith("src/"))) closure(dep, seen);
  }
  return seen;
}

/** The process listeners a module's text adds and removes, in order: `once("exit", f)`. */
function listenersIn(text: string): string[] {
  return [...text.matchAll(/process\.(on|once|addListener|prependListener|off|removeListener)\(([^)]*)\)/g)].map(
    (m) => `${m[1]}(${m[2]})`,
  );
}

function problems(file: string): string[] {
  const out: string[] = [];
  const mods = closure(join(REPO, file));
  for (const mod of mods) {
    const rel = relative(REPO, mod);
    const text = readFileSync(mod, "utf8");
    if (rel === INPROC) continue;
    for (const [what, re] of PROCESS_STATE)
      if (re.test(text) && !((rel === POOL || rel === HELD || rel === AUDIT) && what === "adds a process listener"))
        out.push(`${rel}: ${what}`);
    if (rel !== file && HOOK_AT_TOP.test(text)) out.push(`${rel}: a hook at its top level`);
  }
  return out;
}

describe("the files that share a worker process", () => {
  it("exist and are listed once", () => {
    expect(SHARED_FILES.length).toBeGreaterThan(0);
    expect(new Set(SHARED_FILES).size).toBe(SHARED_FILES.length);
    for (const f of SHARED_FILES) expect(existsSync(join(REPO, f)), f).toBe(true);
  });

  it("every other file of npm test fails the check or is kept isolated for a reason (none left isolated unseen)", () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(join(REPO, dir), { withFileTypes: true }))
        if (e.isDirectory()) walk(`${dir}/${e.name}`);
        else if (e.name.endsWith(".test.ts")) files.push(`${dir}/${e.name}`);
    };
    // vitest.config.ts's EXCLUDE: the suites npm test does not run
    for (const d of readdirSync(join(REPO, "test"))) if (!["hosts", "agents", "openapi"].includes(d)) walk(`test/${d}`);
    expect(readFileSync(join(REPO, "vitest.config.ts"), "utf8")).toContain(
      'const EXCLUDE = ["test/hosts/**", "test/agents/**", "test/openapi/**", "node_modules/**"];',
    );
    const isolated = files.filter((f) => !SHARED_FILES.includes(f));
    expect(isolated.length).toBeGreaterThan(Object.keys(KEPT_ISOLATED).length);
    const unseen = isolated.filter((f) => !(f in KEPT_ISOLATED) && problems(f).length === 0);
    expect(unseen, "these pass the check: add them to SHARED_FILES, or to KEPT_ISOLATED with the reason").toEqual([]);
    for (const [f, why] of Object.entries(KEPT_ISOLATED)) {
      expect(isolated, f).toContain(f);
      expect(problems(f), `${f} fails the check already: it needs no place in KEPT_ISOLATED`).toEqual([]);
      expect(why.length, f).toBeGreaterThan(20);
    }
  });

  it("the ones run as a group of waits (vitest.config.ts) are shared files, listed once", () => {
    expect(WAITING_FILES.length).toBeGreaterThan(0);
    expect(new Set(WAITING_FILES).size).toBe(WAITING_FILES.length);
    expect(WAITING_FILES.filter((f) => !SHARED_FILES.includes(f))).toEqual([]);
  });

  it("import no module that keeps state between files", () => {
    const bad = Object.fromEntries(SHARED_FILES.map((f) => [f, problems(f)]).filter(([, p]) => p.length));
    expect(bad).toEqual({});
  });

  it("the check sees what it looks for (a file that sets process.env, one that reaches the redaction set)", () => {
    expect(problems("test/runtime/stray-errors.test.ts").join("\n")).toMatch(
      /sets process\.env|adds a process listener/,
    );
    expect(problems("test/lib/library.test.ts").join("\n")).toContain("test/lib/library.test.ts: sets process.env");
    // (split-secret.test.ts was the example: a Node bin's source in a string of it set process.exitCode)
    expect(problems("test/cli/envelope-contract.test.ts").join("\n")).toContain(
      "src/cli/program.ts: sets the exit code or argv",
    );
    expect(problems("test/cli/envelope-contract.test.ts").join("\n")).toContain(
      "src/mcp/server.ts: sets the MCP adapter's keep-alive switch",
    );
    expect(problems("test/mcp/stat-per-turn.test.ts")).toContain(
      "test/mcp/stat-per-turn.test.ts: turns the stamps' once-per-turn stat on",
    );
    expect(problems("test/cli/envelope-contract.test.ts")).toContain(
      "src/mcp/server.ts: turns the stamps' once-per-turn stat on",
    );
  });

  it("the MCP adapter's pool and exit hook are behind the keep-alive switch, which only the server sets", () => {
    const rg = spawnSync("grep", ["-rlE", "hcpx\\.mcp\\.keepAlive|KEEP_ALIVE\\]", "src", "test", "scripts", "bench"], {
      cwd: REPO,
      encoding: "utf8",
    });
    expect(rg.status).toBe(0);
    const setters = rg.stdout
      .trim()
      .split("\n")
      .filter((f) => SETS_KEEP_ALIVE.test(readFileSync(join(REPO, f), "utf8")));
    expect(setters).toEqual(["src/mcp/server.ts"]);
    const text = readFileSync(join(REPO, POOL), "utf8");
    const open = text.slice(text.indexOf("async function open("));
    const body = open.slice(0, open.indexOf("\n}\n"));
    const gate = body.indexOf("[KEEP_ALIVE] !== true ||");
    expect(gate).toBeGreaterThan(0);
    // without the switch (or for a server never kept): connect, and stop and close on release
    expect(body.slice(gate, body.indexOf("\n  }\n", gate))).toContain(
      "return { conn, release: () => conn.transport.terminate().then(() => conn.close()) };",
    );
    // every use of the pool (its idle servers and all it keeps) and every process listener of the module is in
    // open(), after the switch's check
    const uses =
      /\b(idle|live)\.(set|get|delete|values|add|clear)\(|\bof live\b|process\.(on|once|addListener|prependListener)\(|exitHook = true/g;
    const all = text.match(uses) ?? [];
    expect(all.length).toBeGreaterThan(3);
    expect(body.slice(gate).match(uses)).toEqual(all);
  });

  it("what a command holds goes after each file: held.ts's one listener is removed on release, which a setup file calls", () => {
    const text = readFileSync(join(REPO, HELD), "utf8");
    expect(listenersIn(text)).toEqual(['once("exit", h.onExit)', 'off("exit", h.onExit)']);
    const release = text.slice(text.indexOf("export function releaseHeld("));
    expect(release.slice(0, release.indexOf("\n}\n"))).toMatch(
      /\n {2}process\.off\("exit", h\.onExit\);\n\s+const all = \[\.\.\.h\.releases\.values\(\)\];\n\s+h\.releases\.clear\(\);/,
    );
    expect(readFileSync(join(REPO, RELEASES_HELD), "utf8")).toContain("afterAll(() => releaseHeld());");
    expect(readFileSync(join(REPO, "vitest.config.ts"), "utf8")).toContain(`"${RELEASES_HELD}"`);
    expect(problems(RELEASES_HELD)).toEqual([]);
  });

  it("a server's kept audit records go with their turn: audit.ts's one listener is removed once the kept records are written", () => {
    const text = readFileSync(join(REPO, AUDIT), "utf8");
    expect(listenersIn(text)).toEqual(['once("exit", writeKept)', 'off("exit", writeKept)']);
    const flush = text.slice(text.indexOf("\n  flush(): void {"));
    expect(flush.slice(0, flush.indexOf("\n  }\n"))).toContain(
      'if (pending.delete(this) && pending.size === 0) process.off("exit", writeKept);',
    );
    expect(text).toMatch(
      /\n {6}if \(pending\.size === 0\) process\.once\("exit", writeKept\);\n {6}pending\.add\(this\);\n {6}setImmediate\(\(\) => this\.flush\(\)\);/,
    );
  });

  it("a shared file that runs exec in process and loads a composite module fails: the setup file's guard, its seam read by it alone", () => {
    const shared = SHARED_FILES.filter((f) => RUNS_EXEC_IN_PROCESS.test(readFileSync(join(REPO, f), "utf8")));
    expect(shared.length).toBeGreaterThan(0);
    const guard = readFileSync(join(REPO, COMPOSITE_GUARD), "utf8");
    expect(guard).toContain("if (!SHARED_FILES.includes(file)) return;");
    expect(guard).toMatch(/expect\(compositesLoaded\(\), [^)]*\)\.toBe\(0\);/);
    expect(readFileSync(join(REPO, "vitest.config.ts"), "utf8")).toContain(`"${COMPOSITE_GUARD}"`);
    // the guard itself, loaded by every file, keeps nothing (composite.ts's modules included)
    expect(problems(COMPOSITE_GUARD)).toEqual([]);
    // the seam counts every module-level map of composite.ts (the checked paths, the loaded modules)
    const text = readFileSync(join(REPO, COMPOSITE), "utf8");
    expect([...text.matchAll(/^(?:const|let) (\w+) = new (?:Map|Set)\b/gm)].map((m) => m[1])).toEqual([
      "checked",
      "modules",
    ]);
    expect(text).toContain("return checked.size + modules.size;");
    const rg = spawnSync("grep", ["-rlw", "compositesLoaded", "src", "test", "scripts", "bench"], {
      cwd: REPO,
      encoding: "utf8",
    });
    expect(rg.stdout.trim().split("\n").sort()).toEqual(
      [COMPOSITE, COMPOSITE_GUARD, "test/arch/shared-worker.test.ts"].sort(),
    );
  });

  it("the redaction's values and names in play go after each file: forgetSecretsInPlay empties both, a setup file calls it", () => {
    const text = readFileSync(join(REPO, REDACT), "utf8");
    const forget = text.slice(text.indexOf("export function forgetSecretsInPlay("));
    const body = forget.slice(0, forget.indexOf("\n}\n"));
    for (const c of ["inPlayValues.clear();", "inPlayNames.clear();", "inPlay.cache = undefined;"])
      expect(body, c).toContain(c);
    // and they are the module's only state: one record, the process's (a global symbol, shared by every bundle's copy)
    const state = [
      ...text.matchAll(/^(?:let (\w+)|const (\w+)(?::[^=]+)? = (?:new (?:Map|Set|WeakMap)\b|\(\(globalThis))/gm),
    ].map((m) => m[1] ?? m[2]);
    expect(state).toEqual(["inPlay"]);
    expect(text).toMatch(/^const inPlayValues = inPlay\.values;$/m);
    expect(text).toMatch(/^const inPlayNames = inPlay\.names;$/m);
    expect(readFileSync(join(REPO, FORGETS), "utf8")).toContain("afterAll(() => forgetSecretsInPlay());");
    expect(readFileSync(join(REPO, "vitest.config.ts"), "utf8")).toContain(`"${FORGETS}"`);
  });

  it("the redaction set is forgotten only by the test setup file: no module of src/ and no other test calls forgetSecretsInPlay", () => {
    const rg = spawnSync("grep", ["-rlw", "forgetSecretsInPlay", "src", "test", "scripts", "bench"], {
      cwd: REPO,
      encoding: "utf8",
    });
    expect(rg.status).toBe(0);
    expect(rg.stdout.trim().split("\n").sort()).toEqual(
      [
        "src/util/redact.ts",
        "test/arch/shared-worker.test.ts",
        "test/support/forget-secrets.ts",
        // and the two secret suites, before each in-process run (as a new process starts with none): forgetting
        // more hides less, so a run there redacts only what it was given itself
        "test/hostile/runtime/secrets.test.ts",
        "test/hostile/runtime/split-secret.test.ts",
      ].sort(),
    );
  });

  it("the in-process runner gives back what a run sets (its files may share a worker unless they run exec)", () => {
    const text = readFileSync(join(REPO, INPROC), "utf8");
    const restore = text.slice(text.indexOf("} finally {", text.indexOf("async function once(")));
    for (const r of RESTORES) expect(restore, r).toContain(r);
    // and the names its packs hold are forgotten after each file
    expect(readFileSync(join(REPO, "vitest.config.ts"), "utf8")).toContain("test/support/forget-secrets.ts");
    // what it sets is what it gives back: nothing else of the process's
    const sets = [
      ...text.matchAll(/process\.(env|chdir|argv|exitCode|stdout\.write|stderr\.write|on|once|umask)\b/g),
    ].map((m) => m[1]);
    expect(new Set(sets)).toEqual(new Set(["env", "chdir", "argv", "exitCode", "stdout.write", "stderr.write"]));
    expect(problems("test/adopt/gates.test.ts")).toEqual([]);
  });
});

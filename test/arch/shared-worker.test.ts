// The files that share a worker process (test/support/shared-worker.ts,
// vitest.config.ts's "shared" project, isolate: false) keep no state between
// files: this walks every module each one imports, at any depth (test/, src/,
// scripts/; relative imports, import(), require()), and fails on one that
// writes process-wide state, registers a hook at a shared module's top level
// (it would run for the first file only), or is one of src's modules that keep
// call state. A file that fails here goes back to the isolated project.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../support/cli";
import { SHARED_FILES } from "../support/shared-worker";

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
];
/**
 * src modules whose module-level state one call leaves for the next. Not here: the validation
 * cache's switch (src/pack/validcache.ts: off in the sources, which have no schema hash), the
 * kill-after-writes hook (src/util/atomic.ts: read from process.env, which no shared file sets;
 * its made-directories memo holds only the scratch directories of the file that made them) and
 * the memos of static data (the host descriptors, the schemas, the error table).
 */
const STATEFUL_SRC = [
  "src/runtime/mcp-adapter.ts", // the server pool, the exit hook
  "src/runtime/composite.ts", // the loaded modules, the checked stamps
];
/**
 * The redaction's set of values in play (src/util/redact.ts) is filled by secretsFrom(), which
 * the runtime and the library call with a call's environment: a file that reaches one of them
 * leaves values for the next. A file that only loads packs adds Binding names, whose values are
 * read from process.env, which no shared file sets.
 */
const REDACT = "src/util/redact.ts";
const GIVES_SECRETS = /\bsecretsFrom\(/;
const HOOK_AT_TOP = /^(beforeAll|afterAll|beforeEach|afterEach)\(/m;

function resolveImport(from: string, spec: string): string | undefined {
  if (spec === "hcpx" || spec.startsWith("hcpx/")) return join(REPO, "src", "lib", "index.ts");
  if (!spec.startsWith(".")) return undefined; // node: builtins and node_modules
  const base = resolve(dirname(from), spec);
  for (const c of [base, `${base}.ts`, base.replace(/\.js$/, ".ts"), join(base, "index.ts")])
    if (existsSync(c) && statSync(c).isFile()) return c;
  return undefined;
}

/** Every module `file` loads, itself included. */
function closure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["']([^"']+)["']/g)) {
    const dep = resolveImport(file, m[1]!);
    if (dep) closure(dep, seen);
  }
  return seen;
}

function problems(file: string): string[] {
  const out: string[] = [];
  const mods = closure(join(REPO, file));
  const rels = [...mods].map((m) => relative(REPO, m));
  if (rels.includes(REDACT))
    for (const rel of rels)
      if (rel !== REDACT && GIVES_SECRETS.test(readFileSync(join(REPO, rel), "utf8")))
        out.push(`${REDACT}: keeps call state (values given by ${rel})`);
  for (const mod of mods) {
    const rel = relative(REPO, mod);
    if (STATEFUL_SRC.includes(rel)) out.push(`${rel}: keeps call state`);
    const text = readFileSync(mod, "utf8");
    for (const [what, re] of PROCESS_STATE) if (re.test(text)) out.push(`${rel}: ${what}`);
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

  it("import no module that keeps state between files", () => {
    const bad = Object.fromEntries(SHARED_FILES.map((f) => [f, problems(f)]).filter(([, p]) => p.length));
    expect(bad).toEqual({});
  });

  it("the check sees what it looks for (a file that sets process.env, one that reaches the redaction set)", () => {
    expect(problems("test/cli/exec-start.test.ts").join("\n")).toMatch(/sets process\.env|adds a process listener/);
    expect(problems("test/hostile/runtime/secrets.test.ts").join("\n")).toContain(
      "src/util/redact.ts: keeps call state (values given by src/runtime/execute.ts)",
    );
    expect(problems("test/adopt/gates.test.ts").join("\n")).toContain("test/support/inproc.ts");
  });
});

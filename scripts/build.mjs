#!/usr/bin/env node
// Builds dist/: the CLI entry, the commander program, and one self-contained
// CommonJS bundle per command (dist/commands/<name>.cjs, read through the code
// cache shipped in dist/cache), so a command loads only its own code (the MCP
// SDK, diff, TOML, yaml only where used); and the library (dist/lib, ESM).
//
// Outputs are written atomically (temp + rename), the entry last, so tests that
// run while a build lands see either build. `--clean` starts from empty.
import { createHash } from "node:crypto";
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { SCHEMA_INPUTS, treeHash } from "./tree-hash.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(root, "dist");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
// Up to date: `npm test` and `npm run bench` build first, ~8 s of CPU (esbuild,
// the two code-cache runs) that is wasted when nothing changed. The stamp,
// dist/.build-stamp, holds a hash of everything the build reads (below) and the
// hash of every file it wrote; when both still hold, the build does nothing.
// `--clean` (or HCPX_BUILD_FORCE=1) always builds.
const stamp = join(out, ".build-stamp");
const sha = (b) => createHash("sha256").update(b).digest("hex");
function inputsKey() {
  // the sources, this script, the dependencies (the lock: npm ci installs exactly it), the compiler
  // settings, and what the code-cache runs read (packs/calc-wrap, packs/calc, bins)
  return treeHash(
    root,
    [
      "src",
      "scripts/build.mjs",
      "scripts/tree-hash.mjs",
      "package.json",
      "package-lock.json",
      "tsconfig.json",
      "tsconfig.lib.json",
      "packs/calc-wrap",
      "packs/calc",
      "bins",
      "hosts", // the descriptors adopt's bundle carries (HCPX_HOSTS_INDEX)
    ],
    `${process.version} ${process.arch} ${process.env.HCPX_NO_SHIPPED_CACHE ?? ""}\0`,
  );
}
const key = inputsKey();
const force = process.argv.includes("--clean") || process.env.HCPX_BUILD_FORCE === "1";
if (!force && existsSync(stamp)) {
  let current = false;
  try {
    const s = JSON.parse(readFileSync(stamp, "utf8"));
    current =
      s.key === key &&
      Object.keys(s.files).length > 0 &&
      Object.entries(s.files).every(([f, h]) => existsSync(join(out, f)) && sha(readFileSync(join(out, f))) === h);
  } catch {
    current = false; // an unreadable stamp: build
  }
  if (current) process.exit(0);
}
rmSync(stamp, { force: true });
const { build } = await import("esbuild"); // after the check: an up-to-date build does not load it
// What the validation cache keys on (SCHEMA_INPUTS, scripts/tree-hash.mjs: the sources and the lock); after
// the check too: an up-to-date build does not walk src/ a second time
const schemaHash = treeHash(root, SCHEMA_INPUTS).slice(0, 16);
// The scratch project of the code-cache runs (below), copied now: the validation cache keeps no file
// changed within RACY_MS (3 s) of its read (src/pack/validcache.ts), so the exec run there writes its
// entries, and its code cache holds the write path a user's first call takes, only when these files
// have aged by then (the build waits for what is left, usually nothing: esbuild takes longer).
const cacheScratch = mkdtempSync(join(tmpdir(), "hcpx-build-cache-"));
const cacheScratchMade = Date.now();
process.on("exit", () => rmSync(cacheScratch, { recursive: true, force: true })); // also when the build fails
// and the same project under sandbox.enforce "os" (`sandboxed/`), for the sandbox's own bundle
for (const [at, enforce] of [
  [cacheScratch, undefined],
  [join(cacheScratch, "sandboxed"), "os"],
]) {
  for (const d of ["packs/calc-wrap", "packs/calc", "bins"]) cpSync(join(root, d), join(at, d), { recursive: true });
  writeFileSync(
    join(at, "hcp.config.json5"),
    JSON.stringify({
      packs: ["./packs/calc-wrap"],
      grants: { allow: ["calc-wrap.*"] },
      sandbox: { roots: ["."], cwd: ".", ...(enforce ? { enforce } : {}) },
    }),
  );
}
if (process.argv.includes("--clean")) rmSync(out, { recursive: true, force: true });
// outputs of the earlier layout (shared chunks)
rmSync(join(out, "chunks"), { recursive: true, force: true });
rmSync(join(out, "exec.mjs"), { force: true });
// hcpx renders its templates itself (src/host/templates.ts): no vendored Handlebars
// (dist/vendor/json5.cjs is written again below)
rmSync(join(out, "vendor"), { recursive: true, force: true });
const common = {
  absWorkingDir: root,
  outdir: out,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: false,
  legalComments: "none",
  logLevel: "warning",
  write: false,
  define: { HCPX_VERSION: JSON.stringify(pkg.version), HCPX_SCHEMA_HASH: JSON.stringify(schemaHash) },
  // CommonJS dependencies call require() for node builtins.
  banner: {
    js: "import { createRequire as __hcpxCreateRequire } from 'node:module'; const require = __hcpxCreateRequire(import.meta.url);",
  },
};
// No shared chunks: every path loads at most three bundles, hcpx.cjs (the
// entry) -> commands/program.cjs (commander) -> commands/<name>.cjs, each bundled whole
// and compiled through a code cache (CJS_COMMANDS below). Resolving and compiling a
// module costs ~1 ms here; a command used to load ~24.
// `hcpx exec`'s, `hcpx mcp`'s and `hcpx adopt`'s plain forms skip the program (src/cli/main.ts).
const commandsDir = join(root, "src/cli/commands");
const commands = readdirSync(commandsDir)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.slice(0, -3));
/**
 * The error-code table (src/util/codes.ts, ~14 KB minified), which src/util/errors.ts require()s only
 * when an error is built: in the entry (dist/hcpx.cjs), a file of its own, dist/codes.cjs. Node
 * compiles the entry on every call without a code cache, and V8 pre-parses all of it: the table
 * was ~40% of the entry's bytes (callgrind, `hcpx exec`: ~2 M instructions). The command bundles
 * keep their copy (they are read through the code cache, where an unused module costs little).
 */
const entryCodes = {
  name: "entry-codes",
  setup(b) {
    b.onResolve({ filter: /^\.\/codes$/ }, (args) =>
      /[/\\]util[/\\]errors\.ts$/.test(args.importer) ? { path: "./codes.cjs", external: true } : undefined,
    );
    // the same for the report of a failure (src/cli/failure.ts and the output module): dist/failure.cjs
    // (its own copy of the error class: HcpxError is recognised by a registered symbol across copies)
    b.onResolve({ filter: /^\.\/failure$/ }, (args) =>
      /[/\\]cli[/\\]main\.ts$/.test(args.importer) ? { path: "./failure.cjs", external: true } : undefined,
    );
    // and the writing of a code cache (src/cli/cache-save.ts, with the write door): dist/cache-save.cjs
    b.onResolve({ filter: /^\.\/cache-save$/ }, (args) =>
      /[/\\]cli[/\\]load-command\.ts$/.test(args.importer) ? { path: "./cache-save.cjs", external: true } : undefined,
    );
  },
};
// The library (package.json "exports"): dist/lib/<entry>.mjs, one bundle per
// entry point. The adapters import "hcpx" (the core) and their SDK, both left
// external: one copy of the core at run time, and the SDKs stay optional peer
// dependencies. The CLI bundles above do not include any of it.
const libEntries = readdirSync(join(root, "src/lib"))
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
  .map((f) => f.slice(0, -3));
// Declarations of the library (dist/lib/<entry>.d.ts), emitted by tsc from
// src/lib/*.ts (tsconfig.lib.json). tsc takes seconds, so it runs only when
// its inputs changed: the public types are declared in src/lib/ itself, and
// a declaration that imports anything else from src/ fails the build (it
// would point at a file the package does not ship). It starts now and runs
// beside esbuild and the code-cache runs (one core of those is idle), and
// is awaited at the end (with the grouping below, a fresh build: 9.5-9.8 s -> 6.6-6.9 s of wall).
const dtsInputs = [
  ...libEntries.map((e) => `src/lib/${e}.ts`),
  "tsconfig.json",
  "tsconfig.lib.json",
  "node_modules/typescript/package.json",
];
const dtsHash = createHash("sha256");
for (const f of dtsInputs)
  dtsHash
    .update(f)
    .update("\0")
    .update(readFileSync(join(root, f)));
const dtsKey = dtsHash.digest("hex");
const dtsStamp = join(out, "lib", ".dts-hash");
const haveDts = libEntries.every((e) => existsSync(join(out, "lib", `${e}.d.ts`)));
const dtsScratch = join(out, `.types-${process.pid}`);
/** tsc's run, when the declarations are not current: its exit status and output */
const dtsRun =
  haveDts && existsSync(dtsStamp) && readFileSync(dtsStamp, "utf8") === dtsKey
    ? undefined
    : new Promise((resolve) => {
        rmSync(dtsScratch, { recursive: true, force: true });
        let text = "";
        const c = spawn(
          process.execPath,
          [
            join(root, "node_modules/typescript/bin/tsc"),
            "-p",
            join(root, "tsconfig.lib.json"),
            "--outDir",
            dtsScratch,
          ],
          { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
        );
        c.stdout.setEncoding("utf8").on("data", (d) => (text += d));
        c.stderr.setEncoding("utf8").on("data", (d) => (text += d));
        c.on("error", (e) => resolve({ status: null, text: String(e) }));
        c.on("close", (status) => resolve({ status, text }));
        // a build that fails before awaiting it leaves no tsc writing into dist/
        process.on("exit", () => {
          if (c.exitCode === null && c.signalCode === null) c.kill();
          rmSync(dtsScratch, { recursive: true, force: true });
        });
      });
const LIB_PEERS = ["ai", "@anthropic-ai/sdk", "@openai/agents"];
const selfImport = {
  name: "hcpx-self",
  setup(b) {
    b.onResolve({ filter: /^hcpx$/ }, () => ({ path: "./index.mjs", external: true }));
  },
};
/**
 * The json5 library (~27 KB minified) is the JSON5 reader's fallback for
 * syntax errors and exotic input only (src/pack/json5.ts): a file of its own,
 * dist/vendor/json5.cjs, require()d on that path, instead of read and
 * deserialized on every `hcpx exec`.
 */
const vendorJson5 = {
  name: "vendor-json5",
  setup(b) {
    b.onResolve({ filter: /^json5$/ }, () => ({ path: "../vendor/json5.cjs", external: true }));
  },
};
/**
 * The mcp adapter (and the MCP SDK client with it) is its own file,
 * dist/lib/mcp-adapter.mjs, which the runtime imports (through
 * src/util/dynamic-import.ts, at the path HCPX_MCP_ADAPTER; src/runtime/mcp-load.ts) only for an `mcp`
 * pack: `hcpx exec` of every other kind never parses it. The source's
 * `import("./mcp-adapter")` (the path vitest takes) stays out of the bundles.
 * doctor takes the SDK's stdio client from that file too (one copy in dist/), and
 * adopt its HTTP client for a remote server's probe (host/remote.ts: the SDK was
 * half of adopt's bundle, read and deserialized on every adopt; callgrind, adopt
 * claude --write: ~298 M -> ~283 M instructions).
 */
/** exec's bundle takes its schemas from commands/exec-schemas.cjs (CJS_COMMANDS above). */
const execSchemas = {
  name: "exec-schemas",
  setup(b) {
    b.onResolve({ filter: /^\.\/schema-defs$/ }, (args) =>
      /[/\\]pack[/\\]schema\.ts$/.test(args.importer) ? { path: "./exec-schemas.cjs", external: true } : undefined,
    );
  },
};
/**
 * exec's bundle takes the OS sandbox (src/runtime/sandbox/index.ts: bubblewrap's arguments, the
 * protected paths, the seccomp filter, the denial reading) from commands/exec-sandbox.cjs, which
 * src/runtime/sandbox/gate.ts require()s only for a call under sandbox.enforce "os": every other exec
 * no longer reads and deserializes it (~9% of exec's bundle).
 */
const execSandbox = {
  name: "exec-sandbox",
  setup(b) {
    b.onResolve({ filter: /^\.\/index$/ }, (args) =>
      /[/\\]runtime[/\\]sandbox[/\\]gate\.ts$/.test(args.importer)
        ? { path: "./exec-sandbox.cjs", external: true }
        : undefined,
    );
  },
};
const lazyAdapter = {
  name: "lazy-mcp-adapter",
  setup(b) {
    b.onResolve({ filter: /^(\.\/|\.\.\/|\.\.\/\.\.\/runtime\/)mcp-adapter$/ }, (args) =>
      /[/\\]runtime[/\\]mcp-load\.ts$/.test(args.importer)
        ? { path: "../lib/mcp-adapter.mjs", external: true }
        : undefined,
    );
  },
};
common.define = { ...common.define, HCPX_MCP_ADAPTER: JSON.stringify("../lib/mcp-adapter.mjs") };
// `hcpx exec`'s bundle is CommonJS, loaded through V8's code cache by
// src/cli/load-command.ts; the entry and the program are built after it, with
// a hash of its bytes (the cache's key: V8 itself only checks the length).
// Minified: V8 reads, decodes and deserializes the whole bundle on every call
// (its code cache is about as large as the source), so fewer bytes are fewer
// instructions (callgrind: ~2.5 M of exec's ~150 M); nothing in it depends on
// function or class names.
// The same for `hcpx mcp` (started by a host for every session: its start to
// the first tools/list is measured against a bare SDK server) and `hcpx adopt`. Its bundle
// holds the MCP SDK and zod, so it is minified without renaming identifiers
// (no name-dependent code can break); adopt's likewise; exec's is minified whole.
// adopt gets no code cache (no hash below): it writes nothing in $HOME but what a
// --scope user adopt plans (the adopt tests hold it to that); it still starts
// without commander and the ESM loader (src/cli/main.ts).
const CJS_COMMANDS = {
  exec: { minify: true },
  // exec's zod schemas (src/pack/schema-defs.ts, with zod): a bundle of its own, require()d by exec's
  // (execSchemas below) only when a file is validated, through a code cache of its own
  // (src/cli/load-command.ts). A warm call (every file in the validation cache) never reads it;
  // inside exec's bundle, its compiled code was deserialized on every call
  // (callgrind, warm exec: ~2.5 M instructions).
  "exec-schemas": { minify: true, entry: "src/pack/schema-defs.ts" },
  // the OS sandbox (execSandbox above), for exec's calls under sandbox.enforce "os" only
  "exec-sandbox": { minify: true, entry: "src/runtime/sandbox/index.ts" },
  mcp: { minifyWhitespace: true, minifySyntax: true },
  adopt: { minifyWhitespace: true, minifySyntax: true },
  // the commander program (src/cli/program.ts), and every other command: CommonJS too, loaded the same
  // way (the program by the entry, a command by the program: `./commands/<name>` is its sibling
  // `./<name>.cjs`, programCommands below), through the code cache shipped beside them. As ES modules
  // (dist/program.mjs, dist/commands/<name>.mjs) Node compiled them from their text on every run:
  // callgrind, `hcpx status` in the bench's project ~310 M instructions, `hcpx lint` ~322 M.
  program: { minifyWhitespace: true, minifySyntax: true, entry: "src/cli/program.ts" },
};
for (const c of commands) CJS_COMMANDS[c] ??= { minifyWhitespace: true, minifySyntax: true };
/**
 * The program's `import("./commands/<name>")` (a command's module, loaded when it runs) is the
 * bundle beside it, required through the loader (src/cli/load-command.ts: its code cache, saved
 * with the program's by the entry); esbuild turns the import() into a require() (no dynamic
 * import in a script compiled by node:vm).
 */
const programCommands = {
  name: "program-commands",
  setup(b) {
    b.onResolve({ filter: /^\.\/commands\/[\w-]+$/ }, (args) =>
      /[/\\]cli[/\\]program\.ts$/.test(args.importer)
        ? { path: `./${args.path.slice("./commands/".length)}.cjs`, external: true }
        : undefined,
    );
  },
};
// adopt loads every host descriptor (which hosts share an MCP entry); checking one is ~10 M
// instructions. The build loads each shipped one with the loader adopt runs (src/host/descriptor.ts,
// bundled from this same source) and gives adopt's bundle what that returned, with the SHA-256 of the
// text it read (HCPX_HOSTS_INDEX, src/util/build-info.ts): a file whose text still has that hash is not
// checked again; any other (edited, added, or one that did not load here) is read and checked as before.
// The hash, not the text: the 22 texts were ~121 KB of the bundle's ~766 KB, read, and deserialized
// from its code cache, on every adopt.
// A descriptor whose JSON does not give back the same value is left out.
async function hostsIndex() {
  const r = await build({
    ...common,
    banner: undefined,
    format: "cjs",
    outExtension: { ".js": ".cjs" },
    stdin: {
      resolveDir: root,
      loader: "ts",
      contents: `
        import { readFileSync } from "node:fs";
        import { join } from "node:path";
        import { isDeepStrictEqual } from "node:util";
        import { hostsDir, listHosts, loadDescriptor } from "./src/host/descriptor";
        import { sha256 } from "./src/util/text";
        const index: Record<string, { sha256: string; value: string }> = {};
        for (const h of listHosts()) {
          let d;
          try {
            d = loadDescriptor(h);
          } catch {
            continue;
          }
          const value = JSON.stringify(d);
          if (isDeepStrictEqual(JSON.parse(value), d))
            index[h + ".json5"] = { sha256: sha256(readFileSync(join(hostsDir(), h + ".json5"), "utf8")), value };
        }
        process.stdout.write(JSON.stringify(index));`,
    },
    logOverride: { "empty-import-meta": "silent" },
  });
  // run from dist/, where the loader finds hosts/ (the package root) as the bundles do
  const tmp = join(out, `.hosts-index.${process.pid}.cjs`);
  mkdirSync(out, { recursive: true });
  writeFileSync(tmp, r.outputFiles[0].contents);
  try {
    const run = spawnSync(process.execPath, [tmp], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    if (run.status !== 0) throw new Error(`build: loading the host descriptors failed: ${run.stderr.slice(0, 500)}`);
    return run.stdout;
  } finally {
    rmSync(tmp, { force: true });
  }
}
const HOSTS_INDEX = await hostsIndex();
// every one of them; a user's own cache only for exec's two and mcp's (src/cli/load-command.ts)
const CODE_CACHED = Object.keys(CJS_COMMANDS);
/** plugins of a command's bundle beyond the usual two (json5 vendored, the mcp adapter lazy) */
/**
 * `hcpx mcp`'s bundle: what the MCP SDK server imports from its platform shims (`@modelcontextprotocol/server/_shims`)
 * comes from src/mcp/sdk-shims.ts, which loads the SDK's JSON Schema validator (ajv, through the SDK's own shim:
 * src/mcp/sdk-ajv.ts) at its first use, not at the SDK's load (callgrind, a start to the first tools/list: ~835 M
 * -> ~820 M instructions). Only the SDK's own imports are taken there.
 */
const sdkShims = {
  name: "sdk-shims",
  setup(b) {
    b.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, (args) =>
      /[/\\]node_modules[/\\]@modelcontextprotocol[/\\]server[/\\]/.test(args.importer)
        ? { path: join(root, "src", "mcp", "sdk-shims.ts") }
        : undefined,
    );
  },
};
const CJS_PLUGINS = {
  exec: [vendorJson5, lazyAdapter, execSchemas, execSandbox],
  program: [programCommands],
  mcp: [vendorJson5, lazyAdapter, sdkShims],
};
/**
 * esbuild's options for the bundle of command `name` but its entry point, and a key: commands with the same
 * key share one esbuild call (their own plugins or define, adopt's hosts index, make a call of its own)
 */
function cjsOptions(name) {
  const { entry: _entry, ...min } = CJS_COMMANDS[name];
  return {
    key: name in CJS_PLUGINS || name === "adopt" ? name : JSON.stringify(min),
    options: {
      ...common,
      banner: undefined,
      format: "cjs",
      ...min,
      outExtension: { ".js": ".cjs" },
      ...(name === "adopt" ? { define: { ...common.define, HCPX_HOSTS_INDEX: HOSTS_INDEX } } : {}),
      plugins: CJS_PLUGINS[name] ?? [vendorJson5, lazyAdapter],
      // an import() (a node builtin loaded lazily, a command by the program) as a require(): a script
      // compiled by node:vm has no import() in Node 20 ("A dynamic import callback was not specified");
      // a module outside dist/ (a composite's, the mcp adapter) goes through src/util/dynamic-import.ts
      supported: { "dynamic-import": false },
      logOverride: { "empty-import-meta": "silent" }, // adapters/index.ts and descriptor.ts read import.meta.url only where __dirname is undefined (ESM bundles)
    },
  };
}
// Commands built alike go through one esbuild call with an entry point each: esbuild parses the
// modules they share (the MCP SDK, zod, src/) once, not once a command (this step: ~4.8 s -> ~2.1 s of wall)
const cjsGroups = new Map();
for (const name of Object.keys(CJS_COMMANDS)) {
  const { key, options } = cjsOptions(name);
  const g = cjsGroups.get(key) ?? cjsGroups.set(key, { options, names: [] }).get(key);
  g.names.push(name);
}
const cjsOutputs = new Map();
await Promise.all(
  [...cjsGroups.values()].map(async ({ options, names }) => {
    const r = await build({
      ...options,
      entryPoints: Object.fromEntries(
        names.map((n) => [`commands/${n}`, CJS_COMMANDS[n].entry ?? `src/cli/commands/${n}.ts`]),
      ),
    });
    for (const n of names) {
      const f = r.outputFiles.find((o) => o.path === join(out, "commands", `${n}.cjs`));
      if (!f) throw new Error(`build: esbuild wrote no commands/${n}.cjs`);
      cjsOutputs.set(n, f);
    }
  }),
);
// Written as the function expression load-command.ts compiles, CommonJS's
// wrapper included, so the loader hands V8 the file's text as it is (no copy
// of ~130 KB into a wrapped string on every call).
const bundleHashes = {};
for (const name of Object.keys(CJS_COMMANDS)) {
  const f = cjsOutputs.get(name);
  // ASCII only (esbuild escapes strings, not regular expression literals): one non-ASCII byte makes
  // the whole source a two-byte string, decoded off Node's ASCII fast path, on every start
  const wide = f.contents.findIndex((b) => b > 0x7f);
  if (wide >= 0)
    throw new Error(
      `build: commands/${name}.cjs is not ASCII at byte ${wide} (…${Buffer.from(f.contents.subarray(Math.max(0, wide - 60), wide + 20)).toString()}…): write the character as a \\u escape in the source`,
    );
  const wrapped = {
    path: f.path,
    contents: Buffer.concat([
      Buffer.from("(function (exports, require, module, __filename, __dirname) {"),
      f.contents,
      Buffer.from("\n})"),
    ]),
  };
  cjsOutputs.set(name, wrapped);
  if (CODE_CACHED.includes(name))
    bundleHashes[name] = createHash("sha256").update(wrapped.contents).digest("hex").slice(0, 16);
  rmSync(join(out, "commands", `${name}.mjs`), { force: true }); // the ES module of an earlier build
}
rmSync(join(out, "program.mjs"), { force: true }); // likewise
/** a minified CommonJS file (the entry and what it require()s, the vendored json5) */
const minCjs = { banner: undefined, format: "cjs", minify: true, outExtension: { ".js": ".cjs" } };
const withHash = { ...common, define: { ...common.define, HCPX_BUNDLE_HASHES: JSON.stringify(bundleHashes) } };
const builds = [
  { outputFiles: Object.keys(CJS_COMMANDS).map((n) => cjsOutputs.get(n)) },
  ...(await Promise.all([
    // the core, split: openProject() loads the projection builder (and yaml) as a chunk
    // (chunks beside it in dist/lib/, so the mcp adapter's relative path holds from every file)
    build({
      ...common,
      entryPoints: { "lib/index": "src/lib/index.ts" },
      splitting: true,
      chunkNames: "lib/[name]-[hash]",
      plugins: [lazyAdapter],
      logOverride: { "empty-import-meta": "silent" },
    }),
    // the adapters: each one small file, the SDK and the core (types only) external
    build({
      ...common,
      entryPoints: Object.fromEntries(
        libEntries.filter((e) => e !== "index").map((e) => [`lib/${e}`, `src/lib/${e}.ts`]),
      ),
      plugins: [selfImport],
      external: LIB_PEERS,
    }),
    // the bin: CommonJS (no ESM loader on exec's start path, src/cli/main.ts)
    build({
      ...withHash,
      ...minCjs,
      entryPoints: { hcpx: "src/cli/main.ts" },
      plugins: [entryCodes],
    }),
    build({
      ...common,
      ...minCjs,
      entryPoints: { codes: "src/util/codes.ts", failure: "src/cli/failure.ts", "cache-save": "src/cli/cache-save.ts" },
      plugins: [entryCodes],
    }),
    build({
      ...common,
      ...minCjs,
      entryPoints: { "vendor/json5": "json5" },
    }),
    build({ ...common, entryPoints: { "lib/mcp-adapter": "src/runtime/mcp-adapter.ts" } }),
  ])),
];
const entry = join(out, "hcpx.cjs");
// dist/hcpx.mjs: the entry's former name, still written in host configs and
// scripts (`node …/dist/hcpx.mjs mcp`): an ES module that runs the entry.
const shim = join(out, "hcpx.mjs");
builds.push({
  outputFiles: [
    {
      path: shim,
      contents: Buffer.from(
        '#!/usr/bin/env node\n// The entry is dist/hcpx.cjs (the bin); this name is kept for configs written with it.\nimport "./hcpx.cjs";\n',
      ),
    },
  ],
});
const libChunks = join(out, "lib", "chunks");
const files = builds.flatMap((r) => r.outputFiles).sort((a, b) => (a.path === entry ? 1 : b.path === entry ? -1 : 0));
for (const f of files) {
  mkdirSync(dirname(f.path), { recursive: true });
  const tmp = `${f.path}.${process.pid}.tmp`;
  writeFileSync(tmp, f.contents);
  if (f.path === entry || f.path === shim) chmodSync(tmp, 0o755);
  renameSync(tmp, f.path);
}
/**
 * The code-cache runs' V8 flags: `--predictable` (one thread, a fixed hash seed), so that a cache is the same
 * bytes from one build of the same sources to the next (scripts/check-reproducible.mjs, run by .ci/run). Without
 * it every shipped cache differed from build to build, in size too: V8's hash seed is random per process
 * (`--hash-seed=1` alone makes two caches the same bytes too, but that flag is part of what V8 checks a cache
 * against, so a plain node rejects them). V8 leaves `--predictable` out of that check, so a process started
 * without it takes the cache; checked here on a small script, and the runs go without the flag where this
 * Node's V8 would reject such a cache.
 */
function cacheRunFlags() {
  const script = join(cacheScratch, "predictable-probe.cjs");
  const cache = join(cacheScratch, "predictable-probe.bin");
  writeFileSync(script, "module.exports = (a) => [a, a * 2].map((x) => x + 1);\n");
  const vm = `const vm = require("node:vm"), fs = require("node:fs"); const src = fs.readFileSync(${JSON.stringify(script)}, "utf8");`;
  const make = `${vm} const s = new vm.Script(src); s.runInThisContext(); fs.writeFileSync(${JSON.stringify(cache)}, s.createCachedData());`;
  const take = `${vm} const s = new vm.Script(src, { cachedData: fs.readFileSync(${JSON.stringify(cache)}) }); process.stdout.write(String(s.cachedDataRejected));`;
  const made = spawnSync(process.execPath, ["--predictable", "-e", make], { encoding: "utf8" });
  const taken = made.status === 0 ? spawnSync(process.execPath, ["-e", take], { encoding: "utf8" }) : undefined;
  if (taken?.status === 0 && taken.stdout === "false") return ["--predictable"];
  process.stderr.write(
    "build: this Node rejects a code cache made under --predictable: the shipped caches differ from build to build\n",
  );
  return [];
}

/** The error code of a run's `--json` envelope, if it printed one. */
function envelopeCode(stdout) {
  try {
    return JSON.parse(stdout).error?.code;
  } catch {
    return undefined;
  }
}
// The code caches of `hcpx exec`, `hcpx mcp`, adopt, the program and the other commands, shipped beside
// their bundles (dist/cache/, read by src/cli/load-command.ts when the user has none, the only cache of
// all but exec's and mcp's): made by running the built command once, as a user's first call would (exec:
// a wrap pack: config, validation, spawn; mcp: a host's start; the others `runs` below), with a cache folder of its own; the file it writes is copied as it is (framed, kept twice: src/util/cache.ts).
// The first call after install then starts like a warm one. A Node other than this
// build's looks for another file name and compiles as before. HCPX_NO_SHIPPED_CACHE=1
// at build time ships none.
const MCP_START = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "hcpx-build", version: "1" } },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list" },
]
  .map((m) => JSON.stringify(m) + "\n")
  .join("");
{
  const shippedDir = join(out, "cache");
  try {
    if (!process.env.HCPX_NO_SHIPPED_CACHE)
      await new Promise((r) => setTimeout(r, Math.max(0, cacheScratchMade + 3100 - Date.now())));
    // exec: a wrap call; adopt: `adopt claude --write` in the same scratch project (HCPX_BUILD_CACHE=1: adopt
    // saves its cache only when told, and only here)
    // (exec's run validates the scratch project's files: its schemas bundle is compiled and cached too)
    const runs = {
      exec: { args: ["exec", "calc-wrap", "ping", "--json"], caches: ["exec", "exec-schemas"] },
      // the sandbox's bundle (exec-sandbox): the same call confined, where bubblewrap can confine one here
      // (where the call's envelope says sandbox_unavailable, none is shipped: a user's first confined call compiles
      // the bundle and writes their own cache)
      "exec (os)": {
        args: ["exec", "calc-wrap", "ping", "--json"],
        caches: ["exec-sandbox"],
        cwd: "sandboxed",
        unavailable: "sandbox_unavailable",
      },
      // mcp: a host's start (initialize, tools/list), then stdin ends and the server with it; it saves its
      // cache once that tools/list is answered (src/mcp/server.ts serve), so a host's first start after
      // install reads this one, with the code that answers it
      mcp: { args: ["mcp"], caches: ["mcp"], input: MCP_START },
      // the program (its cache made by the first run through it), and the commands a user runs in a
      // project, each once as a user would, in this order (doctor before adopt's run: no host adopted,
      // healthy, exit 0; pack new -> add-verb -> sync; grant -> revoke; ...); a command with no run
      // here (pack from-openapi, from-mcp, import) compiles its bundle on every run, as before
      status: { args: ["status"], caches: ["program", "status"] },
      doctor: { args: ["doctor"], caches: ["doctor"] },
      // adopt uses the validation cache (src/pack/validcache.ts) as exec and mcp do, and their runs above
      // filled it: its run starts from an empty one (fresh), as a first adopt after install does, so its
      // cache holds the reader and the schemas (a miss's code; a hit's is the lookup a miss runs too;
      // test/pack/validcache.test.ts: a first adopt compiles no more than one after an mcp start)
      adopt: { args: ["adopt", "claude", "--write", "--command", "hcpx mcp"], caches: ["adopt"], fresh: true },
      lint: { args: ["lint", "packs/calc-wrap"], caches: ["lint"] },
      generate: { args: ["generate", "--out", "gen"], caches: ["generate"] },
      "generate-bundle": {
        args: ["generate", "--as", "claude-plugin", "--out", "bundle"],
        caches: ["generate-bundle"],
      },
      grant: { args: ["grant", "calc-wrap.ping"], caches: ["grant"] },
      // both: the one grant's pattern alone would leave it granted by the wildcard (still_granted, refused)
      revoke: { args: ["revoke", "calc-wrap.ping", "calc-wrap.*"], caches: ["revoke"] },
      "pack new": { args: ["pack", "new", "demo", "--wrap", "node"], caches: ["pack-new"] },
      "pack add-verb": { args: ["pack", "add-verb", "packs/demo", "--verb", "hello=hello"], caches: ["pack-add-verb"] },
      "pack sync": { args: ["pack", "sync", "packs/demo"], caches: ["pack-sync"] },
      "pack install": { args: ["pack", "install"], caches: ["pack-vendor"] },
      activate: { args: ["activate", "packs/calc"], caches: ["activate"] },
      deactivate: { args: ["deactivate", "calc"], caches: ["deactivate"] },
      log: { args: ["log"], caches: ["log"] },
      completion: { args: ["completion", "bash"], caches: ["completion"] },
      token: { args: ["token", "list"], caches: ["token"] },
      init: { args: ["init"], caches: ["init"], cwd: "fresh" },
    };
    const names = Object.fromEntries(
      Object.values(runs)
        .flatMap((r) => r.caches)
        .map((c) => [c, `${c}-${bundleHashes[c]}-${process.version}-${process.arch}.bin`]),
    );
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: cacheScratch,
      XDG_CACHE_HOME: join(cacheScratch, "cache"),
      HCPX_NO_SHIPPED_CACHE: "1",
      HCPX_BUILD_CACHE: "1",
    };
    const flags = process.env.HCPX_NO_SHIPPED_CACHE ? [] : cacheRunFlags();
    mkdirSync(shippedDir, { recursive: true });
    for (const f of readdirSync(shippedDir))
      if (!Object.values(names).includes(f)) rmSync(join(shippedDir, f), { force: true });
    for (const [cmd, { args, caches, input, cwd, unavailable, fresh }] of Object.entries(runs)) {
      if (cwd) mkdirSync(join(cacheScratch, cwd), { recursive: true });
      if (fresh) rmSync(join(cacheScratch, "cache", "hcpx", "validated"), { recursive: true, force: true });
      const r = process.env.HCPX_NO_SHIPPED_CACHE
        ? undefined
        : spawnSync(process.execPath, [...flags, entry, ...args], {
            cwd: join(cacheScratch, cwd ?? "."),
            env,
            encoding: "utf8",
            input: input ?? "",
          });
      for (const c of caches) {
        const name = names[c];
        const made = join(cacheScratch, "cache", "hcpx", "v8", name);
        if (r && r.status === 0 && existsSync(made)) {
          const tmp = join(shippedDir, `${name}.${process.pid}.tmp`);
          writeFileSync(tmp, readFileSync(made));
          chmodSync(tmp, 0o644);
          renameSync(tmp, join(shippedDir, name));
        } else {
          rmSync(join(shippedDir, name), { force: true });
          if (r && unavailable && envelopeCode(r.stdout) === unavailable)
            process.stderr.write(`build: no code cache shipped for ${c}: ${cmd} says ${unavailable} on this machine\n`);
          else if (r)
            process.stderr.write(
              `build: no code cache shipped (${c}, from ${cmd} ${r.status}: ${(r.stderr || r.stdout).slice(0, 300)})\n`,
            );
        }
      }
    }
  } finally {
    rmSync(cacheScratch, { recursive: true, force: true });
  }
}

// chunks of earlier library builds
const keep = new Set(files.map((f) => f.path));
rmSync(libChunks, { recursive: true, force: true });
for (const f of readdirSync(join(out, "lib")))
  if (/^[\w-]+-[A-Z0-9]{8}\.mjs$/.test(f) && !keep.has(join(out, "lib", f)))
    rmSync(join(out, "lib", f), { force: true });

// The library's declarations (tsc, started above): checked, then moved into dist/lib.
if (dtsRun) {
  const r = await dtsRun;
  if (r.status !== 0) {
    rmSync(dtsScratch, { recursive: true, force: true });
    process.stderr.write(r.text);
    throw new Error("build: tsc could not emit the library's declarations (tsconfig.lib.json)");
  }
  for (const e of libEntries) {
    const text = readFileSync(join(dtsScratch, "lib", `${e}.d.ts`), "utf8");
    const bad = [...text.matchAll(/from\s+["'](\.[^"']*)["']/g)].map((m) => m[1]);
    if (bad.length) {
      rmSync(dtsScratch, { recursive: true, force: true });
      throw new Error(
        `build: dist/lib/${e}.d.ts would import ${bad.join(", ")}: declare the public types in src/lib/ (import "hcpx" in adapters)`,
      );
    }
    const file = join(out, "lib", `${e}.d.ts`);
    writeFileSync(`${file}.${process.pid}.tmp`, text);
    renameSync(`${file}.${process.pid}.tmp`, file);
  }
  rmSync(dtsScratch, { recursive: true, force: true });
  writeFileSync(dtsStamp, dtsKey);
}

// Last: the stamp (above) of this build, over every file now in dist/ (the
// stamp itself and temporary files aside).
{
  const files = {};
  const walk = (rel) => {
    for (const d of readdirSync(join(out, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) walk(r);
      else if (d.isFile() && r !== ".build-stamp" && !r.endsWith(".tmp")) files[r] = sha(readFileSync(join(out, r)));
    }
  };
  walk("");
  const tmp = `${stamp}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ key, files }, null, 1) + "\n");
  renameSync(tmp, stamp);
}

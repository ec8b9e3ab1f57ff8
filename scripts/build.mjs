#!/usr/bin/env node
// Builds dist/: the CLI entry, the commander program, and one self-contained
// ESM bundle per command (dist/commands/<name>.mjs), so a command loads only
// its own code (the MCP SDK, handlebars, diff, TOML, yaml only where used).
//
// Outputs are written atomically (temp + rename), the entry last, so tests that
// run while a build lands see either build. `--clean` starts from empty.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(root, "dist");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
// What decides whether a file validates: the schemas, the validator, zod. The
// validation cache (src/pack/validcache.ts) keys on this, so a build that
// changes any of them never trusts what an earlier build validated.
const schemaHash = createHash("sha256")
  .update(readFileSync(join(root, "src/pack/schema-defs.ts")))
  .update(readFileSync(join(root, "src/pack/validate.ts")))
  .update(readFileSync(join(root, "node_modules/zod/package.json")))
  .digest("hex")
  .slice(0, 16);
if (process.argv.includes("--clean")) rmSync(out, { recursive: true, force: true });
// outputs of the earlier layout (shared chunks)
rmSync(join(out, "chunks"), { recursive: true, force: true });
rmSync(join(out, "exec.mjs"), { force: true });
rmSync(join(out, "commands", "exec.mjs"), { force: true });
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
  // CommonJS dependencies (handlebars) call require() for node builtins.
  banner: { js: "import { createRequire as __hcpxCreateRequire } from 'node:module'; const require = __hcpxCreateRequire(import.meta.url);" },
};
// No shared chunks: every path loads at most three modules, hcpx.mjs (the
// entry) -> program.mjs (commander) -> commands/<name>.mjs, each bundled whole.
// Resolving and compiling a module costs ~1 ms here; a command used to load ~24.
// `hcpx exec`'s plain form skips program.mjs (src/cli/main.ts).
const commandsDir = join(root, "src/cli/commands");
const commands = readdirSync(commandsDir).filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3));
/** `./program` and `./commands/<name>` stay separate files: load them at run time. */
const separate = {
  name: "separate-modules",
  setup(b) {
    b.onResolve({ filter: /^\.\/(program|commands\/[\w-]+)$/ }, (args) => ({ path: `./${args.path.slice(2)}.mjs`, external: true }));
  },
};
/**
 * handlebars is bundled too, into dist/vendor/handlebars.mjs, and imported from
 * there only on the rare path that needs it: dist/ needs nothing from
 * node_modules at run time, so the package has no production dependencies
 * (every library is in devDependencies) and installs without fetching any.
 */
const vendorHandlebars = {
  name: "vendor-handlebars",
  setup(b) {
    b.onResolve({ filter: /^handlebars$/ }, () => ({ path: "../vendor/handlebars.mjs", external: true }));
  },
};
// `hcpx exec`'s bundle is CommonJS, loaded through V8's code cache by
// src/cli/load-command.ts; the entry and the program are built after it, with
// a hash of its bytes (the cache's key: V8 itself only checks the length).
const execBuild = await build({ ...common, banner: undefined, format: "cjs", outExtension: { ".js": ".cjs" }, entryPoints: { "commands/exec": "src/cli/commands/exec.ts" }, plugins: [vendorHandlebars] });
const execHash = createHash("sha256").update(execBuild.outputFiles[0].contents).digest("hex").slice(0, 16);
const withHash = { ...common, define: { ...common.define, HCPX_EXEC_HASH: JSON.stringify(execHash) } };
const builds = [execBuild, ...(await Promise.all([
  build({ ...withHash, entryPoints: { hcpx: "src/cli/main.ts" }, plugins: [separate] }),
  build({ ...withHash, entryPoints: { program: "src/cli/program.ts" }, plugins: [separate] }),
  // handlebars (~240 KB bundled) renders only templates beyond the subset
  // src/host/templates.ts renders itself: a file of its own, imported on that
  // rare path, instead of parsed on every adopt and generate.
  build({ ...common, entryPoints: Object.fromEntries(commands.filter((c) => c !== "exec").map((c) => [`commands/${c}`, `src/cli/commands/${c}.ts`])), plugins: [vendorHandlebars] }),
  build({ ...common, entryPoints: { "vendor/handlebars": "handlebars" } }),
]))];
const entry = join(out, "hcpx.mjs");
const files = builds.flatMap((r) => r.outputFiles).sort((a, b) => (a.path === entry ? 1 : b.path === entry ? -1 : 0));
for (const f of files) {
  mkdirSync(dirname(f.path), { recursive: true });
  const tmp = `${f.path}.${process.pid}.tmp`;
  writeFileSync(tmp, f.contents);
  if (f.path === entry) chmodSync(tmp, 0o755);
  renameSync(tmp, f.path);
}

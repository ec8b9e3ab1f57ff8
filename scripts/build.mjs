#!/usr/bin/env node
// Builds dist/: one ESM bundle for the CLI entry (the `hcpx exec` hot path) and
// separately loaded chunks for everything reached through `import()` (MCP SDK,
// handlebars, diff, TOML, yaml), so a command pays only for what it uses.
//
// Outputs are written atomically (temp + rename), chunks before the entry, and
// old chunks are kept: chunk names carry a content hash, so a process that
// started on the previous build still finds every chunk it imports while a new
// build lands (tests and builds run concurrently). `--clean` starts from empty.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
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
const [cli, exec] = await Promise.all([
  // The CLI: a small entry, every command in chunks loaded by import().
  build({ ...common, entryPoints: { hcpx: "src/cli/main.ts" }, chunkNames: "chunks/[name]-[hash]", splitting: true, external: ["./exec.mjs"] }),
  // `hcpx exec`'s fast path (main.ts): one file, nothing else to resolve or load.
  build({ ...common, entryPoints: { exec: "src/cli/commands/exec.ts" }, splitting: false }),
]);
const entry = join(out, "hcpx.mjs");
const files = [...exec.outputFiles, ...cli.outputFiles].sort((a, b) => (a.path === entry ? 1 : b.path === entry ? -1 : 0));
for (const f of files) {
  mkdirSync(dirname(f.path), { recursive: true });
  const tmp = `${f.path}.${process.pid}.tmp`;
  writeFileSync(tmp, f.contents);
  if (f.path === entry) chmodSync(tmp, 0o755);
  renameSync(tmp, f.path);
}

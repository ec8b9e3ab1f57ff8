#!/usr/bin/env node
// Builds dist/: one ESM bundle for the CLI entry (the `hcpx exec` hot path) and
// separately loaded chunks for everything reached through `import()` (MCP SDK,
// handlebars, diff, TOML, yaml), so a command pays only for what it uses.
import { build } from "esbuild";
import { rmSync, chmodSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(root, "dist");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
rmSync(out, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { hcpx: "src/cli/main.ts" },
  outdir: out,
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: false,
  legalComments: "none",
  logLevel: "warning",
  define: { HCPX_VERSION: JSON.stringify(pkg.version) },
  // CommonJS dependencies (handlebars) call require() for node builtins.
  banner: { js: "import { createRequire as __hcpxCreateRequire } from 'node:module'; const require = __hcpxCreateRequire(import.meta.url);" },
});
chmodSync(join(out, "hcpx.mjs"), 0o755);

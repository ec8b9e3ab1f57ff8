import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { lazyRequireAsImport } from "./test/support/lazy-require";

export default defineConfig({
  plugins: [lazyRequireAsImport()],
  // the library's own name (tsconfig.json "paths"): tests run its sources
  resolve: { alias: [{ find: /^hcpx$/, replacement: fileURLToPath(new URL("./src/lib/index.ts", import.meta.url)) }, { find: /^hcpx\/(ai-sdk|anthropic|openai-agents)$/, replacement: fileURLToPath(new URL("./src/lib/$1.ts", import.meta.url)) }] },
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/hosts/**", "test/agents/**", "test/openapi/**", "node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});

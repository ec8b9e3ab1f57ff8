import { defineConfig } from "vitest/config";
import { lazyRequireAsImport } from "./test/support/lazy-require";

export default defineConfig({
  plugins: [lazyRequireAsImport()],
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/hosts/**", "test/agents/**", "test/openapi/**", "node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});

// The slow part of the hostile suite (issue 6): `npm run test:hostile:slow`,
// called by .ci/run. Files: test/hostile/**/*.slow.ts.
import { defineConfig } from "vitest/config";
import { lazyRequireAsImport } from "./test/support/lazy-require";

export default defineConfig({
  plugins: [lazyRequireAsImport()],
  test: {
    include: ["test/hostile/**/*.slow.ts"],
    testTimeout: 1_200_000,
    hookTimeout: 120_000,
    pool: "forks",
    // as npm test's (vitest.config.ts): one scratch TMPDIR for the run, removed at its end, and a
    // hermetic worker (a scratch HOME, no hcpx switch or user place from the developer's shell)
    globalSetup: ["test/support/run-tmp.ts"],
    setupFiles: ["test/support/env.ts"],
  },
});

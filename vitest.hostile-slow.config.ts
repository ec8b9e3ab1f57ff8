// The slow part of the hostile suite (issue 6): `npm run test:hostile:slow`,
// called by .ci/run. Files: test/hostile/**/*.slow.ts.
import { defineConfig } from "vitest/config";
import { lazyRequireAsImport } from "./test/support/lazy-require";
import { HERMETIC_SETUP_IN_MEMORY } from "./test/support/suite-setup";

export default defineConfig({
  plugins: [lazyRequireAsImport()],
  test: {
    include: ["test/hostile/**/*.slow.ts"],
    testTimeout: 1_200_000,
    hookTimeout: 120_000,
    pool: "forks",
    // as npm test's: a scratch TMPDIR for the run, in memory where there is room, and a hermetic worker
    // (test/support/suite-setup.ts)
    ...HERMETIC_SETUP_IN_MEMORY,
  },
});

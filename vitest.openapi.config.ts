// The Prism suite (`npm run test:openapi`, run by .ci/run): OpenAPI packs
// against `prism mock --errors` on 127.0.0.1, for the fixture documents and two
// large real ones (scripts/install-openapi-docs.sh). Kept out of `npm test`:
// Prism takes ~1 minute to load GitHub's 13 MB document.
import { defineConfig } from "vitest/config";
import { lazyRequireAsImport } from "./test/support/lazy-require";
import { HERMETIC_SETUP, suiteEnv } from "./test/support/suite-setup";

export default defineConfig({
  plugins: [lazyRequireAsImport()],
  test: {
    include: ["test/openapi/**/*.test.ts"],
    exclude: ["node_modules/**"],
    testTimeout: 240_000,
    hookTimeout: 250_000,
    pool: "forks",
    // as npm test's: a scratch TMPDIR for the run and a hermetic worker (test/support/suite-setup.ts)
    ...HERMETIC_SETUP,
    env: await suiteEnv(),
  },
});

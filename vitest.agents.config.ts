// The agent-loop suite (`npm run test:agents`, scripts/test-agents.sh): the hosts'
// own headless agents against the scripted fake model. Kept out of `npm test`.
import { defineConfig } from "vitest/config";
import { lazyRequireAsImport } from "./test/support/lazy-require";
import { HERMETIC_SETUP, suiteEnv } from "./test/support/suite-setup";

export default defineConfig({
  plugins: [lazyRequireAsImport()],
  test: {
    include: ["test/agents/**/*.test.ts"],
    // a test's time includes its runs' wait for a host-program slot (test/hosts/slots.mjs); a
    // host run has its own timeout (up to 120 s), which catches a hang
    testTimeout: 300_000,
    hookTimeout: 180_000,
    pool: "forks",
    // one file per host; two side by side (2 cores: most of a run is the host's own start)
    maxWorkers: 2,
    // as npm test's: a scratch TMPDIR for the run and a hermetic worker (test/support/suite-setup.ts)
    ...HERMETIC_SETUP,
    // and the folder Codex makes in the machine's /tmp whatever TMPDIR says, removed when the run made it
    globalSetup: [...HERMETIC_SETUP.globalSetup, "test/support/host-leftovers.ts"],
    env: await suiteEnv(),
  },
});

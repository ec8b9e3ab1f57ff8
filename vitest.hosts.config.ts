// The host e2e suite (`npm run test:hosts`): the real host programs installed by
// scripts/install-hosts.sh (HCPX_HOSTS_DIR, default ~/.cache/hcpx-hosts) against
// what `hcpx adopt` / `hcpx generate --as` write. Kept out of `npm test`.
import { defineConfig } from "vitest/config";
import { lazyRequireAsImport } from "./test/support/lazy-require";
import { HERMETIC_SETUP, suiteEnv } from "./test/support/suite-setup";

export default defineConfig({
  plugins: [lazyRequireAsImport()],
  test: {
    include: ["test/hosts/**/*.test.ts"],
    exclude: ["node_modules/**", "test/hosts/node_modules/**"],
    // the host programs spawn MCP servers and take seconds each (budget: HOST-PROBES.md)
    // a test's time includes its runs' wait for a host-program slot (test/hosts/slots.mjs);
    // each run has its own timeout, which catches a hang
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: "forks",
    // files run side by side: most of the time is spent waiting on host processes
    maxWorkers: 3,
    // as npm test's: a scratch TMPDIR for the run and a hermetic worker (test/support/suite-setup.ts)
    ...HERMETIC_SETUP,
    env: await suiteEnv(),
  },
});

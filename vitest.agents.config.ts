// The agent-loop suite (`npm run test:agents`, scripts/test-agents.sh): the hosts'
// own headless agents against the scripted fake model. Kept out of `npm test`.
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import { lazyRequireAsImport } from "./test/support/lazy-require";

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
    // as npm test's (vitest.config.ts): one scratch TMPDIR for the run, removed at its end, and a
    // hermetic worker (a scratch HOME, no hcpx switch or user place from the developer's shell)
    globalSetup: ["test/support/run-tmp.ts"],
    setupFiles: ["test/support/env.ts"],
    // named before the setup moves HOME and TMPDIR: the hosts' programs (scripts/install-hosts.sh), and the
    // host-program slots every suite of this user shares (test/hosts/slots.mjs), not one set a run
    env: {
      HCPX_HOSTS_DIR: process.env.HCPX_HOSTS_DIR || join(homedir(), ".cache", "hcpx-hosts"),
      HCPX_HOST_SLOTS_DIR:
        process.env.HCPX_HOST_SLOTS_DIR || join(tmpdir(), `hcpx-host-slots-${process.getuid?.() ?? 0}`),
    },
  },
});

// The host e2e suite (`npm run test:hosts`): the real host programs installed by
// scripts/install-hosts.sh (HCPX_HOSTS_DIR, default ~/.cache/hcpx-hosts) against
// what `hcpx adopt` / `hcpx generate --as` write. Kept out of `npm test`.
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import { lazyRequireAsImport } from "./test/support/lazy-require";

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

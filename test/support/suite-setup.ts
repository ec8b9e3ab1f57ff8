// What every vitest config of the repository sets up (vitest.config.ts, and the slower suites':
// hostile, Prism, hosts, agents), so that each of their runs is as hermetic as npm test's:
// test/support/run-tmp.ts gives the run one scratch TMPDIR, removed when it ends, and
// test/support/env.ts gives each file a scratch HOME without the developer's hcpx switches or
// user places. test/support/hermetic.test.ts checks each config against it.
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";

export const HERMETIC_SETUP = {
  globalSetup: ["test/support/run-tmp.ts"],
  setupFiles: ["test/support/env.ts"],
};

/**
 * The host suites' places in the developer's HOME and TMPDIR, named when the config loads, before
 * the setup moves both: the hosts' programs (scripts/install-hosts.sh) and the host-program slots
 * every suite of this user shares (test/hosts/slots.mjs), not one set a run.
 */
export function hostSuiteEnv(): Record<string, string> {
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  return {
    HCPX_HOSTS_DIR: process.env.HCPX_HOSTS_DIR || join(homedir(), ".cache", "hcpx-hosts"),
    HCPX_HOST_SLOTS_DIR: process.env.HCPX_HOST_SLOTS_DIR || join(tmpdir(), `hcpx-host-slots-${uid}`),
  };
}

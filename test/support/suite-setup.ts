// What every vitest config of the repository sets up (vitest.config.ts, and the slower suites':
// hostile, Prism, hosts, agents), so that each of their runs is as hermetic as npm test's:
// test/support/run-tmp.ts gives the run one scratch TMPDIR, removed when it ends, and
// test/support/env.ts gives each file a scratch HOME without the developer's hcpx switches or
// user places. test/support/hermetic.test.ts checks each config against it.
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const TEST = dirname(dirname(fileURLToPath(import.meta.url)));

// test/support/repo-writes.ts: and the run fails when it changed the repository's data folders (dist,
// hosts, templates, packs, bins, test/fixtures), which its files read from several workers at once.
export const HERMETIC_SETUP = {
  globalSetup: ["test/support/run-tmp.ts", "test/support/repo-writes.ts"],
  setupFiles: ["test/support/env.ts"],
};

/** npm test's and the hostile suite's: the same, with the run's scratch folder in memory where there is room (test/support/run-tmp-memory.ts). */
export const HERMETIC_SETUP_IN_MEMORY = {
  globalSetup: ["test/support/run-tmp-memory.ts", "test/support/repo-writes.ts"],
  setupFiles: HERMETIC_SETUP.setupFiles,
};

/**
 * The places of the developer's HOME and TMPDIR a suite uses, named when its config loads, before
 * the setup moves both; each as its own module names it (the scripts outside vitest read the same):
 * the hosts' programs (test/hosts/hostcli.mjs, scripts/install-hosts.sh), the host-program slots every
 * suite of this user shares, not one set a run (test/hosts/slots.mjs), and the Prism suite's large
 * OpenAPI documents (test/openapi/docs-dir.mjs, scripts/install-openapi-docs.sh).
 */
export async function suiteEnv(): Promise<Record<string, string>> {
  const mod = (f: string) => import(pathToFileURL(join(TEST, f)).href);
  const { HOSTS_DIR } = (await mod("hosts/hostcli.mjs")) as { HOSTS_DIR: string };
  const { slotsDir } = (await mod("hosts/slots.mjs")) as { slotsDir: () => string };
  const { openapiDocsDir } = (await mod("openapi/docs-dir.mjs")) as { openapiDocsDir: () => string };
  return {
    HCPX_HOSTS_DIR: HOSTS_DIR,
    HCPX_HOST_SLOTS_DIR: slotsDir(),
    HCPX_OPENAPI_DOCS_DIR: openapiDocsDir(),
  };
}

// vitest's globalSetup (vitest.config.ts): one scratch folder for the whole run
// that holds every temporary folder its tests make, the workers' and their
// children's (TMPDIR, which os.tmpdir() reads at each call, is set here before
// the workers start, and they and their children inherit it), removed when the
// run ends. A run left ~1,900 folders in /tmp (~400 MB) before. One for the run,
// not one a file: support modules keep a fixture they built for the next file of
// the same worker (test/mcp/support.ts's seeded ledger).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pidAlive } from "../../src/util/fsio";

/** The file in a run's folder that names the process that made it. */
const OWNER = ".owner-pid";

/**
 * The folders in `base` that runs killed before their teardown left (in /dev/shm they hold memory
 * until the machine restarts): those whose owner file names a process that is gone. A folder without
 * one (an older run's, or one another run has just made) is left alone, as is one whose owner lives.
 */
export function sweepDeadRuns(base: string): string[] {
  const swept: string[] = [];
  let names: string[];
  try {
    names = readdirSync(base).filter((n) => n.startsWith("hcpx-test-"));
  } catch {
    return swept;
  }
  for (const n of names) {
    let pid: number;
    try {
      pid = Number(readFileSync(join(base, n, OWNER), "utf8"));
    } catch {
      continue;
    }
    if (!Number.isSafeInteger(pid) || pid <= 0 || pidAlive(pid)) continue;
    try {
      rmSync(join(base, n), { recursive: true, force: true });
      swept.push(n);
    } catch {
      // another user's, or going as we look: not ours to remove
    }
  }
  return swept;
}

/** The run's scratch folder, made in `base`; the teardown that removes it. */
export function runTmp(base: string): () => void {
  // vitest runs a globalSetup once for the config and once for each project that extends it (four
  // times here): the first makes the folder, the others find it (not a folder inside a folder inside a
  // folder: a unix socket's path past 107 bytes is cut, and a test's socket was then bound elsewhere).
  if (process.env.HCPX_TEST_RUN_TMP) return () => {};
  sweepDeadRuns(base);
  const dir = mkdtempSync(join(base, "hcpx-test-"));
  writeFileSync(join(dir, OWNER), String(process.pid));
  process.env.HCPX_TEST_RUN_TMP = dir;
  process.env.TMPDIR = dir;
  return () => {
    rmSync(dir, { recursive: true, force: true });
    delete process.env.HCPX_TEST_RUN_TMP;
  };
}

/** The slower suites' (hosts, agents, Prism): in the temporary folder the run was given (TMPDIR or /tmp). */
export default function setup(): () => void {
  return runTmp(tmpdir());
}

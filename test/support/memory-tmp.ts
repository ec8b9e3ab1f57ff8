// Where npm test's scratch folder goes (test/support/run-tmp-memory.ts): /dev/shm when it is a tmpfs
// with room for a run, else nowhere in memory. Reads only: test/support/hermetic.test.ts checks it.
import { accessSync, constants, statfsSync } from "node:fs";

export const TMPFS_MAGIC = 0x01021994;
/** A run's peak in its scratch folder is a few hundred MB (sparse files aside): ask for several times it. */
const ROOM = 2 * 2 ** 30;

/** /dev/shm when it is a writable tmpfs with ROOM free (a container's is often 64 MB), else undefined. */
export function memoryBase(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.HCPX_TEST_TMP_ON_DISK === "1") return undefined;
  try {
    const s = statfsSync("/dev/shm");
    if (s.type !== TMPFS_MAGIC || s.bavail * s.bsize < ROOM) return undefined;
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return undefined;
  }
}

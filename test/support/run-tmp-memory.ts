// npm test's and the hostile suite's globalSetup: run-tmp.ts's one scratch folder, made in memory
// (/dev/shm) when the machine has a tmpfs there with room for a run, else where run-tmp.ts makes it.
// On the 2-core CI machine (a VM whose disk takes 0.3-0.8 ms to create a file or a folder, against
// ~4 µs in tmpfs) npm test made its projects, homes and packs on the disk: vitest's Duration 112-117 s
// and 66-83 CPU-s in the kernel, against 98 s and 41 CPU-s with the same files in /dev/shm.
// HCPX_TEST_TMP_ON_DISK=1 keeps the run on the disk (TMPDIR or /tmp), to run the suite there.
// The hosts' and agents' suites stay on the disk: the host programs run their own sandboxes, which
// need not show a folder in /dev.
import { tmpdir } from "node:os";
import { memoryBase } from "./memory-tmp";
import { runTmp } from "./run-tmp";

export default function setup(): () => void {
  return runTmp(memoryBase() ?? tmpdir());
}

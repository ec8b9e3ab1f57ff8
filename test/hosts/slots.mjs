// slots.mjs — how many host programs run at once, across every vitest worker
// process of the host and agent suites (and any other suite on this machine).
//
// The host programs are big native or bundled apps whose start alone is seconds of
// CPU. Three suite files side by side, each with a `describe.concurrent` block, put a
// dozen of them on 2 cores at once, and a run's own time then depends on what else
// runs: with 9 busy loops beside the suite and a dropped page cache, the slowest run
// took 26% of its timeout (an Inspector call, 7.7 of 30 s); with the slots (and a
// read-ahead of the host binaries, since removed), 10%.
// A run's timeout is meant to catch a hang of the program, not the queue before it:
// a run takes a slot first (waiting as long as it must), and its clock starts then.
//
// A slot is a file `<dir>/slot-<i>` created with O_EXCL, holding the owner's pid. A
// slot whose pid is gone (a worker killed mid-run) is taken over. It is a throttle,
// not a lock: a rare race between two takeovers lets one run more in, never fewer,
// and no slot stays held by nobody. HCPX_HOST_SLOTS sets
// the number (default: the machine's cores + 1: a host waiting on its MCP servers or
// on the fake model leaves the CPU to another).
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";

const uid = typeof process.getuid === "function" ? process.getuid() : 0;
/** Where the slots are: one place for every suite of this user (HCPX_HOST_SLOTS_DIR moves it). */
export const slotsDir = () => process.env.HCPX_HOST_SLOTS_DIR || join(tmpdir(), `hcpx-host-slots-${uid}`);

export function slotCount() {
  const n = Number(process.env.HCPX_HOST_SLOTS);
  return Number.isInteger(n) && n > 0 ? n : availableParallelism() + 1;
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
};

/** Try each slot once: the path of the one taken, or undefined when all are held. */
function tryTake(dir, n) {
  for (let i = 0; i < n; i++) {
    const p = join(dir, `slot-${i}`);
    try {
      const fd = openSync(p, "wx");
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      return p;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
    }
    // held: take it over only when its owner is gone (an empty file is being written, unless old)
    let text = "",
      mtime = Date.now();
    try {
      text = readFileSync(p, "utf8");
      mtime = statSync(p).mtimeMs;
    } catch {
      continue;
    }
    const pid = Number.parseInt(text, 10);
    const stale = Number.isInteger(pid) && pid > 0 ? !alive(pid) : Date.now() - mtime > 10_000;
    if (stale) rmSync(p, { force: true }); // the next round may take it (another waiter may be first)
  }
  return undefined;
}

/**
 * Wait for a free slot; resolves { release, waitedMs }. Release exactly once (a
 * second call does nothing), in a finally.
 */
export async function takeSlot() {
  const dir = slotsDir();
  mkdirSync(dir, { recursive: true });
  const n = slotCount();
  const t0 = Date.now();
  let delay = 50;
  for (;;) {
    const p = tryTake(dir, n);
    if (p) {
      let held = true;
      return {
        waitedMs: Date.now() - t0,
        release: () => {
          if (!held) return;
          held = false;
          rmSync(p, { force: true });
        },
      };
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(500, delay * 2);
  }
}

/** fn() while holding a slot. */
export async function withSlot(fn) {
  const s = await takeSlot();
  try {
    return await fn(s.waitedMs);
  } finally {
    s.release();
  }
}

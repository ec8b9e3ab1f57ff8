// Opt-in (HCPX_TEST_CPU_LOG=<file>): after each test file, append the CPU its
// worker used, its own and its waited-for children's (the CLI runs, bins,
// servers), from /proc/self/stat: the figure that says where `npm test`'s time
// goes on a busy machine, where wall times do not. Then the worker's pid and its
// resident MiB before and after the file: a worker that stays large makes each
// child it starts dearer (fork() copies its page tables). Last, when the file
// started and ended (ms since the epoch): its wall time less its CPU is the
// time its worker's core waited (a timer, a child's sleep, the racy rule's
// 3 s), which a CPU figure alone does not show.
import { appendFileSync, readFileSync } from "node:fs";
import { afterAll, expect } from "vitest";

const log = process.env.HCPX_TEST_CPU_LOG;
if (log) {
  const ticks = () => {
    const s = readFileSync("/proc/self/stat", "utf8");
    const f = s
      .slice(s.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    // fields 14-17 of stat (utime, stime, cutime, cstime), 0-based 11-14 after the name
    return { self: f[11]! + f[12]!, children: f[13]! + f[14]! };
  };
  const mib = (n: number) => Math.round(n / 2 ** 20);
  const t0 = ticks();
  const started = Date.now();
  const rss0 = mib(process.memoryUsage.rss());
  afterAll(() => {
    const t = ticks();
    const file = expect.getState().testPath ?? "?";
    appendFileSync(
      log,
      `${((t.self - t0.self) / 100).toFixed(2)}\t${((t.children - t0.children) / 100).toFixed(2)}\t${file}\t${process.pid}\t${rss0}\t${mib(process.memoryUsage.rss())}\t${started}\t${Date.now()}\n`,
    );
  });
}

import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { lazyRequireAsImport } from "./test/support/lazy-require";
import { SHARED_FILES, WAITING_FILES } from "./test/support/shared-worker";
import { KeptDurationsSequencer } from "./test/support/sequencer";
import { HERMETIC_SETUP_IN_MEMORY, suiteEnv } from "./test/support/suite-setup";

const WORKERS = Math.max(2, availableParallelism());
// The first group's: six more than the cores (8 on the 2-core machine), not a multiple of them (a 16-core
// machine would start 64 workers, each with its module graph, for ~51 files). Its files mostly sleep (27
// of them used ~30 CPU-s in ~33 s of the phase with 4 workers, 1 core idle); with 8 the phase took ~22 s.
const WAIT_WORKERS = WORKERS + 6;
// The second group's: one more than the cores (vitest's default is one fewer: on 2 cores, one file at a
// time). Its files wait too, on the processes they start (2 workers kept the 2 cores ~1.65 busy over
// ~81 s); a third fills that, for ~1-2 CPU-s more module loading. Every project sets its own count.
const SHARED_WORKERS = WORKERS + 1;
const EXCLUDE = ["test/hosts/**", "test/agents/**", "test/openapi/**", "node_modules/**"];

export default defineConfig({
  plugins: [lazyRequireAsImport()],
  // the library's own name (tsconfig.json "paths"): tests run its sources
  resolve: {
    alias: [
      { find: /^hcpx$/, replacement: fileURLToPath(new URL("./src/lib/index.ts", import.meta.url)) },
      {
        find: /^hcpx\/(ai-sdk|anthropic|openai-agents)$/,
        replacement: fileURLToPath(new URL("./src/lib/$1.ts", import.meta.url)),
      },
    ],
  },
  test: {
    // Each file runs in a fresh worker process of its own (isolate), but for the
    // files that keep no state between files (test/support/shared-worker.ts,
    // checked by test/arch/shared-worker.test.ts): they share their workers,
    // without a process start and module graph each (~0.3 CPU-s a file).
    // Two groups, one after the other: first the isolated files and the shared
    // ones that mostly wait (WAITING_FILES: a timeout, a keep-alive, the racy
    // rule's 3 s), six more at once than there are cores (WAIT_WORKERS), so that
    // their waits overlap; the isolated ones wait too (~22 CPU-s in ~44 s of their
    // files' time, HCPX_TEST_CPU_LOG). Then the rest, one worker more than the
    // cores (SHARED_WORKERS). On the 2-core machine the isolated files took 24 s ->
    // 13-16 s, the waiting ones the next 16-20 s (~31 s of the two workers before),
    // and vitest's Duration was 122-141 s in seven runs before, 108-124 s in four
    // after (stop 60). Stop 75, another machine of the kind: with 2 + 2 more and
    // one worker a core 122.2 and 126.6 s; with 8 and 2, 115.5 and 112.7 s; with
    // 8 and 3, 112.3, 104.5 and 107.9 s (the same ~190 CPU-s in all).
    projects: [
      {
        extends: true,
        test: {
          name: "isolated",
          include: ["test/**/*.test.ts"],
          exclude: [...EXCLUDE, ...SHARED_FILES],
          sequence: { groupOrder: 0 },
          maxWorkers: WAIT_WORKERS,
        },
      },
      {
        extends: true,
        test: {
          name: "shared-waits",
          include: WAITING_FILES,
          isolate: false,
          sequence: { groupOrder: 0 },
          maxWorkers: WAIT_WORKERS,
        },
      },
      {
        extends: true,
        test: {
          name: "shared",
          include: SHARED_FILES.filter((f) => !WAITING_FILES.includes(f)),
          isolate: false,
          sequence: { groupOrder: 1 },
          maxWorkers: SHARED_WORKERS,
        },
      },
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // forks, not threads: suites chdir and set process.env (the in-process
    // malformed-input suite, the library tests), which worker threads forbid.
    pool: "forks",
    // a file vitest has no last duration for (a fresh clone) takes the one kept in test/support/durations.json,
    // so the longest start first there too (test/support/sequencer.ts)
    sequence: { sequencer: KeptDurationsSequencer },
    // HCPX_TEST_CPU_LOG=<file>: the CPU each file used, children included
    // test/support/env.ts: children start without NODE_EXTRA_CA_CERTS (~55 ms CPU each)
    // test/support/forget-secrets.ts: what one file's runs left in the redaction's set goes with it
    // test/support/release-held.ts: and what they left held (a config edit's lock)
    // test/support/shared-composites.ts: a shared file that loaded a composite module (it would stay) fails
    // test/support/run-tmp-memory.ts: every temporary folder of the run in one, removed when it ends,
    // in memory (/dev/shm) where there is room: the CI machine's disk is slow to make files (npm test
    // 112.4 s with it on the disk, 100.4 s in memory, one run each at the same hour)
    // (and test/support/repo-writes.ts: the run fails when the repository's data folders changed while it ran)
    globalSetup: HERMETIC_SETUP_IN_MEMORY.globalSetup,
    // the host programs test/adopt/bundle.test.ts validates with, where the hosts suite installed them
    env: await suiteEnv(),
    setupFiles: [
      ...HERMETIC_SETUP_IN_MEMORY.setupFiles,
      "test/support/cpu-log.ts",
      "test/support/forget-secrets.ts",
      "test/support/release-held.ts",
      "test/support/shared-composites.ts",
    ],
    // the transformed sources kept between runs (node_modules/.experimental-vitest-cache,
    // keyed by each file's content and the config): ~2-3 CPU-s less a run once warm
    // (perf stat, 1-3 files: 7.8 -> 4.9 and 25.4 -> 23.7 CPU-s); `npx vitest --clearCache` empties it
    experimental: { fsModuleCache: true },
  },
});

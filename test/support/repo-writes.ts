// npm test's globalSetup (vitest.config.ts): the run fails when anything in the repository's data folders
// changed while it ran. Those folders (the build, the host descriptors and templates, the example packs and
// bins, the test fixtures) are what every file reads, from several workers at once: a test that writes a
// file of its own there, even one it removes at its end, is seen by the files running beside it.
// test/adopt/descriptor.test.ts wrote ~40 descriptors into hosts/ while it ran, and
// test/adopt/paths-fast.test.ts, in another worker, counted 86 path joins against its bound of 30 (stop 75);
// templates.test.ts made templates/zz-test-host; shell-route.test.ts chmod-ed dist/hcpx.cjs. A test writes
// in its scratch folders (test/support/project.ts tmp) and checks a descriptor's or template's text with
// checkDescriptor or compileTemplate.
//
// vitest reports a global teardown that throws and still exits 0, so this sets the exit code and says
// what changed. fs.watch is recursive on Linux since Node 19.1 (inotify, a watch a folder). A person who
// edits these folders while the suite runs fails the run too: the message says so.
import { existsSync, watch, type FSWatcher } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The folders read as data by the code and the tests, relative to the repository. */
export const WATCHED = ["dist", "hosts", "templates", "packs", "bins", "test/fixtures"];

/** Watch `dirs` under `root`; the function returned stops watching and gives the paths that changed, sorted. */
export function watchWrites(root: string, dirs: readonly string[]): () => string[] {
  const changed = new Set<string>();
  const watchers: FSWatcher[] = [];
  for (const d of dirs) {
    const dir = join(root, d);
    if (!existsSync(dir)) continue;
    watchers.push(
      watch(dir, { recursive: true }, (event, name) =>
        changed.add(`${event} ${relative(root, join(dir, String(name ?? "")))}`),
      ),
    );
  }
  return () => {
    for (const w of watchers) w.close();
    return [...changed].sort();
  };
}

/**
 * vitest runs a config's globalSetup once a project (three in npm test), each in a module instance of its own,
 * in one process: one watch, kept on globalThis, told once, by the last teardown.
 */
const KEY = Symbol.for("hcpx.test.repo-writes");
type Shared = { stop: () => string[]; users: number };
const store = globalThis as { [KEY]?: Shared };

export default function setup(): () => void {
  const shared = (store[KEY] ??= { stop: watchWrites(REPO, WATCHED), users: 0 });
  shared.users++;
  return () => {
    if (--shared.users > 0) return;
    const changed = shared.stop();
    delete store[KEY];
    if (changed.length === 0) return;
    process.stderr.write(
      `\nnpm test: the repository's data folders changed during the run (${WATCHED.join(", ")}), ` +
        `which the test files read from several workers at once:\n${changed.map((c) => `  ${c}\n`).join("")}` +
        `A test writes in its scratch folders (test/support/project.ts tmp), never there; ` +
        `if you changed these yourself during the run, run it again.\n`,
    );
    process.exitCode = 1;
  };
}

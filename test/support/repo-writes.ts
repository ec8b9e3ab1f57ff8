// A globalSetup of every suite (test/support/suite-setup.ts: npm test, hostile, Prism, hosts, agents):
// the run fails when anything in the repository's data folders changed while it ran. Those folders (the build, the host descriptors and templates, the example packs and
// bins, the test fixtures) are what every file reads, from several workers at once: a test that writes a
// file of its own there, even one it removes at its end, is seen by the files running beside it.
// test/adopt/descriptor.test.ts wrote ~40 descriptors into hosts/ while it ran, and
// test/adopt/paths-fast.test.ts, in another worker, counted 86 path joins against its bound of 30 (stop 75);
// templates.test.ts made templates/zz-test-host; shell-route.test.ts chmod-ed dist/hcpx.cjs. A test writes
// in its scratch folders (test/support/project.ts tmp) and checks a descriptor's or template's text with
// checkDescriptor or compileTemplate.
//
// vitest reports a global teardown that throws and still exits 0, so this sets the exit code and says what
// changed (inotify, through fs.watch: a watch a folder). A person who edits these folders while the suite
// runs fails the run too: the message says so.
import { existsSync, readdirSync, watch, type FSWatcher } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The folders read as data by the code and the tests, relative to the repository. */
export const WATCHED = ["dist", "hosts", "templates", "packs", "bins", "test/fixtures"];

/**
 * Watch `dirs` under `root`, each folder in them with a watch of its own (not fs.watch's `recursive`: Node 20's
 * own walk on Linux missed a folder made and removed at once, templates/zz-test-host; seen). A folder made
 * during the run is a change itself, so what is inside it needs no watch. The function returned stops
 * watching and gives the paths that changed, sorted.
 */
export function watchWrites(root: string, dirs: readonly string[]): () => string[] {
  const changed = new Set<string>();
  const watchers: FSWatcher[] = [];
  const add = (dir: string) => {
    try {
      const w = watch(dir, (event, name) => changed.add(`${event} ${relative(root, join(dir, String(name ?? "")))}`));
      // a watched folder removed or moved: a change too, and never an unhandled 'error' in vitest's process
      w.on("error", (e) => changed.add(`error ${relative(root, dir)}: ${e.message}`));
      watchers.push(w);
    } catch (e) {
      // out of inotify watches (ENOSPC), say: the run goes on, unchecked there, and says so
      process.stderr.write(
        `test run: cannot watch ${relative(root, dir)} (${(e as Error).message}): writes there go unseen this run\n`,
      );
      return;
    }
    for (const d of readdirSync(dir, { withFileTypes: true })) if (d.isDirectory()) add(join(dir, d.name));
  };
  for (const d of dirs) if (existsSync(join(root, d))) add(join(root, d));
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
      `\ntest run: the repository's data folders changed during the run (${WATCHED.join(", ")}), ` +
        `which the test files read from several workers at once:\n${changed.map((c) => `  ${c}\n`).join("")}` +
        `A test writes in its scratch folders (test/support/project.ts tmp), never there; ` +
        `if you changed these yourself during the run, run it again.\n`,
    );
    process.exitCode = 1;
  };
}

// What a host program leaves in the machine's /tmp whatever TMPDIR says, out of reach of the run's
// scratch TMPDIR (./run-tmp.ts): Codex makes /tmp/codex-daemon-<uid> (empty at its exit) on every
// agent-loop run that starts it, though test/agents/support.ts gives it a TMPDIR of its own. The
// agent-loop suite's globalSetup (vitest.agents.config.ts): such a folder that the run made (it was not
// there at the start) is removed at the end when it is a folder of this user's and empty; one that was
// there before, or that holds anything, is left as it was found.
import { lstatSync, rmdirSync } from "node:fs";
import { isThere } from "../../src/util/readfile";

/** The places host programs make in /tmp whatever TMPDIR says. */
export function hostTmpLeftovers(): string[] {
  return [`/tmp/codex-daemon-${process.getuid?.() ?? 0}`];
}

/** Note which of `dirs` exist now; the teardown removes the others that the run made, when empty and this user's (it returns those). */
export function removeWhatTheRunMade(dirs: string[]): () => string[] {
  const there = new Set(dirs.filter(isThere));
  return () => {
    const removed: string[] = [];
    for (const d of dirs) {
      if (there.has(d)) continue;
      try {
        const st = lstatSync(d);
        if (!st.isDirectory() || (process.getuid !== undefined && st.uid !== process.getuid())) continue;
        rmdirSync(d); // an empty folder only
        removed.push(d);
      } catch {
        // absent, not empty, or not ours to remove
      }
    }
    return removed;
  };
}

export default function setup(): () => string[] {
  return removeWhatTheRunMade(hostTmpLeftovers());
}

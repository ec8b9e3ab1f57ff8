// Settings files the host skips as a whole (descriptor `gate.skipped`): Claude Code 2.1.332 reads none of a settings
// file that is not plain JSON or holds a known key of another type (test/hosts/HOST-PROBES.md), so the ask rule adopt
// wrote there asks nothing, and a permission mode there does not hide the next file's. hcpx tests a file against the
// shape the descriptor gives (./settings-shape.ts `misfitOf`): what sinks such a file (probed, or read in the host's
// own settings schema). A file it finds skipped: its ask rule does not count (src/host/approval.ts; hcpx asks the
// person itself), and adopt --check and doctor name the file and the key (src/host/health.ts).
import type { Problem } from "../util/errors";
import type { Descriptor } from "./descriptor";
import { misfitOf } from "./settings-shape";

/** Why the host skips the file it reads at `path` (as the descriptor names it) holding `text`; undefined: it reads it. */
export function skippedWhy(d: Descriptor, path: string, text: string): string | undefined {
  const s = d.gate?.skipped;
  if (!s || !s.path.includes(path)) return undefined;
  return misfitOf(text, s.shape)?.why;
}

/**
 * `skippedWhy` as a test of a file the host reads at `path` holding `text`, each (path, text) judged once: one
 * check of the host's settings reads the same files for each of its facts.
 */
export function skipsOf(d: Descriptor): (path: string, text: string) => boolean {
  const judged = new Map<string, boolean>();
  return (path, text) => {
    const k = `${path}\0${text}`;
    let v = judged.get(k);
    if (v === undefined) judged.set(k, (v = skippedWhy(d, path, text) !== undefined));
    return v;
  };
}

/** The warning for a skipped file that holds the ask rule adopt wrote (`shown`: the file as the person knows it). */
export function skippedAskProblem(d: Descriptor, shown: string, why: string): Problem {
  return {
    code: "policy_widened",
    severity: "warning",
    file: shown,
    message:
      `${d.name} skips ${shown} as a whole (${why}; ${d.gate!.skipped!.what}): the ask rule adopt wrote there is not ` +
      `read, so hcpx does not count ${d.name}'s prompt for a write the Policy gates with confirm: it asks the person ` +
      `itself where it can`,
    hint: `fix ${shown} (${why}) so that ${d.name} reads it again; until then hcpx asks for gated writes itself`,
  };
}

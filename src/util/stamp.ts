// File stamps for the per-call reuse of what the one tool-call front
// (src/mcp/view-cache.ts) loaded: the project (its config files) and a pack
// (the packs' surface.json and policy.json); also the server config and tokens
// file (src/mcp/team-config.ts) and a composite's checked module path
// (src/runtime/composite.ts). A call is decided on the files as they are
// now; a stamp only says "nothing changed since the load" cheaply (one stat a
// file instead of a read, parse and validation).
//
// A stamp is each file's device, inode, size, mtime and ctime. The ctime is
// set to the current time by every change (a write, a rename in, a chmod, a
// utimes that sets the mtime back), and no one can set it back; but the
// clock it comes from is coarse (a kernel tick, ~1-10 ms; up to 2 s on some
// file systems), so two same-size writes within one tick can leave every
// field equal. The rule that closes that gap (git's "racy" rule): a file
// whose ctime or mtime is within RACY_MS of now (or ahead of now) is too
// recent to vouch for its content; the stamp is then undefined and the
// caller loads the files again, on every call, until they have aged. A stamp
// taken of files RACY_MS old can only match again if no change came since:
// any later change gets a ctime at least (now - a tick), later than the one
// stamped. The stamp is taken before the load, so a change during the load
// leaves a stamp that the next call finds different.
import { statSync } from "node:fs";

/** Longer than the coarsest timestamp granularity of a file system hcpx may read (2 s: FAT), with a margin. */
export const RACY_MS = 3000;

/**
 * Whether a file with these times was last changed at least RACY_MS before
 * `at`, so that its stamp can vouch for what was read of it then. Written so
 * that a time that is not a number (an identity that did not parse) is never
 * settled.
 */
export function settled(t: { ctimeMs: number; mtimeMs: number }, at: number): boolean {
  return at - t.ctimeMs >= RACY_MS && at - t.mtimeMs >= RACY_MS;
}

export type StatFn = (
  file: string,
) => { dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number } | undefined;

const statOf: StatFn = (file) => {
  try {
    // a missing file (the usual user config) is an answer, not an exception: a thrown ENOENT costs ~5x the stat
    return statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
};

/**
 * The stamp of `files` (undefined entries: no such file, "-"), or undefined
 * when any file changed too recently to be vouched for by its stamp.
 */
export function stampOf(
  files: readonly (string | undefined)[],
  now: number = Date.now(),
  stat: StatFn = statOf,
): string | undefined {
  let out = "";
  for (const f of files) {
    const st = f === undefined ? undefined : stat(f);
    if (st) {
      if (!settled(st, now)) return undefined;
      out += `${f}=${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}|`;
    } else out += `${f ?? ""}=-|`;
  }
  return out;
}

/** Whether a stamp of stampOf names a missing file ("-"): a value kept with it would vouch for a file that is not there. */
export function namesMissing(stamp: string): boolean {
  return stamp.includes("=-|");
}

/**
 * Whether each file (missing ones aside) was last changed at least RACY_MS
 * before `readAt`: what was read of it then can be vouched for by its stamp
 * later (the start cache, start-cache.ts, keeps an entry only then).
 */
export function settledBefore(files: Iterable<string>, readAt: number, stat: StatFn = statOf): boolean {
  for (const f of files) {
    const st = stat(f);
    // missing: its identity is "-", and its appearing changes that
    if (st && !settled(st, readAt)) return false;
  }
  return true;
}

/**
 * One value loaded from files, reused while their stamp is unchanged: get()
 * stamps the files (before loading), and loads anew when the stamp differs
 * or is undefined (a file too recent); a load that throws is never kept.
 */
export class Stamped<T> {
  private kept: { stamp: string; value: T } | undefined;
  constructor(
    private readonly stat: StatFn = statOf,
    private readonly clock: () => number = Date.now,
  ) {}

  get(files: readonly (string | undefined)[], load: () => T): T {
    const stamp = stampOf(files, this.clock(), this.stat);
    const k = this.kept;
    if (stamp !== undefined && k && k.stamp === stamp) return k.value;
    this.kept = undefined;
    const value = load();
    if (stamp !== undefined) this.kept = { stamp, value };
    return value;
  }

  /** Forget the value (the next get() loads). */
  drop(): void {
    this.kept = undefined;
  }
}

/** A missing file's device in Marks (a device number is never negative). */
const MISSING = -1;

/**
 * A stamp kept as numbers, compared in place: the same rule as stampOf (one
 * stat a file, taken before the load, never of a file changed within RACY_MS),
 * without the string. A call that checks every active pack's surface.json
 * built ~100 bytes of stamp a file; at 1,000 packs that was a 100 KB string on
 * every call, and the scavenges it made.
 */
export class Marks {
  private constructor(
    readonly files: readonly string[],
    private readonly v: Float64Array,
  ) {}

  /** The files' identities now, or undefined when one changed within RACY_MS of `now` (nothing can be vouched for). */
  static take(files: readonly string[], now: number, stat: StatFn = statOf): Marks | undefined {
    const v = new Float64Array(files.length * 5);
    for (let i = 0; i < files.length; i++) {
      const st = stat(files[i]!);
      if (!st) {
        v[i * 5] = MISSING;
        continue;
      }
      if (!settled(st, now)) return undefined;
      const o = i * 5;
      v[o] = st.dev;
      v[o + 1] = st.ino;
      v[o + 2] = st.size;
      v[o + 3] = st.mtimeMs;
      v[o + 4] = st.ctimeMs;
    }
    return new Marks(files, v);
  }

  /**
   * Whether every file is as it was taken (one stat each, stopping at the first that is not). Taken of
   * files RACY_MS old, an identity that still matches vouches for the content read then (see stampOf).
   */
  holds(stat: StatFn = statOf): boolean {
    const v = this.v;
    for (let i = 0; i < this.files.length; i++) {
      const st = stat(this.files[i]!);
      const o = i * 5;
      if (!st) {
        if (v[o] !== MISSING) return false;
        continue;
      }
      if (
        v[o] !== st.dev ||
        v[o + 1] !== st.ino ||
        v[o + 2] !== st.size ||
        v[o + 3] !== st.mtimeMs ||
        v[o + 4] !== st.ctimeMs
      )
        return false;
    }
    return true;
  }

  /** The marks of the files `keep` says (the same identities, taken when these were). */
  only(keep: (file: string, i: number) => boolean): Marks {
    const files: string[] = [];
    const v: number[] = [];
    this.files.forEach((f, i) => {
      if (!keep(f, i)) return;
      files.push(f);
      for (let k = 0; k < 5; k++) v.push(this.v[i * 5 + k]!);
    });
    return new Marks(files, Float64Array.from(v));
  }
}

// File stamps for the per-call reuse of what the one tool-call front
// (src/mcp/view-cache.ts) loaded: the project (its config files) and a pack
// (the packs' surface.json and policy.json); also the server config and tokens
// file (src/mcp/team-config.ts) and a composite's checked module path and
// imported module (src/runtime/composite.ts). A call is decided on the files as they are
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
import { statSync, type Stats } from "node:fs";

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

/**
 * `file`'s stat (through links), undefined when it is missing or cannot be stat()ed: a missing file (the usual
 * user config, most of HOME's secret paths) is an answer, not an exception, which costs ~5x the stat (a stack
 * captured, ~60 K instructions).
 */
export function quietStat(file: string): Stats | undefined {
  try {
    return statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * A server that decides many calls at once (`hcpx mcp --http`: serveHttp in src/mcp/server.ts) stats
 * each stamped file once per turn of its event loop: the calls it takes up in one turn (requests that
 * arrived together) are decided on the files as that turn's first stat found them, and a change made
 * while they are decided applies from the next turn's calls. A stat is never kept longer than
 * TURN_MS, should a turn run long. A stat a file per call was the largest single cost of an HTTP
 * tools/call (the `stat` system call: 11-14% of the server's busy time under 16 connections, CPU
 * profile); docs/design.md has the figures. Off elsewhere: a command, hcpx exec and a stdio
 * server (one client, one call at a time) stat each time. The stamps' rules are the same either way:
 * a stat only ever comes earlier, so a file that changed is at worst loaded once more, and a file
 * changed within RACY_MS is still never vouched for.
 */
let perTurn = false;
/** ms a stat is kept at the most */
export const TURN_MS = 10;
let turn: { at: number; stats: Map<string, Stats | undefined> } | undefined;
const endTurn = (): void => {
  turn = undefined;
};

/** Stat each stamped file once per turn of the event loop in this process (serveHttp; see above). */
export function statOncePerTurn(): void {
  perTurn = true;
}

/** The stamps' stat: quietStat, or with statOncePerTurn() the one this turn of the event loop took. */
export function stampStat(file: string): Stats | undefined {
  if (!perTurn) return quietStat(file);
  const now = Date.now();
  if (turn === undefined || now - turn.at > TURN_MS) {
    if (turn === undefined) setImmediate(endTurn);
    turn = { at: now, stats: new Map() };
  }
  const { stats } = turn;
  if (stats.has(file)) return stats.get(file);
  const st = quietStat(file);
  stats.set(file, st);
  return st;
}

const statOf: StatFn = stampStat;

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

/** A file's identity as five numbers (device, inode, size, mtime, ctime), in the order sameIdentity reads them. */
export type Identity = [dev: number, ino: number, size: number, mtimeMs: number, ctimeMs: number];

/** The identity of the file `st` describes (Marks below; a pack's surface remembered by src/pack/undeclared.ts). */
export function identityOf(st: NonNullable<ReturnType<StatFn>>): Identity {
  return [st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs];
}

/**
 * Whether `st` has the identity kept at `v[o]` … `v[o + 4]` (identityOf's five numbers, those of stampOf).
 */
export function sameIdentity(v: ArrayLike<number>, o: number, st: NonNullable<ReturnType<StatFn>>): boolean {
  return (
    v[o] === st.dev && v[o + 1] === st.ino && v[o + 2] === st.size && v[o + 3] === st.mtimeMs && v[o + 4] === st.ctimeMs
  );
}

/** A missing file's device in Marks (a device number is never negative). */
const MISSING = -1;

/**
 * A stamp kept as numbers, compared in place: the same rule as stampOf (one stat a file, taken before
 * the load, never of a file changed within RACY_MS), without building a string on every check (a call
 * that checks every active pack's surface.json built ~100 bytes of stamp a file: at 1,000 packs a
 * 100 KB string a call, and the scavenges it made). An undefined file is one that is not there.
 */
export class Marks {
  private constructor(
    readonly files: readonly (string | undefined)[],
    private readonly v: Float64Array,
  ) {}

  /** The files' identities now, or undefined when one changed within RACY_MS of `now` (nothing can be vouched for). */
  static take(files: readonly (string | undefined)[], now: number, stat: StatFn = statOf): Marks | undefined {
    const v = new Float64Array(files.length * 5);
    for (let i = 0; i < files.length; i++) {
      const f = files[i];
      const st = f === undefined ? undefined : stat(f);
      const o = i * 5;
      if (!st) v[o] = MISSING;
      else if (!settled(st, now)) return undefined;
      else v.set(identityOf(st), o);
    }
    return new Marks(files, v);
  }

  /**
   * Whether every file is as it was taken (one stat each, stopping at the first that is not). Taken of
   * files RACY_MS old, an identity that still matches vouches for the content read then (see stampOf).
   */
  holds(stat: StatFn = statOf): boolean {
    for (let i = 0; i < this.files.length; i++) {
      const f = this.files[i];
      const st = f === undefined ? undefined : stat(f);
      if (st ? !sameIdentity(this.v, i * 5, st) : this.v[i * 5] !== MISSING) return false;
    }
    return true;
  }

  /** The marks of the files `keep` says (the same identities, taken when these were). */
  only(keep: (file: string | undefined, i: number) => boolean): Marks {
    const at = this.files.flatMap((f, i) => (keep(f, i) ? [i] : []));
    return new Marks(
      at.map((i) => this.files[i]),
      Float64Array.from(at.flatMap((i) => [...this.v.subarray(i * 5, i * 5 + 5)])),
    );
  }
}

/**
 * One value loaded from files, reused while their stamp is unchanged: get()
 * stamps the files (before loading), and loads anew when one changed or the
 * stamp could not vouch for them (a file too recent); a load that throws is
 * never kept.
 */
export class Stamped<T> {
  private kept: { from: readonly (string | undefined)[]; marks: Marks; value: T } | undefined;
  constructor(
    private readonly stat: StatFn = statOf,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * `files`' value: the kept one while they are the files it was loaded from and none changed, else `load()`'s.
   * `narrow`: of the files stamped before the load, those the value loaded depends on (undefined: all of
   * them); the others are not checked again (a called pack and every pack's surface, src/mcp/pack-memo.ts).
   */
  get(
    files: readonly (string | undefined)[],
    load: () => T,
    narrow?: (value: T) => ((file: string | undefined, i: number) => boolean) | undefined,
  ): T {
    const k = this.kept;
    if (k && sameList(k.from, files) && k.marks.holds(this.stat)) return k.value;
    this.kept = undefined;
    const marks = Marks.take(files, this.clock(), this.stat);
    const value = load();
    if (marks) {
      const keep = narrow?.(value);
      this.kept = { from: [...files], marks: keep ? marks.only(keep) : marks, value };
    }
    return value;
  }

  /** Forget the value (the next get() loads). */
  drop(): void {
    this.kept = undefined;
  }
}

function sameList(a: readonly (string | undefined)[], b: readonly (string | undefined)[]): boolean {
  return a === b || (a.length === b.length && a.every((x, i) => x === b[i]));
}

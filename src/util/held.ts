// What a command holds until it is done (a config edit's lock, src/config/file.ts):
// released together when the command returns (src/cli/program.ts
// releaseHeld) or, at the latest, when the process exits. One 'exit' listener
// while anything is held, removed when it is released: a process that runs
// command after command (the library, the tests' in-process runs) keeps no
// lock and gathers no listener. Kept under a registered symbol: each command's
// bundle (dist/commands/*.cjs) has its own copy of this module, the program
// another, and all of them must see the same holdings.
const KEY = Symbol.for("hcpx.held");

interface Holdings {
  releases: Map<string, () => void>;
  /** the one 'exit' listener, registered while `releases` is not empty */
  onExit: () => void;
}

function holdings(): Holdings {
  const g = globalThis as Record<symbol, unknown>;
  let h = g[KEY] as Holdings | undefined;
  if (!h) {
    h = { releases: new Map(), onExit: () => releaseHeld() };
    g[KEY] = h;
  }
  return h;
}

/** Is `key` held by this process (taken and not yet released)? */
export function isHeld(key: string): boolean {
  return holdings().releases.has(key);
}

/** Hold `key` until the command is done: `release` runs once, from releaseHeld() or at exit. */
export function hold(key: string, release: () => void): void {
  const h = holdings();
  if (h.releases.has(key)) throw new Error(`hold: '${key}' is held already`);
  if (h.releases.size === 0) process.once("exit", h.onExit);
  h.releases.set(key, release);
}

/** Release everything held, and the 'exit' listener with it. Every release runs; the first error is thrown after. */
export function releaseHeld(): void {
  const h = holdings();
  process.off("exit", h.onExit);
  const all = [...h.releases.values()];
  h.releases.clear();
  let failed: unknown;
  for (const release of all) {
    try {
      release();
    } catch (e) {
      failed ??= e;
    }
  }
  if (failed !== undefined) throw failed;
}

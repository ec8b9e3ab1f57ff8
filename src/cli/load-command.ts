// Loads the command bundles (dist/commands/<name>.cjs: exec, mcp, adopt, the program
// and the commands it runs) through V8's code cache, and the bundles they split off (exec's schemas). Node 20 has no module compile cache, and compiling the ~180 KB
// bundle was most of what `hcpx exec` costs over a bare spawn script
// (callgrind: ~35 M of ~70 M instructions). So the bundle is built as
// CommonJS, compiled here with `vm.Script`, and after the first run the
// compiled code — including the functions that run lazily compiled — is
// written to `$XDG_CACHE_HOME/hcpx/v8/` (default `~/.cache/hcpx/v8/`).
//
// V8 checks a cache against the source's length and its own version and
// flags, not the source's content, so the file name carries a hash of the
// bundle fixed at build time (HCPX_BUNDLE_HASHES): another build never reads this
// one's cache. V8 does not check the cache's content either: a corrupted one
// crashes the process (SIGSEGV, or a V8 fatal error) before it could be
// rewritten. So the cache is framed and kept twice (src/util/cache.ts:
// magic, length, two copies compared before V8 sees a byte), read only when it is
// a regular file of this user's (not a link, not writable by others) and
// written through the one write door. A missing, corrupt, foreign, rejected or
// unreadable cache just means compiling, and the next save writes a good one.
// The build ships exec's and mcp's caches too (dist/cache/<same name>, scripts/build.mjs: made by
// running the built exec once, confined too where bubblewrap can confine a call there (the sandbox's
// bundle), and `hcpx mcp` through a host's start): when this user has no cache of their own, or it
// is unusable, that one is read (framed and checked the same way), and when V8
// accepts it nothing is written: the first call after install starts like a warm
// one. Another Node version or V8 flags mean another name or a rejection: then
// the user's cache is written as before. HCPX_NO_SHIPPED_CACHE=1 skips the
// shipped one (tests of the user's cache).
// HCPX_NO_CACHE=1 turns it off. Only exec and mcp keep a cache of the user's (the
// commands a host starts over and over). adopt writes nothing in $HOME it did not
// plan, and the other commands (the commander program, dist/commands/program.cjs,
// and the bundle of each command it runs) no more than they say, so they read only the
// cache the build ships (compiling adopt's bundle was ~20% of an adopt, the bench's
// comparison with add-mcp) and never write one of their own; the build makes those
// with HCPX_BUILD_CACHE=1, which lets them save it in the build's scratch cache folder.
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";
import { cacheRoot, readCache } from "../util/cache";
import { CAPS, readBytes } from "../util/readfile";
import { provideImporter } from "../util/dynamic-import";
import { BUNDLE_HASHES } from "../util/build-info";

/** The cache's file name for this build, Node and arch; undefined when caching is off. */
function cacheName(name: string): string | undefined {
  const hash = BUNDLE_HASHES?.[name];
  if (process.env.HCPX_NO_CACHE || typeof hash !== "string") return undefined;
  return `${name}-${hash}-${process.version}-${process.arch}.bin`;
}

/** The bundles with a cache of the user's (above); every other reads the shipped cache only, and writes none. */
const USER_CACHED = new Set(["exec", "exec-schemas", "exec-sandbox", "mcp"]);

function cacheFile(base: string | undefined, name: string): string | undefined {
  if (base === undefined || (!process.env.HOME && !process.env.XDG_CACHE_HOME)) return undefined;
  if (!USER_CACHED.has(name) && process.env.HCPX_BUILD_CACHE !== "1") return undefined;
  return join(cacheRoot(), "v8", base);
}

export interface Loaded<T> {
  exports: T;
  /** Write the code cache when there was none (call after the command ran, so lazily compiled code is in it). */
  save(): void;
}

/**
 * What a command bundle require()s: node's builtins; a bundle split off beside it
 * (`./<name>.cjs` in dist/commands/, a wrapped function expression like the
 * command's: exec's zod schemas, `exec-schemas`, which a warm call never builds),
 * compiled as the command is, through a code cache of its own, once per process;
 * and on rare paths a vendored file (`../vendor/json5.cjs`, scripts/build.mjs).
 * `process.getBuiltinModule` (Node ≥ 20.16) spares loading node:module for
 * createRequire on the usual path.
 */
function requireFor(file: string, distDir: string, split: Map<string, Compiled>): (id: string) => unknown {
  return (id) => {
    const sibling = /^\.\/([a-z][a-z0-9-]*)\.cjs$/.exec(id);
    if (sibling) {
      const name = sibling[1]!;
      let c = split.get(name);
      if (!c) split.set(name, (c = compile(name, join(dirname(file), id), distDir, split)));
      return c.exports;
    }
    if (id.startsWith("."))
      return (process.getBuiltinModule("node:module") as typeof import("node:module")).createRequire(file)(id);
    const m = process.getBuiltinModule(id);
    if (m === undefined) throw new Error(`a command bundle requires only node's builtins and dist/, not ${id}`);
    return m;
  };
}

/** Past this many bytes Node makes a latin1-decoded string external: its bytes in malloc'd memory, not V8's heap. */
const EXTERN_APEX = 0xfbee9;

/**
 * A bundle's text. The build writes it ASCII only (scripts/build.mjs), so latin1 decodes it to the same
 * text as UTF-8, without UTF-8's validation pass (exec's ~160 KB: ~0.4 M instructions at start). Past
 * EXTERN_APEX (hcpx mcp's 1.3 MB bundle) latin1 would leave the text outside V8's heap for the life of
 * the process, and a fork copies such memory (V8's heap is MADV_DONTFORK): every bin the server spawns
 * paid for it (hcpx mcp over a bare SDK server: ~195 → ~124 µs a spawn, docs/design.md). UTF-8 puts it in V8's heap.
 */
export function bundleSource(bytes: Buffer): string {
  return bytes.toString(bytes.length > EXTERN_APEX ? "utf8" : "latin1");
}

interface Compiled {
  exports: unknown;
  /** write this bundle's code cache when none usable was read (after the command ran: its lazily compiled code is in it) */
  save(): void;
}

/** Load `commands/<name>.cjs` from `distDir` (the entry's own directory), and the bundles it splits off as it runs. */
export function loadCommand<T>(name: string, distDir: string): Loaded<T> {
  // the bundles' import() (a composite module, the mcp adapter): this module's, which Node resolves
  provideImporter((url) => import(url));
  const split = new Map<string, Compiled>();
  const c = compile(name, join(distDir, "commands", `${name}.cjs`), distDir, split);
  return {
    exports: c.exports as T,
    save() {
      c.save();
      for (const s of split.values()) s.save();
    },
  };
}

/**
 * The name V8 gives the bundle's script (its stack frames). A code cache keeps the name it was made under,
 * and Node 20's V8 shows that one when it takes the cache, whatever name is given with it: so the build's
 * runs (HCPX_BUILD_CACHE=1), which make the shipped caches, name a bundle as the package does,
 * `hcpx/dist/commands/<file>`, not by the folder the build ran in (which every shipped cache carried, and
 * every user's stack frame showed, and which made two checkouts' builds differ).
 */
function scriptName(file: string): string {
  if (process.env.HCPX_BUILD_CACHE !== "1") return file;
  // a string of its own, copied through bytes: the base name is a slice of the whole path, and V8 writes a
  // sliced string's parent into the cache with it
  return Buffer.from(`hcpx/dist/commands/${basename(file)}`).toString();
}

/** Compile and run the bundle `file` (a CommonJS wrapper's function expression) through the code cache of `name`. */
function compile(name: string, file: string, distDir: string, split: Map<string, Compiled>): Compiled {
  // hcpx's own bundle, beside the entry: read like any file, bounded
  const source = bundleSource(readBytes(file, file, CAPS.cache));
  const base = cacheName(name);
  const cache = cacheFile(base, name);
  // verified (magic, length, its two copies equal, owner, no link) before V8 sees a byte; undefined on any doubt
  let cachedData = cache ? readCache(cache) : undefined;
  // none of this user's: the one the build made, beside the bundle (read the same way, any owner)
  const shipped = cachedData === undefined && base !== undefined && !process.env.HCPX_NO_SHIPPED_CACHE;
  if (shipped) cachedData = readCache(join(distDir, "cache", base), CAPS.cache, true);
  // the file is the wrapped function expression already (scripts/build.mjs)
  const script = new Script(source, {
    filename: scriptName(file),
    cachedData,
  });
  // the bundle's build hash, for the caches keyed on this build's code (src/mcp/start-cache.ts)
  const built = BUNDLE_HASHES?.[name];
  if (typeof built === "string") (globalThis as Record<symbol, unknown>)[Symbol.for(`hcpx.bundleHash.${name}`)] = built;
  const module = { exports: {} };
  (script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: unknown, f: string, d: string) => void)(
    module.exports,
    requireFor(file, distDir, split) as NodeJS.Require,
    module,
    file,
    dirname(file),
  );
  // written when nothing usable was read: none at all, or V8 rejected it (a shipped one V8 took needs no copy)
  const needed = cache !== undefined && (cachedData === undefined || script.cachedDataRejected === true);
  return {
    exports: module.exports,
    save() {
      if (!needed) return;
      try {
        // a file of its own in dist/, read only now (./cache-save.ts)
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazily loaded module (scripts/build.mjs)
        (require("./cache-save") as typeof import("./cache-save")).saveCodeCache(name, cache, script);
      } catch {
        /* a cache that cannot be written is compiled again next time */
      }
    },
  };
}

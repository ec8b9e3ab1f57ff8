import { isAbsolute, join, relative, resolve, sep } from "node:path";

// Fast paths for paths that are normal already. node:path's resolve, join and relative run
// its normalizing loop (normalizeString) over every character, in the interpreter: on exec's
// start path, once or twice per activated pack (the config's list, each surface.json) and per
// file shown or guarded, it was enough work for V8 to tier that loop up to its optimizing
// compiler, ~10 M instructions (callgrind, exec with 31 packs, and the first call after
// install). A normal absolute path (isNormalAbs) needs no such loop: the answers below are
// path's own, built with string builtins (test/util/paths-fast.test.ts compares them).

/**
 * `p` is absolute and normal: path.resolve(p) gives it back unchanged (no empty, "." or ".."
 * component, no trailing "/" but the root itself). POSIX paths only (elsewhere: false).
 */
export function isNormalAbs(p: string): boolean {
  return (
    sep === "/" &&
    p.startsWith("/") &&
    !p.includes("//") &&
    !p.includes("/./") &&
    !p.includes("/../") &&
    (p === "/" || (!p.endsWith("/") && !p.endsWith("/.") && !p.endsWith("/..")))
  );
}

/** `dir` joined with `rel` (a leading "./" dropped), or undefined when that is not normal and absolute. */
function normalJoin(dir: string, rel: string): string | undefined {
  const r = rel.startsWith("./") ? rel.slice(2) : rel;
  if (r === "" || !dir.startsWith("/")) return undefined;
  const s = dir === "/" ? `/${r}` : `${dir}/${r}`;
  return isNormalAbs(s) ? s : undefined;
}

/** path.resolve(dir, rel), the same string (without path's loop when it is normal already). */
export function resolveIn(dir: string, rel: string): string {
  return normalJoin(dir, rel) ?? resolve(dir, rel);
}

/** path.join(dir, rel), the same string (without path's loop when it is normal and absolute already). */
export function joinIn(dir: string, rel: string): string {
  return normalJoin(dir, rel) ?? join(dir, rel);
}

/**
 * `to` relative to `from` without node:path's loop, when both are normal and absolute (and `from` is not
 * the root): the rest of `to` when it is `from` or below it ("" for `from` itself), null when it is not
 * below; undefined when that takes node:path (a path not normal, or the root).
 */
function normalRel(from: string, to: string): string | null | undefined {
  if (from === "/" || !isNormalAbs(from) || !isNormalAbs(to)) return undefined;
  if (to === from) return "";
  return to.startsWith(from) && to.charCodeAt(from.length) === 47 ? to.slice(from.length + 1) : null;
}

/** path.relative(from, to), the same string (without path's loop when `to` is `from` or below it, both normal). */
export function relativeTo(from: string, to: string): string {
  const rel = normalRel(from, to);
  return typeof rel === "string" ? rel : relative(from, to);
}

/** A path as shown to a user: relative to the cwd when below it, else absolute. */
export function display(abs: string, cwd = process.cwd()): string {
  const below = normalRel(cwd, abs);
  // not below the cwd (path.relative would answer "../…"): shown absolute
  if (below === null) return abs;
  const rel = below ?? relative(cwd, abs);
  if (!rel) return ".";
  return rel.startsWith("..") || isAbsolute(rel) ? abs : rel;
}

/**
 * True when `p` is `dir` or below it (both absolute, already resolved). Two normal paths are answered
 * by normalRel alone, the one outside too (null: node:path's relative is not run to say "../…"; the
 * OS sandbox's plan asks it ~15 times for paths outside /tmp and /dev/shm: ~0.07 ms of a confined call's
 * plan, 40 interleaved calls each way).
 */
export function isInside(p: string, dir: string): boolean {
  const below = normalRel(dir, p);
  if (below !== undefined) return below !== null;
  const rel = relative(dir, p);
  return rel === "" || (!rel.startsWith(".." + sep) && rel !== ".." && !isAbsolute(rel));
}

export function toPosix(p: string): string {
  return p.split(sep).join("/");
}

/** `abs` as `~/…` when it is below `home`, else as it is (the home's files as a person names them). */
export function tildePath(abs: string, home: string): string {
  return abs.startsWith(home + "/") ? "~/" + toPosix(abs.slice(home.length + 1)) : abs;
}

/** $HOME, else the OS's answer (node:os is loaded only then: it is ~4 M instructions on exec's start path). */
export function home(): string {
  return process.env.HOME || process.getBuiltinModule("node:os").homedir();
}

/** path.resolve(p) (the same string: p itself when it is normal and absolute). */
export function resolved(p: string): string {
  return isNormalAbs(p) ? p : resolve(p);
}

/** `$XDG_CONFIG_HOME/hcp` or `~/.config/hcp`. */
export function userConfigDir(): string {
  const xdg = process.env.XDG_CONFIG_HOME;
  return xdg && isAbsolute(xdg) ? joinIn(xdg, "hcp") : joinIn(joinIn(home(), ".config"), "hcp");
}

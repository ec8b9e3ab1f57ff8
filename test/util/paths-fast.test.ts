// The fast paths of src/util/paths.ts (resolveIn, joinIn, relativeTo, resolved,
// display, isInside) give node:path's own answers, the same strings, for
// every path: normal ones (the fast path) and every odd kind (".", "..", "//",
// a trailing "/", relative, the root), which take node:path itself.
import { describe, expect, it } from "vitest";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { display, isInside, isNormalAbs, joinIn, relativeTo, resolveIn, resolved } from "../../src/util/paths";

const PARTS = ["a", "bc", ".", "..", "", ".x", "..y", "x.", "pack-1", "surface.json", "~", " s p"];

/** every path of up to 2 parts from PARTS, absolute and relative, with and without a trailing "/" */
function paths(): string[] {
  const out = new Set<string>(["/", "//", ".", "..", "", "./", "../", "///a"]);
  const rec = (prefix: string[], depth: number) => {
    if (prefix.length) {
      const p = prefix.join("/");
      for (const q of [p, `/${p}`, `${p}/`, `/${p}/`, `./${p}`, `//${p}`]) out.add(q);
    }
    if (depth === 0) return;
    for (const x of PARTS) rec([...prefix, x], depth - 1);
  };
  rec([], 2);
  return [...out];
}

describe("src/util/paths fast paths", () => {
  const all = paths();
  const dirs = ["/", "/a", "/a/bc", "/a/", "/a/./b", "/a/../b", "//a", "/a/b/..", "a", "a/b", "", ".", "..", "./a"];
  it("isNormalAbs holds exactly for what path.resolve gives back unchanged", () => {
    const wrong = all.filter((p) => isNormalAbs(p) !== (sep === "/" && p !== "" && resolve(p) === p));
    expect(wrong).toEqual([]);
  });
  it("resolveIn, joinIn, relativeTo are path.resolve, path.join, path.relative", () => {
    let fast = 0;
    const wrong: string[][] = [];
    for (const d of dirs)
      for (const r of all) {
        if (resolveIn(d, r) !== resolve(d, r)) wrong.push(["resolveIn", d, r, resolveIn(d, r)]);
        if (joinIn(d, r) !== join(d, r)) wrong.push(["joinIn", d, r, joinIn(d, r)]);
        if (relativeTo(d, r) !== relative(d, r)) wrong.push(["relativeTo", d, r, relativeTo(d, r)]);
        if (isNormalAbs(`${d}/${r}`)) fast++;
      }
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(fast).toBeGreaterThan(200); // the fast path is taken, not only the fallback
  });
  it("resolved, display and isInside answer as node:path does", () => {
    const display0 = (abs: string, cwd: string) => {
      const rel = relative(cwd, abs);
      if (!rel) return ".";
      return rel.startsWith("..") || isAbsolute(rel) ? abs : rel;
    };
    const inside0 = (p: string, dir: string) => {
      const rel = relative(dir, p);
      return rel === "" || (!rel.startsWith(".." + sep) && rel !== ".." && !isAbsolute(rel));
    };
    const wrong: unknown[][] = [];
    for (const p of all) if (resolved(p) !== resolve(p)) wrong.push(["resolved", p, resolved(p)]);
    for (const cwd of [...dirs.filter((d) => isAbsolute(d)), "/a/..y", "/a/bc/ d"])
      for (const p of all.filter((x) => isAbsolute(x))) {
        if (display(p, cwd) !== display0(p, cwd)) wrong.push(["display", p, cwd, display(p, cwd)]);
        if (isInside(p, cwd) !== inside0(p, cwd)) wrong.push(["isInside", p, cwd, isInside(p, cwd)]);
      }
    expect(wrong.slice(0, 10)).toEqual([]);
  });
});

// An in-memory, read-only disk for planning tests (src/plan/fs.ts ReadFs):
// text files by absolute path, directories implied by them (or listed), paths
// below which a symlink leads out of the base, directories that cannot be
// written. Records every path read, so a test can say what was never touched.
import { dirname, join, relative, sep } from "node:path";
import type { Entry, Guarded, TrustBase } from "../../src/util/fsio";
import type { ReadFs } from "../../src/plan/fs";
import { HcpxError } from "../../src/util/errors";

export interface MemFsOptions {
  /** more directories (absolute) that exist without files in them */
  dirs?: string[];
  /** absolute paths that are symlinks leading out of every base */
  outside?: string[];
  /** directories this process may not write in */
  readOnly?: string[];
}

export type MemFs = ReadFs & { reads: string[] };

export function memFs(files: Record<string, string>, opts: MemFsOptions = {}): MemFs {
  const reads: string[] = [];
  const dirs = new Set(opts.dirs ?? []);
  const isDir = (p: string) =>
    dirs.has(p) ||
    p === "/" ||
    Object.keys(files).some((f) => f.startsWith(p.endsWith("/") ? p : p + "/")) ||
    [...dirs].some((d) => d.startsWith(p + "/"));
  const leaves = (abs: string) => (opts.outside ?? []).find((o) => abs === o || abs.startsWith(o + "/"));
  const inside = (p: string, base: string) => {
    const r = relative(base, p);
    return r !== "" && !r.startsWith("..") && !r.startsWith(sep);
  };
  const entry = (real: string): Entry => {
    reads.push(real);
    if (real in files) return { kind: "file", text: files[real]!, mode: 0o644 };
    return isDir(real) ? { kind: "dir" } : { kind: "absent" };
  };
  return {
    reads,
    entry,
    readRecord(real, show) {
      reads.push(real);
      if (!(real in files)) throw new HcpxError({ code: "missing_file", message: "file not found", file: show });
      return files[real]!;
    },
    list: (dir) => [
      ...new Set(
        [...Object.keys(files), ...dirs]
          .filter((f) => f.startsWith(dir + "/"))
          .map((f) => f.slice(dir.length + 1).split("/")[0]!),
      ),
    ],
    realpath: (p) => p,
    guard(named: unknown, base: TrustBase, form = "display"): Guarded {
      if (typeof named !== "string" || named === "") return { ok: false, reason: "is not a path" };
      let abs: string;
      if (form === "absolute") {
        if (!named.startsWith("/") || !inside(named, base.dir))
          return { ok: false, reason: `is not below ${base.dir}` };
        abs = named;
      } else {
        const rel =
          base.prefix === "~/"
            ? named.startsWith("~/")
              ? named.slice(2)
              : undefined
            : named.startsWith("~") || named.startsWith("/")
              ? undefined
              : named;
        if (rel === undefined || rel.split("/").some((s) => s === "" || s === "." || s === ".."))
          return { ok: false, reason: "is not a plain relative path" };
        abs = join(base.dir, rel);
      }
      if (leaves(abs)) return { ok: false, reason: `is a symlink leading outside ${base.label ?? "the project"}` };
      return { ok: true, abs, real: abs, show: base.prefix + relative(base.dir, abs) };
    },
    resolve(abs, base, show) {
      if (!inside(abs, base))
        throw new HcpxError({ code: "outside_base", message: "is outside the project", file: show });
      if (leaves(abs))
        throw new HcpxError({
          code: "symlink_refused",
          message: "is a symlink leading outside the project",
          file: show,
        });
      return abs;
    },
    missingDirs(dir, base) {
      const out: string[] = [];
      for (let d = dir; inside(d, base) && entry(d).kind === "absent"; d = dirname(d)) out.unshift(d);
      return out;
    },
    staleTemps: () => [],
    writable: (dir) => !(opts.readOnly ?? []).includes(dir),
  };
}

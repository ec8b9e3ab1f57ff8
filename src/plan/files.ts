// The plan of a directory hcpx owns file by file: generate's out dir and a
// `generate --as` bundle. Every planned file is written when the disk differs;
// a file the manifest of the last run names and this run no longer plans is
// stale: deleted when it still holds the bytes hcpx wrote, left in place (with
// a warning, and drift for --check) when someone changed it. The manifest is
// read back, untrusted: each name passes guardPath, each hash is 64 hex
// digits, or the entry is ignored with a warning naming it. Pure: the disk is
// read through `fs`.
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { sha256 } from "../util/text";
import type { PlannedFile } from "../projection/types";
import { HcpxError, type Problem } from "../util/errors";
import { display, isInside } from "../util/paths";
import type { TrustBase } from "../util/fsio";
import { diskFs, type ReadFs } from "./fs";
import type { FileChange, FilePlan } from "./types";

export interface FilesPlanInput {
  /** the files, relative to `dir` (posix) */
  files: PlannedFile[];
  /** the directory (absolute) */
  dir: string;
  /** how the directory is named in messages: "the out dir", "the bundle directory" */
  label: string;
  /** the manifest's name in `dir` */
  manifest: string;
  /** the hint of a planned file refused by the guard */
  symlinkHint: string;
}

interface Manifest {
  generator: "hcpx";
  files: Record<string, string>;
}

const HASH_RE = /^[0-9a-f]{64}$/;

/**
 * The sha256 of a text given in pieces when it is `disk`'s text; undefined when it is not (rendering
 * stops at the first piece that differs: the write renders it again, and hashes it then).
 */
function hashIfSame(chunks: Iterable<string>, disk: string): string | undefined {
  const h = createHash("sha256");
  let at = 0;
  for (const c of chunks) {
    if (!disk.startsWith(c, at)) return undefined;
    h.update(c, "utf8");
    at += c.length;
  }
  return at === disk.length ? h.digest("hex") : undefined;
}

/** The manifest of the last run, read back untrusted: its files map, its text, and why it is not usable. */
interface LastRun {
  recorded: Record<string, string>;
  /** the manifest's text when it is usable (then the record replaces it) */
  old: string | undefined;
  /** why it is not usable (its files are then left in place), or undefined */
  problem: string | undefined;
}

/** The plan's shared inputs: the directory as the guard's base, its manifest, and the disk. */
interface Ctx {
  input: FilesPlanInput;
  base: TrustBase;
  shownManifest: string;
  fs: ReadFs;
}

export function planFiles(input: FilesPlanInput, fs: ReadFs = diskFs): FilePlan {
  const { dir, manifest: name } = input;
  const ctx: Ctx = {
    input,
    base: { dir, prefix: "", label: input.label },
    shownManifest: display(join(dir, name)),
    fs,
  };
  const warnings: Problem[] = [];
  const conflicts: Problem[] = [];
  const last = readManifest(ctx);
  if (last.problem !== undefined)
    warnings.push({
      code: "bad_manifest",
      severity: "warning",
      message: `${name} ${last.problem}; files it listed are left in place`,
      file: ctx.shownManifest,
    });
  // two passes, each path through the guard once: the planned files, then the stale entries of the manifest
  const changes: FileChange[] = [];
  const hashes = planWritten(ctx, changes, last.recorded, conflicts);
  const planned = new Set(input.files.map((f) => f.path));
  const rmdirs = planStale(ctx, last.recorded, planned, { changes, warnings, conflicts });
  return {
    base: dir,
    changes,
    conflicts,
    warnings,
    staleTemps: [],
    rmdirs: [...rmdirs].sort((a, b) => b.length - a.length),
    record: {
      kind: "manifest",
      file: join(dir, name),
      old: last.old,
      render: (written) => renderManifest(hashes, written),
      force: last.problem !== undefined,
    },
  };
}

/** The manifest of the last run, through the guard: a manifest that cannot be read or parsed has a problem. */
function readManifest({ input, base, fs }: Ctx): LastRun {
  const name = input.manifest;
  let recorded: Record<string, string> = {};
  let old: string | undefined;
  let problem: string | undefined;
  const g = fs.guard(name, base);
  if (!g.ok) problem = `${g.reason} `;
  else {
    try {
      old = fs.readRecord(g.real, name);
    } catch (e) {
      if (!(e instanceof HcpxError)) throw e;
      if (e.problems[0]?.code !== "missing_file") problem = `${e.problems[0]!.message} `;
    }
  }
  if (old !== undefined) {
    try {
      const m = JSON.parse(old) as Manifest;
      if (!m || typeof m !== "object" || typeof m.files !== "object" || m.files === null || Array.isArray(m.files))
        problem = "has no files map";
      else recorded = m.files;
    } catch (e) {
      problem = `is not valid JSON (${(e as Error).message})`;
    }
    if (problem !== undefined) old = undefined;
  }
  return { recorded, old, problem };
}

/** Every planned file, through the one guard: a change where the disk differs; the hash of each, in order
 * (undefined: a lazy file apply writes and hashes). */
function planWritten(
  { input, base, fs }: Ctx,
  changes: FileChange[],
  recorded: Record<string, string>,
  conflicts: Problem[],
): Map<string, string | undefined> {
  // path → sha256, in plan order; undefined: a lazy file apply writes and hashes
  const hashes = new Map<string, string | undefined>();
  for (const f of input.files) {
    const g = fs.guard(f.path, base);
    if (!g.ok)
      throw new HcpxError({
        code: "symlink_refused",
        message: `${f.path} ${g.reason}`,
        file: display(join(input.dir, f.path)),
        hint: input.symlinkHint,
      });
    const e = fs.entry(g.real);
    const disk = e.kind === "file" ? e.text : undefined;
    let bytes: Pick<FileChange, "new" | "chunks">;
    if (f.chunks) {
      // a lazy file: rendered here, in pieces, only to compare it with the disk (and hash it when the
      // same); one to write is rendered once, by apply, which hashes the bytes it writes
      const hash = disk === undefined ? undefined : hashIfSame(f.chunks(), disk);
      hashes.set(f.path, hash);
      if (hash !== undefined) continue;
      bytes = { chunks: f.chunks };
    } else {
      const text = f.content;
      hashes.set(f.path, sha256(text));
      if (disk === text) continue;
      bytes = { new: text };
    }
    // a file there that hcpx never wrote (not in the last manifest: the user's own, in a folder given with
    // --out) is left in place, and not recorded as hcpx's; one it wrote is its output, brought up to date
    if (disk !== undefined && !Object.hasOwn(recorded, f.path)) {
      hashes.delete(f.path);
      conflicts.push({
        code: "changed_by_user",
        severity: "warning",
        message: `${f.path} is there and hcpx did not write it: left in place`,
        file: display(join(input.dir, f.path)),
        hint: `move it away or delete it, then run the command again: hcpx replaces only the files its manifest (${input.manifest}) records`,
      });
      continue;
    }
    changes.push({
      path: f.path,
      abs: g.abs,
      real: g.real,
      kind: e.kind === "absent" ? "create" : "update",
      old: disk,
      ...bytes,
      parts: [{ kind: "file" }],
      hosts: [],
      notes: [],
    });
  }
  return hashes;
}

/**
 * Stale: named by the manifest, no longer planned, still there. Each entry
 * through the one guard: deleted when it holds the bytes hcpx wrote, a
 * conflict when someone changed it, ignored (a warning) when the guard or its
 * hash refuses it. The directories a deletion leaves empty.
 */
function planStale(
  { input, base, shownManifest, fs }: Ctx,
  recorded: Record<string, string>,
  planned: ReadonlySet<string>,
  out: Pick<FilePlan, "changes" | "warnings" | "conflicts">,
): Set<string> {
  const rmdirs = new Set<string>();
  const realDir = fs.realpath(input.dir);
  for (const p of Object.keys(recorded).sort()) {
    if (planned.has(p)) continue;
    const ignore = (why: string) =>
      out.warnings.push({
        code: "manifest_entry_ignored",
        severity: "warning",
        file: shownManifest,
        path: `files[${JSON.stringify(p)}]`,
        message: `entry ${JSON.stringify(p)} ${why}; ignored: never read or deleted`,
        hint: "the manifest is written by hcpx generate; restore it from version control if someone changed it",
      });
    const g = fs.guard(p, base);
    if (!g.ok) {
      ignore(`${g.reason} (it must stay inside ${input.label})`);
      continue;
    }
    if (typeof recorded[p] !== "string" || !HASH_RE.test(recorded[p])) {
      ignore("has no sha256 of 64 hex digits");
      continue;
    }
    const e = fs.entry(g.real);
    if (e.kind === "absent" || e.kind === "dir") continue;
    if (e.kind === "file" && sha256(e.text) === recorded[p]) {
      out.changes.push({
        path: p,
        abs: g.abs,
        real: g.real,
        kind: "delete",
        old: e.text,
        parts: [],
        hosts: [],
        notes: [],
      });
      // its directories go too when that leaves them empty
      for (let d = dirname(g.real); d !== realDir && isInside(d, realDir); d = dirname(d)) rmdirs.add(d);
    } else
      out.conflicts.push({
        code: "changed_by_user",
        severity: "warning",
        message: "no longer generated, but changed since hcpx wrote it: left in place",
        file: display(join(input.dir, p)),
        hint: `delete it if it is not needed; hcpx no longer writes it`,
      });
  }
  return rmdirs;
}

/** The manifest's text: every planned file's sha256, those of the files apply wrote from their pieces from `written`. */
function renderManifest(hashes: ReadonlyMap<string, string | undefined>, written: ReadonlyMap<string, string>): string {
  const files: Record<string, string> = {};
  for (const [path, hash] of hashes) {
    const h = hash ?? written.get(path);
    // fail closed: a manifest that names a file without the hash of its bytes would let a later run delete a changed file
    if (h === undefined)
      throw new Error(`renderManifest: ${path} was to be written by apply, which gave no sha256 for it`);
    files[path] = h;
  }
  const next: Manifest = { generator: "hcpx", files };
  return JSON.stringify(next, null, 2) + "\n";
}

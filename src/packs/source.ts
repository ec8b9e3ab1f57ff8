// Where a pack comes from, and fetching it into a fresh staging folder.
//   npm:   `@scope/name@range`, `name@range`, `npm:<spec>`, or a tarball path
//          (`./x.tgz`): `npm pack <spec> --json --ignore-scripts` into a temp
//          folder (npm does the registry, its auth and its cache), then the
//          tarball is read by src/packs/tar.ts (untrusted: no links, no `..`,
//          size caps). hcp.lock records a registry spec as the name@version
//          npm fetched, any other `npm:` spec (git, a URL) as itself.
//   git:   `git+https://…`, `git+file://…`, `https://….git`, `ssh://…`,
//          `git@host:…`, or a local path with `#ref`; `#ref` picks a branch,
//          tag or commit. `git clone --no-checkout`, then `git archive` of the
//          commit, read by the same tar reader (a symlink in the repo refuses it).
//          git and npm run without the caller's GIT_DIR & co (src/packs/git-env.ts).
//   path:  a local directory (`./packs/x`, `/abs/x`): its regular files are
//          copied (`.git` left out); a symlink or special file refuses it.
// A bare word that is both an npm name and an existing path is ambiguous and
// refused: write `./name` for the directory or `npm:name` for the registry.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, lstatSync, statSync } from "node:fs";
import { removeScratch, removeTree, scratchDir, stagingDir, type Base } from "../util/door";
import { readBytes } from "../util/readfile";
import { isAbsolute, join, relative, resolve } from "node:path";
import { createHash } from "node:crypto";
import { HcpxError } from "../util/errors";
import { display, toPosix } from "../util/paths";
import { LIMITS, namesWithin, readTar, stripTop, writeEntries, type TarEntry } from "./tar";
import type { Source } from "./lock";
import { fetchEnv, gitEnv } from "./git-env";

export type Parsed =
  | { type: "npm"; spec: string; tarball?: string }
  | { type: "git"; url: string; ref?: string }
  | { type: "path"; path: string };

const NPM_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(@[^\s/]+)?$/;

/** Classify a `pack add` source (see the header). `cwd` resolves local paths. */
export function parseSource(src: string, cwd: string): Parsed {
  const s = src.trim();
  if (!s)
    throw new HcpxError({
      code: "usage",
      message: "no source given",
      hint: "hcpx pack add <npm spec | git URL | path>",
    });
  if (s.startsWith("npm:")) return { type: "npm", spec: s.slice(4) };
  const hash = s.lastIndexOf("#");
  const [base, ref] = hash > 0 ? [s.slice(0, hash), s.slice(hash + 1) || undefined] : [s, undefined];
  if (base.startsWith("git+")) return { type: "git", url: base.slice(4), ref };
  if (/^(https?|ssh|git):\/\//.test(base) || /^[\w.-]+@[\w.-]+:/.test(base)) {
    if (/^https?:\/\//.test(base) && !base.endsWith(".git"))
      throw new HcpxError({
        code: "usage",
        message: `'${s}' is an http URL that does not end in .git`,
        hint: "for a git repository write git+https://…, for a tarball download it and pass its path",
      });
    return { type: "git", url: base, ref };
  }
  const pathLike = base.startsWith(".") || base.startsWith("/") || base.startsWith("~");
  if (pathLike || existsSync(resolve(cwd, base))) {
    const abs = resolve(cwd, base.startsWith("~/") ? join(process.env.HOME ?? "", base.slice(2)) : base);
    if (!pathLike && NPM_NAME.test(s))
      throw new HcpxError(
        {
          code: "ambiguous_source",
          message: `'${s}' is both an npm package name and a path here`,
          hint: `write ./${s} for the directory, or npm:${s} for the registry`,
        },
        64,
      );
    if (!existsSync(abs))
      throw new HcpxError({
        code: "not_found",
        message: `no file or directory at ${display(abs)}`,
        hint: "check the path",
      });
    if (/\.(tgz|tar\.gz)$/.test(abs) && statSync(abs).isFile()) return { type: "npm", spec: abs, tarball: abs };
    if (ref !== undefined) return { type: "git", url: abs, ref };
    if (!statSync(abs).isDirectory())
      throw new HcpxError({
        code: "usage",
        message: `${display(abs)} is neither a directory nor a .tgz tarball`,
        hint: "a local pack is a directory with surface.json, policy.json and SKILL.md",
      });
    return { type: "path", path: abs };
  }
  if (NPM_NAME.test(s)) return { type: "npm", spec: s };
  throw new HcpxError({
    code: "usage",
    message: `cannot tell what '${s}' is`,
    hint: "give an npm spec (@scope/name@^1), a git URL (git+https://….git#ref) or a path (./packs/x)",
  });
}

export interface Fetched {
  /** the source as the lock records it */
  source: Source;
  entries: TarEntry[];
}

function tempDir(): string {
  return scratchDir("hcpx-fetch-");
}

function sha512(b: Buffer): string {
  return `sha512-${createHash("sha512").update(b).digest("base64")}`;
}

/** A program's failure as a user error: what ran, its stderr's last lines. */
function runFailed(
  what: string,
  r: { stderr?: string | Buffer; error?: Error; status: number | null },
  hint: string,
): HcpxError {
  const err = (r.stderr ?? "").toString().trim().split("\n").slice(-4).join("\n");
  return new HcpxError({
    code: "fetch_failed",
    message: `${what} failed${r.error ? ` (${(r.error as NodeJS.ErrnoException).code ?? r.error.message})` : r.status !== null ? ` (exit ${r.status})` : ""}${err ? `: ${err}` : ""}`,
    hint,
  });
}

function npmFetch(
  spec: string,
  label: string,
  wantIntegrity?: string,
): { entries: TarEntry[]; name: string; version: string; integrity: string } {
  // a spec from hcp.lock is untrusted: one that starts with '-' would be an npm option
  if (spec.startsWith("-") || /[\0\n]/.test(spec))
    throw new HcpxError({
      code: "bad_source",
      message: `${label}: ${JSON.stringify(spec)} is not an npm spec`,
      hint: "an npm spec looks like @scope/name@^1 or ./pack.tgz",
    });
  const dir = tempDir();
  try {
    const r = spawnSync("npm", ["pack", spec, "--json", "--ignore-scripts", "--pack-destination", dir], {
      cwd: dir,
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
      timeout: 300_000,
      env: { ...fetchEnv(), npm_config_loglevel: "error" },
    });
    if (r.status !== 0)
      throw runFailed(`npm pack ${spec}`, r, "check the spec and your npm registry settings (`npm view <name>`)");
    let info: { name?: unknown; version?: unknown; filename?: unknown; integrity?: unknown }[];
    try {
      info = JSON.parse(r.stdout) as typeof info;
    } catch {
      throw new HcpxError({
        code: "fetch_failed",
        message: `npm pack ${spec} printed no JSON`,
        hint: "run it by hand to see why",
      });
    }
    const i = info[0];
    if (
      !Array.isArray(info) ||
      info.length !== 1 ||
      !i ||
      typeof i.filename !== "string" ||
      typeof i.name !== "string" ||
      typeof i.version !== "string" ||
      typeof i.integrity !== "string"
    ) {
      throw new HcpxError({
        code: "fetch_failed",
        message: `npm pack ${spec} did not describe one tarball`,
        hint: "give one package",
      });
    }
    const file = join(dir, i.filename.replace(/^.*[\\/]/, ""));
    const st = statSync(file);
    if (st.size > LIMITS.archiveBytes)
      throw new HcpxError({
        code: "unsafe_archive",
        message: `${label} is ${st.size} bytes, over the ${LIMITS.archiveBytes}-byte limit`,
        hint: "a pack is small: surface, policy, Skill and its own code",
      });
    const tgz = readBytes(file, label, LIMITS.archiveBytes, { noFollow: true });
    const integrity = sha512(tgz);
    if (integrity !== i.integrity)
      throw new HcpxError({
        code: "integrity_mismatch",
        message: `the tarball of ${spec} does not match the integrity npm reported`,
        hint: "retry; if it persists, the cache or registry is corrupt (`npm cache verify`)",
      });
    if (wantIntegrity !== undefined && integrity !== wantIntegrity) {
      throw new HcpxError({
        code: "integrity_mismatch",
        message: `${label}: the tarball's integrity is ${integrity}, hcp.lock says ${wantIntegrity}`,
        file: "hcp.lock",
        hint: "the package changed since it was locked; nothing was written. Review it with `hcpx pack update`",
      });
    }
    const entries = stripTop(readTar(tgz, { gzip: true, label }), label);
    return { entries, name: i.name, version: i.version, integrity };
  } finally {
    removeScratch(dir);
  }
}

const GIT_ENV = () => gitEnv();

function gitFetch(
  url: string,
  ref: string | undefined,
  label: string,
  wantCommit?: string,
): { entries: TarEntry[]; commit: string } {
  if (url.startsWith("-"))
    throw new HcpxError({ code: "usage", message: `'${url}' is not a git URL`, hint: "give a URL or a path" });
  const dir = tempDir();
  try {
    const clone = spawnSync("git", ["clone", "--quiet", "--no-checkout", "--", url, join(dir, "repo")], {
      encoding: "utf8",
      timeout: 300_000,
      env: GIT_ENV(),
    });
    if (clone.status !== 0)
      throw runFailed(
        `git clone ${url}`,
        clone,
        "check the URL and that you can read the repository (`git ls-remote <url>`)",
      );
    const repo = join(dir, "repo");
    const want = wantCommit ?? ref ?? "HEAD";
    if (want.startsWith("-"))
      throw new HcpxError({
        code: "usage",
        message: `'${want}' is not a git ref`,
        hint: "give a branch, tag or commit after #",
      });
    const rev = spawnSync("git", ["-C", repo, "rev-parse", "--verify", "--quiet", `${want}^{commit}`], {
      encoding: "utf8",
      env: GIT_ENV(),
    });
    let commit = rev.status === 0 ? rev.stdout.trim() : "";
    if (!commit && ref && !wantCommit) {
      const r2 = spawnSync("git", ["-C", repo, "rev-parse", "--verify", "--quiet", `origin/${ref}^{commit}`], {
        encoding: "utf8",
        env: GIT_ENV(),
      });
      commit = r2.status === 0 ? r2.stdout.trim() : "";
    }
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit))
      throw new HcpxError({
        code: "fetch_failed",
        message: `${label}: no commit '${want}' in ${url}`,
        hint: wantCommit ? "the locked commit is gone from the repository" : "give a branch, tag or commit after #",
      });
    let tar: Buffer;
    try {
      tar = execFileSync("git", ["-C", repo, "archive", "--format=tar", commit], {
        maxBuffer: LIMITS.totalBytes + LIMITS.files * 1536,
        env: GIT_ENV(),
      });
    } catch (e) {
      throw new HcpxError({
        code: "unsafe_archive",
        message: `${label}: git archive of ${commit.slice(0, 12)} failed or is over ${LIMITS.totalBytes} bytes (${(e as Error).message.split("\n")[0]})`,
        hint: "a pack is small: surface, policy, Skill and its own code",
      });
    }
    return { entries: readTar(tar, { gzip: false, label }), commit };
  } finally {
    removeScratch(dir);
  }
}

function pathFetch(abs: string, label: string): TarEntry[] {
  const out: TarEntry[] = [];
  let total = 0;
  const left = { entries: LIMITS.entries };
  const tooLarge = (what = `is larger than ${LIMITS.totalBytes} bytes or ${LIMITS.files} files`): never => {
    throw new HcpxError({ code: "unsafe_archive", message: `${label} ${what}`, hint: "a pack is small" });
  };
  const tooMany = () => tooLarge(`holds more than ${LIMITS.entries} entries (files and folders)`);
  const walk = (dir: string, rel: string) => {
    for (const name of namesWithin(dir, left, tooMany)) {
      if (!rel && name === ".git") continue;
      const a = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(a);
      if (st.isDirectory()) walk(a, r);
      else if (st.isFile()) {
        if (st.size > LIMITS.fileBytes)
          throw new HcpxError({
            code: "unsafe_archive",
            message: `${label}: '${r}' is ${st.size} bytes, over the ${LIMITS.fileBytes}-byte limit`,
            hint: "a pack is small: surface, policy, Skill and its own code",
          });
        total += st.size;
        if (total > LIMITS.totalBytes || out.length >= LIMITS.files) tooLarge();
        out.push({
          path: r,
          data: readBytes(a, display(a), LIMITS.fileBytes, { noFollow: true }),
          executable: (st.mode & 0o111) !== 0,
        });
      } else
        throw new HcpxError({
          code: "unsafe_archive",
          message: `${label}: '${r}' is ${st.isSymbolicLink() ? "a symbolic link" : "not a regular file"}; a pack from elsewhere may hold regular files only`,
          file: display(a),
          hint: "copy the file into the pack instead of linking it",
        });
    }
  };
  walk(abs, "");
  return out;
}

/** How a project records a local path: relative to its root when below it. */
function recordPath(abs: string, root: string): string {
  const rel = toPosix(relative(root, abs));
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? `./${rel}` : abs;
}

/** Fetch what `pack add` asked for. */
export function fetchNew(p: Parsed, root: string, label: string): Fetched {
  if (p.type === "npm") {
    const r = npmFetch(p.spec, label);
    const spec = p.tarball ? recordPath(p.tarball, root) : p.spec;
    // the registry's name@version only for a registry spec: another (`npm:git+https://…`, `npm:github:…`, a URL)
    // is fetched again from where it is, not from the registry by a name its package.json gives
    const resolved = p.tarball || !NPM_NAME.test(p.spec) ? spec : `${r.name}@${r.version}`;
    return { source: { type: "npm", spec, resolved, version: r.version, integrity: r.integrity }, entries: r.entries };
  }
  if (p.type === "git") {
    const r = gitFetch(p.url, p.ref, label);
    const url = isAbsolute(p.url) ? recordPath(p.url, root) : p.url;
    return { source: { type: "git", url, ...(p.ref ? { ref: p.ref } : {}), commit: r.commit }, entries: r.entries };
  }
  return { source: { type: "path", path: recordPath(p.path, root) }, entries: pathFetch(p.path, label) };
}

function localOf(root: string, recorded: string): string {
  return resolve(root, recorded);
}

/** Fetch exactly what the lock says (`pack install`): the resolved version, the commit. */
export function fetchLocked(src: Source, root: string, label: string): Fetched {
  if (src.type === "npm") {
    const local = src.resolved.startsWith("./") || src.resolved.startsWith("/");
    const r = npmFetch(local ? localOf(root, src.resolved) : src.resolved, label, src.integrity);
    return { source: src, entries: r.entries };
  }
  if (src.type === "git") {
    const url = src.url.startsWith("./") ? localOf(root, src.url) : src.url;
    return { source: src, entries: gitFetch(url, src.ref, label, src.commit).entries };
  }
  return { source: src, entries: pathFetch(localOf(root, src.path), label) };
}

/** Fetch the newest that the original spec allows (`pack update`): the range, the ref's head, the path. */
export function fetchLatest(src: Source, root: string, label: string): Fetched {
  if (src.type === "npm") {
    const local = src.spec.startsWith("./") || src.spec.startsWith("/");
    return fetchNew(
      local
        ? { type: "npm", spec: localOf(root, src.spec), tarball: localOf(root, src.spec) }
        : { type: "npm", spec: src.spec },
      root,
      label,
    );
  }
  if (src.type === "git")
    return fetchNew(
      { type: "git", url: src.url.startsWith("./") ? localOf(root, src.url) : src.url, ref: src.ref },
      root,
      label,
    );
  return fetchNew({ type: "path", path: localOf(root, src.path) }, root, label);
}

/**
 * Write fetched entries into a new staging folder under `parent`, below `base`
 * (the project root): the same file system as the target, for the rename, and
 * never through a link leading out of the project (src/util/door.ts).
 */
export function stage(entries: TarEntry[], base: Base, parent: string): string {
  const dir = stagingDir(base, parent);
  try {
    writeEntries(dir, entries);
  } catch (e) {
    removeTree(base, dir);
    throw e;
  }
  return dir;
}

/** Remove a folder below `base` (a staging folder, a vendored pack) through the one write door. */
export function removeDir(base: Base, dir: string): void {
  removeTree(base, dir);
}

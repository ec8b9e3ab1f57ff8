// hcpx pack add / install / update / remove, with real sources: an npm
// tarball made by `npm pack` of a fixture pack, a local git repository made
// with git, a plain directory. pack add/install/update/remove, init and grant
// (what they fetch, check, write and lock is under test) run as function calls
// in this process (test/support/inproc.ts), their npm and git as real
// processes; so does `hcpx exec` of a vendored pack (what the call runs and
// answers), but for one run of the built CLI as a real process. npm runs without
// its update check (a request to the registry, ~0.3 CPU-s and 1 s the first run
// in each HOME): nothing here leaves loopback.
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO, runHcpx as runChild, tmp } from "../support/hcpx";
import { execInProcess, runInProcess } from "../support/inproc";
import { envelope } from "../cli/helpers";
import { readTar, writeEntries } from "../../src/packs/tar";
import { hashTree } from "../../src/packs/lock";
import { gitEnv } from "../../src/packs/git-env";
import { fileBytes as tree } from "../support/tree";

const FIX = join(REPO, "test/fixtures/remote-pack");
/** npm's update check off (see the header) */
const NPM_QUIET = { npm_config_update_notifier: "false" };
/** every command in this process, exec included (the one real process: runChild, in the first test) */
const runHcpx = (args: string[], opts: Parameters<typeof runChild>[1] = {}) => {
  const o = { ...opts, env: { ...NPM_QUIET, ...opts.env } };
  return args[0] === "exec" ? execInProcess(args, o) : runInProcess(args, o);
};
/** `npm pack` of fixture folders into a folder of their own, one npm for all (a start ~0.6 CPU-s): the tarballs' paths, in order */
async function npmPack(from: string[], prefix: string): Promise<string[]> {
  const out = tmp(prefix);
  const { stdout } = await promisify(execFile)(
    "npm",
    ["pack", "--json", "--ignore-scripts", "--pack-destination", out, ...from],
    { cwd: out, encoding: "utf8", env: { ...process.env, ...NPM_QUIET } },
  );
  return (JSON.parse(stdout) as { filename: string }[]).map((p) => join(out, p.filename));
}
const git = (cwd: string, ...args: string[]) =>
  execFileSync(
    "git",
    ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main", ...args],
    { cwd, encoding: "utf8" },
  );

/** One `hcpx init --yes` per file (in an empty dir it writes hcp.config.json5 alone, no path in it); each test gets a copy. */
let initialised: Promise<string> | undefined;
async function newProject(): Promise<string> {
  initialised ??= (async () => {
    const dir = tmp("hcpx-vendor-init-");
    const r = await runHcpx(["init", "--yes"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(["hcp.config.json5"]);
    return dir;
  })();
  const from = await initialised;
  const dir = tmp("hcpx-vendor-");
  cpSync(from, dir, { recursive: true });
  return dir;
}

function gitRepo(from: string): string {
  const dir = tmp("hcpx-vendor-repo-");
  cpSync(from, dir, { recursive: true });
  git(dir, "init", "-q");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "v1");
  git(dir, "tag", "v1");
  return dir;
}

/** `npm pack` of fixture v1, and of v2 (for a tarball that changed since it was locked) */
let tarball: string;
let tarballV2: string;
beforeAll(async () => {
  [tarball, tarballV2] = (await npmPack([join(FIX, "v1"), join(FIX, "v2")], "hcpx-vendor-npm-")) as [string, string];
});

describe("hcpx pack add", () => {
  it("from an npm tarball (npm pack of a fixture pack): refused until reviewed, then vendored byte for byte, locked, activated with its reads", async () => {
    const dir = await newProject();
    const first = await runHcpx(["pack", "add", tarball, "--json"], { cwd: dir });
    expect(first.code).toBe(1);
    const e1 = envelope(first);
    expect(e1.ok).toBe(false);
    expect(e1.error.code).toBe("review_required");
    // the review says what runs and from where
    expect(e1.error.problems!.map((p) => p.message).join("\n")).toMatch(
      /runs: \.\/bin\/greet\.mjs .*\.hcp\/packs\/greet\/bin\/greet\.mjs/,
    );
    expect(existsSync(join(dir, ".hcp/packs/greet"))).toBe(false);
    expect(existsSync(join(dir, "hcp.lock"))).toBe(false);

    const r = await runHcpx(["pack", "add", tarball, "--yes", "--json"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const e = envelope<{ id: string; granted: string[]; withheld: unknown[] }>(r);
    expect(e.data.id).toBe("greet");
    expect(e.data.granted).toEqual(["greet.hello"]);
    const lock = JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8"));
    expect(lock.packs.greet.source).toMatchObject({ type: "npm", version: "1.0.0" });
    expect(lock.packs.greet.source.integrity).toMatch(/^sha512-/);
    expect(Object.keys(lock.packs.greet.files).sort()).toEqual([
      "SKILL.md",
      "bin/greet.mjs",
      "package.json",
      "policy.json",
      "surface.json",
    ]);
    // byte-identical to the fixture
    expect(tree(join(dir, ".hcp/packs/greet"))).toEqual(tree(join(FIX, "v1")));
    // the built CLI as a real process
    const run = await runChild(["exec", "greet", "hello", "--json", "--", "name=Ada"], { cwd: dir });
    expect(JSON.parse(run.stdout)).toEqual({ ok: true, data: { greeting: "hello, Ada" } });
    // a second add of the same id is refused
    const again = await runHcpx(["pack", "add", tarball, "--yes", "--json"], { cwd: dir });
    expect(again.code).toBe(1);
    expect(envelope(again).error.code).toBe("exists");
  });

  it("from a local git repository at a #ref: the commit is locked; from a path: its files are copied", async () => {
    const repo = gitRepo(join(FIX, "v1"));
    const commit = git(repo, "rev-parse", "v1").trim();
    const dir = await newProject();
    const r = await runHcpx(["pack", "add", `${repo}#v1`, "--yes", "--json"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const lock = JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8"));
    expect(lock.packs.greet.source).toEqual({ type: "git", url: repo, ref: "v1", commit });
    expect(tree(join(dir, ".hcp/packs/greet"))).toEqual(tree(join(FIX, "v1")));

    const dir2 = await newProject();
    cpSync(join(FIX, "v1"), join(dir2, "vendor-src"), { recursive: true });
    const p = await runHcpx(["pack", "add", "./vendor-src", "--yes", "--json"], { cwd: dir2 });
    expect(p.code, p.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir2, "hcp.lock"), "utf8")).packs.greet.source).toEqual({
      type: "path",
      path: "./vendor-src",
    });
    expect(tree(join(dir2, ".hcp/packs/greet"))).toEqual(tree(join(FIX, "v1")));
    // remove: config entry, grants, folder and lock entry go
    const rm = await runHcpx(["pack", "remove", "greet", "--json"], { cwd: dir2 });
    expect(rm.code, rm.stderr).toBe(0);
    expect(existsSync(join(dir2, ".hcp/packs/greet"))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir2, "hcp.lock"), "utf8")).packs).toEqual({});
    expect(readFileSync(join(dir2, "hcp.config.json5"), "utf8")).not.toContain("greet");
  });

  // run from a git hook, hcpx inherits GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, -c settings…: the fetch's git
  // must clone into its scratch folder, not act on the repository the hook runs in
  it("from a git repository while GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE name another repository: that one is untouched", async () => {
    const repo = gitRepo(join(FIX, "v1"));
    const commit = git(repo, "rev-parse", "v1").trim();
    const other = tmp("hcpx-vendor-hook-");
    writeFileSync(join(other, "mine.txt"), "the person's work\n");
    git(other, "init", "-q");
    git(other, "add", "-A");
    git(other, "commit", "-qm", "mine");
    const state = () => ({
      refs: git(other, "for-each-ref", "--format=%(refname) %(objectname)"),
      config: readFileSync(join(other, ".git/config"), "utf8"),
      index: readFileSync(join(other, ".git/index")).toString("base64"),
      files: readdirSync(other).sort(),
      objects: git(other, "count-objects", "-v"),
    });
    const before = state();
    const dir = await newProject();
    const env = {
      GIT_DIR: join(other, ".git"),
      GIT_WORK_TREE: other,
      GIT_INDEX_FILE: join(other, ".git/index"),
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "remote.origin.url",
      GIT_CONFIG_VALUE_0: other,
    };
    const r = await runHcpx(["pack", "add", `${repo}#v1`, "--yes", "--json"], { cwd: dir, env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")).packs.greet.source.commit).toBe(commit);
    expect(tree(join(dir, ".hcp/packs/greet"))).toEqual(tree(join(FIX, "v1")));
    expect(state()).toEqual(before);
  });

  it("the fetch's environment keeps the ssh, askpass, proxy and CA variables and drops every other GIT_*", () => {
    const env = gitEnv({
      PATH: "/bin",
      GIT_SSH_COMMAND: "ssh -i k",
      GIT_ASKPASS: "/a",
      GIT_SSL_CAINFO: "/ca",
      GIT_DIR: "/r/.git",
      GIT_CONFIG_PARAMETERS: "'core.fsmonitor'='x'",
      GIT_OBJECT_DIRECTORY: "/o",
      GIT_SSL_NO_VERIFY: "1",
      GIT_FUTURE_THING: "1",
    });
    expect(env).toEqual({
      PATH: "/bin",
      GIT_SSH_COMMAND: "ssh -i k",
      GIT_ASKPASS: "/a",
      GIT_SSL_CAINFO: "/ca",
      GIT_TERMINAL_PROMPT: "0",
      GIT_ALLOW_PROTOCOL: "file:git:http:https:ssh",
      GIT_CONFIG_NOSYSTEM: "1",
    });
  });

  it("refuses a pack folder past a fetch's limits, reading it no further: 10,001 empty folders (no file among them)", async () => {
    const dir = await newProject();
    const src = join(dir, "padded");
    cpSync(join(FIX, "v1"), src, { recursive: true });
    for (let i = 0; i <= 10_000; i++) mkdirSync(join(src, "pad", `d${i}`), { recursive: true });
    const r = await runHcpx(["pack", "add", "./padded", "--yes", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("unsafe_archive");
    expect(envelope(r).error.message).toMatch(/padded holds more than 10000 entries \(files and folders\)/);
    expect(existsSync(join(dir, ".hcp/packs/greet"))).toBe(false);
  });

  it("refuses a pack with a symlink, and one that does not lint, writing nothing", async () => {
    const dir = await newProject();
    const src = join(dir, "linked");
    cpSync(join(FIX, "v1"), src, { recursive: true });
    symlinkSync("/etc/passwd", join(src, "passwd"));
    const r = await runHcpx(["pack", "add", "./linked", "--yes", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("unsafe_archive");
    const bad = join(dir, "broken");
    cpSync(join(FIX, "v1"), bad, { recursive: true });
    writeFileSync(
      join(bad, "SKILL.md"),
      readFileSync(join(bad, "SKILL.md"), "utf8").replace("name: greet", "name: other"),
    ); // loads, fails lint
    const b = await runHcpx(["pack", "add", "./broken", "--yes", "--json"], { cwd: dir });
    expect(b.code).toBe(1);
    expect(envelope(b).error.code).toBe("lint_failed");
    expect(existsSync(join(dir, ".hcp/packs/greet"))).toBe(false);
    expect(readdirSync(join(dir, ".hcp/packs"))).toEqual([]); // no staging left behind
  });
});

describe("hcpx pack add npm:<a spec that is not a registry name>", () => {
  it("npm:git+file://…: hcp.lock records the spec itself, not the package's name@version, and pack install fetches it from there again", async () => {
    const dir = await newProject();
    const repo = gitRepo(join(FIX, "v1"));
    // the registry is nowhere: a fetch by the package's name would fail (and one did, to the public registry)
    const env = {
      npm_config_registry: "http://127.0.0.1:9/",
      npm_config_update_notifier: "false",
      npm_config_audit: "false",
    };
    const spec = `git+file://${repo}`;
    const a = await runHcpx(["pack", "add", `npm:${spec}`, "--yes", "--json"], { cwd: dir, env });
    expect(a.code, a.stdout + a.stderr).toBe(0);
    const source = JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")).packs.greet.source;
    expect(source).toMatchObject({ type: "npm", spec, resolved: spec, version: "1.0.0" });
    rmSync(join(dir, ".hcp/packs/greet"), { recursive: true });
    const i = await runHcpx(["pack", "install", "--json"], { cwd: dir, env });
    expect(i.code, i.stdout + i.stderr).toBe(0);
    expect(existsSync(join(dir, ".hcp/packs/greet/surface.json"))).toBe(true);
  }, 60_000);
});

describe("hcpx pack install", () => {
  it("restores byte-identical packs in a fresh clone; a tampered vendored file is found and restored; a tampered lock is refused", async () => {
    const repo = gitRepo(join(FIX, "v1"));
    const dir = await newProject();
    expect((await runHcpx(["pack", "add", `${repo}#v1`, "--yes"], { cwd: dir })).code).toBe(0);
    expect((await runHcpx(["pack", "add", tarball, "--yes"], { cwd: dir })).code).toBe(1); // same id: refused
    writeFileSync(join(dir, ".gitignore"), ".hcp/\n");
    git(dir, "init", "-q");
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", "project");
    const clone = tmp("hcpx-vendor-clone-");
    git(clone, "clone", "-q", dir, "c");
    const c = join(clone, "c");
    expect(existsSync(join(c, ".hcp"))).toBe(false);
    const check0 = await runHcpx(["pack", "install", "--check", "--json"], { cwd: c });
    expect(check0.code).toBe(1);
    const r = await runHcpx(["pack", "install", "--json"], { cwd: c });
    expect(r.code, r.stderr).toBe(0);
    expect(envelope<{ packs: { id: string; status: string }[] }>(r).data.packs).toEqual([
      { id: "greet", status: "restored" },
    ]);
    expect(tree(join(c, ".hcp/packs/greet"))).toEqual(tree(join(dir, ".hcp/packs/greet")));
    const run = await runHcpx(["exec", "greet", "hello", "--json", "--", "name=CI"], { cwd: c });
    expect(JSON.parse(run.stdout)).toEqual({ ok: true, data: { greeting: "hello, CI" } });

    // a vendored file changed by hand: --check fails, install refuses it (the person's edit), --force restores the locked bytes
    writeFileSync(join(c, ".hcp/packs/greet/bin/greet.mjs"), "process.stdout.write('{\"owned\":true}')\n");
    const check = await runHcpx(["pack", "install", "--check", "--json"], { cwd: c });
    expect(check.code).toBe(1);
    expect(envelope(check).error.message).toMatch(/bin\/greet\.mjs \(changed\)/);
    expect((await runHcpx(["pack", "install"], { cwd: c })).code).toBe(1);
    expect((await runHcpx(["pack", "install", "--force"], { cwd: c })).code).toBe(0);
    expect(tree(join(c, ".hcp/packs/greet"))).toEqual(tree(join(dir, ".hcp/packs/greet")));

    // the lock says other bytes than the source has: refused, nothing written
    const lockFile = join(c, "hcp.lock");
    const lock = JSON.parse(readFileSync(lockFile, "utf8"));
    lock.packs.greet.files["surface.json"] = "sha256-" + Buffer.alloc(32, 7).toString("base64");
    writeFileSync(lockFile, JSON.stringify(lock, null, 2));
    rmSync(join(c, ".hcp"), { recursive: true });
    const t = await runHcpx(["pack", "install", "--json"], { cwd: c });
    expect(t.code).toBe(1);
    const te = envelope(t);
    expect(te.error.code).toBe("hash_mismatch");
    expect(te.error.message).toMatch(/surface\.json \(changed\)/);
    expect(existsSync(join(c, ".hcp/packs/greet"))).toBe(false);
  });

  it("refuses a lock whose paths leave the packs dir, and a lock with an unknown key", async () => {
    const dir = await newProject();
    const h = "sha256-" + Buffer.alloc(32).toString("base64");
    writeFileSync(
      join(dir, "hcp.lock"),
      JSON.stringify({
        lockfileVersion: 1,
        packs: { greet: { source: { type: "path", path: "./x" }, version: "1", files: { "../../escape.txt": h } } },
      }),
    );
    const r = await runHcpx(["pack", "install", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("bad_lock");
    writeFileSync(
      join(dir, "hcp.lock"),
      JSON.stringify({
        lockfileVersion: 1,
        packs: { greet: { source: { type: "path", path: "./x" }, version: "1", files: {}, trusted: true } },
      }),
    );
    const u = await runHcpx(["pack", "install", "--json"], { cwd: dir });
    expect(u.code).toBe(1);
    expect(envelope(u).ok).toBe(false);
    writeFileSync(
      join(dir, "hcp.lock"),
      JSON.stringify({
        lockfileVersion: 1,
        packs: { "../x": { source: { type: "path", path: "./x" }, version: "1", files: {} } },
      }),
    );
    const i = await runHcpx(["pack", "install", "--json"], { cwd: dir });
    expect(i.code).toBe(1);
    expect(envelope(i).error.code).toBe("bad_lock");
    expect(existsSync(join(dir, "x"))).toBe(false);
    // a locked npm spec that would be an npm option is not passed to npm
    writeFileSync(
      join(dir, "hcp.lock"),
      JSON.stringify({
        lockfileVersion: 1,
        packs: {
          greet: {
            source: {
              type: "npm",
              spec: "greet",
              resolved: "--registry=http://127.0.0.1:9/",
              version: "1",
              integrity: "sha512-AAAA",
            },
            version: "1",
            files: {},
          },
        },
      }),
    );
    const o = await runHcpx(["pack", "install", "--json"], { cwd: dir });
    expect(o.code).toBe(1);
    expect(envelope(o).error.code).toBe("bad_source");
  });

  it("refuses an npm tarball that changed since it was locked", async () => {
    const dir = await newProject();
    const tgz = join(dir, "greet.tgz");
    cpSync(tarball, tgz);
    expect((await runHcpx(["pack", "add", "./greet.tgz", "--yes"], { cwd: dir })).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")).packs.greet.source.spec).toBe("./greet.tgz");
    cpSync(tarballV2, tgz);
    rmSync(join(dir, ".hcp"), { recursive: true });
    const r = await runHcpx(["pack", "install", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("integrity_mismatch");
    expect(existsSync(join(dir, ".hcp/packs/greet"))).toBe(false);
  });
});

describe("hcpx pack update", () => {
  it("shows a new write and a new env name, changes nothing without --yes, and never grants the write", async () => {
    const repo = gitRepo(join(FIX, "v1"));
    const dir = await newProject();
    expect((await runHcpx(["pack", "add", `${repo}#main`, "--yes"], { cwd: dir })).code).toBe(0);
    // v2 on the same branch: a new write `save`, a new Binding GREET_TOKEN
    cpSync(join(FIX, "v2"), repo, { recursive: true });
    git(repo, "commit", "-qam", "v2");
    const before = tree(join(dir, ".hcp/packs/greet"));
    const lockBefore = readFileSync(join(dir, "hcp.lock"), "utf8");
    const r = await runHcpx(["pack", "update", "greet", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    const e = envelope<unknown>(r);
    expect(e.error.code).toBe("review_required");
    const diff = (e.error.packs as { diff: { newWrites: string[]; newConfirmless: string[]; newEnv: string[] } }[])[0]!
      .diff;
    expect(diff.newWrites).toEqual(["save"]);
    expect(diff.newConfirmless).toEqual(["save"]);
    expect(diff.newEnv).toEqual(["GREET_TOKEN"]);
    expect(tree(join(dir, ".hcp/packs/greet"))).toEqual(before);
    expect(readFileSync(join(dir, "hcp.lock"), "utf8")).toBe(lockBefore);

    // a person had granted the whole pack: the new write is withheld by name
    expect((await runHcpx(["grant", "greet.*"], { cwd: dir })).code).toBe(0);
    const u = await runHcpx(["pack", "update", "greet", "--yes", "--json"], { cwd: dir });
    expect(u.code, u.stderr).toBe(0);
    const ue = envelope<{ packs: { status: string; to: string; denied: string[] }[] }>(u);
    expect(ue.data.packs[0]).toMatchObject({ status: "updated", to: "2.0.0", denied: ["greet.save"] });
    expect(tree(join(dir, ".hcp/packs/greet"))).toEqual(tree(join(FIX, "v2")));
    const save = await runHcpx(["exec", "greet", "save", "--json", "--", "name=x"], { cwd: dir });
    expect(JSON.parse(save.stdout).error.code).toBe("not_granted");
    const hello = await runHcpx(["exec", "greet", "hello", "--json", "--", "name=x"], { cwd: dir });
    expect(JSON.parse(hello.stdout).ok).toBe(true);
    const again = await runHcpx(["pack", "update", "--json"], { cwd: dir });
    expect(envelope<{ packs: { status: string }[] }>(again).data.packs[0]!.status).toBe("up_to_date");
  });
});

describe("hcpx pack update: what a kept command runs", () => {
  it("a read whose argv changed, or whose arg may now start with '-', is shown per verb, never as 'no change to what it runs'", async () => {
    const dir = await newProject();
    const src = join(dir, "src-greet");
    cpSync(join(FIX, "v1"), src, { recursive: true });
    expect((await runHcpx(["pack", "add", "./src-greet", "--yes"], { cwd: dir })).code).toBe(0);
    // the same verb, the same read row: another argv, and the agent's value may now be an option
    const file = join(src, "surface.json");
    writeFileSync(
      file,
      readFileSync(file, "utf8")
        .replace('version: "1.0.0"', 'version: "1.0.1"')
        .replace('cli: ["greet", "hello", "{{name}}"]', 'cli: ["greet", "push", "--force", "{{name}}"]')
        .replace(
          'required: true, description: "Who to greet"',
          'required: true, allow_dash: true, description: "Who to greet"',
        ),
    );
    const r = await runHcpx(["pack", "update", "greet"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toMatch(/no change to what it runs/);
    expect(r.stdout + r.stderr).toContain(
      "~ hello: runs argv push --force {{name}}; name may start with '-' (was argv hello {{name}})",
    );
    const j = await runHcpx(["pack", "update", "greet", "--json"], { cwd: dir });
    const diff = (envelope<unknown>(j).error.packs as { diff: { rerun?: unknown[] } }[])[0]!.diff;
    expect(diff.rerun).toEqual([
      { verb: "hello", from: "argv hello {{name}}", to: "argv push --force {{name}}; name may start with '-'" },
    ]);
  });
});

describe("hcpx pack update --to", () => {
  it("a source with the same bytes (a new tag on the same commit): up to date, nothing to review, and hcp.lock follows it", async () => {
    const repo = gitRepo(join(FIX, "v1"));
    const dir = await newProject();
    expect((await runHcpx(["pack", "add", `${repo}#v1`, "--yes"], { cwd: dir })).code).toBe(0);
    git(repo, "tag", "v1.0.1");
    const before = tree(join(dir, ".hcp/packs/greet"));
    const u = await runHcpx(["pack", "update", "greet", "--to", "v1.0.1", "--json"], { cwd: dir });
    expect(u.code, u.stderr).toBe(0);
    expect(envelope<{ packs: { status: string; source?: string }[] }>(u).data.packs[0]).toMatchObject({
      status: "up_to_date",
      source: expect.stringContaining("#v1.0.1"),
    });
    const lock = JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")) as {
      packs: { greet: { source: { ref: string } } };
    };
    expect(lock.packs.greet.source.ref).toBe("v1.0.1");
    expect(tree(join(dir, ".hcp/packs/greet"))).toEqual(before);
    // the same source again: nothing moves, and the text says only "up to date"
    const again = await runHcpx(["pack", "update", "greet", "--to", "v1.0.1"], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim()).toMatch(/greet: up to date$/);
  });
});

describe("a Policy change is a consent change (pack update, pack install)", () => {
  type Row = { operation: "read" | "write"; land?: string; confirm?: boolean };
  /** Write the pack's policy with `save` as `row`, and its SKILL.md hot-path cell to match. */
  function setSave(src: string, row: Row): void {
    writeFileSync(join(src, "policy.json"), JSON.stringify({ rows: { hello: { operation: "read" }, save: row } }));
    const skill = join(src, "SKILL.md");
    const cell = row.operation === "write" && row.confirm ? "write, confirm" : row.operation;
    writeFileSync(
      skill,
      readFileSync(skill, "utf8").replace(/(\| `save` \| Save a greeting \| )[^|]*\|/, `$1${cell} |`),
    );
  }
  /** A path-source copy of fixture v2 whose `save` row is `row`. */
  function source(dir: string, row: Row): string {
    const src = join(dir, "src-greet");
    cpSync(join(FIX, "v2"), src, { recursive: true });
    setSave(src, row);
    return src;
  }
  const gatedLocal: Row = { operation: "write", land: "local", confirm: true };

  it("an update that turns a confirm-gated write into a read is shown per verb, its grant is withdrawn, and it never runs without a confirm", async () => {
    const dir = await newProject();
    const src = source(dir, gatedLocal);
    expect((await runHcpx(["pack", "add", "./src-greet", "--yes"], { cwd: dir })).code).toBe(0);
    expect((await runHcpx(["grant", "greet.save"], { cwd: dir })).code).toBe(0);
    const gated = await runHcpx(["exec", "greet", "save", "--json", "--", "name=x"], { cwd: dir });
    expect(JSON.parse(gated.stdout).error.code).toBe("confirm_required");

    // the source now says `save` is a read
    setSave(src, { operation: "read" });
    const text = await runHcpx(["pack", "update", "greet"], { cwd: dir });
    expect(text.code).toBe(1);
    expect(text.stdout).not.toMatch(/no change to what it runs, reads or writes/);
    expect(text.stdout).toMatch(
      /~ save: write \(local, confirm\) → read {2}\(widens: write → read, confirm dropped; any grant of it is withdrawn\)/,
    );
    const r = await runHcpx(["pack", "update", "greet", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    const diff = (
      envelope(r).error.packs as {
        diff: { changed: { verb: string; from: unknown; to: unknown; widened: string[] }[] };
      }[]
    )[0]!.diff;
    expect(diff.changed).toEqual([
      {
        verb: "save",
        from: { operation: "write", land: "local", confirm: true },
        to: { operation: "read" },
        widened: ["write → read", "confirm dropped"],
      },
    ]);

    const u = await runHcpx(["pack", "update", "greet", "--yes", "--json"], { cwd: dir });
    expect(u.code, u.stderr).toBe(0);
    expect(envelope<{ packs: { withdrawn: string[] }[] }>(u).data.packs[0]!.withdrawn).toEqual(["greet.save"]);
    const after = await runHcpx(["exec", "greet", "save", "--json", "--", "name=x"], { cwd: dir });
    expect(JSON.parse(after.stdout).error.code).toBe("not_granted");
  });

  it("a dropped confirm and a widened land withdraw the grant (a wider pattern is denied by name); a narrowing keeps it", async () => {
    const dir = await newProject();
    const src = source(dir, gatedLocal);
    expect((await runHcpx(["pack", "add", "./src-greet", "--yes"], { cwd: dir })).code).toBe(0);
    expect((await runHcpx(["grant", "greet.*"], { cwd: dir })).code).toBe(0);
    // land local → external, confirm kept: still a widening
    setSave(src, { operation: "write", land: "external", confirm: true });
    const u = await runHcpx(["pack", "update", "greet", "--yes", "--json"], { cwd: dir });
    expect(u.code, u.stderr).toBe(0);
    const up = envelope<{
      packs: { withdrawn: string[]; denied: string[]; diff: { changed: { verb: string; widened: string[] }[] } }[];
    }>(u).data.packs[0]!;
    expect(up.diff.changed).toEqual([expect.objectContaining({ verb: "save", widened: ["land local → external"] })]);
    expect(up.denied).toEqual(["greet.save"]);
    const denied = await runHcpx(["exec", "greet", "save", "--json", "--confirm", "--", "name=x"], { cwd: dir });
    expect(JSON.parse(denied.stdout).error.code).toBe("not_granted");
    // another project granted `save` while it landed external; narrowed to local: the grant stays
    const dir2 = await newProject();
    const src2 = source(dir2, { operation: "write", land: "external", confirm: true });
    expect((await runHcpx(["pack", "add", "./src-greet", "--yes"], { cwd: dir2 })).code).toBe(0);
    expect((await runHcpx(["grant", "greet.save"], { cwd: dir2 })).code).toBe(0);
    setSave(src2, gatedLocal);
    const n = await runHcpx(["pack", "update", "greet", "--yes", "--json"], { cwd: dir2 });
    expect(n.code, n.stderr).toBe(0);
    const np = envelope<{
      packs: { withdrawn: string[]; denied: string[]; diff: { changed: { widened: string[] }[] } }[];
    }>(n).data.packs[0]!;
    expect(np).toMatchObject({ withdrawn: [], denied: [] });
    expect(np.diff.changed).toMatchObject([{ verb: "save", widened: [] }]);
    const ok = await runHcpx(["exec", "greet", "save", "--json", "--confirm", "--", "name=x"], { cwd: dir2 });
    expect(JSON.parse(ok.stdout)).toEqual({ ok: true, data: { saved: "x" } });
  });

  it("pack add --force over a vendored version: a write that became a read is shown and not granted", async () => {
    const dir = await newProject();
    const src = source(dir, gatedLocal);
    expect((await runHcpx(["pack", "add", "./src-greet", "--yes"], { cwd: dir })).code).toBe(0);
    expect((await runHcpx(["grant", "greet.save"], { cwd: dir })).code).toBe(0);
    setSave(src, { operation: "read" });
    const r = await runHcpx(["pack", "add", "./src-greet", "--force", "--yes"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/~ save: write \(local, confirm\) → read {2}\(widens: write → read/);
    const after = await runHcpx(["exec", "greet", "save", "--json", "--", "name=x"], { cwd: dir });
    expect(JSON.parse(after.stdout).error.code).toBe("not_granted");
  });

  it("pack install of a lock whose content changed shows the Policy change against the vendored folder and withdraws the widened grant", async () => {
    const dir = await newProject();
    const src = source(dir, gatedLocal);
    expect((await runHcpx(["pack", "add", "./src-greet", "--yes"], { cwd: dir })).code).toBe(0);
    expect((await runHcpx(["grant", "greet.save"], { cwd: dir })).code).toBe(0);
    // a teammate updated the pack elsewhere: the lock (as pulled) now names other bytes
    const other = await newProject();
    cpSync(src, join(other, "src-greet"), { recursive: true });
    setSave(join(other, "src-greet"), { operation: "write", land: "local" });
    expect((await runHcpx(["pack", "add", "./src-greet", "--yes"], { cwd: other })).code).toBe(0);
    cpSync(join(other, "src-greet"), src, { recursive: true });
    cpSync(join(other, "hcp.lock"), join(dir, "hcp.lock"));
    const r = await runHcpx(["pack", "install", "--json"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const ip = envelope<{
      packs: {
        withdrawn: string[];
        diff: { changed: { verb: string; from: unknown; to: unknown; widened: string[] }[] };
      }[];
    }>(r).data.packs[0]!;
    expect(ip.diff.changed).toEqual([
      {
        verb: "save",
        from: gatedLocal,
        to: { operation: "write", land: "local", confirm: false },
        widened: ["confirm dropped"],
      },
    ]);
    expect(ip.withdrawn).toEqual(["greet.save"]);
    const after = await runHcpx(["exec", "greet", "save", "--json", "--", "name=x"], { cwd: dir });
    expect(JSON.parse(after.stdout).error.code).toBe("not_granted");
  });
});

describe("the tar reader", () => {
  const header = (name: string, type: string, size: number, link = "") => {
    const h = Buffer.alloc(512);
    h.write(name, 0, "utf8");
    h.write("0000644\0", 100);
    h.write("0000000\0", 108);
    h.write("0000000\0", 116);
    h.write(size.toString(8).padStart(11, "0") + "\0", 124);
    h.write("00000000000\0", 136);
    h.write(type, 156);
    h.write(link, 157);
    h.write("ustar\0", 257);
    h.write("00", 263);
    h.fill(0x20, 148, 156);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(sum.toString(8).padStart(6, "0") + "\0 ", 148);
    return h;
  };
  const tar = (...entries: [string, string, string?][]) => {
    const parts: Buffer[] = [];
    for (const [name, type, body = ""] of entries) {
      const data = Buffer.from(body);
      parts.push(header(name, type, type === "0" ? data.length : 0, type === "2" ? body : ""));
      if (type === "0") parts.push(Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]));
    }
    parts.push(Buffer.alloc(1024));
    return Buffer.concat(parts);
  };
  it("reads regular files and refuses traversal, absolute paths, links and duplicates", () => {
    expect(
      readTar(tar(["package/a.txt", "0", "hi"]), { gzip: false, label: "t" }).map((e) => [e.path, e.data.toString()]),
    ).toEqual([["package/a.txt", "hi"]]);
    for (const bad of [
      tar(["package/../../evil", "0", "x"]),
      tar(["/etc/evil", "0", "x"]),
      tar(["package/l", "2", "/etc/passwd"]),
      tar(["package/h", "1"]),
      tar(["package/a", "0", "1"], ["package/a", "0", "2"]),
    ]) {
      expect(() => readTar(bad, { gzip: false, label: "t" })).toThrow(/unsafe|link|twice/);
    }
  });
  it("refuses a tree a vendored pack could not be hashed again from: its folders count, as hashTree counts them", () => {
    const dir = tmp("hcpx-tar-");
    const entries = Array.from({ length: 5000 }, (_, i) => ({
      path: `a/d${i}/f`,
      data: Buffer.from(""),
      executable: false,
    }));
    expect(() => writeEntries(join(dir, "one-folder-each"), entries)).toThrow(
      /holds more than 10000 entries \(5000 files in 5001 folders\)/,
    );
    expect(existsSync(join(dir, "one-folder-each"))).toBe(false); // refused before anything was written
    const flat = entries.slice(0, 4999).map((e, i) => ({ ...e, path: `sub/f${i}` }));
    writeEntries(join(dir, "flat"), flat);
    expect(Object.keys(hashTree(join(dir, "flat"))).length).toBe(4999);
  });
  it("caps what a gzip bomb can unpack to", () => {
    // deflate's fastest level: 80 MiB of zeros still packs to ~0.36 MB, in a quarter of the default's CPU
    const bomb = gzipSync(Buffer.alloc(80 * 1024 * 1024), { level: 1 });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(() => readTar(bomb, { gzip: true, label: "bomb" })).toThrow(/larger than|gunzip/);
  });
  // a .git folder (or a .git file naming one) in the vendored folder would make any git command started there
  // (a shell prompt, an editor opening SKILL.md) read its config: core.fsmonitor, hooks, run as the person
  it("refuses a git directory in a pack from elsewhere: a path source with a nested .git, and an npm tarball holding one, writing nothing", async () => {
    const dir = await newProject();
    const src = join(dir, "with-git");
    cpSync(join(FIX, "v1"), src, { recursive: true });
    mkdirSync(join(src, "sub", ".git"), { recursive: true });
    writeFileSync(join(src, "sub", ".git", "config"), "[core]\n\tfsmonitor = touch pwned\n");
    const r = await runHcpx(["pack", "add", "./with-git", "--yes", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("unsafe_archive");
    expect(envelope(r).error.message).toMatch(/sub\/\.git/);
    expect(existsSync(join(dir, ".hcp/packs/greet"))).toBe(false);
    // the same in a tarball (npm pack passes a .tgz through as it is): package/.git/config, package/.GIT/x
    for (const name of [".git/config", ".GIT/config", "bin/.git"]) {
      const tgz = join(dir, "with-git.tgz");
      const files = readdirSync(join(FIX, "v1"), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
      const entries: [string, string, string?][] = files.map((e) => [
        `package/${join(e.parentPath, e.name).slice(join(FIX, "v1").length + 1)}`,
        "0",
        readFileSync(join(e.parentPath, e.name), "utf8"),
      ]);
      writeFileSync(tgz, gzipSync(tar(...entries, [`package/${name}`, "0", "[core]\n\tfsmonitor = touch pwned\n"])));
      const t = await runHcpx(["pack", "add", "./with-git.tgz", "--yes", "--json"], { cwd: dir });
      expect(t.code, name).toBe(1);
      expect(envelope(t).error.code, name).toBe("unsafe_archive");
      expect(envelope(t).error.message, name).toMatch(/\.git/i);
      expect(existsSync(join(dir, ".hcp/packs/greet"))).toBe(false);
    }
    expect(readdirSync(join(dir, ".hcp/packs"))).toEqual([]); // no staging left behind
  });
});

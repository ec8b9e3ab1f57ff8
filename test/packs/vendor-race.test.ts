// Two vendoring commands at once, as two real processes: each one's hcp.lock entry survives
// (the lock's read-modify-write is serialised by an edit lock next to it, as the config's is).
// The projects, the repository of greet and the checks after the race are set up once or
// run in this process (test/support/inproc.ts), as is the update that lands while a held
// command (a real process) waits at its git archive; the commands that race are real processes.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envelope } from "../cli/helpers";
import { runHcpx, tmp } from "../support/hcpx";
import { runInProcess } from "../support/inproc";
import { git, grantsOf, newProject as initProject, writeGreet, type Row } from "./vendor-support";

/** One project made by `hcpx init --yes` (in this process) per file; each test gets a copy. */
let initialised: Promise<string> | undefined;
async function newProject(): Promise<string> {
  initialised ??= initProject(runInProcess);
  const dir = tmp("hcpx-vendor-");
  cpSync(await initialised, dir, { recursive: true });
  return dir;
}

describe("hcp.lock under concurrent pack add", () => {
  it("two pack add runs at once (git and path): both packs are locked, vendored and activated", async () => {
    for (let round = 0; round < 3; round++) {
      const dir = await newProject();
      const repo = join(dir, "repo-greet");
      mkdirSync(repo);
      writeGreet(repo, { version: "1.0.0", named: { hello: { operation: "read" } } });
      git(repo, "init", "-q");
      git(repo, "add", "-A");
      git(repo, "commit", "-qm", "v1");
      writeGreet(join(dir, "src-wave"), { id: "wave", version: "1.0.0", named: { hi: { operation: "read" } } });
      const [a, b] = await Promise.all([
        runHcpx(["pack", "add", `${repo}#main`, "--yes"], { cwd: dir }),
        runHcpx(["pack", "add", "./src-wave", "--yes"], { cwd: dir }),
      ]);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
      const lock = JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")) as { packs: Record<string, unknown> };
      expect(Object.keys(lock.packs).sort()).toEqual(["greet", "wave"]);
      expect(grantsOf(dir).allow.sort()).toEqual(["greet.hello", "wave.hi"]);
      const check = await runInProcess(["pack", "install", "--check"], { cwd: dir });
      expect(check.code, check.stdout + check.stderr).toBe(0);
    }
  }, 60_000);
});

/** A vendoring command held at its `git archive` while `pack update greet --to v2` lands: what it runs and must say. */
const HELD: [string, (repo: string) => string[], RegExp][] = [
  [
    "pack update (a v1 → v3 review): swaps in what was reviewed only while hcp.lock still locks v1",
    () => ["pack", "update", "greet", "--to", "main", "--yes", "--json"],
    /changed while this update was fetched and reviewed .*; nothing was changed/,
  ],
  [
    "pack add --force (a v1 → v3 Policy change): replaces only while hcp.lock still locks v1",
    (repo) => ["pack", "add", `${repo}#main`, "--force", "--yes", "--json"],
    /changed while this pack add fetched and reviewed it .*; nothing was changed/,
  ],
  [
    "pack update --to another ref of v1's bytes: records the source only while hcp.lock still locks them",
    () => ["pack", "update", "greet", "--to", "also-v1", "--json"],
    /changed while this update fetched .*; nothing was recorded/,
  ],
];

describe.each(HELD)("while another update lands: %s", (_name, args, said) => {
  it("leaves hcp.lock and the folder as the other update made them, and says it changed nothing", async () => {
    const dir = await newProject();
    const repo = greetRepo(dir);
    expect((await runInProcess(["pack", "add", `${repo}#v1`, "--yes"], { cwd: dir })).code).toBe(0);
    // this command read hcp.lock, then its git waits at its archive until the other update has landed
    const held = heldGit(dir);
    const slow = runHcpx(args(repo), { cwd: dir, env: held.env });
    await held.reached();
    const other = await runInProcess(["pack", "update", "greet", "--to", "v2", "--yes"], { cwd: dir });
    expect(other.code, other.stderr).toBe(0);
    held.release();
    const s = await slow;
    const lock = JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")) as {
      packs: { greet: { version: string; source: { ref?: string } } };
    };
    expect(lock.packs.greet.version).toBe("2.0.0");
    expect(lock.packs.greet.source.ref).toBe("v2");
    const check = await runInProcess(["pack", "install", "--check"], { cwd: dir });
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(s.code, s.stdout + s.stderr).toBe(1);
    expect(envelope(s).error.code, s.stdout).toBe("changed_during_plan");
    expect(envelope(s).error.message).toMatch(said);
  }, 60_000);
});

/**
 * A `git` in front of the real one (on PATH through `env`) that stops at `git archive` until released:
 * `reached()` resolves once a run got there (it read hcp.lock before), `release()` lets it go on.
 */
function heldGit(dir: string): { env: Record<string, string>; reached(): Promise<void>; release(): void } {
  const shim = join(dir, "held-git");
  mkdirSync(shim);
  const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  const [reached, go] = [join(dir, "git-reached"), join(dir, "git-go")];
  writeFileSync(
    join(shim, "git"),
    `#!/bin/sh\ncase " $* " in *" archive "*)\n  : > '${reached}'\n  i=0; while [ ! -e '${go}' ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done;;\nesac\nexec '${realGit}' "$@"\n`,
    { mode: 0o755 },
  );
  return {
    env: { PATH: `${shim}:${process.env.PATH ?? ""}` },
    async reached() {
      for (let t = 0; !existsSync(reached) && t < 600; t++) await new Promise((r) => setTimeout(r, 100));
      expect(existsSync(reached)).toBe(true);
    },
    release: () => writeFileSync(go, ""),
  };
}

/** greetRepo's repository, made once per file: each test gets a copy (none of them writes to it) */
let greetRepoMade: string | undefined;

/**
 * A git repository of the pack greet in `dir`: v1 (tagged v1 and also-v1), v2 (tagged v2) and v3 on main, each
 * with one more read command.
 */
function greetRepo(dir: string): string {
  const repo = join(dir, "repo-greet");
  greetRepoMade ??= makeGreetRepo(tmp("hcpx-vendor-greet-"));
  cpSync(greetRepoMade, repo, { recursive: true });
  return repo;
}

function makeGreetRepo(repo: string): string {
  const named: Record<string, Row> = { hello: { operation: "read" } };
  for (const v of ["1", "2", "3"]) {
    writeGreet(repo, { version: `${v}.0.0`, named });
    if (v === "1") git(repo, "init", "-q");
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", `v${v}`);
    if (v !== "3") git(repo, "tag", `v${v}`);
    if (v === "1") git(repo, "tag", "also-v1");
    named[`hello${v}`] = { operation: "read" };
  }
  return repo;
}

// Two vendoring commands at once, as two real processes: each one's hcp.lock entry survives
// (the lock's read-modify-write is serialised by an edit lock next to it, as the config's is).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envelope } from "../cli/helpers";
import { runHcpx } from "../support/hcpx";
import { git, grantsOf, newProject, writeGreet, type Row } from "./vendor-support";

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
      const check = await runHcpx(["pack", "install", "--check"], { cwd: dir });
      expect(check.code, check.stdout + check.stderr).toBe(0);
    }
  }, 60_000);
});

describe("pack update while another update lands", () => {
  it("swaps in what was reviewed only while hcp.lock still locks the version the review compared it with", async () => {
    const dir = await newProject();
    const repo = greetRepo(dir);
    expect((await runHcpx(["pack", "add", `${repo}#v1`, "--yes"], { cwd: dir })).code).toBe(0);
    // this update's review is v1 → v3; while it fetches, another takes the pack to v2
    const held = heldGit(dir);
    const slow = runHcpx(["pack", "update", "greet", "--to", "main", "--yes", "--json"], { cwd: dir, env: held.env });
    await held.reached();
    const other = await runHcpx(["pack", "update", "greet", "--to", "v2", "--yes"], { cwd: dir });
    expect(other.code, other.stderr).toBe(0);
    held.release();
    const s = await slow;
    const lock = JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")) as {
      packs: { greet: { version: string; source: { ref?: string } } };
    };
    expect(lock.packs.greet.version).toBe("2.0.0");
    expect(lock.packs.greet.source.ref).toBe("v2");
    expect((await runHcpx(["pack", "install", "--check"], { cwd: dir })).code).toBe(0);
    expect(s.code, s.stdout + s.stderr).toBe(1);
    expect(envelope(s).error.code, s.stdout).toBe("changed_during_plan");
    expect(envelope(s).error.message).toMatch(/the entry of 'greet' changed while this update was fetched and reviewed/);
  }, 60_000);
});

describe("pack add --force while an update lands", () => {
  it("replaces the vendored version only while hcp.lock still locks the one whose Policy change it showed", async () => {
    const dir = await newProject();
    const repo = greetRepo(dir);
    expect((await runHcpx(["pack", "add", `${repo}#v1`, "--yes"], { cwd: dir })).code).toBe(0);
    const held = heldGit(dir);
    const slow = runHcpx(["pack", "add", `${repo}#main`, "--force", "--yes", "--json"], { cwd: dir, env: held.env });
    await held.reached();
    const other = await runHcpx(["pack", "update", "greet", "--to", "v2", "--yes"], { cwd: dir });
    expect(other.code, other.stderr).toBe(0);
    held.release();
    const s = await slow;
    const lock = JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")) as { packs: { greet: { version: string } } };
    expect(lock.packs.greet.version).toBe("2.0.0");
    expect((await runHcpx(["pack", "install", "--check"], { cwd: dir })).code).toBe(0);
    expect(s.code, s.stdout + s.stderr).toBe(1);
    expect(envelope(s).error.code, s.stdout).toBe("changed_during_plan");
    expect(envelope(s).error.message).toMatch(/the entry of 'greet' changed while this pack add fetched and reviewed it/);
  }, 60_000);
});

describe("pack update --to while another update lands", () => {
  it("records the source named only while hcp.lock still locks the bytes it fetched, and says so when it does not", async () => {
    const dir = await newProject();
    const repo = join(dir, "repo-greet");
    mkdirSync(repo);
    writeGreet(repo, { version: "1.0.0", named: { hello: { operation: "read" } } });
    git(repo, "init", "-q");
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "v1");
    // a tag on v1: `--to v1` is the same bytes from another ref (nothing to review, the lock follows it)
    git(repo, "tag", "v1");
    expect((await runHcpx(["pack", "add", `${repo}#main`, "--yes"], { cwd: dir })).code).toBe(0);
    writeGreet(repo, { version: "2.0.0", named: { hello: { operation: "read" } } });
    git(repo, "commit", "-qam", "v2");
    // the --to run's git waits at its archive until the plain update has landed: it read hcp.lock before,
    // and takes its edit lock after
    const held = heldGit(dir);
    const slow = runHcpx(["pack", "update", "greet", "--to", "v1", "--json"], {
      cwd: dir,
      env: held.env,
    });
    await held.reached();
    const plain = await runHcpx(["pack", "update", "greet", "--yes"], { cwd: dir });
    expect(plain.code, plain.stderr).toBe(0);
    held.release();
    const s = await slow;
    // hcp.lock records what the plain update vendored, and the folder matches it
    const lock = JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")) as {
      packs: { greet: { version: string; source: { url?: string; ref?: string } } };
    };
    expect(lock.packs.greet.version).toBe("2.0.0");
    expect(lock.packs.greet.source.ref).toBe("main");
    const check = await runHcpx(["pack", "install", "--check"], { cwd: dir });
    expect(check.code, check.stdout + check.stderr).toBe(0);
    // and the --to run says it recorded nothing
    expect(s.code, s.stdout + s.stderr).toBe(1);
    expect(envelope(s).error.code, s.stdout).toBe("changed_during_plan");
    expect(envelope(s).error.message).toMatch(/the entry of 'greet' changed while this update fetched .*nothing was recorded/);
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

/** A git repository of the pack greet: v1 (tagged v1), v2 (tagged v2) and v3 on main, each with one more read command. */
function greetRepo(dir: string): string {
  const repo = join(dir, "repo-greet");
  mkdirSync(repo);
  const named: Record<string, Row> = { hello: { operation: "read" } };
  for (const v of ["1", "2", "3"]) {
    writeGreet(repo, { version: `${v}.0.0`, named });
    if (v === "1") git(repo, "init", "-q");
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", `v${v}`);
    if (v !== "3") git(repo, "tag", `v${v}`);
    named[`hello${v}`] = { operation: "read" };
  }
  return repo;
}

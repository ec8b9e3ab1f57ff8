// Two vendoring commands at once, as two real processes: each one's hcp.lock entry survives
// (the lock's read-modify-write is serialised by an edit lock next to it, as the config's is).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envelope } from "../cli/helpers";
import { runHcpx } from "../support/hcpx";
import { git, grantsOf, newProject, writeGreet } from "./vendor-support";

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
    // the --to run's git waits at its archive (a shim in front of the real one) until the plain update has landed:
    // the --to run read hcp.lock before, and takes its edit lock after
    const shim = join(dir, "slow-git");
    mkdirSync(shim);
    const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    const [reached, go] = [join(dir, "reached"), join(dir, "go")];
    writeFileSync(
      join(shim, "git"),
      `#!/bin/sh\ncase " $* " in *" archive "*)\n  : > '${reached}'\n  i=0; while [ ! -e '${go}' ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done;;\nesac\nexec '${realGit}' "$@"\n`,
      { mode: 0o755 },
    );
    const slow = runHcpx(["pack", "update", "greet", "--to", "v1", "--json"], {
      cwd: dir,
      env: { PATH: `${shim}:${process.env.PATH ?? ""}` },
    });
    for (let t = 0; !existsSync(reached) && t < 600; t++) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(reached)).toBe(true);
    const plain = await runHcpx(["pack", "update", "greet", "--yes"], { cwd: dir });
    expect(plain.code, plain.stderr).toBe(0);
    writeFileSync(go, "");
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

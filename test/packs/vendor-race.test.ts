// Two vendoring commands at once, as two real processes: each one's hcp.lock entry survives
// (the lock's read-modify-write is serialised by an edit lock next to it, as the config's is).
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
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

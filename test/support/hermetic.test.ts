// test/support/env.ts: the worker a test file runs in is as hermetic as the
// children it starts. Its HOME is a scratch folder of the file's own, none of
// the developer's XDG folders, hcp config or hcpx switches reach it, and the
// switches it takes out are every one src/ reads. A library call made in this
// process writes its audit record there, not in the developer's home (before,
// the suite appended to ~/.local/state/hcpx/audit.jsonl and filled ~/.cache/hcpx).
import { existsSync, readdirSync, readFileSync, realpathSync, statfsSync, statSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { basename, dirname, join } from "node:path";
import { openProject } from "hcpx";
import { describe, expect, it } from "vitest";
import { REPO } from "./cli";
import { HCPX_SWITCHES, USER_PLACES } from "./hermetic";
import { listHosts, loadDescriptor } from "../../src/host/descriptor";
import { homeVariables } from "../../src/host/homes";
import { memoryBase, TMPFS_MAGIC } from "./memory-tmp";
import { probeEnv, probeProject } from "../lib/support";

/** The names of the environment variables of hcpx's own that src/ reads: `env.X`, `env["X"]` or a "X" literal. */
function switchesSrcReads(): string[] {
  const names = new Set<string>();
  for (const f of readdirSync(join(REPO, "src"), { recursive: true, encoding: "utf8" })) {
    if (!f.endsWith(".ts")) continue;
    const text = readFileSync(join(REPO, "src", f), "utf8");
    for (const m of text.matchAll(/(?:env\.|env\[["'`]|["'`])(HCPX_[A-Z0-9_]+)\b/g)) names.add(m[1]!);
  }
  return [...names].sort();
}

/** What a file of the developer's home looks like now: absent, or its size and mtime. */
function state(path: string): string {
  if (!existsSync(path)) return "absent";
  const st = statSync(path);
  return `${st.size} ${st.mtimeMs}`;
}

describe("the test worker's environment", () => {
  it("takes out every hcpx switch src/ reads, and lists no other", () => {
    expect(switchesSrcReads()).toEqual([...HCPX_SWITCHES].sort());
  });

  it("takes out every variable that moves a host's files (descriptor `homes`): adopt would write the developer's", () => {
    const moving = listHosts().flatMap((h) => homeVariables(loadDescriptor(h)));
    expect(moving.length).toBeGreaterThan(0);
    for (const v of moving) expect(USER_PLACES, v).toContain(v);
  });

  it("has a scratch HOME under the temporary folder, not the developer's, and none of their places or switches", () => {
    const home = process.env.HOME!;
    expect(home).not.toBe(userInfo().homedir);
    expect(realpathSync(home).startsWith(realpathSync(tmpdir()) + "/")).toBe(true);
    for (const k of [...HCPX_SWITCHES, ...USER_PLACES, "NODE_EXTRA_CA_CERTS"])
      expect(process.env[k], k).toBeUndefined();
  });

  it("makes its temporary folders in the run's one scratch folder (test/support/run-tmp.ts), itself not inside another", () => {
    expect(tmpdir()).toBe(process.env.HCPX_TEST_RUN_TMP);
    expect(basename(tmpdir())).toMatch(/^hcpx-test-/);
    expect(dirname(tmpdir())).not.toMatch(/hcpx-test-/);
  });

  it("is in memory (/dev/shm) when the machine has a tmpfs there with room, unless HCPX_TEST_TMP_ON_DISK=1", () => {
    // (on the disk, the run's folder is wherever TMPDIR named, /dev/shm included: nothing to say then)
    if (memoryBase() !== undefined) {
      expect(dirname(tmpdir())).toBe("/dev/shm");
      expect(statfsSync(tmpdir()).type).toBe(TMPFS_MAGIC);
    }
    expect(memoryBase({ ...process.env, HCPX_TEST_TMP_ON_DISK: "1" })).toBeUndefined();
  });

  it("is what every vitest config of the repository sets up, npm test's and the slower suites' (hosts, agents, hostile, Prism)", async () => {
    const configs = readdirSync(REPO).filter((f) => /^vitest(\.[a-z-]+)?\.config\.ts$/.test(f));
    expect(configs.length).toBeGreaterThanOrEqual(5);
    for (const f of configs) {
      const test =
        ((await import(join(REPO, f))) as { default: { test?: Record<string, unknown> } }).default.test ?? {};
      const list = (v: unknown) => (Array.isArray(v) ? v : v === undefined ? [] : [v]);
      expect(list(test.globalSetup), f).toContainEqual(expect.stringMatching(/^test\/support\/run-tmp(-memory)?\.ts$/));
      expect(list(test.globalSetup), f).toContain("test/support/repo-writes.ts");
      expect(list(test.setupFiles), f).toContain("test/support/env.ts");
    }
  });

  it("a library call in this process writes its audit record in that HOME, not in the developer's", async () => {
    const theirs = join(userInfo().homedir, ".local", "state", "hcpx", "audit.jsonl");
    const before = state(theirs);
    const pp = probeProject();
    const p = await openProject({ cwd: pp.dir, env: probeEnv() });
    expect(await p.call("probe__status", {})).toMatchObject({ ok: true });
    const audit = readFileSync(join(process.env.HOME!, ".local", "state", "hcpx", "audit.jsonl"), "utf8");
    expect(audit).toContain('"tool":"probe__status"');
    expect(state(theirs)).toBe(before);
  });
});

// A vendoring run (pack update, pack add --force) SIGKILLed at each of its write steps (the test hook HCPX_TEST_KILL_AFTER_WRITES,
// src/util/atomic.ts; the door's folder swap counts each rename): the next `hcpx pack install` leaves
// the pack as hcp.lock records it and nothing of the killed run in .hcp/packs — its staging folder
// and the old folder it had renamed aside (src/app/vendor-sweep.ts). A run killed between the swap's
// two renames had taken the pack's folder away: install puts the locked copy back without fetching
// (the source is gone). A folder of the person's replaced by `pack add --force` is never swept, and a hand
// edit it (or `pack install --force`) replaces is never taken for hcpx's by the next install. The
// killed runs are real processes; install and --check run in this process.
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO, runHcpx, tmp } from "../support/hcpx";
import { runInProcess } from "../support/inproc";
import { envelope } from "../cli/helpers";
import { diffHashes, hashTree } from "../../src/packs/lock";
import { fileBytes as tree } from "../support/tree";
import { lockConfig, newProject, unlockConfig, writeGreet } from "./vendor-support";

const FIX = join(REPO, "test/fixtures/remote-pack");
const git = (cwd: string, ...args: string[]) =>
  execFileSync(
    "git",
    ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main", ...args],
    {
      cwd,
      encoding: "utf8",
    },
  );

let repo: string;
let base: string;
beforeAll(async () => {
  repo = tmp("hcpx-vkill-repo-");
  cpSync(join(FIX, "v1"), repo, { recursive: true });
  git(repo, "init", "-q");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "v1");
  base = tmp("hcpx-vkill-");
  expect((await runInProcess(["init", "--yes"], { cwd: base })).code).toBe(0);
  expect((await runInProcess(["pack", "add", `${repo}#main`, "--yes"], { cwd: base })).code).toBe(0);
  expect((await runInProcess(["grant", "greet.*"], { cwd: base })).code).toBe(0);
  // v2 on the branch: `pack update greet --yes` swaps it in
  cpSync(join(FIX, "v2"), repo, { recursive: true });
  git(repo, "commit", "-qam", "v2");
});

type LockFile = { packs: { greet: { files: Record<string, string> } } };
type RecordFile = { packs: { greet?: { files: Record<string, string>; replacing?: Record<string, string> } } };

/** The project's locked pack matches hcp.lock, and .hcp/packs holds nothing else. */
function settled(dir: string, label: string): void {
  expect(readdirSync(join(dir, ".hcp/packs")), label).toEqual(["greet"]);
  const lock = JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")) as LockFile;
  expect(diffHashes(lock.packs.greet.files, hashTree(join(dir, ".hcp/packs/greet"))), label).toEqual([]);
}

/** The vendoring runs killed: each replaces the vendored v1 with the branch's v2. */
const RUNS: [string, () => string[]][] = [
  ["pack update", () => ["pack", "update", "greet", "--yes"]],
  ["pack add --force", () => ["pack", "add", `${repo}#main`, "--force", "--yes"]],
];

describe.each(RUNS)("%s killed at each write step", (_name, args) => {
  it("the next pack install settles on hcp.lock and sweeps what the run left; a folder taken away comes back without a fetch", async () => {
    let tookAway = 0;
    let k = 1;
    for (; k < 40; k++) {
      const dir = tmp("hcpx-vkill-k-");
      cpSync(base, dir, { recursive: true });
      const r = await runHcpx(args(), {
        cwd: dir,
        env: { HCPX_TEST_KILL_AFTER_WRITES: String(k) },
      });
      if (r.signal !== "SIGKILL") {
        expect(r.code, r.stderr).toBe(0);
        break;
      }
      const left = readdirSync(join(dir, ".hcp/packs"));
      const gone = !left.includes("greet");
      // the pack's folder was taken away (killed between the renames): the locked copy is put back, the source unreachable
      if (gone) {
        tookAway++;
        renameSync(repo, `${repo}-away`);
      }
      try {
        const i = await runInProcess(["pack", "install", "--json"], { cwd: dir });
        expect(i.code, `after ${k} steps: ${i.stdout}${i.stderr}`).toBe(0);
        const swept = envelope<{ swept?: string[] }>(i).data.swept ?? [];
        if (left.some((n) => n.startsWith(".staging-"))) expect(swept.length, `after ${k} steps`).toBeGreaterThan(0);
        if (gone) expect(swept.join("\n")).toMatch(/greet: put back from an interrupted run's copy/);
      } finally {
        if (gone) renameSync(`${repo}-away`, repo);
      }
      settled(dir, `after ${k} steps (left: ${left.join(", ")})`);
      expect((await runInProcess(["pack", "install", "--check"], { cwd: dir })).code).toBe(0);
    }
    expect(k).toBeGreaterThan(3); // it was killed at several steps, then ran through
    expect(tookAway).toBe(1); // one step lies between the two renames
  }, 60_000);
});

// A `pack add --force` that cannot activate (the config's edit lock held by a live process: this test's) is taken
// back: the old folder, its hcp.lock entry, then the record's entry as they were. Killed at any step of that, too,
// the next install settles without a false hand edit; without a record (hcp.lock stands in for it) as well, so the
// record's entry is put back only after the lock's.
describe.each([
  ["with the record", true],
  ["without a record", false],
])("pack add --force taken back, killed at each write step (%s)", (_name, record) => {
  // v1 with a file changed: no Policy change, so nothing opens the config before the swap (activation does); a
  // file of v1's changed, so v1's folder under v1b's lock entry and no record is taken for a hand edit
  let v1b: string;
  beforeAll(() => {
    v1b = tmp("hcpx-vkill-v1b-");
    cpSync(join(FIX, "v1"), v1b, { recursive: true });
    const pkg = join(v1b, "package.json");
    writeFileSync(pkg, readFileSync(pkg, "utf8").replace("A fixture pack", "The same fixture pack"));
    git(v1b, "init", "-q");
    git(v1b, "add", "-A");
    git(v1b, "commit", "-qm", "v1b");
  });

  it("the next pack install settles on hcp.lock, never pack_edited; run through, it fails and changes nothing", async () => {
    let k = 1;
    for (; k < 40; k++) {
      const dir = tmp("hcpx-vkill-back-");
      cpSync(base, dir, { recursive: true });
      if (!record) rmSync(join(dir, ".hcp/vendored.json"));
      const before = readFileSync(join(dir, "hcp.lock"), "utf8");
      const recorded = record
        ? readFileSync(join(dir, ".hcp/vendored.json"), "utf8")
        : '{\n  "recordVersion": 1,\n  "packs": {}\n}\n';
      lockConfig(dir);
      const r = await runHcpx(["pack", "add", `${v1b}#main`, "--force", "--yes"], {
        cwd: dir,
        env: { HCPX_TEST_KILL_AFTER_WRITES: String(k), HCPX_LOCK_WAIT_MS: "100" },
      });
      unlockConfig(dir);
      if (r.signal !== "SIGKILL") {
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toMatch(/another hcpx command editing this config is running/);
        expect(readFileSync(join(dir, "hcp.lock"), "utf8")).toBe(before);
        expect(readFileSync(join(dir, ".hcp/vendored.json"), "utf8")).toBe(recorded); // no entry: none before
      }
      const left = readdirSync(join(dir, ".hcp/packs"));
      const i = await runInProcess(["pack", "install", "--json"], { cwd: dir });
      expect(i.code, `after ${k} steps: ${i.stdout}${i.stderr}`).toBe(0);
      settled(dir, `after ${k} steps (left: ${left.join(", ")})`);
      if (r.signal !== "SIGKILL") break;
    }
    expect(k).toBeGreaterThan(5); // killed on the way in and on the way back, then ran through
  }, 60_000);
});

// The folder replaced may be the person's own (hcp.lock does not know it): `pack add --force` sets it aside
// as `.staging-….kept` (not what hcpx wrote there), which no sweep removes. Killed at any step before the
// add is done, the person's files are still there after the next install: in place, or in that folder.
describe("pack add --force over the person's own folder, killed at each write step", () => {
  it("after the next pack install the person's folder is in place or kept aside whole, and said so", async () => {
    const shape = { version: "1.0.0", named: { hello: { operation: "read" as const } } };
    const base = await newProject(runInProcess);
    writeGreet(join(base, ".hcp/packs/greet"), shape);
    writeFileSync(join(base, ".hcp/packs/greet/notes.txt"), "my notes\n");
    writeGreet(join(base, "src-greet"), { ...shape, version: "1.0.1" });
    const mine = tree(join(base, ".hcp/packs/greet"));
    let setAside = 0;
    let k = 1;
    for (; k < 40; k++) {
      const dir = tmp("hcpx-vkill-mine-");
      cpSync(base, dir, { recursive: true });
      const r = await runHcpx(["pack", "add", "./src-greet", "--force", "--yes"], {
        cwd: dir,
        env: { HCPX_TEST_KILL_AFTER_WRITES: String(k) },
      });
      if (r.signal !== "SIGKILL") {
        expect(r.code, r.stderr).toBe(0);
        break;
      }
      const i = await runInProcess(["pack", "install", "--json"], { cwd: dir });
      expect(i.code, `after ${k} steps: ${i.stdout}${i.stderr}`).toBe(0);
      const packs = join(dir, ".hcp/packs");
      const kept = readdirSync(packs).filter((n) => n.startsWith(".staging-"));
      const swept = envelope<{ swept?: string[] }>(i).data.swept ?? [];
      const target = join(packs, "greet");
      if (kept.length === 0) {
        expect(tree(target), `after ${k} steps`).toEqual(mine);
        continue;
      }
      setAside++;
      expect(kept, `after ${k} steps`).toEqual([expect.stringMatching(/^\.staging-\d+-[0-9a-z]+\.greet\.kept$/)]);
      expect(tree(join(packs, kept[0]!)), `after ${k} steps`).toEqual(mine);
      expect(swept.join("\n"), `after ${k} steps`).toContain(`kept .hcp/packs/${kept[0]}`);
      expect(swept.join("\n"), `after ${k} steps`).toContain("move it back to .hcp/packs/greet by hand");
    }
    expect(k).toBeGreaterThan(3); // it was killed at several steps, then ran through
    expect(setAside).toBeGreaterThan(0); // killed between the swap's renames (and after, before the folder set aside went)
  }, 60_000);
});

// A hand edit in a vendored pack replaced by `--force` (pack add, pack install), the run killed at each write step:
// the edit is never lost to the next plain install. Still in the pack's folder, it is refused (pack_edited, naming
// it): the record written before the swap lists, of the folder being replaced, only files hcpx wrote or hcp.lock
// records (.hcp/vendored.json's `replacing`), never the edit; swapped out, it is kept aside (`.kept`).
describe.each([
  ["pack add --force", () => ["pack", "add", `${repo}#main`, "--force", "--yes"]],
  ["pack install --force", () => ["pack", "install", "--force"]],
])("%s over a hand edit, killed at each write step", (_name, args) => {
  it("the next pack install refuses the edit (pack_edited) or finds it kept aside; `replacing` never lists it", async () => {
    const edited = tmp("hcpx-vkill-edit-");
    cpSync(base, edited, { recursive: true });
    const skill = join(edited, ".hcp/packs/greet/SKILL.md");
    writeFileSync(skill, readFileSync(skill, "utf8") + "\nmy own note\n");
    const mine = tree(join(edited, ".hcp/packs/greet"));
    const locked = (JSON.parse(readFileSync(join(edited, "hcp.lock"), "utf8")) as LockFile).packs.greet.files;
    let between = 0;
    let k = 1;
    for (; k < 40; k++) {
      const dir = tmp("hcpx-vkill-edit-k-");
      cpSync(edited, dir, { recursive: true });
      const r = await runHcpx(args(), { cwd: dir, env: { HCPX_TEST_KILL_AFTER_WRITES: String(k) } });
      if (r.signal !== "SIGKILL") {
        expect(r.code, r.stderr).toBe(0);
        break;
      }
      const rec = JSON.parse(readFileSync(join(dir, ".hcp/vendored.json"), "utf8")) as RecordFile;
      const packs = join(dir, ".hcp/packs");
      const inPlace = existsSync(join(packs, "greet")) && isDeepStrictEqual(tree(join(packs, "greet")), mine);
      const kept = readdirSync(packs).filter((n) => n.endsWith(".kept"));
      const i = await runInProcess(["pack", "install", "--json"], { cwd: dir });
      if (!inPlace) {
        // swapped out: kept aside until the replacement is done (then gone: what --force asked)
        expect(i.code, `after ${k} steps: ${i.stdout}${i.stderr}`).toBe(0);
        for (const n of kept) expect(tree(join(packs, n)), `after ${k} steps`).toEqual(mine);
        continue;
      }
      if (rec.packs.greet?.replacing) between++; // the record written for the swap, the edited folder not swapped yet
      expect(i.code, `after ${k} steps: ${i.stdout}${i.stderr}`).toBe(1);
      expect(envelope(i).error.code, `after ${k} steps`).toBe("pack_edited");
      expect(envelope(i).error.message).toMatch(/SKILL\.md \(changed\)/);
      expect(tree(join(packs, "greet")), `after ${k} steps`).toEqual(mine);
      // the record named, of the folder being replaced, only what hcp.lock records
      const replacing = rec.packs.greet?.replacing ?? {};
      expect(Object.keys(replacing), `after ${k} steps`).not.toContain("SKILL.md");
      for (const [f, h] of Object.entries(replacing)) expect(locked[f], `after ${k} steps: ${f}`).toBe(h);
    }
    expect(k).toBeGreaterThan(2); // it was killed at several steps, then ran through
    expect(between).toBe(1); // killed once between the record's write and the swap
  }, 60_000);
});

describe("what a live run left", () => {
  it("a live run's folders are not touched, and install --check writes nothing", async () => {
    const dir = tmp("hcpx-vkill-live-");
    cpSync(base, dir, { recursive: true });
    const live = join(dir, ".hcp/packs", `.staging-${process.pid}-abc123`);
    const dead = join(dir, ".hcp/packs", ".staging-2147483646-abc123");
    // a folder an older hcpx set aside as `.kept` (its name without the pack's id): kept, and named
    const older = join(dir, ".hcp/packs", ".staging-2147483646-def456.kept");
    mkdirSync(live);
    mkdirSync(dead);
    mkdirSync(older);
    writeFileSync(join(older, "notes.md"), "mine\n");
    expect((await runInProcess(["pack", "install", "--check"], { cwd: dir })).code).toBe(0);
    expect(existsSync(dead)).toBe(true);
    const i = await runInProcess(["pack", "install"], { cwd: dir });
    expect(i.code, i.stderr).toBe(0);
    expect(i.stdout).toMatch(/removed \.hcp\/packs\/\.staging-2147483646-abc123, left by an interrupted run/);
    expect(i.stdout).toMatch(
      /kept \.hcp\/packs\/\.staging-2147483646-def456\.kept: .*move it back where it was by hand/,
    );
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(readFileSync(join(older, "notes.md"), "utf8")).toBe("mine\n");
  });
});

describe("a folder larger than a fetch may bring (a repository's .hcp/packs may hold anything)", () => {
  it("is not hashed whole: past LIMITS' files, entries or bytes hashTree stops and says so", () => {
    const dir = tmp("hcpx-vkill-big-");
    const many = join(dir, "many-files");
    mkdirSync(many);
    for (let i = 0; i <= 5000; i++) writeFileSync(join(many, `f${i}`), "");
    expect(() => hashTree(many)).toThrow(/it holds more than 5000 files/);
    const deep = join(dir, "many-folders");
    mkdirSync(deep);
    for (let i = 0; i <= 10_000; i++) mkdirSync(join(deep, `d${i}`));
    expect(() => hashTree(deep)).toThrow(/it holds more than 10000 entries/);
    const big = join(dir, "big-files");
    mkdirSync(big);
    for (let i = 0; i < 5; i++)
      truncateSync((writeFileSync(join(big, `f${i}`), ""), join(big, `f${i}`)), 15 * 1024 * 1024); // sparse
    expect(() => hashTree(big)).toThrow(/it holds more than 67108864 bytes/);
  });

  it("a vendored pack padded past the limits differs from the lock, says why, and install --force restores it (without, it is refused: what is in it cannot be told from a hand edit); a dead run's such folder is removed", async () => {
    const dir = tmp("hcpx-vkill-pad-");
    cpSync(base, dir, { recursive: true });
    const pack = join(dir, ".hcp/packs/greet");
    for (let i = 0; i <= 5000; i++) writeFileSync(join(pack, `pad${i}`), "");
    const dead = join(dir, ".hcp/packs", ".staging-2147483646-big123");
    mkdirSync(dead);
    for (let i = 0; i <= 10_000; i++) mkdirSync(join(dead, `d${i}`));
    const c = await runInProcess(["pack", "install", "--check"], { cwd: dir });
    expect(c.code).not.toBe(0);
    expect(c.stdout + c.stderr).toMatch(/greet does not match hcp.lock: it holds more than 5000 files/);
    const refused = await runInProcess(["pack", "install", "--json"], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(envelope(refused).error.code).toBe("pack_edited");
    expect(existsSync(join(pack, "pad5000"))).toBe(true);
    expect(existsSync(dead)).toBe(false); // the sweep ran before the refusal, and the refusal says so
    expect(envelope(refused).error.details).toMatchObject({
      swept: [expect.stringMatching(/removed \.hcp\/packs\/\.staging-2147483646-big123/)],
    });
    const i = await runInProcess(["pack", "install", "--force"], { cwd: dir });
    expect(i.code, i.stderr).toBe(0);
    settled(dir, "after install");
  });
});

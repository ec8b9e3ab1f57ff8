// A `pack add` that fails once it started changing the project takes its steps back (src/app/vendor-add.ts):
// the old folder back, hcp.lock's entry and the record's (.hcp/vendored.json) as they were. Here a fault
// is made for real while the command waits for a lock a live hcpx holds (a lock file naming this test's
// parent): hcp.lock's edit lock, before the swap, or the config's, at activation, after it. Once it waits
// (the temporary file each try links from, src/util/fsio.ts tryLink, seen by a watch on the project's
// folder) the test removes the staged copy (the swap's rename fails), or moves the old folder away or
// puts a folder where the record is (a step of the take-back fails). The person must see the error that
// made the add fail, with what was not put back and what to do. A refused `pack add --force` over a
// folder that is a link leading out of the project leaves no staged copy behind. One over a folder of the
// person's (not what hcpx wrote) sets it aside as `.staging-….kept`: when the take-back cannot put it back,
// the error says where it is, and the next command's sweep leaves it there; a hand edit in it, moved back by
// hand, is still refused by the next install or update (the record never names it). The commands waited on
// are real processes (runHcpx); the others run in this process.
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  watch,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envelope, runHcpx, tmp } from "../support/hcpx";
import { runInProcess } from "../support/inproc";
import { fileBytes as tree } from "../support/tree";
import { lockConfig, newProject, projectWithGreet, unlockConfig, writeGreet, type GreetShape } from "./vendor-support";

const greet: GreetShape = { version: "1.0.0", named: { hello: { operation: "read" } } };

/** hcp.lock and the record, as text. */
const files = (dir: string) => ["hcp.lock", ".hcp/vendored.json"].map((f) => readFileSync(join(dir, f), "utf8"));

/** The lock file `name` in `dir` held as a live hcpx holds it until `release()`; `tried`: a command tried it. */
function hold(dir: string, name: string): { tried: Promise<void>; release(): void } {
  if (name === ".hcp.config.json5.lock") lockConfig(dir);
  else writeFileSync(join(dir, name), `${process.ppid}\nheld-by-test\n`);
  let seen = () => {};
  const tried = new Promise<void>((r) => (seen = r));
  const w = watch(dir, (_, n) => {
    if (n?.startsWith(`${name}.`) && n.endsWith(".tmp")) seen();
  });
  return {
    tried,
    release() {
      w.close();
      if (name === ".hcp.config.json5.lock") unlockConfig(dir);
      else rmSync(join(dir, name));
    },
  };
}

/** The folders in .hcp/packs whose names start with `.staging-` (and end with `suffix`). */
const staged = (dir: string, suffix = "") =>
  readdirSync(join(dir, ".hcp/packs")).filter((n) => n.startsWith(".staging-") && n.endsWith(suffix));

/**
 * `pack add ./src-greet --force --yes` of greet 1.0.1 over the vendored 1.0.0 (no Policy change: the config is
 * first opened at activation), run while `lock` is held; once it waits, `fault` is made; the lock is released
 * after it (`release`: before the command gives up waiting) or never (the command fails `locked`).
 */
async function addWhile(dir: string, src: string, lock: string, release: boolean, fault: () => void) {
  writeGreet(src, { ...greet, version: "1.0.1" });
  const held = hold(dir, lock);
  const running = runHcpx(["pack", "add", "./src-greet", "--force", "--yes", "--json"], {
    cwd: dir,
    env: { HCPX_LOCK_WAIT_MS: release ? "20000" : "1000" },
  });
  const first = await Promise.race([held.tried.then(() => "waits"), running.then(() => "done")]);
  expect(first).toBe("waits");
  fault();
  if (release) held.release();
  const r = await running;
  if (!release) held.release();
  return { r, e: envelope(r) };
}

describe("pack add --force whose swap fails: the record's entry is put back", () => {
  it("the staged copy removed while it waits for hcp.lock: the rename fails; folder, lock, record kept", async () => {
    const { dir, src } = await projectWithGreet(greet, runInProcess);
    const before = { pack: tree(join(dir, ".hcp/packs/greet")), files: files(dir) };
    const { r, e } = await addWhile(dir, src, ".hcp.lock.lock", true, () => {
      const [s] = staged(dir);
      rmSync(join(dir, ".hcp/packs", s!), { recursive: true });
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(e.error.code).toBe("io_error");
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /); // no stack
    expect(tree(join(dir, ".hcp/packs/greet"))).toEqual(before.pack);
    expect(files(dir)).toEqual(before.files); // the record no longer names the version that never landed
    expect(readdirSync(join(dir, ".hcp/packs"))).toEqual(["greet"]);
    expect((await runInProcess(["pack", "install", "--check"], { cwd: dir })).code).toBe(0);
  }, 30_000);
});

describe("pack add --force that cannot activate, and a step of its take-back fails: the first error is told", () => {
  it("the record cannot be written back: `locked`, naming the record and what to do; install settles it", async () => {
    const { dir, src } = await projectWithGreet(greet, runInProcess);
    const before = { pack: tree(join(dir, ".hcp/packs/greet")), lock: files(dir)[0] };
    const record = join(dir, ".hcp/vendored.json");
    const { r, e } = await addWhile(dir, src, ".hcp.config.json5.lock", false, () => {
      rmSync(record);
      mkdirSync(join(record, "in-the-way"), { recursive: true });
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(e.error.code).toBe("locked");
    expect(e.error.message).toMatch(/another hcpx command editing this config is running/);
    expect(e.error.message).toMatch(/could not be taken back whole: .*\.hcp\/vendored\.json/);
    expect(e.error.hint).toMatch(/hcpx pack install/);
    // the folder and hcp.lock were put back before it
    expect(tree(join(dir, ".hcp/packs/greet"))).toEqual(before.pack);
    expect(readFileSync(join(dir, "hcp.lock"), "utf8")).toBe(before.lock);
    rmSync(record, { recursive: true });
    expect((await runInProcess(["pack", "install"], { cwd: dir })).code).toBe(0);
    expect((await runInProcess(["pack", "install", "--check"], { cwd: dir })).code).toBe(0);
  }, 30_000);

  it("the old folder cannot be put back (moved away): `locked`, naming the folder; hcp.lock put back", async () => {
    const { dir, src } = await projectWithGreet(greet, runInProcess);
    const before = { pack: tree(join(dir, ".hcp/packs/greet")), files: files(dir) };
    const away = join(tmp("hcpx-takeback-away-"), "old");
    const { r, e } = await addWhile(dir, src, ".hcp.config.json5.lock", false, () => {
      const [old] = staged(dir, ".old");
      renameSync(join(dir, ".hcp/packs", old!), away);
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(e.error.code).toBe("locked");
    expect(e.error.message).toMatch(/could not be taken back whole: .*\.hcp\/packs\/greet/);
    expect(e.error.hint).toMatch(/hcpx pack install/);
    expect(files(dir)[0]).toBe(before.files[0]); // hcp.lock records the old version again
    expect(existsSync(join(dir, ".hcp/packs/greet"))).toBe(false);
    // what the hint says: pack install puts back what hcp.lock records (its source holds that version again)
    writeGreet(src, greet);
    const i = await runInProcess(["pack", "install"], { cwd: dir });
    expect(i.code, i.stdout + i.stderr).toBe(0);
    expect(tree(join(dir, ".hcp/packs/greet"))).toEqual(before.pack);
    expect((await runInProcess(["pack", "install", "--check"], { cwd: dir })).code).toBe(0);
  }, 30_000);
});

describe("pack add --force over the person's own folder, taken back, and that folder cannot be put back", () => {
  it("`locked`, naming where the folder was left (`.kept`); the next pack install keeps it; moved back by hand", async () => {
    const dir = await newProject(runInProcess);
    const src = join(dir, "src-greet");
    // a folder of the person's where the pack goes: hcp.lock does not know it, a note of theirs in it
    const target = join(dir, ".hcp/packs/greet");
    writeGreet(target, greet);
    writeFileSync(join(target, "notes.txt"), "my notes\n");
    const mine = tree(target);
    const outside = tmp("hcpx-takeback-outside-");
    // while it waits to activate: the new version swapped in becomes a link leading out, which the take-back
    // refuses to remove (the old folder stays aside)
    const { r, e } = await addWhile(dir, src, ".hcp.config.json5.lock", false, () => {
      rmSync(target, { recursive: true });
      symlinkSync(outside, target);
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /); // no stack
    expect(e.error.code).toBe("locked");
    const [parked] = staged(dir);
    expect(JSON.parse(files(dir)[0]!).packs).toEqual({}); // hcp.lock as before: no entry
    // the next vendoring command's sweep (the add's process has ended): the person's folder stays, named
    const i = await runInProcess(["pack", "install", "--json"], { cwd: dir });
    expect(i.code, i.stdout + i.stderr).toBe(0);
    expect(tree(join(dir, ".hcp/packs", parked!))).toEqual(mine);
    // named, with which pack's folder it was and where it goes back
    expect(envelope(i).data.swept).toEqual([
      expect.stringMatching(
        new RegExp(
          `^kept \\.hcp/packs/${parked!.replaceAll(".", "\\.")}: .*set \\.hcp/packs/greet aside here.*move it back to \\.hcp/packs/greet by hand`,
        ),
      ),
    ]);
    // the error said where it is, and what to do
    expect(e.error.message).toMatch(/could not be taken back whole: \.hcp\/packs\/greet was not put back as it was/);
    expect(e.error.message).toContain(`the folder that was at .hcp/packs/greet is left at .hcp/packs/${parked}`);
    expect(e.error.hint).toContain(`move its old folder .hcp/packs/${parked} back by hand`);
    expect(parked).toMatch(/^\.staging-\d+-[0-9a-z]+\.greet\.kept$/);
    // what the message says: move away what is there, rename it back
    rmSync(target);
    renameSync(join(dir, ".hcp/packs", parked!), target);
    expect(tree(target)).toEqual(mine);
    expect(tree(outside)).toEqual({});
  }, 30_000);
});

describe("pack add --force over a hand-edited vendored pack, taken back, and that folder cannot be put back", () => {
  it("moved back by hand, the edit is still refused (pack_edited) by pack update and pack install, never replaced", async () => {
    const { dir, src } = await projectWithGreet(greet, runInProcess);
    const target = join(dir, ".hcp/packs/greet");
    const lockWas = files(dir)[0];
    writeFileSync(join(target, "SKILL.md"), readFileSync(join(target, "SKILL.md"), "utf8") + "\nmy own note\n");
    const mine = tree(target);
    // while it waits to activate: the new version swapped in becomes a link leading out (the take-back leaves
    // the edited folder aside as `.kept`, and the record's entry as the add wrote it)
    const { r, e } = await addWhile(dir, src, ".hcp.config.json5.lock", false, () => {
      rmSync(target, { recursive: true });
      symlinkSync(tmp("hcpx-takeback-outside-"), target);
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(e.error.code).toBe("locked");
    const [parked] = staged(dir, ".kept");
    expect(files(dir)[0]).toBe(lockWas); // hcp.lock put back: 1.0.0
    const entry = JSON.parse(files(dir)[1]!).packs.greet as { replacing?: Record<string, string> };
    // what the error says: the person moves their folder back by hand
    rmSync(target);
    renameSync(join(dir, ".hcp/packs", parked!), target);
    for (const args of [
      ["pack", "update", "greet", "--yes", "--json"],
      ["pack", "install", "--json"],
    ]) {
      const again = await runInProcess(args, { cwd: dir });
      expect(again.code, again.stdout + again.stderr).toBe(1);
      expect(envelope(again).error.code).toBe("pack_edited");
      expect(envelope(again).error.message).toMatch(/SKILL\.md \(changed\)/);
      expect(tree(target)).toEqual(mine);
    }
    // the record the take-back left names, of the folder the add replaced, only files hcp.lock records (the
    // record's own), never the edit
    const locked = JSON.parse(lockWas!).packs.greet.files as Record<string, string>;
    expect(Object.keys(entry.replacing ?? {})).not.toContain("SKILL.md");
    for (const [f, h] of Object.entries(entry.replacing ?? {})) expect(locked[f], f).toBe(h);
  }, 30_000);
});

describe("pack add --force over a folder that is a link leading out of the project", () => {
  it("is refused, and leaves no staged copy; the link and what it points at are untouched", async () => {
    const { dir, src } = await projectWithGreet(greet, runInProcess);
    const outside = tmp("hcpx-takeback-outside-");
    cpSync(join(dir, ".hcp/packs/greet"), outside, { recursive: true });
    rmSync(join(dir, ".hcp/packs/greet"), { recursive: true });
    symlinkSync(outside, join(dir, ".hcp/packs/greet"));
    const there = tree(outside);
    const was = files(dir);
    writeGreet(src, { ...greet, version: "1.0.1" });
    const r = await runInProcess(["pack", "add", "./src-greet", "--force", "--yes", "--json"], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(envelope(r).error.code).toBe("symlink_refused");
    expect(staged(dir)).toEqual([]);
    expect(readdirSync(join(dir, ".hcp/packs"))).toEqual(["greet"]);
    expect(readlinkSync(join(dir, ".hcp/packs/greet"))).toBe(outside);
    expect(tree(outside)).toEqual(there);
    expect(files(dir)).toEqual(was);
  });
});

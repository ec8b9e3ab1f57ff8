// pack install (and pack update) tell a hand edit in a vendored folder from a lock change: what hcpx
// last wrote in each folder is recorded in .hcp/vendored.json (src/app/vendor-record.ts); a file that is
// neither that nor what hcp.lock records is the person's, and is not overwritten without --force.
// A teammate's `pack update` arriving by `git pull` (a new hcp.lock, the old folder) is restored as
// before. The project is made once (init, pack add) and copied for each test. Every run is what a
// command decides and writes: a function call in this process (test/support/inproc.ts: the same argv,
// cwd, environment, stdout, stderr and exit code), the refusals and install's human text too.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tmp } from "../support/hcpx";
import { runInProcess } from "../support/inproc";
import { through, writeGreet, type GreetShape } from "./vendor-support";

const V1: GreetShape = { version: "1.0.0", named: { hello: { operation: "read" } } };
const V2: GreetShape = { version: "1.1.0", named: { hello: { operation: "read" }, wave: { operation: "read" } } };

type Packs = { packs: { id: string; status: string }[] };

/** `hcpx ...args --json` in this process */
const { json, projectWithGreet } = through(runInProcess);

let base: { dir: string; src: string };
beforeAll(async () => {
  base = await projectWithGreet(V1);
});

/** A copy of the project with `greet` V1 vendored by `pack add` (made once). */
function greetProject(): { dir: string; src: string } {
  const dir = tmp("hcpx-vedits-");
  cpSync(base.dir, dir, { recursive: true });
  return { dir, src: join(dir, "src-greet") };
}

/** A teammate's `pack update` to V2, arriving by "git pull": the new hcp.lock and source, the old folder left. */
async function pullUpdate(dir: string): Promise<void> {
  const other = tmp("hcpx-vedits-other-");
  cpSync(dir, other, { recursive: true });
  writeGreet(join(other, "src-greet"), V2);
  const u = await json(other, ["pack", "update", "greet", "--yes"]);
  expect(u.r.code, u.r.stdout + u.r.stderr).toBe(0);
  writeGreet(join(dir, "src-greet"), V2);
  cpSync(join(other, "hcp.lock"), join(dir, "hcp.lock"));
}

const lockedVersion = (dir: string) => JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")).packs.greet.version;

describe("pack install and a hand edit in a vendored folder", () => {
  it("a changed file: refused (pack_edited, the file named, byte-identical after); --check says edited; --force restores", async () => {
    const { dir } = greetProject();
    const skill = join(dir, ".hcp/packs/greet/SKILL.md");
    const locked = readFileSync(skill);
    const mine = Buffer.concat([locked, Buffer.from("\nmy own note\n")]);
    writeFileSync(skill, mine);
    const check = await json(dir, ["pack", "install", "--check"]);
    expect(check.r.code).toBe(1);
    expect(check.e.ok).toBe(false);
    expect(check.e.error.code).toBe("pack_edited");
    const { r, e } = await json(dir, ["pack", "install"]);
    expect(r.code).toBe(1);
    expect(e.ok).toBe(false);
    expect(e.error.code).toBe("pack_edited");
    expect(e.error.message).toMatch(/pack 'greet'/);
    expect(e.error.message).toMatch(/SKILL\.md \(changed\)/);
    expect(readFileSync(skill).equals(mine)).toBe(true);
    const forced = await json<Packs>(dir, ["pack", "install", "--force"]);
    expect(forced.r.code, forced.r.stdout).toBe(0);
    expect(forced.e.data.packs).toEqual([{ id: "greet", status: "restored" }]);
    expect(readFileSync(skill).equals(locked)).toBe(true);
    expect((await json(dir, ["pack", "install", "--check"])).r.code).toBe(0);
  });

  it("an added file is refused, naming the first 10 files and the count; a missing file is restored", async () => {
    const { dir } = greetProject();
    const pack = join(dir, ".hcp/packs/greet");
    for (let i = 0; i < 12; i++) writeFileSync(join(pack, `note-${String(i).padStart(2, "0")}.md`), `note ${i}\n`);
    const { r, e } = await json(dir, ["pack", "install"]);
    expect(r.code).toBe(1);
    expect(e.error.code).toBe("pack_edited");
    expect(e.error.message).toMatch(/note-00\.md \(added\)/);
    expect(e.error.message).toMatch(/\(12 in all\)/);
    expect(e.error.message).not.toMatch(/note-11\.md/);
    expect(readFileSync(join(pack, "note-11.md"), "utf8")).toBe("note 11\n");
    for (let i = 0; i < 12; i++) rmSync(join(pack, `note-${String(i).padStart(2, "0")}.md`));
    rmSync(join(pack, "SKILL.md"));
    const ok = await json<Packs>(dir, ["pack", "install"]);
    expect(ok.r.code, ok.r.stdout).toBe(0);
    expect(ok.e.data.packs).toEqual([{ id: "greet", status: "restored" }]);
    expect(existsSync(join(pack, "SKILL.md"))).toBe(true);
  });

  it("a lock changed by a pull, the folder as hcpx wrote it: restored without --force", async () => {
    const { dir } = greetProject();
    await pullUpdate(dir);
    expect(lockedVersion(dir)).toBe("1.1.0");
    const check = await json(dir, ["pack", "install", "--check"]);
    expect(check.r.code).toBe(1);
    expect(check.e.error.code).toBe("pack_differs");
    const { r, e } = await json<Packs>(dir, ["pack", "install"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(e.data.packs.map((p) => p.status)).toEqual(["restored"]);
    expect(JSON.parse(readFileSync(join(dir, ".hcp/packs/greet/surface.json"), "utf8")).version).toBe("1.1.0");
  });

  it("a lock changed by a pull over a hand-edited folder: refused, the edit kept", async () => {
    const { dir } = greetProject();
    await pullUpdate(dir);
    writeFileSync(join(dir, ".hcp/packs/greet/MINE.md"), "mine\n");
    const { r, e } = await json(dir, ["pack", "install"]);
    expect(r.code).toBe(1);
    expect(e.error.code).toBe("pack_edited");
    expect(e.error.message).toMatch(/MINE\.md \(added\)/);
    expect(e.error.message).not.toMatch(/surface\.json/); // the old version's files are hcpx's, not edits
    expect(readFileSync(join(dir, ".hcp/packs/greet/MINE.md"), "utf8")).toBe("mine\n");
  });

  it("a record that does not read is no record: the lock is the record (a pull needs --force once), never a crash", async () => {
    for (const bad of [
      "{not json",
      JSON.stringify({ recordVersion: 1, packs: {}, trusted: true }),
      JSON.stringify({ recordVersion: 1, packs: { greet: { files: { "SKILL.md": "sha256-bad" } } } }),
    ]) {
      const { dir } = greetProject();
      const record = join(dir, ".hcp/vendored.json");
      expect(existsSync(record)).toBe(true);
      writeFileSync(record, bad);
      // a hand edit is still a hand edit
      writeFileSync(join(dir, ".hcp/packs/greet/MINE.md"), "mine\n");
      const edited = await json(dir, ["pack", "install"]);
      expect(edited.r.code).toBe(1);
      expect(edited.e.error.code).toBe("pack_edited");
      expect(edited.e.error.message).toMatch(/no record of writing them/);
      rmSync(join(dir, ".hcp/packs/greet/MINE.md"));
      // the folder as the lock says: unchanged, and recorded from now on
      const same = await json<Packs>(dir, ["pack", "install"]);
      expect(same.r.code, same.r.stdout).toBe(0);
      expect(JSON.parse(readFileSync(record, "utf8")).packs.greet.files["SKILL.md"]).toMatch(/^sha256-/);
      writeFileSync(record, bad);
      await pullUpdate(dir);
      const pulled = await json(dir, ["pack", "install"]);
      expect(pulled.r.code).toBe(1);
      expect(pulled.e.error.code).toBe("pack_edited");
      const forced = await json<Packs>(dir, ["pack", "install", "--force"]);
      expect(forced.r.code, forced.r.stdout).toBe(0);
      expect(lockedVersion(dir)).toBe("1.1.0");
    }
  }, 60_000);
});

describe("a refused pack install still says what it did", () => {
  it("the other packs restored and the dead run's folder swept are in the envelope's details and the human text", async () => {
    const { dir } = greetProject();
    writeGreet(join(dir, "src-wave"), { ...V1, id: "wave" });
    expect((await json(dir, ["pack", "add", "./src-wave", "--yes"])).r.code).toBe(0);
    writeFileSync(join(dir, ".hcp/packs/greet/MINE.md"), "mine\n");
    const broken = () => {
      rmSync(join(dir, ".hcp/packs/wave"), { recursive: true });
      mkdirSync(join(dir, ".hcp/packs/.staging-2147483646-abc123"));
    };
    broken();
    const { r, e } = await json<never>(dir, ["pack", "install"]);
    expect(r.code).toBe(1);
    expect(e.ok).toBe(false);
    expect(e.error.code).toBe("pack_edited");
    const details = (e.error as unknown as { details: { packs: { id: string; status: string }[]; swept: string[] } })
      .details;
    expect(details.packs.map((p) => [p.id, p.status]).sort()).toEqual([
      ["greet", "edited"],
      ["wave", "restored"],
    ]);
    expect(details.swept.join("\n")).toMatch(/removed \.hcp\/packs\/\.staging-2147483646-abc123/);
    expect(existsSync(join(dir, ".hcp/packs/wave/surface.json"))).toBe(true);
    broken();
    const human = await runInProcess(["pack", "install"], { cwd: dir });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/✓ wave: restored from hcp\.lock/);
    expect(human.stdout).toMatch(/✗ greet: edited by hand since hcpx wrote it: not restored/);
    expect(human.stdout).toMatch(/removed \.hcp\/packs\/\.staging-2147483646-abc123/);
    expect(human.stdout).not.toMatch(/✓ greet/);
    expect(human.stderr).toMatch(
      /^error \.hcp\/packs\/greet: .*MINE\.md \(added\); nothing was written for pack 'greet'/,
    );
    expect(readFileSync(join(dir, ".hcp/packs/greet/MINE.md"), "utf8")).toBe("mine\n");
  });
});

describe("pack update and a hand edit in a vendored folder", () => {
  it("refuses with pack_edited, naming the file, and writes nothing", async () => {
    const { dir, src } = greetProject();
    writeFileSync(join(dir, ".hcp/packs/greet/MINE.md"), "mine\n");
    writeGreet(src, V2);
    const lock = readFileSync(join(dir, "hcp.lock"), "utf8");
    const { r, e } = await json(dir, ["pack", "update", "greet", "--yes"]);
    expect(r.code).toBe(1);
    expect(e.error.code).toBe("pack_edited");
    expect(e.error.message).toMatch(/MINE\.md \(added\)/);
    expect(readFileSync(join(dir, "hcp.lock"), "utf8")).toBe(lock);
    expect(readFileSync(join(dir, ".hcp/packs/greet/MINE.md"), "utf8")).toBe("mine\n");
  });
});

describe("pack remove and a hand edit in a vendored folder", () => {
  const recorded = (dir: string) => JSON.parse(readFileSync(join(dir, ".hcp/vendored.json"), "utf8")).packs;

  it("a lock changed by a pull, the folder as hcpx wrote it: removed without --force, its record dropped", async () => {
    const { dir } = greetProject();
    await pullUpdate(dir);
    expect(recorded(dir).greet).toBeDefined();
    const { r } = await json(dir, ["pack", "remove", "greet"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(existsSync(join(dir, ".hcp/packs/greet"))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")).packs).toEqual({});
    expect(recorded(dir)).toEqual({});
  });

  it("no record (a folder committed without .hcp/vendored.json) and a pulled lock: refused once (pack_edited), --force removes", async () => {
    const { dir } = greetProject();
    rmSync(join(dir, ".hcp/vendored.json"));
    await pullUpdate(dir);
    const skill = readFileSync(join(dir, ".hcp/packs/greet/SKILL.md"));
    const { r, e } = await json(dir, ["pack", "remove", "greet"]);
    expect(r.code).toBe(1);
    expect(e.error.code).toBe("pack_edited");
    expect(e.error.message).toMatch(/no record of writing them/);
    expect(readFileSync(join(dir, ".hcp/packs/greet/SKILL.md")).equals(skill)).toBe(true);
    expect(lockedVersion(dir)).toBe("1.1.0");
    const forced = await json(dir, ["pack", "remove", "greet", "--force"]);
    expect(forced.r.code, forced.r.stdout + forced.r.stderr).toBe(0);
    expect(existsSync(join(dir, ".hcp/packs/greet"))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")).packs).toEqual({});
  });

  it("a hand-edited file: refused (pack_edited, nothing removed, byte-identical); --force removes, the record dropped", async () => {
    const { dir } = greetProject();
    await pullUpdate(dir);
    const skill = join(dir, ".hcp/packs/greet/SKILL.md");
    const mine = Buffer.concat([readFileSync(skill), Buffer.from("\nmy own note\n")]);
    writeFileSync(skill, mine);
    const lock = readFileSync(join(dir, "hcp.lock"), "utf8");
    const { r, e } = await json(dir, ["pack", "remove", "greet"]);
    expect(r.code).toBe(1);
    expect(e.ok).toBe(false);
    expect(e.error.code).toBe("pack_edited");
    expect(e.error.message).toMatch(/SKILL\.md \(changed\)/);
    expect(e.error.message).not.toMatch(/surface\.json/); // the previous version's files are hcpx's
    expect(e.error.message).toMatch(/nothing was removed/);
    expect(e.error.hint).toMatch(/pack remove greet --force/);
    expect(readFileSync(skill).equals(mine)).toBe(true);
    expect(readFileSync(join(dir, "hcp.lock"), "utf8")).toBe(lock);
    expect(recorded(dir).greet).toBeDefined();
    const forced = await json(dir, ["pack", "remove", "greet", "--force"]);
    expect(forced.r.code, forced.r.stdout + forced.r.stderr).toBe(0);
    expect(existsSync(join(dir, ".hcp/packs/greet"))).toBe(false);
    expect(recorded(dir)).toEqual({});
  });

  it("a missing file is no loss: removed without --force", async () => {
    const { dir } = greetProject();
    rmSync(join(dir, ".hcp/packs/greet/SKILL.md"));
    const { r } = await json(dir, ["pack", "remove", "greet"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(existsSync(join(dir, ".hcp/packs/greet"))).toBe(false);
  });

  it("a folder hcpx cannot hash (a link inside): refused until --force", async () => {
    const { dir } = greetProject();
    symlinkSync("SKILL.md", join(dir, ".hcp/packs/greet/LINK.md"));
    const { r, e } = await json(dir, ["pack", "remove", "greet"]);
    expect(r.code).toBe(1);
    expect(e.error.code).toBe("pack_edited");
    expect(e.error.message).toMatch(/cannot tell what in it is yours, so nothing was removed/);
    expect(existsSync(join(dir, ".hcp/packs/greet/LINK.md"))).toBe(true);
    const forced = await json(dir, ["pack", "remove", "greet", "--force"]);
    expect(forced.r.code, forced.r.stdout + forced.r.stderr).toBe(0);
    expect(existsSync(join(dir, ".hcp/packs/greet"))).toBe(false);
  });
});

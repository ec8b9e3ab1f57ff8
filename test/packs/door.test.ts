// The one write door (src/util/door.ts), seen from the pack commands: a
// repository that commits `.hcp/packs` (or `.hcp`) as a symlink to a folder
// beside the project must not make `pack install`, `pack add`, `pack update`
// or `pack remove` create, replace or delete anything in that folder. The commands are what
// they write and refuse: function calls in this process (test/support/inproc.ts), not a process each.
import {
  cpSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, tmp } from "../support/hcpx";
import { runInProcess } from "../support/inproc";
import { envelope } from "../cli/helpers";

const FIX = join(REPO, "test/fixtures/remote-pack");

let built: Promise<string> | undefined;
async function build(): Promise<string> {
  const dir = join(tmp("hcpx-door-built-"), "p");
  mkdirSync(dir);
  expect((await runInProcess(["init", "--yes"], { cwd: dir })).code).toBe(0);
  cpSync(join(FIX, "v1"), join(dir, "vendor-src"), { recursive: true });
  const r = await runInProcess(["pack", "add", "./vendor-src", "--yes", "--json"], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  // what they wrote holds no path of this copy's
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (e.isFile()) expect(readFileSync(join(e.parentPath, e.name), "utf8"), e.name).not.toContain(dir);
  return dir;
}

/** A project in <parent>/p with the greet pack vendored from ./vendor-src, and <parent>/outside beside it. */
async function setup(): Promise<{ dir: string; outside: string }> {
  const parent = tmp("hcpx-door-");
  const dir = join(parent, "p");
  // `init` and `pack add` run once per file; each test gets a copy (the files they write name no absolute path)
  cpSync(await (built ??= build()), dir, { recursive: true });
  const outside = join(parent, "outside");
  mkdirSync(join(outside, "greet"), { recursive: true });
  writeFileSync(join(outside, "greet", "precious.txt"), "the user's own file\n");
  return { dir, outside };
}

/** Replace `.hcp/packs` with a committed symlink to the folder beside the project. */
function plantPacksLink(dir: string): void {
  rmSync(join(dir, ".hcp", "packs"), { recursive: true });
  symlinkSync("../../outside", join(dir, ".hcp", "packs"));
}

function untouched(outside: string): void {
  expect(readdirSync(outside)).toEqual(["greet"]);
  expect(readdirSync(join(outside, "greet"))).toEqual(["precious.txt"]);
  expect(readFileSync(join(outside, "greet", "precious.txt"), "utf8")).toBe("the user's own file\n");
}

describe("pack commands write only inside the project", () => {
  it("pack install through a .hcp/packs symlink leading outside: refused, the outside folder untouched", async () => {
    const { dir, outside } = await setup();
    plantPacksLink(dir);
    const r = await runInProcess(["pack", "install", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("symlink_refused");
    expect(JSON.stringify(envelope(r).error)).toMatch(/\.hcp\/packs\/greet/);
    untouched(outside);
  });

  it("pack remove through a .hcp/packs symlink leading outside: refused, the outside folder not deleted", async () => {
    const { dir, outside } = await setup();
    plantPacksLink(dir);
    const r = await runInProcess(["pack", "remove", "greet", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("symlink_refused");
    untouched(outside);
    // nothing else changed either: the lock still names the pack
    expect(JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")).packs.greet).toBeDefined();
  });

  it("pack add through a .hcp symlink leading outside: refused, nothing staged outside", async () => {
    const { dir, outside } = await setup();
    rmSync(join(dir, ".hcp"), { recursive: true });
    rmSync(join(dir, "hcp.lock"));
    symlinkSync("../outside", join(dir, ".hcp"));
    const r = await runInProcess(["pack", "add", "./vendor-src", "--yes", "--force", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("symlink_refused");
    untouched(outside);
  });

  it("pack remove of a pack folder that is itself a symlink removes the link, never what it points at", async () => {
    const { dir, outside } = await setup();
    rmSync(join(dir, ".hcp", "packs", "greet"), { recursive: true });
    symlinkSync(join(outside, "greet"), join(dir, ".hcp", "packs", "greet"));
    const r = await runInProcess(["pack", "remove", "greet", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("symlink_refused");
    untouched(outside);
  });

  it("a hcp.lock that is a symlink to a file outside is not replaced through the link", async () => {
    const { dir, outside } = await setup();
    const lockText = readFileSync(join(dir, "hcp.lock"), "utf8");
    writeFileSync(join(outside, "lock.json"), lockText);
    rmSync(join(dir, "hcp.lock"));
    symlinkSync(join(outside, "lock.json"), join(dir, "hcp.lock"));
    const r = await runInProcess(["pack", "remove", "greet", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(readFileSync(join(outside, "lock.json"), "utf8")).toBe(lockText);
    expect(existsSync(join(outside, "greet", "precious.txt"))).toBe(true);
  });
});

/** A folder of the project's own, `mine/work.txt`, that a link inside the project may point at. */
function mine(dir: string): string {
  mkdirSync(join(dir, "mine"));
  writeFileSync(join(dir, "mine", "work.txt"), "the user's own file\n");
  return join(dir, "mine");
}

function mineKept(dir: string): void {
  expect(readdirSync(join(dir, "mine"))).toEqual(["work.txt"]);
  expect(readFileSync(join(dir, "mine", "work.txt"), "utf8")).toBe("the user's own file\n");
}

describe("a link that stays inside the project is removed itself, never what it points at", () => {
  it("pack install over a pack folder that is a link to a project folder: the link is replaced, the folder kept", async () => {
    const { dir } = await setup();
    mine(dir);
    rmSync(join(dir, ".hcp", "packs", "greet"), { recursive: true });
    symlinkSync("../../mine", join(dir, ".hcp", "packs", "greet"));
    const r = await runInProcess(["pack", "install", "--json"], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    mineKept(dir);
    expect(lstatSync(join(dir, ".hcp", "packs", "greet")).isDirectory()).toBe(true);
    expect(readdirSync(join(dir, ".hcp", "packs"))).toEqual(["greet"]);
  });

  it("pack remove --force of a pack folder that is a link to a project folder removes the link only", async () => {
    const { dir } = await setup();
    mine(dir);
    rmSync(join(dir, ".hcp", "packs", "greet"), { recursive: true });
    symlinkSync("../../mine", join(dir, ".hcp", "packs", "greet"));
    const r = await runInProcess(["pack", "remove", "greet", "--force", "--json"], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    mineKept(dir);
    expect(existsSync(join(dir, ".hcp", "packs", "greet"))).toBe(false);
  });

  it("a link named like a dead run's staging folder is not swept through: what it points at stays", async () => {
    const { dir } = await setup();
    mine(dir);
    // no process has this pid: the sweep takes the name for a killed run's
    symlinkSync("../../mine", join(dir, ".hcp", "packs", ".staging-2147483646-abc"));
    const r = await runInProcess(["pack", "install", "--json"], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    mineKept(dir);
  });

  it("pack install through a .hcp/packs symlink that stays inside the project (to its root): refused, the project's folder of the pack's name untouched", async () => {
    const { dir } = await setup();
    mkdirSync(join(dir, "greet"));
    writeFileSync(join(dir, "greet", "notes.txt"), "the user's own file\n");
    rmSync(join(dir, ".hcp", "packs"), { recursive: true });
    symlinkSync("..", join(dir, ".hcp", "packs"));
    const r = await runInProcess(["pack", "install", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("symlink_refused");
    expect(readdirSync(join(dir, "greet"))).toEqual(["notes.txt"]);
    const add = await runInProcess(["pack", "add", "./vendor-src", "--yes", "--force", "--json"], { cwd: dir });
    expect(add.code).toBe(1);
    expect(envelope(add).error.code).toBe("symlink_refused");
    expect(readdirSync(join(dir, "greet"))).toEqual(["notes.txt"]);
    expect(readdirSync(dir).filter((n) => n.startsWith(".staging"))).toEqual([]);
  });
});

describe("pack new / add-verb write only inside their base", () => {
  it("pack new into a packs/ symlink leading outside the project: refused before anything is written (config included)", async () => {
    const parent = tmp("hcpx-door-new-");
    const dir = join(parent, "p");
    mkdirSync(dir);
    mkdirSync(join(parent, "outside"));
    expect((await runInProcess(["init", "--yes"], { cwd: dir })).code).toBe(0);
    const config = readFileSync(join(dir, "hcp.config.json5"), "utf8");
    symlinkSync("../outside", join(dir, "packs"));
    const r = await runInProcess(["pack", "new", "t", "--wrap", "/bin/echo", "--verb", "hi", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("symlink_refused");
    expect(readdirSync(join(parent, "outside"))).toEqual([]);
    expect(readFileSync(join(dir, "hcp.config.json5"), "utf8")).toBe(config);
  });

  it("pack add-verb on a pack whose SKILL.md is a link leading out of it: refused, none of its three files changed", async () => {
    const parent = tmp("hcpx-door-verb-");
    const dir = join(parent, "p");
    mkdirSync(dir);
    expect((await runInProcess(["init", "--yes"], { cwd: dir })).code).toBe(0);
    expect((await runInProcess(["pack", "new", "t", "--wrap", "/bin/echo", "--verb", "hi"], { cwd: dir })).code).toBe(
      0,
    );
    const pack = join(dir, "packs", "t");
    const outside = join(parent, "SKILL.md");
    writeFileSync(outside, readFileSync(join(pack, "SKILL.md")));
    const skill = readFileSync(outside, "utf8");
    rmSync(join(pack, "SKILL.md"));
    symlinkSync(outside, join(pack, "SKILL.md"));
    const before = ["surface.json", "policy.json"].map((f) => readFileSync(join(pack, f), "utf8"));
    const r = await runInProcess(["pack", "add-verb", pack, "--verb", "bye", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("symlink_refused");
    expect(["surface.json", "policy.json"].map((f) => readFileSync(join(pack, f), "utf8"))).toEqual(before);
    expect(readFileSync(outside, "utf8")).toBe(skill);
  });
});

describe("src/util/door.ts writeFiles: a multi-file change lands whole or not at all", () => {
  it("when the last file cannot land, the files already renamed in get their old bytes back, a new one goes, and no temp file stays", async () => {
    const { writeFiles } = await import("../../src/util/door");
    const dir = tmp("hcpx-door-tx-");
    writeFileSync(join(dir, "surface.json"), "old surface");
    writeFileSync(join(dir, "policy.json"), "old policy");
    mkdirSync(join(dir, "SKILL.md")); // a directory where the third file goes: its rename fails
    writeFileSync(join(dir, "SKILL.md", "keep"), "x");
    expect(() =>
      writeFiles({ dir }, [
        { abs: join(dir, "surface.json"), data: "new surface" },
        { abs: join(dir, "policy.json"), data: "new policy" },
        { abs: join(dir, "new.md"), data: "new file" },
        { abs: join(dir, "SKILL.md"), data: "new skill" },
      ]),
    ).toThrow();
    expect(readFileSync(join(dir, "surface.json"), "utf8")).toBe("old surface");
    expect(readFileSync(join(dir, "policy.json"), "utf8")).toBe("old policy");
    expect(existsSync(join(dir, "new.md"))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(["SKILL.md", "policy.json", "surface.json"]);
  });

  it("a path with a link leading out of the base is refused before any file is written", async () => {
    const { writeFiles } = await import("../../src/util/door");
    const dir = tmp("hcpx-door-tx-");
    const out = tmp("hcpx-door-out-");
    writeFileSync(join(out, "target"), "outside");
    symlinkSync(join(out, "target"), join(dir, "SKILL.md"));
    expect(() =>
      writeFiles({ dir }, [
        { abs: join(dir, "surface.json"), data: "new surface" },
        { abs: join(dir, "SKILL.md"), data: "new skill" },
      ]),
    ).toThrow(/symbolic link|symlink/);
    expect(existsSync(join(dir, "surface.json"))).toBe(false);
    expect(readFileSync(join(out, "target"), "utf8")).toBe("outside");
  });
});

describe("a file with more than one name (a hard link) is not replaced: both names keep their bytes", () => {
  it("writeFile (plain and through a batch's memo) and writeFiles refuse it, hard_linked, before writing anything", async () => {
    const { dirMemo, writeFile, writeFiles } = await import("../../src/util/door");
    const dir = tmp("hcpx-door-links-");
    const kept = tmp("hcpx-door-dotfiles-");
    writeFileSync(join(kept, "settings.json"), "the person's bytes\n");
    linkSync(join(kept, "settings.json"), join(dir, "settings.json"));
    const unchanged = () => {
      expect(readFileSync(join(dir, "settings.json"), "utf8")).toBe("the person's bytes\n");
      expect(readFileSync(join(kept, "settings.json"), "utf8")).toBe("the person's bytes\n");
      expect(statSync(join(dir, "settings.json")).nlink).toBe(2);
      expect(readdirSync(dir)).toEqual(["settings.json"]); // no temp file left
    };
    const code = (f: () => void) => {
      try {
        f();
      } catch (e) {
        return (e as { code?: string }).code;
      }
      return "written";
    };
    expect(code(() => writeFile({ dir }, join(dir, "settings.json"), "new"))).toBe("hard_linked");
    unchanged();
    expect(code(() => writeFile({ dir }, join(dir, "settings.json"), "new", { dirs: dirMemo() }))).toBe("hard_linked");
    unchanged();
    expect(
      code(() =>
        writeFiles({ dir }, [
          { abs: join(dir, "other.json"), data: "new other" },
          { abs: join(dir, "settings.json"), data: "new" },
        ]),
      ),
    ).toBe("hard_linked");
    unchanged();
    // one name again: written
    rmSync(join(kept, "settings.json"));
    writeFile({ dir }, join(dir, "settings.json"), "new");
    expect(readFileSync(join(dir, "settings.json"), "utf8")).toBe("new");
  });

  it("a folder where the file goes is refused as a folder (not_a_file), not as a file with other names", async () => {
    const { dirMemo, writeFile, writeFiles } = await import("../../src/util/door");
    const dir = tmp("hcpx-door-folder-");
    mkdirSync(join(dir, "settings.json", "inside"), { recursive: true });
    writeFileSync(join(dir, "settings.json", "inside", "notes"), "the person's bytes\n");
    const refusal = (f: () => void) => {
      try {
        f();
      } catch (e) {
        const p = (e as { problems?: { code: string; message: string }[] }).problems?.[0];
        return `${p?.code}: ${p?.message}`;
      }
      return "written";
    };
    for (const f of [
      () => writeFile({ dir }, join(dir, "settings.json"), "new"),
      () => writeFile({ dir }, join(dir, "settings.json"), "new", { dirs: dirMemo() }),
      () => writeFiles({ dir }, [{ abs: join(dir, "settings.json"), data: "new" }]),
    ])
      expect(refusal(f)).toMatch(/^not_a_file: .*is a directory, expected a regular file/);
    expect(readFileSync(join(dir, "settings.json", "inside", "notes"), "utf8")).toBe("the person's bytes\n");
    expect(readdirSync(dir)).toEqual(["settings.json"]); // no temp file left
  });

  it("adopt --write on a host file that is a hard link: refused with hard_linked, both names as they were", async () => {
    const dir = join(tmp("hcpx-door-adopt-"), "p");
    mkdirSync(dir);
    expect((await runInProcess(["init", "--yes"], { cwd: dir })).code).toBe(0);
    const kept = tmp("hcpx-door-dotfiles-");
    writeFileSync(join(kept, "AGENTS.md"), "# my notes\n");
    linkSync(join(kept, "AGENTS.md"), join(dir, "AGENTS.md"));
    const r = await runInProcess(["adopt", "codex", "--write", "--json"], {
      cwd: dir,
      env: { HOME: tmp("hcpx-door-home-") },
    });
    expect(r.code, r.stdout).not.toBe(0);
    const e = JSON.parse(r.stdout) as { ok: boolean; error?: { code: string; message: string; hint?: string } };
    expect(e.error?.code, r.stdout).toBe("hard_linked");
    expect(e.error?.message).toContain("AGENTS.md");
    expect(readFileSync(join(dir, "AGENTS.md"), "utf8")).toBe("# my notes\n");
    expect(readFileSync(join(kept, "AGENTS.md"), "utf8")).toBe("# my notes\n");
    expect(statSync(join(dir, "AGENTS.md")).nlink).toBe(2);
    // refused before anything of the plan was written: no other host file, no journal
    expect(existsSync(join(dir, ".codex"))).toBe(false);
    expect(existsSync(join(dir, ".hcp", "adopt.journal.json"))).toBe(false);
  });
});

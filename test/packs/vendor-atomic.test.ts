// A vendoring command that fails half-way leaves a sound state: the old pack, its lock entry
// and its grants, or the new pack with the grants its widening took back; never the new pack
// under the old grants, and never no pack at all. The failure here: the config's edit lock held
// by another hcpx (a lock file naming a live pid). A `pack add` taken back leaves .hcp/vendored.json
// as it was before it (src/app/vendor-record.ts): the folder is the one that was there, so the entry
// that accounted for it (or none, for a folder hcpx has no record of writing) accounts for it again,
// and the new version's files are not taken for hcpx's own in it. The commands are what they decide and write:
// function calls in this process (test/support/inproc.ts), exec through execInProcess.
import { cpSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runHere } from "../support/inproc";
import { grantsOf, lockConfig, through, unlockConfig, writeGreet, type GreetShape } from "./vendor-support";
import { fileBytes as tree } from "../support/tree";

/** the commands in this process (runHere: exec through execInProcess) */
const { json, projectWithGreet } = through(runHere);

const gated: GreetShape = {
  version: "1.0.0",
  named: { hello: { operation: "read" }, save: { operation: "write", land: "local", confirm: true } },
};
const confirmless: GreetShape = {
  ...gated,
  version: "1.1.0",
  named: { ...gated.named, save: { operation: "write", land: "local" } },
};
const WAIT = { HCPX_LOCK_WAIT_MS: "500" };

/**
 * Another hcpx editing the config: its lock file, naming a live process other than the one the
 * commands run in (this test's parent: a lock naming a run's own pid is one it left, src/util/fsio.ts).
 */

/** What a failed command must leave as it was: the pack's folder, hcp.lock, the grants, the record of what hcpx wrote. */
const state = (dir: string) => ({
  pack: tree(join(dir, ".hcp/packs/greet")),
  lock: readFileSync(join(dir, "hcp.lock"), "utf8"),
  grants: grantsOf(dir),
  record: readFileSync(join(dir, ".hcp/vendored.json"), "utf8"),
});

describe("a vendoring command that fails on the config leaves the old pack, lock and grants", () => {
  it("pack update that drops a confirm, with the config locked: nothing changes; once unlocked, the grant is withdrawn", async () => {
    const { dir, src } = await projectWithGreet(gated);
    expect((await json(dir, ["grant", "greet.save"])).r.code).toBe(0);
    const before = state(dir);
    writeGreet(src, confirmless);
    lockConfig(dir);
    const { r, e } = await json(dir, ["pack", "update", "greet", "--yes"], WAIT);
    expect(r.code).toBe(1);
    expect(e.error.code).toBe("locked");
    expect(state(dir)).toEqual(before);
    unlockConfig(dir);
    const u = await json<{ packs: { status: string; withdrawn: string[] }[] }>(dir, [
      "pack",
      "update",
      "greet",
      "--yes",
    ]);
    expect(u.r.code, u.r.stderr).toBe(0);
    expect(u.e.data.packs[0]).toMatchObject({ status: "updated", withdrawn: ["greet.save"] });
    expect((await json(dir, ["exec", "greet", "save", "--", "name=x"])).e.error.code).toBe("not_granted");
  });

  it("pack install of a lock that drops a confirm, with the config locked: the vendored folder and grants stay", async () => {
    const { dir } = await projectWithGreet(gated);
    expect((await json(dir, ["grant", "greet.save"])).r.code).toBe(0);
    const other = await projectWithGreet(confirmless);
    writeGreet(join(dir, "src-greet"), confirmless);
    cpSync(join(other.dir, "hcp.lock"), join(dir, "hcp.lock"));
    const before = state(dir);
    lockConfig(dir);
    const { r, e } = await json(dir, ["pack", "install"], WAIT);
    expect(r.code).toBe(1);
    expect(e.error.code).toBe("locked");
    expect(state(dir)).toEqual(before);
    unlockConfig(dir);
    const i = await json<{ packs: { withdrawn: string[] }[] }>(dir, ["pack", "install"]);
    expect(i.r.code, i.r.stderr).toBe(0);
    expect(i.e.data.packs[0]!.withdrawn).toEqual(["greet.save"]);
    expect((await json(dir, ["exec", "greet", "save", "--", "name=x"])).e.error.code).toBe("not_granted");
  });

  it("pack add --force that cannot activate puts the working pack back", async () => {
    const { dir, src } = await projectWithGreet(gated);
    const before = state(dir);
    writeGreet(src, { ...gated, version: "1.0.1" });
    lockConfig(dir);
    const { r, e } = await json(dir, ["pack", "add", "./src-greet", "--force", "--yes"], WAIT);
    expect(r.code).toBe(1);
    expect(e.error.code).toBe("locked");
    expect(state(dir)).toEqual(before);
    expect(readdirSync(join(dir, ".hcp/packs"))).toEqual(["greet"]); // no staging or old folder left
    unlockConfig(dir);
    const run = await json<{ argv: string[] }>(dir, ["exec", "greet", "hello", "--", "name=Ada"]);
    expect(run.e.data.argv).toEqual(["hello", "Ada"]);
  });

  it("pack add of a new pack that cannot activate: no folder, no lock entry, no record entry", async () => {
    const { dir } = await projectWithGreet(gated);
    const before = state(dir);
    writeGreet(join(dir, "src-wave"), { ...gated, id: "wave" });
    lockConfig(dir);
    const { r, e } = await json(dir, ["pack", "add", "./src-wave", "--yes"], WAIT);
    expect(r.code).toBe(1);
    expect(e.error.code).toBe("locked");
    expect(state(dir)).toEqual(before);
    expect(readdirSync(join(dir, ".hcp/packs"))).toEqual(["greet"]);
  });

  it("pack add --force taken back over a hand edit: the edit is still the person's (pack install refuses, keeps it)", async () => {
    const { dir, src } = await projectWithGreet(gated);
    writeFileSync(join(dir, ".hcp/packs/greet/MINE.md"), "mine\n");
    writeGreet(src, { ...gated, version: "1.0.1" });
    lockConfig(dir);
    expect((await json(dir, ["pack", "add", "./src-greet", "--force", "--yes"], WAIT)).e.error.code).toBe("locked");
    unlockConfig(dir);
    writeGreet(src, gated); // the source has the locked version again: install could restore it
    const { r, e } = await json(dir, ["pack", "install"]);
    expect(r.code, r.stdout).toBe(1);
    expect(e.error.code).toBe("pack_edited");
    expect(e.error.message).toMatch(/MINE\.md \(added\)/);
    expect(readFileSync(join(dir, ".hcp/packs/greet/MINE.md"), "utf8")).toBe("mine\n");
  });
});

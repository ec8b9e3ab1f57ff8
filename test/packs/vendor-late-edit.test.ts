// pack install (restoring a locked pack) and pack update look at the vendored folder twice: once before
// they fetch, and again just before the swap (src/app/vendor.ts restoreLocked, src/app/vendor-update.ts
// applyUpdate), since the person may edit the folder while the fetch runs. Here the fetch itself makes
// that edit: hcpx runs `git` from PATH (src/packs/source.ts), and the hcpx process's PATH starts with a
// `git` that appends a line to the folder's SKILL.md when hcpx runs its `git archive`, then runs the
// real git. The edit so lands after the first look (which passed: hcpx fetches only then) and before
// the second; the command must refuse it (pack_edited) and leave the folder, hcp.lock and the record as
// they were, the person's edit in. Both may also wait, after their fetch, for the config's edit lock
// (to withdraw the grants a change widens, before the swap): the test holds it, as a live hcpx would,
// and edits the folder once the command waits; that lock is taken before the second look
// (src/app/vendor.ts holdConfig), so that edit is refused too. The commands under test are real
// processes; the project (init, a git repository of greet v1 and v2 inside it, `pack add
// ./repo-greet#v1`) is made once, in this process, and copied for each test.
import { execFileSync } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, readFileSync, readdirSync, rmSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envelope, runHcpx, tmp, type RunResult } from "../support/hcpx";
import { runInProcess } from "../support/inproc";
import { git, lockConfig, newProject, unlockConfig, writeGreet, type Row } from "./vendor-support";
import { fileBytes as tree } from "../support/tree";

const LINE = "my own note, written while hcpx fetched";

let made: Promise<string> | undefined;

/** A copy of the project with greet v1 vendored from ./repo-greet#v1 (v2 tagged there too), made once. */
async function greetProject(): Promise<string> {
  made ??= (async () => {
    const dir = await newProject(runInProcess);
    const repo = join(dir, "repo-greet");
    const named: Record<string, Row> = { hello: { operation: "read" } };
    for (const v of ["1", "2"]) {
      writeGreet(repo, { version: `${v}.0.0`, named });
      if (v === "1") git(repo, "init", "-q");
      git(repo, "add", "-A");
      git(repo, "commit", "-qm", `v${v}`);
      git(repo, "tag", `v${v}`);
      named.wave = { operation: "read" };
    }
    const r = await runInProcess(["pack", "add", "./repo-greet#v1", "--yes"], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    return dir;
  })();
  const dir = tmp("hcpx-late-edit-");
  cpSync(await made, dir, { recursive: true });
  return dir;
}

/** The environment of an hcpx whose `git archive` first appends LINE to `file` (a `git` in front of the real one). */
function editingGit(dir: string, file: string): NodeJS.ProcessEnv {
  const shim = join(dir, "editing-git");
  mkdirSync(shim);
  const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  writeFileSync(
    join(shim, "git"),
    `#!/bin/sh\ncase " $* " in *" archive "*) printf '%s\\n' '${LINE}' >> '${file}';; esac\nexec '${realGit}' "$@"\n`,
    { mode: 0o755 },
  );
  return { PATH: `${shim}:${process.env.PATH ?? ""}` };
}

/** hcp.lock, the record and the config, as bytes. */
const state = (dir: string) =>
  ["hcp.lock", ".hcp/vendored.json", "hcp.config.json5"].map((f) => readFileSync(join(dir, f), "base64"));

/**
 * The run refused the hand edit (pack_edited, exit 1) and left everything as it was but that edit: the
 * folder as `before` with LINE added to SKILL.md, hcp.lock, the record and the config as `was`, no staging left.
 */
function refusedKept(r: RunResult, dir: string, before: Record<string, string>, was: string[]): void {
  const e = envelope(r);
  expect(r.code, r.stdout + r.stderr).toBe(1);
  expect(e.ok).toBe(false);
  expect(e.error.code).toBe("pack_edited");
  expect(e.error.message).toMatch(/SKILL\.md \(changed\); nothing was written for pack 'greet'/);
  const skill = Buffer.from(before["SKILL.md"]!, "base64").toString("utf8") + `${LINE}\n`;
  expect(tree(join(dir, ".hcp/packs/greet"))).toEqual({ ...before, "SKILL.md": Buffer.from(skill).toString("base64") });
  expect(state(dir)).toEqual(was);
  expect(readdirSync(join(dir, ".hcp/packs"))).toEqual(["greet"]);
}

describe("a hand edit made while pack install or pack update fetches", () => {
  it.each([
    // a missing file is no loss: install restores the pack, and fetches it again from the lock
    ["pack install (restoring a pack with a file removed)", ["pack", "install"], "bin/greet.mjs"],
    // the folder is as hcp.lock records it: update fetches v2 and, with --yes, swaps it in
    ["pack update --to v2 --yes", ["pack", "update", "greet", "--to", "v2", "--yes"], undefined],
  ] as const)(
    "%s: refused by the look just before the swap; folder, lock and record kept",
    async (_, args, gone) => {
      const dir = await greetProject();
      const pack = join(dir, ".hcp/packs/greet");
      if (gone) rmSync(join(pack, gone));
      const before = tree(pack);
      const was = state(dir);
      const r = await runHcpx([...args, "--json"], { cwd: dir, env: editingGit(dir, join(pack, "SKILL.md")) });
      // the edit was made (so the first look had passed and the fetch had run), and it is all that changed
      refusedKept(r, dir, before, was);
    },
    30_000,
  );
});

/** hcp.lock as a teammate's `pack update greet --to v2` leaves it (made once): pulled over the v1 folder, install restores v2. */
let pulledLock: Promise<Buffer> | undefined;
async function pullV2(dir: string): Promise<void> {
  pulledLock ??= (async () => {
    const other = await greetProject();
    const u = await runInProcess(["pack", "update", "greet", "--to", "v2", "--yes"], { cwd: other });
    expect(u.code, u.stdout + u.stderr).toBe(0);
    return readFileSync(join(other, "hcp.lock"));
  })();
  writeFileSync(join(dir, "hcp.lock"), await pulledLock);
}

/**
 * The config's edit lock held (as a live hcpx holds it: lockConfig, ./vendor-support.ts) until `release()`;
 * `tried` resolves when a command first tries to take it (the temporary file each try links from,
 * src/util/fsio.ts tryLink, seen by a watch on the project's folder).
 */
function holdConfig(dir: string): { tried: Promise<void>; release(): void } {
  lockConfig(dir);
  let seen = () => {};
  const tried = new Promise<void>((r) => (seen = r));
  const w = watch(dir, (_, name) => {
    if (name?.startsWith(".hcp.config.json5.lock.") && name.endsWith(".tmp")) seen();
  });
  return {
    tried,
    release() {
      w.close();
      unlockConfig(dir);
    },
  };
}

describe("a hand edit made while pack install or pack update waits for the config's edit lock", () => {
  // both withdraw the grants a Policy change widens (the config's edit lock, waited for while another
  // command holds it) before the swap: an edit made meanwhile is a hand edit all the same
  it.each([
    ["pack install (v2 pulled over the v1 folder: a new read command)", ["pack", "install"], true],
    ["pack update --to v2 --yes", ["pack", "update", "greet", "--to", "v2", "--yes"], false],
  ] as const)(
    "%s: refused; folder, lock and record kept",
    async (_, args, pulled) => {
      const dir = await greetProject();
      if (pulled) await pullV2(dir);
      const pack = join(dir, ".hcp/packs/greet");
      const before = tree(pack);
      const was = state(dir);
      const held = holdConfig(dir);
      const running = runHcpx([...args, "--json"], { cwd: dir, env: { HCPX_LOCK_WAIT_MS: "20000" } });
      const first = await Promise.race([held.tried.then(() => "waits"), running.then(() => "done")]);
      appendFileSync(join(pack, "SKILL.md"), `${LINE}\n`);
      held.release();
      const r = await running;
      expect(first).toBe("waits");
      refusedKept(r, dir, before, was);
    },
    30_000,
  );
});

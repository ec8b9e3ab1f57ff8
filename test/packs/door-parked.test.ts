// A folder swap of the write door (src/util/door.ts swapDirKeep, swapBack) whose old folder cannot be put
// back: the error reported is the one that made the swap fail (its code kept), naming where the old folder
// was left and how to move it back by hand; a folder that is not what hcpx wrote there goes aside as
// `.staging-….kept`, which no sweep removes (src/app/vendor-sweep.ts). The faults are real renames failing
// on the disk; to make one between the swap's two renames, the door's write-step hook (src/util/atomic.ts
// writeStep, called after each rename) is wrapped to change the disk once, when a test asks: this file
// mocks a module, so it runs in a worker of its own (test/support/shared-worker.ts).
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { tmp } from "../support/hcpx";
import { runInProcess } from "../support/inproc";
import { envelope } from "../cli/helpers";
import { fileBytes as tree } from "../support/tree";
import { newProject, writeGreet, type GreetShape } from "./vendor-support";

const hook = vi.hoisted(() => ({ when: undefined as undefined | (() => boolean), then: () => {} }));
vi.mock("../../src/util/atomic", async (original) => {
  const m = await original<typeof import("../../src/util/atomic")>();
  const writeStep = () => {
    if (hook.when?.()) {
      hook.when = undefined;
      hook.then();
    }
    m.writeStep();
  };
  return { ...m, writeStep };
});
const { HcpxError } = await import("../../src/util/errors");
const { stagingDir, swapBack, swapDirKeep } = await import("../../src/util/door");

/** Once `when` holds after a write step (the first: `() => true`), `then` changes the disk. */
function onNextStep(then: () => void, when: () => boolean = () => true): void {
  Object.assign(hook, { when, then });
}

/** A base with the person's folder `mine` (two files) and a staged new one beside it. */
function setup(): { base: string; target: string; staging: string } {
  const base = tmp("hcpx-parked-");
  const target = join(base, "packs", "mine");
  mkdirSync(join(target, "deep"), { recursive: true });
  writeFileSync(join(target, "notes.txt"), "mine\n");
  writeFileSync(join(target, "deep", "plan.md"), "also mine\n");
  const staging = stagingDir(base, join(base, "packs"));
  writeFileSync(join(staging, "new.txt"), "new\n");
  return { base, target, staging };
}

/** The error `f` throws. */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("it did not throw");
}

describe("the door's folder swap: an old folder that cannot be put back is told, and kept", () => {
  it("swapDirKeep: the new one cannot go in nor the old one back; the first error, naming where it is", () => {
    const { base, target, staging } = setup();
    const before = tree(target);
    // after the old folder went aside: the staged copy goes, a folder with a file takes the target's name
    onNextStep(() => {
      rmSync(staging, { recursive: true });
      mkdirSync(join(target, "in-the-way"), { recursive: true });
      writeFileSync(join(target, "in-the-way", "x"), "x");
    });
    const e = thrown(() => swapDirKeep(base, staging, target));
    expect(e).toBeInstanceOf(HcpxError);
    const p = (e as InstanceType<typeof HcpxError>).problems[0]!;
    expect(p.code).toBe("io_error");
    // the first error (the new folder could not go in), then where the old one is and why it stayed there
    expect(p.message).toMatch(/^cannot replace: a directory on the way does not exist \(ENOENT\)/);
    expect(p.message).toContain(`the folder that was at ${target} is left at ${staging}.old: it could not be put back`);
    expect(p.message).toContain("(ENOTEMPTY)");
    expect(p.hint).toContain(
      `move away what is at ${target} now (if anything), then rename ${staging}.old to ${target}`,
    );
    expect(tree(`${staging}.old`)).toEqual(before);
    // what the hint says puts it back
    rmSync(target, { recursive: true });
    renameSync(`${staging}.old`, target);
    expect(tree(target)).toEqual(before);
  });

  it("swapBack: the folder swapped in cannot be removed; its error, naming where the old folder is", () => {
    const { base, target, staging } = setup();
    const before = tree(target);
    const old = swapDirKeep(base, staging, target);
    expect(old).toBe(`${staging}.old`);
    // the folder swapped in became a link leading out of the base: removeTree refuses it, the old one stays aside
    const outside = tmp("hcpx-parked-outside-");
    rmSync(target, { recursive: true });
    symlinkSync(outside, target);
    const e = thrown(() => swapBack(base, old, target));
    expect(e).toBeInstanceOf(HcpxError);
    const p = (e as InstanceType<typeof HcpxError>).problems[0]!;
    expect(p.code).toBe("symlink_refused");
    expect(p.message).toContain(`the folder that was at ${target} is left at ${old}: it could not be put back`);
    expect(p.hint).toMatch(/^move it back by hand: /);
    expect(tree(old!)).toEqual(before);
  });

  it("a swap whose old folder goes back is as before: the second rename's error, the old folder in place", () => {
    const { base, target, staging } = setup();
    const before = tree(target);
    onNextStep(() => rmSync(staging, { recursive: true }));
    const e = thrown(() => swapDirKeep(base, staging, target)) as NodeJS.ErrnoException;
    expect(e.code).toBe("ENOENT");
    expect(tree(target)).toEqual(before);
    expect(readdirSync(join(base, "packs"))).toEqual(["mine"]);
  });
});

/** A folder name the swap set aside (`.old`: a copy hcpx wrote; `.kept`: anything else). */
const aside = (n: string) => /^\.staging-.*\.(old|kept)$/.test(n);

const greet: GreetShape = { version: "1.0.0", named: { hello: { operation: "read" } } };

describe("pack add --force over a folder hcp.lock does not know, whose swap cannot be undone", () => {
  it("fails with the first error naming the parked folder; the record as before; pack install keeps it", async () => {
    const dir = await newProject(runInProcess);
    // the person's own folder where the pack goes: not in hcp.lock, a note of theirs in it
    const target = join(dir, ".hcp/packs/greet");
    writeGreet(target, greet);
    writeFileSync(join(target, "notes.txt"), "my notes\n");
    const mine = tree(target);
    const src = join(dir, "src-greet");
    writeGreet(src, { ...greet, version: "1.0.1" });
    const lock = () => (existsSync(join(dir, "hcp.lock")) ? readFileSync(join(dir, "hcp.lock"), "utf8") : undefined);
    const was = lock();
    const packs = join(dir, ".hcp/packs");
    // once the swap renamed the person's folder aside: its staged copy goes, a folder takes the target's name
    onNextStep(
      () => {
        for (const n of readdirSync(packs))
          if (n.startsWith(".staging-") && !aside(n)) rmSync(join(packs, n), { recursive: true });
        mkdirSync(join(target, "in-the-way"), { recursive: true });
        writeFileSync(join(target, "in-the-way", "x"), "x");
      },
      () => readdirSync(packs).some(aside),
    );
    const r = await runInProcess(["pack", "add", "./src-greet", "--force", "--yes", "--json"], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /); // no stack
    const e = envelope(r).error;
    expect(e.code).toBe("io_error");
    const [parked] = readdirSync(packs).filter((n) => n.startsWith(".staging-"));
    expect(e.message).toContain(`the folder that was at .hcp/packs/greet is left at .hcp/packs/${parked}`);
    expect(e.hint).toContain(`then rename .hcp/packs/${parked} to .hcp/packs/greet`);
    expect(tree(join(packs, parked!))).toEqual(mine);
    // hcp.lock as before the add, and the record without an entry for greet as before it: the new version never
    // landed, and the person's files (recordReplacing's `replacing` while the swap ran) are not taken for hcpx's
    expect(lock()).toBe(was);
    const record = JSON.parse(readFileSync(join(dir, ".hcp/vendored.json"), "utf8")) as { packs: object };
    expect(record.packs).toEqual({});
    // the next vendoring command sweeps what the run left once it has ended (this run was this process: its
    // folder is renamed to a dead pid's, as the sweep finds a real run's): the person's folder stays, and is named
    rmSync(target, { recursive: true });
    const dead = parked!.replace(/^\.staging-\d+-/, ".staging-2147483646-");
    renameSync(join(packs, parked!), join(packs, dead));
    const i = await runInProcess(["pack", "install", "--json"], { cwd: dir });
    expect(i.code, i.stdout + i.stderr).toBe(0);
    expect(JSON.stringify(envelope(i).data)).toContain(`kept .hcp/packs/${dead}`);
    expect(tree(join(packs, dead))).toEqual(mine);
    expect(dead).toMatch(/^\.staging-\d+-[0-9a-z]+\.greet\.kept$/); // set aside as `.kept`: it is not what hcpx wrote there
    // what the hint says puts it back
    renameSync(join(packs, dead), target);
    expect(tree(target)).toEqual(mine);
    expect(readdirSync(packs)).toEqual(["greet"]);
  });
});

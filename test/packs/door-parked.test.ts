// A folder swap of the write door (src/util/door.ts swapDirKeep, swapBack) whose old folder cannot be put
// back: the error reported is the one that made the swap fail (its code kept), naming where the old folder
// was left and how to move it back by hand. The faults are real renames failing on the disk; to
// make one between the swap's two renames, the door's write-step hook (src/util/atomic.ts writeStep, called
// after each rename) is wrapped to change the disk once, when a test asks: this file mocks a module, so it
// runs in a worker of its own (test/support/shared-worker.ts).
import { mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { tmp } from "../support/hcpx";
import { fileBytes as tree } from "../support/tree";

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

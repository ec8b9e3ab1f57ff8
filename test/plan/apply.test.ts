// The applier (src/host/apply.ts) on a real directory: a plan made by
// planFiles is written (changes, stale deletions, emptied directories, the
// manifest), and nothing is written when a file changed after it was planned.
import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { applyPlan } from "../../src/plan/apply";
import { planFiles } from "../../src/plan/files";
import { HcpxError } from "../../src/util/errors";
import { dirMemo, writeFile } from "../../src/util/door";
import { lazyFile } from "../../src/projection/types";
import { sha256 } from "../../src/util/text";
import { tmp } from "../support/hcpx";
import { snapshot } from "../adopt/helpers";

const input = (dir: string, files: { path: string; content: string }[]) => ({
  files,
  dir,
  label: "the out dir",
  manifest: ".manifest.json",
  symlinkHint: "h",
});

describe("applyPlan of a FilePlan", () => {
  it("writes, deletes what went stale (and its emptied directories), records the manifest; a second plan of the same files is empty", () => {
    const dir = join(tmp("hcpx-apply-"), "out");
    const res = applyPlan(
      planFiles(
        input(dir, [
          { path: "a.md", content: "a\n" },
          { path: "s/old/SKILL.md", content: "old\n" },
        ]),
      ),
    );
    expect(res).toEqual({ written: ["a.md", "s/old/SKILL.md"], deleted: [], wrote: true });
    const again = planFiles(input(dir, [{ path: "a.md", content: "a\n" }]));
    expect(again.changes.map((c) => [c.kind, c.path])).toEqual([["delete", "s/old/SKILL.md"]]);
    expect(applyPlan(again)).toEqual({ written: [], deleted: ["s/old/SKILL.md"], wrote: true });
    expect(existsSync(join(dir, "s"))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, ".manifest.json"), "utf8")).files).toEqual({
      "a.md": expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const same = planFiles(input(dir, [{ path: "a.md", content: "a\n" }]));
    expect(same.changes).toEqual([]);
    // nothing to change: the manifest is not rewritten, and the result says no byte was written
    expect(applyPlan(same)).toEqual({ written: [], deleted: [], wrote: false });
  });

  it("a file changed after the plan read it is not overwritten: nothing is written, the error names it", () => {
    const dir = join(tmp("hcpx-apply-"), "out");
    mkdirSync(dir);
    writeFileSync(join(dir, "a.md"), "before\n");
    // a.md is hcpx's own (its manifest names it): the plan updates it
    writeFileSync(
      join(dir, ".manifest.json"),
      JSON.stringify({ generator: "hcpx", files: { "a.md": sha256("before\n") } }),
    );
    const plan = planFiles(
      input(dir, [
        { path: "a.md", content: "hcpx\n" },
        { path: "b.md", content: "b\n" },
      ]),
    );
    writeFileSync(join(dir, "a.md"), "someone else\n");
    const before = snapshot(dir);
    let err: unknown;
    try {
      applyPlan(plan);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HcpxError);
    expect((err as HcpxError).problems).toEqual([
      expect.objectContaining({ code: "changed_during_plan", file: expect.stringMatching(/out\/a\.md$/) }),
    ]);
    expect(snapshot(dir)).toEqual(before);
  });

  it("a plan's files are written through one memo of guarded directories: a link leading out on the way is still refused, a link inside followed, a file on the way named", () => {
    const parent = tmp("hcpx-apply-memo-");
    const dir = join(parent, "out");
    const outside = join(parent, "outside");
    mkdirSync(join(dir, "inside"), { recursive: true });
    mkdirSync(outside);
    symlinkSync(outside, join(dir, "leads-out"));
    symlinkSync(join(dir, "inside"), join(dir, "stays-in"));
    writeFileSync(join(dir, "afile"), "x\n");
    const dirs = dirMemo();
    const base = { dir, label: "the out dir" };
    const code = (abs: string) => {
      try {
        writeFile(base, abs, "new\n", { dirs });
        return "written";
      } catch (e) {
        return e instanceof HcpxError ? e.problems[0]!.code : String(e);
      }
    };
    // many files below one directory: each lands; the directory is walked once
    for (let i = 0; i < 5; i++) expect(code(join(dir, "skills", `p${i}`, "SKILL.md"))).toBe("written");
    expect(readdirSync(join(dir, "skills")).sort()).toEqual(["p0", "p1", "p2", "p3", "p4"]);
    // a link on the way that leads out, before and after its parent is in the memo
    expect(code(join(dir, "leads-out", "a.md"))).toBe("symlink_refused");
    expect(code(join(dir, "leads-out", "deeper", "b.md"))).toBe("symlink_refused");
    // the file itself a link leading out: refused, the outside untouched
    symlinkSync(join(outside, "t.md"), join(dir, "skills", "p0", "link.md"));
    expect(code(join(dir, "skills", "p0", "link.md"))).toBe("symlink_refused");
    expect(readdirSync(outside)).toEqual([]);
    // a link that stays inside is followed; a file where a directory should be is named
    expect(code(join(dir, "stays-in", "c.md"))).toBe("written");
    expect(readFileSync(join(dir, "inside", "c.md"), "utf8")).toBe("new\n");
    expect(code(join(dir, "afile", "d.md"))).toBe("not_a_directory");
  });

  it("a lazy file (rendered in pieces, never held) is rendered once to be written (apply hashes what it writes for the manifest), compared in pieces, and left alone when the disk holds its text", () => {
    const dir = join(tmp("hcpx-apply-lazy-"), "out");
    const text = Array.from({ length: 3000 }, (_, i) => `line ${i} é\n`).join("");
    let renders = 0;
    const pieces = (t: string) => () => {
      renders++;
      return [t.slice(0, 100), t.slice(100, 20000), t.slice(20000)];
    };
    const manifest = () => JSON.parse(readFileSync(join(dir, ".manifest.json"), "utf8")).files;
    const plan = planFiles(input(dir, [lazyFile("tools/big.json", pieces(text)), { path: "a.md", content: "a\n" }]));
    // not on disk: nothing to compare, so not rendered until apply writes it
    expect(renders).toBe(0);
    expect(plan.changes.map((c) => [c.kind, c.path, c.new])).toEqual([
      ["create", "tools/big.json", undefined],
      ["create", "a.md", "a\n"],
    ]);
    // the manifest needs the hash of the bytes the write renders: without it, no manifest
    expect(() => plan.record.kind === "manifest" && plan.record.render(new Map())).toThrow(/tools\/big\.json/);
    applyPlan(plan);
    expect(renders).toBe(1);
    expect(manifest()["tools/big.json"]).toBe(sha256(text));
    expect(readFileSync(join(dir, "tools/big.json"), "utf8")).toBe(text);
    // the same text on disk: nothing to write; one character changed: an update
    expect(
      planFiles(input(dir, [lazyFile("tools/big.json", pieces(text)), { path: "a.md", content: "a\n" }])).changes,
    ).toEqual([]);
    const changed = text.slice(0, 19999) + "X" + text.slice(20000);
    const again = planFiles(
      input(dir, [lazyFile("tools/big.json", pieces(changed)), { path: "a.md", content: "a\n" }]),
    );
    expect(again.changes.map((c) => [c.kind, c.path])).toEqual([["update", "tools/big.json"]]);
    applyPlan(again);
    expect(readFileSync(join(dir, "tools/big.json"), "utf8")).toBe(changed);
    expect(manifest()["tools/big.json"]).toBe(sha256(changed));
    // a shorter text the disk's starts with is not the same
    expect(
      planFiles(
        input(dir, [lazyFile("tools/big.json", pieces(changed.slice(0, -5))), { path: "a.md", content: "a\n" }]),
      ).changes.map((c) => c.kind),
    ).toEqual(["update"]);
  });
});

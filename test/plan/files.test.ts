// The FilePlan of a directory hcpx owns file by file (generate's out dir, a
// bundle), planned in-process against an in-memory disk (src/plan/fs.ts
// ReadFs): nothing here touches a real file. The CLI tests
// (test/projection/generate.test.ts, test/adopt/bundle.test.ts, trust.test.ts)
// cover the same plans written to disk.
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { planBundle, BUNDLE_MANIFEST } from "../../src/host/bundle";
import { driftOf } from "../../src/plan/drift";
import { planFiles } from "../../src/plan/files";
import { sha256 } from "../../src/util/text";
import { memFs } from "../support/memfs";

const DIR = "/virtual/out";

const input = (files: { path: string; content: string }[]) => ({
  files,
  dir: DIR,
  label: "the out dir",
  manifest: ".manifest.json",
  symlinkHint: "h",
});
const manifest = (files: Record<string, string>) => JSON.stringify({ generator: "hcpx", files });
const at = (p: string) => join(DIR, p);

describe("planFiles", () => {
  it("plans creates, updates and nothing for a file that is already right; --check's drift is missing and changed", () => {
    // a.md is hcpx's (its last manifest names it); e.md is there and hcpx never wrote it
    const last = manifest({ "a.md": sha256("old\n") });
    const fs = memFs({
      [at(".manifest.json")]: last,
      [at("a.md")]: "old\n",
      [at("b.md")]: "same\n",
      [at("e.md")]: "mine\n",
    });
    const plan = planFiles(
      input([
        { path: "a.md", content: "new\n" },
        { path: "b.md", content: "same\n" },
        { path: "c/d.md", content: "d\n" },
        { path: "e.md", content: "e\n" },
      ]),
      fs,
    );
    expect(plan.changes.map((c) => [c.kind, c.path, c.old, c.new])).toEqual([
      ["update", "a.md", "old\n", "new\n"],
      ["create", "c/d.md", undefined, "d\n"],
    ]);
    expect(plan.conflicts).toEqual([
      expect.objectContaining({
        code: "changed_by_user",
        message: "e.md is there and hcpx did not write it: left in place",
      }),
    ]);
    expect(driftOf(plan)).toEqual([
      { kind: "changed", path: "a.md" },
      { kind: "missing", path: "c/d.md" },
      expect.objectContaining({ kind: "foreign" }),
    ]);
    expect(plan.record).toMatchObject({ kind: "manifest", file: at(".manifest.json"), old: last, force: false });
    // the manifest claims what hcpx writes or already holds, never the file it left in place
    expect(JSON.parse(plan.record.kind === "manifest" ? plan.record.render(new Map()) : "").files).toEqual({
      "a.md": sha256("new\n"),
      "b.md": sha256("same\n"),
      "c/d.md": sha256("d\n"),
    });
  });

  it("a stale file with the bytes hcpx wrote is deleted (its directories after it, when empty); one someone changed is left in place", () => {
    const fs = memFs({
      [at(".manifest.json")]: manifest({
        "a.md": sha256("a\n"),
        "skills/old/SKILL.md": sha256("old\n"),
        "skills/mine/SKILL.md": sha256("was\n"),
        "gone.md": sha256("x"),
      }),
      [at("a.md")]: "a\n",
      [at("skills/old/SKILL.md")]: "old\n",
      [at("skills/mine/SKILL.md")]: "edited\n",
    });
    const plan = planFiles(input([{ path: "a.md", content: "a\n" }]), fs);
    expect(plan.changes.map((c) => [c.kind, c.path])).toEqual([["delete", "skills/old/SKILL.md"]]);
    expect(plan.rmdirs).toEqual([at("skills/old"), at("skills")]);
    expect(plan.conflicts.map((p) => [p.code, p.message])).toEqual([
      ["changed_by_user", "no longer generated, but changed since hcpx wrote it: left in place"],
    ]);
    expect(driftOf(plan).map((d) => d.kind)).toEqual(["stale", "foreign"]);
  });

  it("a manifest entry outside the directory, or without a sha256, is ignored with a warning: never read, never deleted; drift for --check", () => {
    const fs = memFs(
      {
        [at(".manifest.json")]: manifest({
          "../victim.txt": sha256("v"),
          "link/victim.txt": sha256("v"),
          "x.md": "not-a-hash",
        }),
        [at("x.md")]: "x",
      },
      { outside: [at("link")] },
    );
    const plan = planFiles(input([]), fs);
    expect(plan.changes).toEqual([]);
    expect(plan.warnings.map((w) => [w.code, w.path])).toEqual([
      ["manifest_entry_ignored", 'files["../victim.txt"]'],
      ["manifest_entry_ignored", 'files["link/victim.txt"]'],
      ["manifest_entry_ignored", 'files["x.md"]'],
    ]);
    expect(fs.reads).not.toContain(join(DIR, "..", "victim.txt"));
    expect(fs.reads).not.toContain(at("link/victim.txt"));
    expect(driftOf(plan).map((d) => d.kind)).toEqual(["ignored", "ignored", "ignored"]);
  });

  it("a manifest that cannot be parsed: its files are left in place, it is rewritten, and a warning says so", () => {
    const fs = memFs({ [at(".manifest.json")]: "{not json", [at("old.md")]: "old" });
    const plan = planFiles(input([{ path: "a.md", content: "a" }]), fs);
    expect(plan.changes.map((c) => c.path)).toEqual(["a.md"]);
    expect(plan.warnings[0]).toMatchObject({
      code: "bad_manifest",
      message: expect.stringMatching(/^\.manifest\.json is not valid JSON .*files it listed are left in place$/),
    });
    expect(plan.record).toMatchObject({ kind: "manifest", old: undefined, force: true });
  });

  it("a planned file through a symlink out of the directory is refused before anything is planned", () => {
    expect(() =>
      planFiles(input([{ path: "skills/a/SKILL.md", content: "a" }]), memFs({}, { outside: [at("skills")] })),
    ).toThrow(/skills\/a\/SKILL\.md is a symlink leading outside the out dir/);
  });
});

describe("planBundle", () => {
  const files = [
    { path: ".claude-plugin/plugin.json", content: "{}\n" },
    { path: "skills/a/SKILL.md", content: "a\n" },
  ];
  it("refuses a non-empty directory that holds no bundle manifest, and a file where DIR should be", () => {
    const dir = "/virtual/hcp-packs";
    expect(() => planBundle("claude-plugin", dir, files, memFs({ [join(dir, "x.txt")]: "mine" }))).toThrow(
      /is not empty and holds no \.claude-plugin\/plugin\.json/,
    );
    expect(() => planBundle("claude-plugin", dir, files, memFs({ [dir]: "a file" }))).toThrow(
      /is a file, expected a directory/,
    );
  });
  it("a Skill the last run bundled and this one does not is deleted", () => {
    const dir = "/virtual/hcp-packs";
    const fs = memFs({
      [join(dir, ".claude-plugin/plugin.json")]: "{}\n",
      [join(dir, "skills/a/SKILL.md")]: "a\n",
      [join(dir, "skills/b/SKILL.md")]: "b\n",
      [join(dir, BUNDLE_MANIFEST)]: manifest({
        ".claude-plugin/plugin.json": sha256("{}\n"),
        "skills/a/SKILL.md": sha256("a\n"),
        "skills/b/SKILL.md": sha256("b\n"),
      }),
    });
    const plan = planBundle("claude-plugin", dir, files, fs);
    expect(plan.changes.map((c) => [c.kind, c.path])).toEqual([["delete", "skills/b/SKILL.md"]]);
    expect(driftOf(plan)).toEqual([{ kind: "stale", path: "skills/b/SKILL.md" }]);
  });
});

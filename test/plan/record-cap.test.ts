// A manifest hcpx reads back (generate's .manifest.json, a bundle's) is read with
// a manifest's cap, 16 MiB (docs/files.md, CAPS.host), not the adopt ledger's 4 MiB:
// a large out dir's manifest (tens of thousands of files) is read, so its stale
// files are still found and deleted.
import { describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { planFiles } from "../../src/plan/files";
import { diskFs } from "../../src/plan/fs";
import { CAPS } from "../../src/util/readfile";
import { sha256 } from "../../src/util/text";
import { tmp } from "../support/hcpx";

describe("a manifest is read with a manifest's cap", () => {
  it("a 5 MiB manifest is read: its stale file is planned for deletion, no bad_manifest", () => {
    const dir = join(tmp("hcpx-manifest-cap-"), "out");
    mkdirSync(dir);
    writeFileSync(join(dir, "stale.md"), "stale");
    const files: Record<string, string> = { "stale.md": sha256("stale") };
    for (let i = 0; i < 60_000; i++) files[`hosts/claude/.claude/skills/pack-${i}/SKILL.md`] = sha256(String(i));
    const text = JSON.stringify({ generator: "hcpx", files });
    expect(text.length).toBeGreaterThan(CAPS.ledger);
    writeFileSync(join(dir, ".manifest.json"), text);
    const plan = planFiles(
      { files: [], dir, label: "the out dir", manifest: ".manifest.json", symlinkHint: "h" },
      diskFs,
    );
    expect(plan.warnings.filter((w) => w.code === "bad_manifest")).toEqual([]);
    expect(plan.changes.filter((c) => c.kind === "delete").map((c) => c.path)).toEqual(["stale.md"]);
  });

  it("the check can fail: a manifest over 16 MiB is refused (bad_manifest), its files left in place", () => {
    const dir = join(tmp("hcpx-manifest-cap-"), "out");
    mkdirSync(dir);
    writeFileSync(join(dir, "stale.md"), "stale");
    writeFileSync(
      join(dir, ".manifest.json"),
      JSON.stringify({ generator: "hcpx", files: { "stale.md": sha256("stale") }, pad: "x".repeat(CAPS.host) }),
    );
    const plan = planFiles(
      { files: [], dir, label: "the out dir", manifest: ".manifest.json", symlinkHint: "h" },
      diskFs,
    );
    expect(plan.warnings.map((w) => w.code)).toContain("bad_manifest");
    expect(plan.changes.filter((c) => c.kind === "delete")).toEqual([]);
  });
});

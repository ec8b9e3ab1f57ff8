// `npm run lint` checks the code's format with Prettier (`format:check`); .prettierignore keeps data
// whose bytes are the point out (fixtures, goldens, the top-level packs/, hosts/, templates/ …). A bare
// folder name there matches that name at any depth: "packs/" also took src/packs/ and test/packs/ out
// of the check, "hosts/" test/hosts/, and 47 files drifted from the format unseen. Every code file of
// src/, test/, scripts/ and bench/ is checked, but fixtures, goldens and installed programs.
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { getFileInfo } from "prettier";
import { describe, expect, it } from "vitest";
import { REPO } from "../support/hcpx";

const CODE = /\.(?:[cm]?[jt]s)$/;
/** What may stay out of the check: data kept byte for byte, and what is installed, not written here. */
const KEPT_OUT = /(?:^|\/)(?:fixtures|golden|node_modules)\//;

function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && CODE.test(d.name))
    .map((d) => relative(REPO, join(d.parentPath, d.name)))
    .filter((f) => !KEPT_OUT.test(f));
}

describe("the format check's scope", () => {
  it("takes every code file of src/, test/, scripts/ and bench/ but fixtures and goldens", async () => {
    const files = ["src", "test", "scripts", "bench"].flatMap((d) => codeFiles(join(REPO, d)));
    expect(files).toContain("src/packs/lock.ts");
    expect(files).toContain("test/packs/vendor.test.ts");
    const ignorePath = join(REPO, ".prettierignore");
    const ignored: string[] = [];
    for (const f of files) if ((await getFileInfo(join(REPO, f), { ignorePath })).ignored) ignored.push(f);
    expect(ignored).toEqual([]);
  });
});

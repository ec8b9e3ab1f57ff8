// docs/sandbox.md lists the paths a confined call never sees (src/pack/secret-paths.ts): the page
// names every one, and names none the list does not hold.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SECRET_DIRS, SECRET_FILES } from "../../src/pack/secret-paths";
import { REPO } from "../support/hcpx";

describe("docs/sandbox.md's list of hidden paths", () => {
  it("is src/pack/secret-paths.ts's, entry for entry", () => {
    const page = readFileSync(join(REPO, "docs", "sandbox.md"), "utf8").replace(/\s+/g, " ");
    const start = page.indexOf("The list (`src/pack/secret-paths.ts`):");
    const end = page.indexOf("It is a list, not a hidden HOME", start);
    expect(start).toBeGreaterThan(0);
    const named = [...page.slice(start, end).matchAll(/`~\/([^`]+)`/g)].map((m) => m[1]!).sort();
    expect(named).toEqual([...SECRET_DIRS, ...SECRET_FILES].sort());
  });
});

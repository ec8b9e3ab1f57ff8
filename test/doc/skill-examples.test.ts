// Issue 26 §6: a bundled pack's own examples run as written on a fresh project
// (the ledger's `balance` and `transfer` failed on an unseeded ledger): every
// `hcpx exec` line of the ledger Skill's first sh block, in order, exits 0.
// exec runs in this process (execInProcess, test/support/inproc.ts): what each call
// does on the fresh project is the subject, not exec's process; the ledger's bin is one.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../support/cli";
import { execInProcess } from "../support/inproc";
import { scratchProject } from "../support/project";

/** `hcpx exec …` lines of the first ```sh block, as words (double quotes grouping). */
function examples(skill: string): string[][] {
  const block = /```sh\n([\s\S]*?)```/.exec(skill)![1]!;
  return block
    .split("\n")
    .filter((l) => l.startsWith("hcpx exec "))
    .map((l) =>
      [...l.slice("hcpx ".length).matchAll(/(\w+=)?"([^"]*)"|\S+/g)].map((m) =>
        m[2] !== undefined ? `${m[1] ?? ""}${m[2]}` : m[0],
      ),
    );
}

describe("the ledger Skill's examples", () => {
  it("run as written, in order, on a ledger that does not exist yet", { timeout: 60_000 }, async () => {
    const p = scratchProject({ packs: ["ledger"] });
    const cmds = examples(readFileSync(join(REPO, "packs/ledger/SKILL.md"), "utf8"));
    expect(cmds.map((c) => c[2])).toEqual(expect.arrayContaining(["balance", "transfer"]));
    for (const argv of cmds) {
      const r = await execInProcess(argv, { cwd: p.dir, env: p.env });
      expect(r.code, `${argv.join(" ")}\n${r.stdout}${r.stderr}`).toBe(0);
    }
  });
});

// pack remove deletes a vendored folder only when nothing in it is a hand edit (judged as pack install
// does, test/packs/vendor-edits.test.ts): a file the person added or edited there is named and kept,
// until --force. init, pack add and pack remove are what they decide and write: function calls in this
// process (test/support/inproc.ts: the same argv, cwd, environment, stdout, stderr and exit code).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess } from "../support/inproc";
import { grantsOf, through } from "./vendor-support";

/** `hcpx ...args --json` in this process */
const { json, projectWithGreet } = through(runInProcess);

describe("pack remove of a folder changed by hand", () => {
  it("refuses, naming the files, and removes nothing; --force removes it", async () => {
    const { dir } = await projectWithGreet({ version: "1.0.0", named: { hello: { operation: "read" } } });
    const pack = join(dir, ".hcp/packs/greet");
    writeFileSync(join(pack, "MY-NOTES.md"), "my notes\n");
    writeFileSync(join(pack, "SKILL.md"), readFileSync(join(pack, "SKILL.md"), "utf8") + "\nmy edit\n");
    const lock = readFileSync(join(dir, "hcp.lock"), "utf8");
    const { r, e } = await json(dir, ["pack", "remove", "greet"]);
    expect(r.code).toBe(1);
    expect(e.error.code).toBe("pack_edited");
    expect(e.error.message).toMatch(/MY-NOTES\.md \(added\)/);
    expect(e.error.message).toMatch(/SKILL\.md \(changed\)/);
    expect(readFileSync(join(pack, "MY-NOTES.md"), "utf8")).toBe("my notes\n");
    expect(readFileSync(join(dir, "hcp.lock"), "utf8")).toBe(lock);
    expect(grantsOf(dir).allow).toEqual(["greet.hello"]);
    const forced = await json(dir, ["pack", "remove", "greet", "--force"]);
    expect(forced.r.code, forced.r.stderr).toBe(0);
    expect(existsSync(pack)).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")).packs).toEqual({});
  });
});

// A Policy row still marked inferred is a guess nobody reviewed: no vendoring command grants a read of it
// on its own (`pack add`, as `hcpx activate`; `pack update` for a new one). Each says why and what to do.
// Through the real CLI.
import { describe, expect, it } from "vitest";
import { runHcpx } from "../support/hcpx";
import { grantsOf, json, newProject, projectWithGreet, writeGreet, type GreetShape } from "./vendor-support";
import { join } from "node:path";

const v1: GreetShape = { version: "1.0.0", named: { hello: { operation: "read" } } };

describe("inferred Policy rows and the grants of vendored packs", () => {
  it("pack add grants no read still marked inferred, and says why and what to do", async () => {
    const dir = await newProject();
    writeGreet(join(dir, "src-greet"), {
      version: "1.0.0",
      named: { hello: { operation: "read" }, wipe: { operation: "read", inferred: true } },
    });
    const { r, e } = await json<{ granted: string[]; inferred?: { commands: string[]; hint: string } }>(dir, [
      "pack",
      "add",
      "./src-greet",
      "--yes",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(e.data.granted).toEqual(["greet.hello"]);
    expect(e.data.inferred?.commands).toEqual(["greet.wipe"]);
    expect(e.data.inferred?.hint).toContain("hcpx grant greet.wipe");
    expect(grantsOf(dir).allow).toEqual(["greet.hello"]);
    const again = await runHcpx(["pack", "add", "./src-greet", "--yes", "--force"], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("inferred reads (drafted guesses nobody reviewed; granted by a person only, `hcpx grant`): wipe");
    expect(again.stdout).toContain("not granted until a person reviews it (inferred: a drafted guess): greet.wipe (read, inferred)");
    expect(grantsOf(dir).allow).toEqual(["greet.hello"]);
  });

  it("pack update grants no new read still marked inferred: the review and the result say so", async () => {
    const { dir, src } = await projectWithGreet(v1);
    writeGreet(src, { version: "1.1.0", named: { ...v1.named, wipe: { operation: "read", inferred: true } } });
    const review = await runHcpx(["pack", "update", "greet"], { cwd: dir });
    expect(review.code).toBe(1);
    expect(review.stdout).toContain("+ new read: wipe (inferred: a drafted guess; not granted until a person reviews or grants it)");
    const { r, e } = await json<{ packs: { granted: string[]; withheld?: string[]; inferred?: string[] }[] }>(dir, [
      "pack",
      "update",
      "greet",
      "--yes",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(e.data.packs[0]!.granted).toEqual([]);
    expect(e.data.packs[0]!.inferred).toEqual(["greet.wipe"]);
    expect(grantsOf(dir).allow).toEqual(["greet.hello"]);
    writeGreet(src, { version: "1.2.0", named: { ...v1.named, wipe: { operation: "read", inferred: true }, purge: { operation: "read", inferred: true } } });
    const human = await runHcpx(["pack", "update", "greet", "--yes"], { cwd: dir });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("not granted until a person reviews it (inferred: a drafted guess): greet.purge");
    expect(human.stdout).toContain("or grant one as it is: hcpx grant greet.purge");
    expect(grantsOf(dir).allow).toEqual(["greet.hello"]);
  });
});

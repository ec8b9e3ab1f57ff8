// A pass-through verb takes the agent's own argv, options included, so a read row cannot vouch
// for it: no vendoring command grants one by default (`hcpx activate` does not, nor `pack add`,
// nor `pack update`), and a command that becomes pass-through (or takes more of the agent's argv)
// is a widening: shown in the review, its grant withdrawn. Through the real CLI.
import { describe, expect, it } from "vitest";
import { grantsOf, json, projectWithGreet, writeGreet, type GreetShape } from "./vendor-support";

const v1: GreetShape = { version: "1.0.0", named: { hello: { operation: "read" } } };

describe("pass-through verbs and the grants of vendored packs", () => {
  it("pack update never grants a new pass-through verb (as pack add and activate do not)", async () => {
    const { dir, src } = await projectWithGreet(v1);
    writeGreet(src, { ...v1, version: "1.1.0", passThrough: { allowedSubcommands: ["dump"], maxArgv: 20 } });
    const { r, e } = await json<{ packs: { granted: string[] }[] }>(dir, ["pack", "update", "greet", "--yes"]);
    expect(r.code, r.stderr).toBe(0);
    expect(e.data.packs[0]!.granted).toEqual([]);
    expect(grantsOf(dir).allow).toEqual(["greet.hello"]);
    const dump = await json(dir, ["exec", "greet", "dump", "--", "--output=/tmp/x"]);
    expect(dump.e.error.code).toBe("not_granted");
  });
});

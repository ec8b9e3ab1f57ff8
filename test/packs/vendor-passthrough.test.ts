// A pass-through verb takes the agent's own argv, options included, so a read row cannot vouch
// for it: no vendoring command grants one by default (`hcpx activate` does not, nor `pack add`,
// nor `pack update`), and a command that becomes pass-through (or takes more of the agent's argv)
// is a widening: shown in the review, its grant withdrawn. The commands (init, pack add/update/install,
// grant, and exec's refusals) are what they decide and write: function calls in this process
// (test/support/inproc.ts), exec through execInProcess; vendor-race and vendor-kill run processes.
import { cpSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runHere } from "../support/inproc";
import { grantsOf, through, writeGreet, type GreetShape } from "./vendor-support";

/** the commands in this process (runHere: exec through execInProcess) */
const { json, projectWithGreet } = through(runHere);

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

  const ptHello = (maxArgv: number): GreetShape => ({
    version: `1.2.${maxArgv}`,
    named: {},
    passThrough: { allowedSubcommands: ["hello"], maxArgv },
  });

  it("pack update: a named read that becomes a pass-through verb is a widening, shown, its grant withdrawn", async () => {
    const { dir, src } = await projectWithGreet(v1);
    expect(grantsOf(dir).allow).toEqual(["greet.hello"]);
    writeGreet(src, ptHello(20));
    const review = await runHere(["pack", "update", "greet"], { cwd: dir });
    expect(review.code).toBe(1);
    expect(review.stdout).not.toMatch(/no change to what it runs, reads or writes/);
    expect(review.stdout).toMatch(
      /~ hello: read → read, pass-through \(the agent's argv, up to 20\) {2}\(widens: named → pass-through; any grant of it is withdrawn\)/,
    );
    const { r, e } = await json<{ packs: { withdrawn: string[]; diff: { changed: unknown[] } }[] }>(dir, [
      "pack",
      "update",
      "greet",
      "--yes",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(e.data.packs[0]!.withdrawn).toEqual(["greet.hello"]);
    expect(e.data.packs[0]!.diff.changed).toEqual([
      {
        verb: "hello",
        from: { operation: "read" },
        to: { operation: "read", passThrough: { maxArgv: 20 } },
        widened: ["named → pass-through"],
      },
    ]);
    expect(grantsOf(dir).allow).toEqual([]);
    const run = await json(dir, ["exec", "greet", "hello", "--", "--output=/tmp/x"]);
    expect(run.e.error.code).toBe("not_granted");
  });

  it("pack update: a larger maxArgv of a pass-through verb a person granted withdraws the grant; a smaller one keeps it", async () => {
    const { dir, src } = await projectWithGreet(ptHello(20));
    expect((await runHere(["grant", "greet.hello"], { cwd: dir })).code).toBe(0);
    writeGreet(src, ptHello(10));
    const narrow = await json<{ packs: { withdrawn: string[] }[] }>(dir, ["pack", "update", "greet", "--yes"]);
    expect(narrow.r.code, narrow.r.stderr).toBe(0);
    expect(narrow.e.data.packs[0]!.withdrawn).toEqual([]);
    writeGreet(src, ptHello(200));
    const review = await runHere(["pack", "update", "greet"], { cwd: dir });
    expect(review.stdout).toMatch(/widens: maxArgv 10 → 200; any grant of it is withdrawn/);
    const wide = await json<{ packs: { withdrawn: string[] }[] }>(dir, ["pack", "update", "greet", "--yes"]);
    expect(wide.r.code, wide.r.stderr).toBe(0);
    expect(wide.e.data.packs[0]!.withdrawn).toEqual(["greet.hello"]);
    expect((await json(dir, ["exec", "greet", "hello", "--", "a"])).e.error.code).toBe("not_granted");
  });

  it("pack add --force and pack install: a named read that became a pass-through verb loses its grant", async () => {
    const { dir, src } = await projectWithGreet(v1);
    writeGreet(src, ptHello(20));
    const forced = await runHere(["pack", "add", "./src-greet", "--force", "--yes"], { cwd: dir });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/~ hello: read → read, pass-through .*widens: named → pass-through/);
    expect(grantsOf(dir).allow).toEqual([]);
    expect((await json(dir, ["exec", "greet", "hello", "--", "a"])).e.error.code).toBe("not_granted");

    // install: the lock (as pulled) names the pass-through version under a vendored v1 with its grant
    const other = await projectWithGreet(ptHello(20));
    const { dir: here } = await projectWithGreet(v1);
    writeGreet(join(here, "src-greet"), ptHello(20));
    cpSync(join(other.dir, "hcp.lock"), join(here, "hcp.lock"));
    const inst = await json<{ packs: { withdrawn: string[] }[] }>(here, ["pack", "install"]);
    expect(inst.r.code, inst.r.stderr).toBe(0);
    expect(inst.e.data.packs[0]!.withdrawn).toEqual(["greet.hello"]);
    expect((await json(here, ["exec", "greet", "hello", "--", "a"])).e.error.code).toBe("not_granted");
  });
});

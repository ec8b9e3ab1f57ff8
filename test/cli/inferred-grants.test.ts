// A Policy row nobody reviewed (`inferred: true`, as `pack from-openapi` drafts every row) is a guess:
// activate grants no read of it on its own, says why and what to do; a person's `hcpx grant` does.
import { describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { envelope, project } from "./helpers";
import { runInProcessChecked } from "../support/inproc";

const hcpx = (args: string[], cwd: string) => runInProcessChecked(args, { cwd });

interface Withheld {
  verb: string;
  operation: string;
  inferred?: true;
}

/** packs/todo with its policy.json as from-openapi drafts it: `list` inferred (or every row, `all`). */
function todoProject(all: boolean) {
  const p = project(`{ packs: [], grants: { allow: [] } }\n`);
  const file = join(p.dir, "packs/todo/policy.json");
  const text = readFileSync(file, "utf8");
  writeFileSync(
    file,
    all
      ? text.replace("{\n  rows:", "{\n  inferred: true,\n  rows:")
      : text.replace('"list":   { operation: "read" }', '"list":   { operation: "read", inferred: true }'),
  );
  return { ...p, policy: file };
}

describe("activate and a Policy row still marked inferred", () => {
  it("grants no inferred read, says it is withheld because inferred and what to do; a reviewed read is granted", async () => {
    const p = todoProject(false);
    const r = await hcpx(["activate", "packs/todo", "--json"], p.dir);
    expect(r.code, r.stderr).toBe(0);
    const env = envelope<{ granted: string[]; withheld: Withheld[]; inferred?: { commands: string[]; hint: string } }>(
      r,
    );
    expect(env.data.granted).toEqual(["todo.get"]);
    expect(env.data.withheld.find((w) => w.verb === "list")).toEqual({
      verb: "list",
      operation: "read",
      confirm: false,
      inferred: true,
    });
    expect(env.data.inferred?.commands).toEqual(["todo.list"]);
    expect(env.data.inferred?.hint).toContain("hcpx grant todo.list");
    expect(p.read()).toBe(`{ packs: ["./packs/todo"], grants: { allow: ["todo.get"] } }\n`);
    const human = await hcpx(["activate", "packs/todo"], p.dir);
    expect(human.stdout).toContain(
      "not granted until a person reviews it (inferred: a drafted guess): todo.list (read, inferred)",
    );
    expect(human.stdout).toContain("remove its `inferred` mark");
    expect(human.stdout).toContain("or grant one as it is: hcpx grant todo.list");
    // reviewed: the mark removed, activate again grants it
    writeFileSync(p.policy, readFileSync(p.policy, "utf8").replace(", inferred: true", ""));
    const again = envelope<{ granted: string[] }>(await hcpx(["activate", "packs/todo", "--json"], p.dir));
    expect(again.data.granted).toEqual(["todo.list"]);
  });

  it("a policy file marked inferred as a whole: no read granted; a person's `hcpx grant` grants one", async () => {
    const p = todoProject(true);
    const r = envelope<{ granted: string[]; inferred?: { commands: string[] } }>(
      await hcpx(["activate", "packs/todo", "--json"], p.dir),
    );
    expect(r.data.granted).toEqual([]);
    expect(r.data.inferred?.commands).toEqual(["todo.list", "todo.get"]);
    const g = await hcpx(["grant", "todo.get"], p.dir);
    expect(g.code, g.stderr).toBe(0);
    expect(p.read()).toBe(`{ packs: ["./packs/todo"], grants: { allow: ["todo.get"] } }\n`);
    // status says which rows are guesses: a withheld read among them waits for a review
    const st = envelope<{ packs: { commands: { verb: string; granted: boolean; inferred?: true }[] }[] }>(
      await hcpx(["status", "--json"], p.dir),
    );
    expect(st.data.packs[0]!.commands.find((c) => c.verb === "list")).toMatchObject({ granted: false, inferred: true });
    expect((await hcpx(["status"], p.dir)).stdout).toMatch(/todo\.list +read, inferred +withheld/);
  });
});

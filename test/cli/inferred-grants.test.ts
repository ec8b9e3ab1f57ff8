// A Policy row nobody reviewed (`inferred: true`, as `pack from-openapi` drafts every row) is a guess. The
// issue's flow stands (import → lint → activate → exec a read): activate grants an inferred read as any
// read, and says it is a guess (lint's policy_inferred warning); status marks each such row, so the person
// sees what still waits for a review. A drafted GET that says it deletes is a write (from-openapi's rule).
import { describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { envelope, project } from "./helpers";
import { runInProcessChecked } from "../support/inproc";

const hcpx = (args: string[], cwd: string) => runInProcessChecked(args, { cwd });

/** packs/todo with its policy.json marked inferred as a whole, as from-openapi drafts it. */
function todoProject() {
  const p = project(`{ packs: [], grants: { allow: [] } }\n`);
  const file = join(p.dir, "packs/todo/policy.json");
  writeFileSync(file, readFileSync(file, "utf8").replace("{\n  rows:", "{\n  inferred: true,\n  rows:"));
  return p;
}

describe("activate and status with a Policy still marked inferred", () => {
  it("activate grants its reads and warns that the Policy is inferred; status marks each row", async () => {
    const p = todoProject();
    const r = await hcpx(["activate", "packs/todo", "--json"], p.dir);
    expect(r.code, r.stderr).toBe(0);
    const env = envelope<{ granted: string[]; warnings: { code: string }[] }>(r);
    expect(env.data.granted).toEqual(["todo.list", "todo.get"]);
    expect(env.data.warnings.map((w) => w.code)).toContain("policy_inferred");
    const st = envelope<{ packs: { commands: { verb: string; granted: boolean; inferred?: true }[] }[] }>(
      await hcpx(["status", "--json"], p.dir),
    );
    expect(st.data.packs[0]!.commands.find((c) => c.verb === "list")).toMatchObject({ granted: true, inferred: true });
    expect((await hcpx(["status"], p.dir)).stdout).toMatch(/todo\.list +read, inferred +yes/);
  });
});

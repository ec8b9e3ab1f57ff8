// "A walk of the project root through adopt goes down without climbing back"
// (issue 28): scripts/walk.mjs follows the values that decide the project root
// from `hcpx adopt`'s entry through the call graph and counts the calls that
// climb to a higher layer (scripts/layers.mjs). With imports that only point
// down (layers.test.ts) only a callback can climb: the use case handing the
// planner a function of its own, say. Figures: `node scripts/walk.mjs --trace`.
import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
// @ts-expect-error -- a plain .mjs script (scripts/walk.mjs), no declarations
import { walk } from "../../scripts/walk.mjs";

interface Crossing {
  from: string;
  to: string;
  fn: string;
  climbs: boolean;
  returns: boolean;
}
interface Walk {
  modules: string[];
  crossings: Crossing[];
  climbs: number;
}

describe("the adopt walk", () => {
  it("goes down from cli/ through app/ into the planner and the applier, and never climbs back", () => {
    const w = walk() as Walk;
    // the walk reaches the use case, the planner, the applier (it is not empty)
    for (const m of ["app/adopt.ts", "host/engine.ts", "host/adopt-run.ts", "plan/apply.ts", "pack/load.ts"])
      expect(w.modules, m).toContain(m);
    expect(w.crossings.filter((c) => c.climbs).map((c) => `${c.from} → ${c.to} ${c.fn}`)).toEqual([]);
  }, 240_000);

  it("counts a callback a higher layer hands down and a lower one calls as a climb", () => {
    const src = mkdtempSync(join(tmpdir(), "hcpx-walk-"));
    const put = (f: string, text: string) => {
      mkdirSync(dirname(join(src, f)), { recursive: true });
      writeFileSync(join(src, f), text);
    };
    try {
      put(
        "cli/commands/adopt.ts",
        'import { adopt } from "../../app/adopt";\nexport function run(opts: { cwd: string }, globals: object) {\n  return adopt(opts.cwd, globals);\n}\n',
      );
      put(
        "app/adopt.ts",
        'import { plan } from "../host/engine";\nexport function adopt(root: string, g: object) {\n  return plan(root, (r) => shape(r, g));\n}\nfunction shape(r: string, g: object) {\n  return r + String(g);\n}\n',
      );
      put("host/engine.ts", "export function plan(root: string, cb: (r: string) => string) {\n  return cb(root);\n}\n");
      const w = walk({ src }) as Walk;
      expect(w.modules).toEqual(["cli/commands/adopt.ts", "app/adopt.ts", "host/engine.ts"]);
      expect(
        w.crossings.map((c) => `${c.from} → ${c.to}${c.climbs ? " (climb)" : ""}${c.returns ? " (return)" : ""}`),
      ).toEqual([
        "cli/commands/adopt.ts → app/adopt.ts",
        "app/adopt.ts → host/engine.ts",
        "host/engine.ts → app/adopt.ts (climb) (return)",
      ]);
      expect(w.climbs).toBe(1);
    } finally {
      rmSync(src, { recursive: true, force: true });
    }
  }, 60_000);
});

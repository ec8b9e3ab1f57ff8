// A bundle split off exec's (scripts/build.mjs: exec-schemas, exec-sandbox) carries its own copy of
// every module it imports. A module that keeps state for the whole process must have one copy: the
// redaction's values in play (util/redact.ts), the write door's and its kill hook's counters
// (util/door.ts, util/atomic.ts), the locks held (util/fsio.ts), the validation cache's switch
// (pack/validcache.ts). A split bundle must not reach any of them; value imports only (a type import
// is not bundled).
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { REPO } from "../support/hcpx";

const SRC = join(REPO, "src");
const STATEFUL = ["util/redact.ts", "util/door.ts", "util/atomic.ts", "util/fsio.ts", "pack/validcache.ts"];
/** The entries of the bundles split off exec's (scripts/build.mjs CJS_COMMANDS). */
const SPLIT = ["runtime/sandbox/index.ts", "pack/schema-defs.ts"];

const VALUE_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[\w*{}\s,$]+?\s+from\s+)?["'](\.{1,2}\/[^"']+)["']/gm;
const REQUIRE = /\b(?:import|require)\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/** The modules `entry` reaches through value imports (and lazy require()s), relative to src/. */
function reach(entry: string): Set<string> {
  const seen = new Set<string>();
  const walk = (m: string) => {
    if (seen.has(m)) return;
    seen.add(m);
    const text = readFileSync(join(SRC, m), "utf8").replace(/^\s*\/\/.*$/gm, "");
    for (const x of [...text.matchAll(VALUE_IMPORT), ...text.matchAll(REQUIRE)]) {
      // a named import list of types only ({ type A, type B }) brings no module code
      if (/^\s*import\s*\{(?:\s*type\s+\w+\s*,?)+\}/.test(x[0])) continue;
      let t = resolve(dirname(join(SRC, m)), x[1]!);
      if (!t.endsWith(".ts")) t += ".ts";
      walk(relative(SRC, t));
    }
  };
  walk(entry);
  return seen;
}

describe("the bundles split off exec's", () => {
  it("reach no module that keeps state for the whole process", () => {
    for (const entry of SPLIT)
      expect(
        [...reach(entry)].filter((m) => STATEFUL.includes(m)),
        entry,
      ).toEqual([]);
  });

  it("the check sees such a module (exec's own bundle reaches the redaction, the door, its hook and the cache)", () => {
    const all = reach("cli/commands/exec.ts");
    for (const m of ["util/redact.ts", "util/door.ts", "util/atomic.ts", "pack/validcache.ts"])
      expect(all.has(m), m).toBe(true);
  });
});

// The adapter kinds are a table (src/pack/adapters/, src/runtime/adapters/):
// code elsewhere asks an entry's capabilities, never names a kind, so a new
// kind is an entry and not a hunt through the tree. The runtime reaches an
// adapter only through runAdapter() (which owns the cancel rules), and an
// adapter starts a child process only through src/runtime/spawn.ts (where a
// sandbox hooks in once). HCPX_ARCH_SRC=<dir> checks another tree.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO } from "../support/hcpx";
import { ADAPTERS } from "../../src/pack/adapters/index";
import { RUNNERS } from "../../src/runtime/adapters/index";
import { tsFilesUnder as files } from "../support/tree";

const SRC = process.env.HCPX_ARCH_SRC ?? join(REPO, "src");

const code = (f: string) => readFileSync(f, "utf8").replace(/^\s*\/\/.*$/gm, "");
const mod = (f: string) => relative(SRC, f).replace(/\\/g, "/");
const TABLES = /^(pack\/adapters\/|runtime\/adapters\/)/;
/** `hcpx pack new --wrap/--composite/--sense`: the command's grammar names the kinds it scaffolds. */
const GRAMMAR = new Set(["cli/commands/pack-new.ts"]);

describe("adapters are a table", () => {
  it('no module outside the tables branches on a kind by name (kind === "wrap", case "mcp", …)', () => {
    const K = "(?:wrap|composite|openapi|mcp|sense_only)";
    const re = new RegExp(`kind\\s*[!=]==?\\s*"${K}"|case\\s+"${K}"\\s*:|"${K}"\\s*[!=]==?\\s*[\\w.?]*kind\\b`);
    const bad = files(SRC)
      .filter((f) => !TABLES.test(mod(f)) && !GRAMMAR.has(mod(f)))
      .filter((f) => re.test(code(f)))
      .map(mod);
    expect(bad).toEqual([]);
  });

  it("every callable kind of the table has a runner, and only those", () => {
    expect(Object.keys(RUNNERS).sort()).toEqual(
      ADAPTERS.filter((a) => a.capabilities.callable)
        .map((a) => a.kind)
        .sort(),
    );
  });

  it("execute() reaches an adapter only through runAdapter()", () => {
    const text = code(join(SRC, "runtime", "execute.ts"));
    expect(text).toMatch(/\brunAdapter\(/);
    expect(text).not.toMatch(/\brun(?:Wrap|Composite|Openapi|Mcp)\b|mcp-adapter/);
  });

  it("an adapter starts a child process only through runtime/spawn.ts (spawnChild)", () => {
    const bad = files(join(SRC, "runtime"))
      .filter((f) => mod(f) !== "runtime/spawn.ts")
      // spawnSync is left out: wrap.ts runs /bin/ps with it to walk a tree where /proc is absent (not an adapter's child)
      .filter((f) =>
        /(?<![.\w])(?:spawn|exec|execFile|fork)\s*\(|import\s*\{[^}]*\b(?:spawn|exec|execFile|fork)\b[^}]*\}\s*from\s*["']node:child_process["']/.test(
          code(f),
        ),
      )
      .map(mod);
    expect(bad).toEqual([]);
  });
});

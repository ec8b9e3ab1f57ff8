// A regular expression with a Unicode property class (\p{…}, \P{…}) costs
// ~2.5 M instructions when it is created: V8 builds the class from ICU's
// tables then, not on first use (callgrind, a warm `hcpx exec`: the import
// pattern of src/pack/hosttext.ts, created at load, was all of a 2.6 M
// regression). A literal evaluated when its module loads runs on every start
// of every bundle it is in, used or not; so such a literal sits inside a
// function, made on first use (json5.ts's WIDE_KEY, hosttext.ts's IMPORT).
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { tsFilesUnder } from "../support/tree";

const SRC = join(__dirname, "..", "..", "src");

/** The \p{…} literals of `text` evaluated at module load (no function around them), as "file:line". */
function loadTimePropertyClasses(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node, inFunction: boolean): void => {
    if (ts.isRegularExpressionLiteral(n) && !inFunction && /\\[pP]\{/.test(n.text))
      out.push(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`);
    const fn = inFunction || ts.isFunctionLike(n) || ts.isClassStaticBlockDeclaration(n);
    n.forEachChild((c) => visit(c, fn));
  };
  visit(sf, false);
  return out;
}

describe("no Unicode property class is built at module load", () => {
  it("every \\p{…} regular expression in src/ is inside a function", () => {
    // only a file whose text holds one is parsed (TypeScript's parser over all of src/ took ~1 s)
    const found = tsFilesUnder(SRC)
      .map((f) => ({ f, text: readFileSync(f, "utf8") }))
      .filter(({ text }) => /\\[pP]\{/.test(text))
      .flatMap(({ f, text }) => loadTimePropertyClasses(relative(SRC, f), text));
    expect(found).toEqual([]);
  });

  it("the scan finds one at the top level, in a constant's initialiser or an object, and not in a function", () => {
    const text = [
      "const A = /\\p{L}/u;",
      "export const B = { re: /x\\P{N}/u };",
      "const C = () => /\\p{L}/u;",
      "function d() { return /\\p{L}/u; }",
      "class E { m() { return /\\p{L}/u; } }",
      "const F = /\\d/;",
    ].join("\n");
    expect(loadTimePropertyClasses("t.ts", text)).toEqual(["t.ts:1", "t.ts:2"]);
  });
});

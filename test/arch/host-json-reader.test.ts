// One reader for host JSON: a tree of a host's JSON file is made only by
// src/host/jsonedit.ts's parseJsonFor or src/host/formats/json.ts's
// lenientJson, each of which registers the tree (registerTree) so that every
// walk (nodeAt, setJson, removeJson) refuses a key written twice with its
// file:line. A walk that takes the first of two copies (jsonc-parser's
// findNodeAtLocation, or a parseTree anywhere else) fails here.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO } from "../support/hcpx";
import { tsFilesUnder as files } from "../support/tree";

const SRC = join(REPO, "src");
const READERS = new Set(["src/host/jsonedit.ts", "src/host/formats/json.ts"]);

const count = (text: string, re: RegExp) => [...text.matchAll(re)].length;

describe("host JSON has one reader that sees what the host sees", () => {
  const all = files(SRC).map((f) => ({ rel: relative(REPO, f).split("\\").join("/"), text: readFileSync(f, "utf8") }));

  it("a JSON tree is parsed only in the two readers, and each parse is registered for the duplicate-key check", () => {
    const parsing = all.filter((f) => /\bparseTree\s*\(/.test(f.text)).map((f) => f.rel);
    expect(parsing.filter((f) => !READERS.has(f))).toEqual([]);
    for (const f of all.filter((x) => READERS.has(x.rel))) {
      expect(count(f.text, /\bregisterTree\(tree, /g), f.rel).toBe(count(f.text, /\bparseTree\s*\(/g));
    }
  });

  it("nothing walks a tree to the first copy of a key (findNodeAtLocation), nor imports jsonc-parser's tree API elsewhere", () => {
    expect(all.filter((f) => /\bfindNodeAtLocation\b/.test(f.text)).map((f) => f.rel)).toEqual([]);
    const treeApi = all
      .filter((f) =>
        /import\s*\{[^}]*\b(parseTree|findNodeAtLocation|getNodeValue)\b[^}]*\}\s*from\s*["']jsonc-parser/.test(f.text),
      )
      .map((f) => f.rel);
    expect(treeApi.filter((f) => !READERS.has(f))).toEqual([]);
  });
});

// The wrap adapter runs a bin whose name ends in .mjs, .js or .cjs under this
// Node (src/runtime/wrap.ts resolveBin), as `pack from-mcp` does the server it
// lists (src/mcpimport/write.ts). Both decide that with a regex instead of
// path.extname (which exec's start would compile for one call): the regex must
// give extname's answer for every path a bin can have (a file: no trailing slash).
import { extname } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isJsFile } from "../../src/runtime/wrap";

const byExtname = (p: string) => [".mjs", ".js", ".cjs"].includes(extname(p).toLowerCase());

describe("isJsFile: path.extname's answer", () => {
  it("on the names that tell them apart", () => {
    for (const p of [
      "/a/b.mjs",
      "/a/b.JS",
      "/a/b.Cjs",
      "/a/b.c.js",
      "/a/..js",
      "/a/.js",
      "/a/.mjs",
      "/a/b.jsx",
      "/a/b",
      "/a/b.",
      "/a/.b.cjs",
      "b.js",
      ".js",
      "/a.js/b",
      "/a/b.mjs.txt",
      "/a/b js",
    ])
      expect(isJsFile(p), p).toBe(byExtname(p));
  });

  it("on any path of dots, slashes and the letters of the extensions (not ending in a slash)", () => {
    const part = fc.constantFrom(".", "/", "a", "j", "s", "m", "c", "J", "S", "M", "C", " ", "\\");
    fc.assert(
      fc.property(
        fc.array(part, { maxLength: 12 }).map((xs) => xs.join("")),
        fc.constantFrom("", ".js", ".mjs", ".cjs", ".JS", "..js", "/.js", ".jss"),
        (head, tail) => {
          const p = head + tail;
          fc.pre(!p.endsWith("/"));
          expect(isJsFile(p), JSON.stringify(p)).toBe(byExtname(p));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

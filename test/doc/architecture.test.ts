// The README's "Architecture" drawing is the tree as it is: every directory it
// draws exists in src/ with the layer scripts/layers.mjs gives it (the layer
// test's table), every directory of src/ is drawn, and every file and test the
// section names exists.
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../support/hcpx";
// @ts-expect-error -- a plain .mjs script (scripts/layers.mjs), no declarations
import { LAYER } from "../../scripts/layers.mjs";

const README = readFileSync(join(REPO, "README.md"), "utf8");
const section = README.slice(
  README.indexOf("\n## Architecture\n"),
  README.indexOf("\n## Design, contributing, tests\n"),
);
const drawing = section.slice(section.indexOf("<!-- layers:start"), section.indexOf("<!-- layers:end -->"));

describe("the README's architecture section", () => {
  it("is there, with its drawing", () => {
    expect(section.length).toBeGreaterThan(500);
    expect(drawing).toContain("```");
  });

  it("draws every directory of src/ at its layer, and no other", () => {
    const drawn = new Map([...drawing.matchAll(/\b([a-z]+)\/ \((\d+(?:\.\d+)?)\)/g)].map((m) => [m[1]!, Number(m[2])]));
    const dirs = readdirSync(join(REPO, "src")).filter((d) => statSync(join(REPO, "src", d)).isDirectory());
    expect([...drawn.keys()].sort()).toEqual([...dirs].sort());
    expect(Object.fromEntries(drawn)).toEqual(LAYER);
  });

  it("draws the layers top to bottom, highest first", () => {
    const order = [...drawing.matchAll(/\b([a-z]+)\/ \((\d+(?:\.\d+)?)\)/g)].map((m) => Number(m[2]));
    expect(order).toEqual([...order].sort((a, b) => b - a));
  });

  it("names only files and tests that exist", () => {
    const named = [...section.matchAll(/`((?:src\/|test\/|scripts\/)?[\w./-]+\.(?:ts|mjs))`/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(10);
    const missing = named.filter((f) => !existsSync(join(REPO, f)) && !existsSync(join(REPO, "src", f)));
    expect(missing).toEqual([]);
  });
});

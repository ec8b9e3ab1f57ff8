import { describe, expect, it } from "vitest";
import { readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { loadPack } from "../../src/pack/load";
import { loadSkill } from "../../src/pack/skill";
import { REPO } from "../support/hcpx";

const packs = readdirSync(join(REPO, "packs")).filter((d) => existsSync(join(REPO, "packs", d, "surface.json")));

describe("example packs load", () => {
  it.each(packs)("%s loads with no warnings and its Skill parses", (id) => {
    const p = loadPack(join(REPO, "packs", id));
    expect(p.id).toBe(id);
    expect(p.warnings).toEqual([]);
    const s = loadSkill(p);
    expect(s.frontmatter.name).toBe(id);
  });
});

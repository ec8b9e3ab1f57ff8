// Lint's rules are a table (src/pack/lint-rules.ts; a kind's own rules in its
// adapter entry): each rule declares the codes it reports and reports only
// those, and the lint modules read no kind's section by name, so a new kind
// adds its rules to its entry and touches no lint module.
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { LINT_CODES } from "../../src/pack/lint";
import { LINT_RULES } from "../../src/pack/lint-rules";
import { lintContext } from "../../src/pack/lint-context";
import { loadPackChecked } from "../../src/pack/load";
import { ADAPTERS } from "../../src/pack/adapters/index";
import { REPO } from "../support/hcpx";
import { miniPack, type Json } from "./minipack";

const codesOf = (r: { code: string | readonly string[] }) => (typeof r.code === "string" ? [r.code] : [...r.code]);

describe("lint rules as a table", () => {
  it("every code a rule declares is a lint code", () => {
    const kindRules: readonly { code: string | readonly string[] }[] = ADAPTERS.flatMap(
      (a): readonly { code: string | readonly string[] }[] => a.lint,
    );
    const declared = [...LINT_RULES, ...kindRules].flatMap(codesOf);
    expect(declared.filter((c) => !(LINT_CODES as readonly string[]).includes(c))).toEqual([]);
  });

  it("a rule reports only the codes it declares", () => {
    const bad: (s: Json) => void = (s) => {
      s.id = "mini--x";
      s.wrap.argv_template = ["{{verb}}", "{{nope}}", "x{{y}}"];
      s.commands[0].output = "json";
      s.commands[0].tool = "t";
      s.commands[0].args.id.type = "json";
      s.commands[1].cli = ["other", "{{name}}x", "{{zz}}"];
      s.commands[1].args.e = { type: "enum" };
      s.commands.push({ ...s.commands[0] });
      s.reach = { network_for: ["remote"], paths: ["~/notes"] };
    };
    const dir = miniPack({
      surface: bad,
      policy: (p) => ((p.inferred = true), (p.rows.show.land = "local")),
      skill: { name: "other", leads: ["Read-only", "b", "c", "d"], rows: [] },
    });
    const { pack } = loadPackChecked(dir);
    const ctx = lintContext(pack, undefined, {});
    const seen = new Set<string>();
    for (const rule of LINT_RULES) {
      const declared = codesOf(rule);
      for (const p of rule.check(pack, ctx)) {
        seen.add(p.code);
        if (declared.length) expect(declared, `${p.code}: ${p.message}`).toContain(p.code);
      }
    }
    expect(seen.size).toBeGreaterThan(12);
  });

  it("the lint modules name no kind's own section but wrap's (a kind's files and rules are its entry's)", () => {
    const dir = join(REPO, "src", "pack");
    const bad = readdirSync(dir)
      .filter((f) => /^lint.*\.ts$/.test(f))
      .filter((f) =>
        /\.(?:composite|openapi|mcp|stimuli)\b/.test(readFileSync(join(dir, f), "utf8").replace(/^\s*\/\/.*$/gm, "")),
      );
    expect(bad).toEqual([]);
  });
});

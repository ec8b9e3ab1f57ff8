// docs/pack-format.md stays in sync with the schemas: every field of
// surface.json, policy.json, SKILL.md's frontmatter and hcp.config.json5 (walked
// from the zod schemas in src/pack/schema-defs.ts) has a row in its section's
// field tables, and every row names a field that exists. A field added to a
// schema without a line in the doc fails here.
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { build } from "../../src/pack/schema-defs";
import { LINT_CODES } from "../../src/pack/lint";
import { REPO } from "../support/hcpx";

const DOC = readFileSync(join(REPO, "docs/pack-format.md"), "utf8");

interface Def {
  type: string;
  innerType?: Z;
  shape?: Record<string, Z>;
  element?: Z;
  valueType?: Z;
  options?: Z[];
}
type Z = { _zod: { def: Def } };

/** Every field path of a schema: `wrap.bin`, `commands[].args.*.type`, … */
export function fieldPaths(schema: Z, prefix = ""): string[] {
  const d = schema._zod.def;
  switch (d.type) {
    case "optional":
    case "nullable":
    case "default":
      return fieldPaths(d.innerType!, prefix);
    case "object":
      return Object.entries(d.shape!).flatMap(([k, v]) => {
        const p = prefix ? `${prefix}.${k}` : k;
        return [p, ...fieldPaths(v, p)];
      });
    case "array":
      return fieldPaths(d.element!, `${prefix}[]`);
    case "record":
      return fieldPaths(d.valueType!, `${prefix}.*`);
    case "union":
      return [...new Set(d.options!.flatMap((o) => fieldPaths(o, prefix)))];
    default:
      return [];
  }
}

/** The section of the doc under `## <title>`, up to the next `## `. */
function section(title: string): string {
  const start = DOC.indexOf(`\n## ${title}\n`);
  expect(start, `docs/pack-format.md has a section "## ${title}"`).toBeGreaterThan(0);
  const lines = DOC.slice(start + 1).split("\n");
  let fence: string | undefined;
  const out: string[] = [];
  for (const [i, l] of lines.entries()) {
    const f = /^(```+|~~~+)/.exec(l)?.[1];
    if (fence) {
      if (f && f.startsWith(fence)) fence = undefined;
    } else if (f) fence = f;
    else if (i > 0 && l.startsWith("## ")) break;
    out.push(l);
  }
  return out.join("\n");
}

/** The first cells of the field tables (`| field | required | meaning |`) of a section. */
function tableFields(text: string): string[] {
  const out: string[] = [];
  let inTable = false;
  for (const line of text.split("\n")) {
    if (/^\| field \|/.test(line)) inTable = true;
    else if (!line.startsWith("|")) inTable = false;
    else if (inTable && !/^\|-/.test(line)) out.push(/^\| `([^`]+)` \|/.exec(line)?.[1] ?? `(bad row: ${line})`);
  }
  return out;
}

const s = build() as unknown as Record<string, Z>;
const FILES: [string, Z, RegExp?][] = [
  ["surface.json", s.SurfaceSchema!],
  ["policy.json", s.PolicySchema!],
  ["SKILL.md", s.SkillFrontmatterSchema!],
  ["hcp.config.json5", s.ConfigSchema!],
];

describe("docs/pack-format.md", () => {
  it.each(FILES)("documents every field of %s, and only real ones", (title, schema) => {
    const want = fieldPaths(schema);
    expect(want.length).toBeGreaterThan(2);
    const got = tableFields(section(title));
    expect(
      want.filter((p) => !got.includes(p)),
      `fields of ${title} with no row in docs/pack-format.md`,
    ).toEqual([]);
    expect(
      got.filter((p) => !want.includes(p)),
      `rows of docs/pack-format.md that name no field of ${title}`,
    ).toEqual([]);
  });

  it("explains land (local, remote, external), confirm, the four faces and the mention rule, with anchors the hints use", () => {
    for (const h of [
      "## The four faces",
      "### land",
      "### confirm",
      "### Read-only claims",
      "### What a projection leaves out",
      "## Command specs",
    ])
      expect(DOC).toContain(`\n${h}\n`);
    for (const land of ["`local`", "`remote`", "`external`"]) expect(section("policy.json")).toContain(`| ${land} |`);
    expect(section("The four faces")).toMatch(/\| wire \|[\s\S]*\| CLI \|[\s\S]*\| host tool \|[\s\S]*\| Skill \|/);
  });

  it("every anchor that src/ points users to exists in the doc", () => {
    const anchors = new Set(
      [...DOC.matchAll(/^#{2,3} (.+)$/gm)].map((m) =>
        m[1]!
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, "")
          .replace(/ /g, "-"),
      ),
    );
    const srcText = (function walk(dir: string): string {
      return readdirSync(dir)
        .map((f) =>
          statSync(join(dir, f)).isDirectory()
            ? walk(join(dir, f))
            : f.endsWith(".ts")
              ? readFileSync(join(dir, f), "utf8")
              : "",
        )
        .join("\n");
    })(join(REPO, "src"));
    const used = [...srcText.matchAll(/docs\/pack-format\.md#([a-z0-9-]+)/g)].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(3);
    expect([...new Set(used)].filter((a) => !anchors.has(a))).toEqual([]);
  });

  it("every lint code it names exists", () => {
    const named = [...DOC.matchAll(/lint: `([a-z_]+)`|\(`([a-z_]+)`\)/g)]
      .map((m) => m[1] ?? m[2]!)
      .filter((c) => c.includes("_"));
    for (const c of named) expect(LINT_CODES as readonly string[], c).toContain(c);
  });

  it("no user-facing text points to files users do not have (DESIGN.md, HOSTS.md, ../shared, §-numbers)", () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));
    const bad: string[] = [];
    const BAD = /DESIGN\.md|HOSTS\.md|\.\.\/shared|§\s*\d/;
    for (const f of files(join(REPO, "src")).filter((x) => x.endsWith(".ts"))) {
      readFileSync(f, "utf8")
        .split("\n")
        .forEach((l, i) => {
          // code comments are ours; strings (hints, help, messages) are the user's
          const code = l.replace(/^\s*(\/\/|\/?\*).*$/, "").replace(/\s\/\/ .*$/, "");
          if (BAD.test(code) || /the four faces(?! of)/.test(code.replace(/docs\/pack-format\.md#the-four-faces/g, "")))
            bad.push(`${f.slice(REPO.length + 1)}:${i + 1}: ${l.trim()}`);
        });
    }
    for (const dir of ["hosts", "templates", "packs", "docs"])
      for (const f of files(join(REPO, dir))) if (BAD.test(readFileSync(f, "utf8"))) bad.push(f.slice(REPO.length + 1));
    if (BAD.test(readFileSync(join(REPO, "README.md"), "utf8"))) bad.push("README.md");
    expect(bad).toEqual([]);
  });
});

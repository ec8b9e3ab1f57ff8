// docs/errors.md lists the one code list (src/util/codes.ts ERRORS) for
// users: every code, its exit class and its default hint, nothing else. Run
// with HCPX_WRITE_DOCS=1 to rewrite the generated block after a change.
import { describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ERRORS } from "../../src/util/codes";
import { REPO } from "../support/hcpx";

const FILE = join(REPO, "docs/errors.md");
const START =
  "<!-- codes:start (generated from src/util/codes.ts; HCPX_WRITE_DOCS=1 npx vitest run test/doc/errors.test.ts) -->\n";
const END = "<!-- codes:end -->";

/** A table cell: `|` escaped; `<` as `&lt;` in text only (inside a code span an entity is shown as typed: "&lt;host>"). */
function escapeCell(s: string): string {
  return s
    .replace(/\|/g, "\\|")
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/</g, "&lt;")))
    .join("");
}

function block(): string {
  const rows = Object.entries(ERRORS).map(
    ([code, info]) => `| \`${code}\`${"usage" in info && info.usage ? " (exit 64)" : ""} | ${escapeCell(info.hint)} |`,
  );
  return `${START}| code | what to do (when the message gives nothing more precise) |\n|---|---|\n${rows.join("\n")}\n${END}`;
}

describe("docs/errors.md", () => {
  it("lists every error code with its default hint", () => {
    const text = readFileSync(FILE, "utf8");
    const a = text.indexOf(START);
    const b = text.indexOf(END);
    expect(a, "docs/errors.md has the generated block").toBeGreaterThanOrEqual(0);
    const now = text.slice(a, b + END.length);
    if (process.env.HCPX_WRITE_DOCS && now !== block())
      writeFileSync(FILE, text.slice(0, a) + block() + text.slice(b + END.length));
    else expect(now).toBe(block());
  });

  it("shows `<` as typed inside code spans (no `&lt;` in a code span, where it would be printed literally)", () => {
    const text = readFileSync(FILE, "utf8");
    for (const span of text.match(/`[^`\n]*`/g) ?? []) expect(span).not.toContain("&lt;");
  });

  it("says what no user may need: no pointer to files users do not have", () => {
    const text = readFileSync(FILE, "utf8");
    expect(text).not.toMatch(/DESIGN\.md|HOSTS\.md|\.\.\/shared/);
    for (const [, info] of Object.entries(ERRORS)) expect(info.hint).not.toMatch(/DESIGN\.md|HOSTS\.md|\.\.\/shared/);
  });
});

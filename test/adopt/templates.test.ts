// Every shipped template renders the same with the small interpreter adopt uses
// as with Handlebars itself (the templates stay real .hbs files).
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../support/hcpx";
import { compileTemplate, renderSimple, type TemplateContext } from "../../src/host/templates";
import { renderWithHandlebars } from "../support/handlebars";

const base: TemplateContext = {
  command: "/usr/bin/node",
  args: ["/opt/hcpx/dist/hcpx.mjs", "mcp", 'with "quotes" and \\ back'],
  argv: ["/usr/bin/node", "/opt/hcpx/dist/hcpx.mjs", "mcp"],
  envVars: ["LEDGER_TOKEN", "TODO_TOKEN"],
  envRefs: { LEDGER_TOKEN: "$LEDGER_TOKEN", TODO_TOKEN: "$TODO_TOKEN" },
  promptBlock: "<!-- hcp:prompt sha256:0123456789abcdef -->\n## Packs\n\nUse `hcpx exec` & <friends>.\n",
  hash: "0123456789abcdef",
  packs: ["ledger"],
  host: "x",
  hostName: "X",
  bundle: { name: "hcp-packs", version: "1.0.0", description: 'Packs: a "quoted" one', author: 'dev "x"' },
};

const files = readdirSync(join(REPO, "templates"), { recursive: true, withFileTypes: true })
  .filter((d) => d.isFile() && d.name.endsWith(".hbs"))
  .map((d) => join(d.parentPath, d.name));

describe("templates: small interpreter = Handlebars", () => {
  it("finds the shipped templates", () => expect(files.length).toBeGreaterThanOrEqual(7));
  for (const f of files) {
    for (const ctx of [base, { ...base, envVars: [], envRefs: {} }]) {
      it(`${f.slice(REPO.length + 1)} (${ctx.envVars.length} env vars)`, async () => {
        const src = readFileSync(f, "utf8");
        const mine = renderSimple(src, ctx);
        expect(mine, "the interpreter should handle every shipped template").toBeDefined();
        expect(mine).toBe(renderWithHandlebars(src, ctx));
      });
    }
  }
  // render() takes a template's text through compileTemplate (written into templates/, the text was seen by the
  // files reading that folder beside this one)
  it("a template beyond the subset is an error naming the template (there is no second engine)", () => {
    let err: unknown;
    try {
      compileTemplate("{{#each packs}}{{this}}{{/each}}\n", "templates/zz-test-host/each.md.hbs");
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ problems: [{ code: "bad_template", file: "templates/zz-test-host/each.md.hbs" }] });
  });
  it("falls back (undefined) on anything beyond the subset", () => {
    expect(renderSimple("{{#each packs}}{{this}}{{/each}}", base)).toBeUndefined();
    expect(renderSimple("{{command}}", base)).toBeUndefined();
  });
});

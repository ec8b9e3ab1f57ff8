// Handlebars itself (a devDependency, never shipped): the oracle the tests compare
// hcpx's template interpreter (src/host/templates.ts) with.
import Handlebars from "handlebars";
import type { TemplateContext } from "../../src/host/templates";
import { tomlValue } from "../../src/util/text";

const h = Handlebars.create();
h.registerHelper("json", (v: unknown) => JSON.stringify(v));
h.registerHelper("toml", (v: unknown) => tomlValue(v));

export function renderWithHandlebars(src: string, ctx: TemplateContext): string {
  return h.compile(src, { noEscape: true, strict: false })(ctx);
}

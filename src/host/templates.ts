// Template rendering (handlebars, loaded with import() only by commands that
// render host files). `templates/<host>/<name>` wins over `templates/common/<name>`.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HcpxError } from "../util/errors";
import { packageRoot } from "./descriptor";

export interface TemplateContext {
  /** MCP server command (first word) */
  command: string;
  /** its arguments */
  args: string[];
  /** command + args, one array (opencode) */
  argv: string[];
  /** binding env var names to forward (Codex `env_vars`) */
  envVars: string[];
  /** the stable system-prompt block */
  promptBlock: string;
  hash: string;
  packs: string[];
  host: string;
  hostName: string;
  /** `generate --as`: the bundle's identity */
  bundle?: { name: string; version: string; description: string };
}

type Render = (ctx: TemplateContext) => string;
const compiled = new Map<string, Render>();
let hbs: typeof import("handlebars") | undefined;

async function handlebars(): Promise<typeof import("handlebars")> {
  if (hbs) return hbs;
  const mod = (await import("handlebars")) as unknown as { default?: typeof import("handlebars") } & typeof import("handlebars");
  const h = (mod.default ?? mod).create();
  h.registerHelper("json", (v: unknown) => JSON.stringify(v));
  // TOML basic strings and arrays of them share JSON's syntax for what we write.
  h.registerHelper("toml", (v: unknown) => JSON.stringify(v));
  hbs = h as typeof import("handlebars");
  return hbs;
}

export function templatePath(host: string, name: string): string {
  const root = join(packageRoot(), "templates");
  const own = join(root, host, name);
  if (existsSync(own)) return own;
  const common = join(root, "common", name);
  if (existsSync(common)) return common;
  throw new HcpxError({ code: "bad_descriptor", message: `template '${name}' not found for host '${host}'`, file: `templates/${host}/${name}`, hint: "reinstall hcpx, or fix the descriptor's template name" });
}

export async function render(host: string, name: string, ctx: TemplateContext): Promise<string> {
  const file = templatePath(host, name);
  let fn = compiled.get(file);
  if (!fn) {
    const h = await handlebars();
    fn = h.compile(readFileSync(file, "utf8"), { noEscape: true, strict: false }) as Render;
    compiled.set(file, fn);
  }
  return fn(ctx);
}

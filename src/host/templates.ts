// Template rendering (handlebars, loaded with import() only by commands that
// render host files). `templates/<host>/<name>` wins over `templates/common/<name>`.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HcpxError } from "../util/errors";
import { packageRoot } from "./descriptor";
import { tomlValue } from "./text";

export interface TemplateContext {
  /** MCP server command (first word) */
  command: string;
  /** its arguments */
  args: string[];
  /** command + args, one array (opencode) */
  argv: string[];
  /** binding env var names to forward (Codex `env_vars`) */
  envVars: string[];
  /**
   * the same names as an `env` object in the target's `envSyntax` (`VAR` replaced by
   * the name): `{"LEDGER_TOKEN": "$LEDGER_TOKEN"}` for Gemini, which strips variables
   * named like secrets from an MCP server's environment unless its `env` names them
   */
  envRefs?: Record<string, string>;
  /** the stable system-prompt block */
  promptBlock: string;
  hash: string;
  packs: string[];
  host: string;
  hostName: string;
  /** `generate --as`: the bundle's identity */
  bundle?: { name: string; version: string; description: string; author: string };
}

type Render = (ctx: TemplateContext) => string;
const compiled = new Map<string, Render>();
let hbs: typeof import("handlebars") | undefined;

async function handlebars(): Promise<typeof import("handlebars")> {
  if (hbs) return hbs;
  const mod = (await import("handlebars")) as unknown as { default?: typeof import("handlebars") } & typeof import("handlebars");
  const h = (mod.default ?? mod).create();
  h.registerHelper("json", (v: unknown) => JSON.stringify(v));
  // TOML's own escaping (control characters incl. DEL): src/host/text.ts
  h.registerHelper("toml", (v: unknown) => tomlValue(v));
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

/**
 * Templates that use only `{{{name}}}`, `{{{json name}}}` / `{{{toml name}}}` and
 * `{{#if name}}…{{/if}}` (every template we ship) are rendered by this small
 * interpreter, with the same meaning as in Handlebars; anything else goes to
 * Handlebars (loaded on demand, ~50 ms) — adopt runs without it.
 */
const SIMPLE_TAG = /\{\{\{\s*(?:(json|toml)\s+)?([A-Za-z_][\w.]*)\s*\}\}\}|\{\{#if\s+([A-Za-z_][\w.]*)\s*\}\}|\{\{\/if\}\}/g;

function lookup(ctx: unknown, path: string): unknown {
  let v = ctx;
  for (const k of path.split(".")) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

function simple(src: string): Render | undefined {
  if (src.replace(SIMPLE_TAG, "").includes("{{")) return undefined;
  type Part = { text: string } | { value: string; helper?: string } | { ifOpen: string } | { ifClose: true };
  const parts: Part[] = [];
  let pos = 0;
  for (const m of src.matchAll(SIMPLE_TAG)) {
    parts.push({ text: src.slice(pos, m.index) });
    if (m[2]) parts.push({ value: m[2], helper: m[1] });
    else if (m[3]) parts.push({ ifOpen: m[3] });
    else parts.push({ ifClose: true });
    pos = m.index! + m[0].length;
  }
  parts.push({ text: src.slice(pos) });
  // Handlebars' standalone rule: a line holding only a block tag disappears with its line break.
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (!("ifOpen" in p) && !("ifClose" in p)) continue;
    const prev = parts[i - 1] as { text?: string } | undefined;
    const next = parts[i + 1] as { text?: string } | undefined;
    if (prev?.text !== undefined && next?.text !== undefined && /(^|\n)[ \t]*$/.test(prev.text) && /^[ \t]*(\r?\n|$)/.test(next.text)) {
      prev.text = prev.text.replace(/[ \t]*$/, "");
      next.text = next.text.replace(/^[ \t]*(\r?\n)?/, "");
    }
  }
  let depth = 0;
  for (const p of parts) {
    if ("ifOpen" in p) depth++;
    if ("ifClose" in p && --depth < 0) return undefined;
  }
  if (depth !== 0) return undefined;
  const truthy = (v: unknown) => (Array.isArray(v) ? v.length > 0 : Boolean(v));
  return (ctx) => {
    let out = "";
    const skip: boolean[] = [];
    for (const p of parts) {
      const off = skip.includes(true);
      if ("ifOpen" in p) skip.push(!truthy(lookup(ctx, p.ifOpen)));
      else if ("ifClose" in p) skip.pop();
      else if (off) continue;
      else if ("text" in p) out += p.text;
      else {
        const v = lookup(ctx, p.value);
        out += p.helper === "toml" ? tomlValue(v) : p.helper ? JSON.stringify(v) : v === undefined || v === null ? "" : String(v);
      }
    }
    return out;
  };
}

export async function render(host: string, name: string, ctx: TemplateContext): Promise<string> {
  const file = templatePath(host, name);
  let fn = compiled.get(file);
  if (!fn) {
    const src = readFileSync(file, "utf8");
    fn = simple(src);
    if (!fn) {
      const h = await handlebars();
      fn = h.compile(src, { noEscape: true, strict: false }) as Render;
    }
    compiled.set(file, fn);
  }
  return fn(ctx);
}

/** Render with Handlebars itself (tests compare it with the small interpreter). */
export async function renderWithHandlebars(src: string, ctx: TemplateContext): Promise<string> {
  const h = await handlebars();
  return (h.compile(src, { noEscape: true, strict: false }) as Render)(ctx);
}

export function renderSimple(src: string, ctx: TemplateContext): string | undefined {
  return simple(src)?.(ctx);
}

// Template rendering for the prose hosts read (instructions blocks, rule files,
// bundle manifests). One engine: the small interpreter below, which renders the
// subset of Handlebars the shipped templates use, with Handlebars' meaning (the
// .hbs files stay valid Handlebars; test/adopt/templates.test.ts compares the two).
// Anything beyond the subset is an error, not a second engine: hcpx ships no
// Handlebars. `templates/<host>/<name>` wins over `templates/common/<name>`.
import { existsSync } from "node:fs";
import { CAPS, readTextFile } from "../util/readfile";
import { joinIn } from "../util/paths";
import { HcpxError } from "../util/errors";
import { packageRoot } from "./descriptor";
import { tomlValue } from "../util/text";

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
  /** descriptor `toolApprovals`: { <tool>: { <field>: value } } (Codex per-tool approval_mode) */
  toolApprovals?: Record<string, Record<string, string>>;
}

export type Render = (ctx: TemplateContext) => string;
const compiled = new Map<string, Render>();

export function templatePath(host: string, name: string): string {
  const root = joinIn(packageRoot(), "templates");
  const own = joinIn(root, `${host}/${name}`);
  if (existsSync(own)) return own;
  const common = joinIn(root, `common/${name}`);
  if (existsSync(common)) return common;
  throw new HcpxError({
    code: "bad_descriptor",
    message: `template '${name}' not found for host '${host}'`,
    file: `templates/${host}/${name}`,
    hint: "reinstall hcpx, or fix the descriptor's template name",
  });
}

/**
 * The template language: `{{{name}}}` (a value, `a.b` for a member), `{{{json name}}}`
 * / `{{{toml name}}}` (as a JSON / TOML value) and `{{#if name}}…{{/if}}` (an empty
 * list is false), with Handlebars' standalone-line rule. Nothing is HTML-escaped.
 */
const SIMPLE_TAG =
  /\{\{\{\s*(?:(json|toml)\s+)?([A-Za-z_][\w.]*)\s*\}\}\}|\{\{#if\s+([A-Za-z_][\w.]*)\s*\}\}|\{\{\/if\}\}/g;

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
    if (
      prev?.text !== undefined &&
      next?.text !== undefined &&
      /(^|\n)[ \t]*$/.test(prev.text) &&
      /^[ \t]*(\r?\n|$)/.test(next.text)
    ) {
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
        out +=
          p.helper === "toml"
            ? tomlValue(v)
            : p.helper
              ? JSON.stringify(v)
              : v === undefined || v === null
                ? ""
                : String(v);
      }
    }
    return out;
  };
}

export async function render(host: string, name: string, ctx: TemplateContext): Promise<string> {
  const file = templatePath(host, name);
  let fn = compiled.get(file);
  if (!fn) {
    const rel = `templates/${host}/${name}`;
    fn = compileTemplate(readTextFile(file, rel, CAPS.skill), rel);
    compiled.set(file, fn);
  }
  return fn(ctx);
}

/**
 * A template's text as render() takes it (`rel`, its file for messages): beyond the subset, a `bad_template`
 * error naming the file. test/adopt/templates.test.ts checks its own text here, never writing into
 * templates/, which other test files read while it runs.
 */
export function compileTemplate(text: string, rel: string): Render {
  const fn = simple(text);
  if (!fn)
    throw new HcpxError({
      code: "bad_template",
      message:
        "uses template syntax beyond what hcpx renders ({{{name}}}, {{{json name}}}, {{{toml name}}}, {{#if name}}…{{/if}})",
      file: rel,
      hint: "reinstall hcpx; a changed template must keep to that subset (docs/host-descriptors.md)",
    });
  return fn;
}

/** The interpreter on a template's text (undefined: beyond the subset). */
export function renderSimple(src: string, ctx: TemplateContext): string | undefined {
  return simple(src)?.(ctx);
}

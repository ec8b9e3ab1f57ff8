// The plan of `hcpx generate`: every output file, relative to the out dir, in
// memory. Host previews (`hosts/<host>/…`) come from the host engine, which
// the caller passes in (src/host/preview.ts): the projection layer imports
// nothing from the host layer above it. src/plan/files.ts turns the files
// into the FilePlan that is written.
import type { Pack, Project } from "../pack/model";
import { HcpxError } from "../util/errors";
import { buildProjection, withSkillsPath, type BuildOptions } from "./build";
import { flat, toMcp, toolList, type ToolDialect } from "./tools";
import { lazyFile, type BlockOptions, type Plan, type PlannedFile, type Projection } from "./types";

export const DEFAULT_HOSTS = ["claude", "cursor"];

/**
 * The host engine's preview renderer. `projectionFor(skillsPath)` rebuilds the
 * projection with the prompt block pointing at a host's own Skill directory.
 */
export type RenderHostPreviews = (
  projection: Projection,
  hosts: string[],
  project: Project,
  projectionFor?: (skillsPath: string, opts?: BlockOptions) => Projection,
) => PlannedFile[] | Promise<PlannedFile[]>;

export interface PlanOptions extends BuildOptions {
  /** Hosts to preview; undefined = DEFAULT_HOSTS when `previews` is given. */
  hosts?: string[];
  /** The host engine's preview renderer (src/host/preview.ts renderHostPreviews); without it, no host previews. */
  previews?: RenderHostPreviews;
}

/** JSON with 2-space indent, arrays of scalars on one line (enums stay readable); LF; trailing newline. */
export function json(v: unknown, shared?: SharedTexts): string {
  // One pass over plain data (the tool lists: ~30 MB each at 5,000 packs × 10 commands, where a
  // regular expression over the printed text was ~7% of generate); anything else (toJSON,
  // undefined in an array, a non-finite number …) is printed the way it always was.
  try {
    return printed(v, "\n", shared) + "\n";
  } catch (e) {
    if (e !== NOT_PLAIN) throw e;
    return foldedStringify(v);
  }
}

const CHUNK = 64 * 1024;
const plainObject = (x: unknown): boolean =>
  x !== null &&
  typeof x === "object" &&
  Object.getPrototypeOf(x) === Object.prototype &&
  typeof (x as { toJSON?: unknown }).toJSON !== "function";

/**
 * json(v) in pieces of about 64 KB, never one string: an array of plain objects (a tool list) item
 * by item; anything else in one piece. An item that is not plain data is printed the reference way
 * (foldedStringify), as json() prints the whole then: the same text either way.
 */
export function* jsonChunks(v: unknown, shared?: SharedTexts): Generator<string> {
  if (!Array.isArray(v) || v.length === 0 || !v.every(plainObject)) {
    yield json(v, shared);
    return;
  }
  let buf = "[";
  for (let i = 0; i < v.length; i++) {
    buf += (i ? ",\n  " : "\n  ") + item(v[i], shared);
    if (buf.length >= CHUNK) {
      yield buf;
      buf = "";
    }
  }
  yield buf + "\n]\n";
}

/** One item of a top-level array, at its depth. */
function item(x: unknown, shared?: SharedTexts): string {
  try {
    return printed(x, "\n  ", shared);
  } catch (e) {
    if (e !== NOT_PLAIN) throw e;
    return foldedStringify(x).slice(0, -1).replaceAll("\n", "\n  ");
  }
}

/** The reference form: native stringify, then each array whose items are all scalars folded onto one line. */
export function foldedStringify(v: unknown): string {
  return (
    JSON.stringify(v, null, 2).replace(
      SCALAR_ARRAY_RE,
      (_m, items: string) => `[${items.split(/,\n\s*/).join(", ")}]`,
    ) + "\n"
  );
}

const NOT_PLAIN = Symbol("not plain JSON data");

/**
 * Objects several printed values share (the tool lists' input schemas: one object, three dialects,
 * at two depths), each printed once at the top level and indented where it is used: nothing in a
 * printed value holds a raw line feed (strings are escaped), so a value printed one level deeper is
 * the same text with every "\n" followed by two more spaces.
 */
export class SharedTexts {
  private readonly texts = new Map<object, string>();
  /** the depth the texts are kept at: the first one asked (the tool lists: two dialects of three use it as is) */
  private nl: string | undefined;
  constructor(private readonly objects: ReadonlySet<object>) {}
  text(v: object, nl: string): string | undefined {
    if (!this.objects.has(v)) return undefined;
    this.nl ??= nl;
    if (nl !== this.nl && !nl.startsWith(this.nl)) return printed(v, nl); // shallower than kept: printed here
    let t = this.texts.get(v);
    if (t === undefined) this.texts.set(v, (t = flat(printed(v, this.nl))));
    return nl === this.nl ? t : t.replaceAll("\n", "\n" + nl.slice(this.nl.length));
  }
}

/** A key as printed, with its ": " (the few keys of a tool list, each quoted once). */
const KEYS = new Map<string, string>();
function keyText(k: string): string {
  let t = KEYS.get(k);
  if (t === undefined) {
    t = JSON.stringify(k) + ": ";
    if (KEYS.size < 1024) KEYS.set(k, t);
  }
  return t;
}

// One string grown by concatenation (no array of parts and join per object: ~25% of printing a tool list).
function printed(v: unknown, nl: string, shared?: SharedTexts): string {
  switch (typeof v) {
    case "string":
      return JSON.stringify(v);
    case "boolean":
      return v ? "true" : "false";
    case "number":
      if (!Number.isFinite(v)) throw NOT_PLAIN;
      return JSON.stringify(v);
    case "object":
      break;
    default:
      throw NOT_PLAIN;
  }
  if (v === null) return "null";
  if (
    typeof (v as { toJSON?: unknown }).toJSON === "function" ||
    v instanceof Number ||
    v instanceof String ||
    v instanceof Boolean
  )
    throw NOT_PLAIN;
  if (shared !== undefined) {
    const known = shared.text(v, nl);
    if (known !== undefined) return known;
  }
  const inner = nl + "  ";
  if (Array.isArray(v)) {
    const n = v.length;
    if (n === 0) return "[]";
    let scalars = true;
    for (let i = 0; i < n; i++) {
      const x: unknown = v[i];
      if (x !== null && typeof x === "object") {
        scalars = false;
        break;
      }
    }
    const sep = scalars ? ", " : "," + inner;
    let s = scalars ? "[" : "[" + inner;
    for (let i = 0; i < n; i++) {
      const x: unknown = v[i];
      if (x === undefined || typeof x === "function" || typeof x === "symbol") throw NOT_PLAIN;
      s += (i ? sep : "") + printed(x, inner, shared);
    }
    return scalars ? s + "]" : s + nl + "]";
  }
  let s = "";
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined || typeof x === "function" || typeof x === "symbol") continue;
    s += (s === "" ? "{" + inner : "," + inner) + keyText(k) + printed(x, inner, shared);
  }
  return s === "" ? "{}" : s + nl + "}";
}
const SCALAR = String.raw`(?:"(?:[^"\\\n]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)`;
const SCALAR_ARRAY_RE = new RegExp(String.raw`\[\n\s*(${SCALAR}(?:,\n\s*${SCALAR})*)\n\s*\]`, "g");

/** The files of the generate plan that do not depend on a host: prompt block, tool lists, Skill copies. */
export function projectionFiles(p: Projection): PlannedFile[] {
  // the three dialects share each tool's input schema: printed once
  const tools = p.tools;
  const schemas = new SharedTexts(new Set(tools.map((t) => t.inputSchema)));
  // the in-process lists are the largest files of the plan: rendered when read, never held (lazyFile);
  // they keep the tools alone, not the projection (its packs are let go once the plan is made)
  const list = (dialect: ToolDialect) =>
    lazyFile(`tools/${dialect}.json`, () => jsonChunks(toolList(tools, dialect), schemas), tools.length);
  const files: PlannedFile[] = [
    { path: "system-prompt.md", content: p.promptBlock },
    { path: "tools/shell.json", content: json([p.shellTool, p.readSkillTool].map(toMcp)), items: 2 },
    list("mcp"),
    list("anthropic"),
    list("openai"),
    ...p.skills.map((s) => ({ path: `skills/${s.packId}/SKILL.md`, content: s.content })),
  ];
  return files;
}

const SAFE_PATH_RE = /^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[^\\\0:]+$/;

export async function planGenerate(project: Project, packs: Pack[], opts: PlanOptions = {}): Promise<Plan> {
  const projection = buildProjection(project, packs, opts);
  const files = projectionFiles(projection);
  const hosts = opts.hosts ?? (opts.previews ? DEFAULT_HOSTS : []);
  if (hosts.length) {
    if (!opts.previews)
      throw new HcpxError({
        code: "no_host_engine",
        message: `host previews (${hosts.join(", ")}) are not available here`,
        hint: "run without --host, or with --host none",
      });
    files.push(
      ...(await opts.previews(projection, hosts, project, (skillsPath, o) =>
        withSkillsPath(projection, skillsPath, o),
      )),
    );
  }
  const seen = new Set<string>();
  for (const f of files) {
    if (!SAFE_PATH_RE.test(f.path))
      throw new HcpxError({
        code: "bad_plan_path",
        message: `planned file '${f.path}' is not a relative path inside the out dir`,
        hint: "this is a bug in a host descriptor or template",
      });
    if (seen.has(f.path))
      throw new HcpxError({
        code: "bad_plan_path",
        message: `planned file '${f.path}' is produced twice`,
        hint: "this is a bug in a host descriptor or template",
      });
    seen.add(f.path);
    // (a lazy file is printed JSON: a carriage return in it is always escaped)
    if (!f.chunks && f.content.includes("\r")) (f as { content: string }).content = f.content.replace(/\r\n?/g, "\n");
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files };
}

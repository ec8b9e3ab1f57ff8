// The plan of `hcpx generate`: every output file, relative to the out dir, in
// memory. Host previews (`hosts/<host>/…`) come from the host engine.
import type { Pack, Project } from "../pack/model";
import { HcpxError } from "../util/errors";
import { buildProjection, withSkillsPath, type BuildOptions } from "./build";
import { toAnthropic, toMcp, toOpenAI } from "./tools";
import type { Plan, PlannedFile, Projection } from "./types";

export const DEFAULT_HOSTS = ["claude", "cursor"];

export interface PlanOptions extends BuildOptions {
  /** Hosts to preview; undefined = DEFAULT_HOSTS when the host engine is present. */
  hosts?: string[];
}

/**
 * The host engine's preview renderer. `projectionFor(skillsPath)` rebuilds the
 * projection with the prompt block pointing at a host's own Skill directory.
 */
export type RenderHostPreviews = (projection: Projection, hosts: string[], project: Project, projectionFor?: (skillsPath: string) => Projection) => PlannedFile[] | Promise<PlannedFile[]>;

/** The host engine's `renderHostPreviews`, or undefined while src/host/preview.ts does not exist. */
export async function loadHostPreviews(): Promise<RenderHostPreviews | undefined> {
  const name = "preview";
  try {
    // A glob import: esbuild bundles src/host/*.ts when they exist and builds
    // without them while the host engine is not written yet.
    const m = (await import(`../host/${name}.ts`)) as { renderHostPreviews?: RenderHostPreviews };
    return typeof m.renderHostPreviews === "function" ? m.renderHostPreviews : undefined;
  } catch (e) {
    const msg = String((e as Error)?.message ?? e);
    if (/not found in bundle|Cannot find module|ERR_MODULE_NOT_FOUND|Unknown variable dynamic import|Failed to load url/i.test(msg)) return undefined;
    throw e;
  }
}

/**
 * JSON with 2-space indent, arrays of scalars on one line (enums stay readable); LF; trailing newline.
 * The same text as `JSON.stringify(v, null, 2)` with each all-scalar array folded onto one line,
 * written in one pass (folding the native output with a regex was ~10% of generate at 1,000 packs).
 */
export function json(v: unknown): string {
  return (ser(v, "") ?? "null") + "\n";
}

function ser(value: unknown, indent: string): string | undefined {
  let v = value;
  if (v !== null && typeof v === "object" && typeof (v as { toJSON?: unknown }).toJSON === "function") v = (v as { toJSON: () => unknown }).toJSON();
  switch (typeof v) {
    case "string":
      return JSON.stringify(v);
    case "number":
      return Number.isFinite(v) ? String(v) : "null";
    case "boolean":
      return v ? "true" : "false";
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    case "bigint":
      return JSON.stringify(v); // throws, as JSON.stringify does
  }
  if (v === null) return "null";
  const inner = indent + "  ";
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    const items = v.map((x) => ser(x, inner) ?? "null");
    if (items.every((x) => x[0] !== "[" && x[0] !== "{")) return `[${items.join(", ")}]`;
    return `[\n${inner}${items.join(`,\n${inner}`)}\n${indent}]`;
  }
  const parts: string[] = [];
  for (const k of Object.keys(v as object)) {
    const s = ser((v as Record<string, unknown>)[k], inner);
    if (s !== undefined) parts.push(`${JSON.stringify(k)}: ${s}`);
  }
  return parts.length ? `{\n${inner}${parts.join(`,\n${inner}`)}\n${indent}}` : "{}";
}

/** The files of the generate plan that do not depend on a host: prompt block, tool lists, Skill copies. */
export function projectionFiles(p: Projection): PlannedFile[] {
  const files: PlannedFile[] = [
    { path: "system-prompt.md", content: p.promptBlock },
    { path: "tools/shell.json", content: json([p.shellTool, p.readSkillTool].map(toMcp)) },
    { path: "tools/mcp.json", content: json(p.tools.map(toMcp)) },
    { path: "tools/anthropic.json", content: json(p.tools.map(toAnthropic)) },
    { path: "tools/openai.json", content: json(p.tools.map(toOpenAI)) },
    ...p.skills.map((s) => ({ path: `skills/${s.packId}/SKILL.md`, content: s.content })),
  ];
  return files;
}

const SAFE_PATH_RE = /^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[^\\\0:]+$/;

export async function planGenerate(project: Project, packs: Pack[], opts: PlanOptions = {}): Promise<Plan> {
  const projection = buildProjection(project, packs, opts);
  const files = projectionFiles(projection);
  const hosts = opts.hosts ?? DEFAULT_HOSTS;
  if (hosts.length) {
    const render = await loadHostPreviews();
    if (render) files.push(...(await render(projection, hosts, project, (skillsPath) => withSkillsPath(projection, skillsPath))));
    else if (opts.hosts) {
      throw new HcpxError({ code: "no_host_engine", message: `host previews (${hosts.join(", ")}) are not available in this build: src/host/preview.ts is missing`, hint: "run without --host, or with --host none" });
    }
  }
  const seen = new Set<string>();
  for (const f of files) {
    if (!SAFE_PATH_RE.test(f.path)) throw new HcpxError({ code: "bad_plan_path", message: `planned file '${f.path}' is not a relative path inside the out dir`, hint: "this is a bug in a host descriptor or template" });
    if (seen.has(f.path)) throw new HcpxError({ code: "bad_plan_path", message: `planned file '${f.path}' is produced twice`, hint: "this is a bug in a host descriptor or template" });
    seen.add(f.path);
    if (f.content.includes("\r")) f.content = f.content.replace(/\r\n?/g, "\n");
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files };
}

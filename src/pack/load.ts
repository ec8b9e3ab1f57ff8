// Reading packs and the project config from disk into the model. This module
// is on the `hcpx exec` path: keep it to JSON5 + zod/mini + node builtins.
import { existsSync, readFileSync, statSync } from "node:fs";
import { didYouMean } from "../util/suggest";
import { dirname, join, resolve, basename } from "node:path";
import { HcpxError, type Problem } from "../util/errors";
import { display, home, userConfigDir } from "../util/paths";
import { locate, readJson5 } from "./json5";
import { checkPattern } from "./grants";
import type { ConfigFile } from "./schema";
import { validateDoc } from "./validate";
import type { Command, Pack, Project } from "./model";

export const CONFIG_NAME = "hcp.config.json5";

/** Load one pack directory: surface.json and policy.json (SKILL.md is read by `skill.ts`). */
export function loadPack(dirArg: string): Pack {
  const dir = resolve(dirArg);
  const show = (f: string) => display(join(dir, f));
  let st;
  try {
    st = statSync(dir);
  } catch {
    throw new HcpxError({ code: "not_a_pack", message: "pack directory not found", file: display(dir), hint: "check the path; a pack is a directory with surface.json, policy.json and SKILL.md" });
  }
  if (!st.isDirectory()) throw new HcpxError({ code: "not_a_pack", message: "not a directory", file: display(dir), hint: "a pack is a directory with surface.json, policy.json and SKILL.md" });
  if (!existsSync(join(dir, "surface.json"))) {
    throw new HcpxError({ code: "not_a_pack", message: "no surface.json here, so this is not a pack", file: display(dir), hint: "run `hcpx pack new <id>` to scaffold one" });
  }
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const sdoc = readJson5(join(dir, "surface.json"), show("surface.json"));
  let surface;
  try {
    const v = validateDoc("SurfaceSchema", sdoc);
    surface = v.data;
    warnings.push(...v.warnings);
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    problems.push(...e.problems);
  }
  let policy;
  try {
    const pdoc = readJson5(join(dir, "policy.json"), show("policy.json"));
    const v = validateDoc("PolicySchema", pdoc);
    policy = v.data;
    warnings.push(...v.warnings);
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    problems.push(...e.problems.map((p) => (p.code === "missing_file" ? { ...p, hint: "every pack has a policy.json: { rows: { \"<verb>\": { operation: \"read\" } } }" } : p)));
  }
  if (problems.length || !surface || !policy) throw new HcpxError([...problems.filter((p) => p.severity !== "warning"), ...problems.filter((p) => p.severity === "warning")]);

  const rows = policy.rows;
  const passThrough = surface.pass_through ?? surface.wrap?.pass_through;
  const specs = [...(surface.commands ?? [])];
  const commands: Command[] = specs.map((c) => ({
    verb_key: c.verb_key,
    summary: c.summary,
    description: c.description,
    cli: c.cli,
    ...(c.output !== undefined ? { output: c.output } : {}),
    args: c.args ?? {},
    http: c.http ? { method: c.http.method.toUpperCase(), path: c.http.path } : undefined,
    policy: policyFor(c.verb_key),
  }));
  if (passThrough) {
    for (const sub of passThrough.allowedSubcommands) {
      if (commands.some((c) => c.verb_key === sub)) continue;
      commands.push({ verb_key: sub, summary: `Pass-through: \`${sub}\` with up to ${passThrough.maxArgv} literal arguments`, args: {}, passThrough: { maxArgv: passThrough.maxArgv }, policy: policyFor(sub) });
    }
  }
  function policyFor(verb: string) {
    const row = Object.hasOwn(rows, verb) ? rows[verb] : undefined;
    return {
      operation: row?.operation ?? "read",
      land: row?.land,
      confirm: row?.confirm === true,
      inferred: row?.inferred === true || (row !== undefined && policy!.inferred === true),
      missingRow: row === undefined,
    } as const;
  }
  return {
    id: surface.id,
    dir,
    surfaceFile: join(dir, "surface.json"),
    policyFile: join(dir, "policy.json"),
    skillFile: join(dir, "SKILL.md"),
    surface,
    policyRows: rows,
    policyInferred: policy.inferred === true,
    commands,
    warnings,
  };
}

export interface LoadProjectOptions {
  /** Explicit config file (`--config`), else $HCP_CONFIG, else search upward from cwd. */
  config?: string;
  cwd?: string;
  /** Read the user config (~/.config/hcp/config.json5). Default true. */
  user?: boolean;
  /** Do not fail when no config exists (returns an empty project at cwd). */
  optional?: boolean;
}

export function findProjectConfig(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    const f = join(dir, CONFIG_NAME);
    if (existsSync(f)) return f;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

interface ReadConfig {
  file: string;
  dir: string;
  data: ConfigFile;
  warnings: Problem[];
}

function readConfig(file: string): ReadConfig {
  const doc = readJson5(file, display(file));
  const v = validateDoc("ConfigSchema", doc);
  const bad: Problem[] = [];
  for (const list of ["allow", "deny"] as const) {
    (v.data.grants?.[list] ?? []).forEach((pattern, i) => {
      try {
        checkPattern(pattern, { file: doc.file, path: `grants.${list}[${i}]` });
      } catch (e) {
        if (!(e instanceof HcpxError)) throw e;
        const pos = locate(doc.text, ["grants", list, i]);
        bad.push(...e.problems.map((p) => ({ ...p, line: pos?.line, column: pos?.column })));
      }
    });
  }
  if (bad.length) throw new HcpxError(bad);
  return { file, dir: dirname(file), data: v.data, warnings: v.warnings };
}

export function loadProject(opts: LoadProjectOptions = {}): Project {
  const cwd = resolve(opts.cwd ?? process.cwd());
  const explicit = opts.config ?? process.env.HCP_CONFIG;
  let projectFile: string | undefined;
  if (explicit) {
    projectFile = resolve(cwd, explicit);
    if (!existsSync(projectFile)) throw new HcpxError({ code: "no_config", message: "config file not found", file: display(projectFile), hint: "check --config / HCP_CONFIG, or run `hcpx init`" });
  } else projectFile = findProjectConfig(cwd);
  const userFile = join(userConfigDir(), "config.json5");
  const layers: ReadConfig[] = [];
  const problems: Problem[] = [];
  const tryRead = (f: string) => {
    try {
      layers.push(readConfig(f));
    } catch (e) {
      if (!(e instanceof HcpxError)) throw e;
      problems.push(...e.problems);
    }
  };
  if (opts.user !== false && existsSync(userFile) && userFile !== projectFile) tryRead(userFile);
  if (projectFile) tryRead(projectFile);
  if (problems.length) throw new HcpxError(problems);
  if (!projectFile && !opts.optional && layers.length === 0) {
    throw new HcpxError({ code: "no_config", message: `no ${CONFIG_NAME} in ${display(cwd)} or any parent directory`, hint: "run `hcpx init` to create one" });
  }
  const root = projectFile ? dirname(projectFile) : cwd;
  // Merge: user layer first, the project's over it. Lists are unions; scalars: project wins.
  // Sets keep the first-seen order and make the merge linear in the number of
  // packs (an array's includes() per pack was 0.8 s at 5,000 packs).
  const packDirs = new Set<string>();
  const allow = new Set<string>();
  const deny = new Set<string>();
  const bins: Record<string, string> = {};
  const roots = new Set<string>();
  let sandboxCwd = root;
  let principal: Project["principal"] = { id: process.env.USER || "user", kind: "agent" };
  const warnings: Problem[] = [];
  for (const layer of layers) {
    warnings.push(...layer.warnings);
    const d = layer.data;
    for (const p of d.packs ?? []) {
      const abs = resolve(layer.dir, p.startsWith("~/") ? join(home(), p.slice(2)) : p);
      packDirs.add(abs);
    }
    for (const a of d.grants?.allow ?? []) allow.add(a);
    for (const a of d.grants?.deny ?? []) deny.add(a);
    for (const [name, path] of Object.entries(d.sandbox?.bins ?? {})) bins[name] = resolve(layer.dir, path);
    for (const r of d.sandbox?.roots ?? []) {
      roots.add(resolve(layer.dir, r));
    }
    if (d.sandbox?.cwd) sandboxCwd = resolve(layer.dir, d.sandbox.cwd);
    if (d.principal) principal = { id: d.principal.id, kind: d.principal.kind ?? "agent" };
  }
  if (roots.size === 0) roots.add(root);
  return {
    root,
    configFile: projectFile,
    userConfigFile: layers.some((l) => l.file === userFile) ? userFile : undefined,
    packDirs: [...packDirs],
    principal,
    grants: { allow: [...allow], deny: [...deny] },
    sandbox: { bins, roots: [...roots], cwd: sandboxCwd },
    warnings,
  };
}

/** Load every activated pack; collects every problem before throwing. */
export function loadPacks(project: Project): Pack[] {
  const packs: Pack[] = [];
  const problems: Problem[] = [];
  const seen = new Map<string, string>();
  for (const dir of project.packDirs) {
    try {
      const p = loadPack(dir);
      const prev = seen.get(p.id);
      if (prev) {
        problems.push({ code: "duplicate_pack", message: `pack id '${p.id}' is activated twice (also ${display(prev)})`, file: display(p.surfaceFile), path: "id", hint: "deactivate one of them" });
        continue;
      }
      seen.set(p.id, p.dir);
      packs.push(p);
    } catch (e) {
      if (!(e instanceof HcpxError)) throw e;
      problems.push(...e.problems);
    }
  }
  if (problems.some((p) => p.severity !== "warning")) throw new HcpxError(problems);
  return packs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Pre-read cap for findPack's scan; loadPack reports a larger file properly. */
const SCAN_MAX = 4 << 20;

/** The text of `<dir>/surface.json` when it is a regular file of sane size, else undefined. */
function surfaceText(dir: string): string | undefined {
  const file = join(dir, "surface.json");
  try {
    const st = statSync(file);
    return st.isFile() && st.size <= SCAN_MAX ? readFileSync(file, "utf8") : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Find one activated pack by id, parsing as few surfaces as it can (the exec
 * hot path). A surface.json whose text does not contain the id cannot declare
 * it (ids are `[a-z0-9-]`; only a JSON5 escape could spell one otherwise, so a
 * text with a backslash is parsed too), so only candidates are parsed and
 * validated, wherever the pack's directory is and whatever it is named. Every
 * candidate that declares the id is loaded, so two activated packs with one id
 * are refused here as in loadPacks. A broken pack is reported when its
 * directory is named like the id; other broken packs do not stop this one.
 */
export function findPack(project: Project, id: string): Pack {
  const found: Pack[] = [];
  let namedError: unknown;
  for (const dir of project.packDirs) {
    const named = basename(dir) === id;
    if (!named) {
      const text = surfaceText(dir);
      if (text === undefined || (!text.includes(id) && !text.includes("\\"))) continue;
    }
    let p: Pack;
    try {
      p = loadPack(dir);
    } catch (e) {
      if (named) namedError ??= e;
      continue;
    }
    if (p.id === id) found.push(p);
  }
  if (found.length > 1) {
    throw new HcpxError({ code: "duplicate_pack", message: `pack id '${id}' is activated twice (${found.map((p) => display(p.dir)).join(", ")})`, file: display(found[1]!.surfaceFile), path: "id", hint: "deactivate one of them" });
  }
  if (found[0]) return found[0];
  if (namedError) throw namedError;
  // not found: the ids there are, for "did you mean" (the failure path only)
  const ids = project.packDirs.map((d) => {
    try {
      return loadPack(d).id;
    } catch {
      return basename(d);
    }
  });
  throw new HcpxError({ code: "unknown_pack", message: `no activated pack '${id}'`, hint: `${didYouMean(id, ids)}run \`hcpx status\` to list active packs, or \`hcpx activate <pack-dir>\`` });
}

// Reading packs and the project config from disk into the model. This module
// is on the `hcpx exec` path: keep it to JSON5 + zod/mini + node builtins.
// size: loadPackChecked reads, validates and caches one pack in one pass (82 lines since command inputs' rules and the union check on kind joined it)
import { statSync, type BigIntStats, type Stats } from "node:fs";
import { didYouMean } from "../util/suggest";
import { dirname, join, resolve, basename } from "node:path";
import { HcpxError, pathToString, type ErrorCode, type Problem } from "../util/errors";
import { display, home, joinIn, resolveIn, resolved, userConfigDir } from "../util/paths";
import { locate, parseJson5, readJson5 } from "./json5";
import { CAPS, isThere, readBytes, readTextFile } from "../util/readfile";
import { checkPattern } from "./grants";
import type { ConfigFile, Policy, PolicyRow, SurfaceFile } from "./schema";
import { ADAPTERS, adapterOf, type AdapterEntry, type Surface } from "./adapters/index";
import { readValidated } from "./validate";
import { cachedValue } from "./validcache";
import { undeclaredFor, type Undeclared } from "./undeclared";
import { bindingNamesIn, bindingNamesOf, spellingEscape } from "./binding-names";
import { forbiddenEnvOf } from "./envrules";
import { surfaceTextProblems } from "./hosttext";
import { isCredentialHeader, urlProblem } from "./mcp-remote";
import { holdSecretNames } from "../util/redact";
import { argRuleProblems } from "./arg-rules";
import { refuseUnlistedNested, rootInside } from "./nested";
import {
  CONFIRM_STRICTNESS,
  DEFAULT_CONFIRM_TIMEOUT_MS,
  type Command,
  type ConfirmMode,
  type Pack,
  type Project,
} from "./model";

export const CONFIG_NAME = "hcp.config.json5";

/** Load one pack directory: surface.json and policy.json (SKILL.md is read by `skill.ts`). Throws on any problem. */
export function loadPack(dirArg: string): Pack {
  const { pack, problems } = loadPackChecked(dirArg);
  if (problems.length) throw new HcpxError(problems);
  return pack;
}

/** The pack's directory, absolute; not_a_pack when it is missing, not a directory, or has no surface.json. */
function packDir(dirArg: string): string {
  const dir = resolved(dirArg);
  let st;
  try {
    st = statSync(dir);
  } catch {
    throw new HcpxError({
      code: "not_a_pack",
      message: "pack directory not found",
      file: display(dir),
      hint: "check the path; a pack is a directory with surface.json, policy.json and SKILL.md",
    });
  }
  if (!st.isDirectory())
    throw new HcpxError({
      code: "not_a_pack",
      message: "not a directory",
      file: display(dir),
      hint: "a pack is a directory with surface.json, policy.json and SKILL.md",
    });
  if (!isThere(joinIn(dir, "surface.json"))) {
    throw new HcpxError({
      code: "not_a_pack",
      message: "no surface.json here, so this is not a pack",
      file: display(dir),
      hint: "run `hcpx pack new <id> --wrap <bin>` (or --composite, --sense) to scaffold one",
    });
  }
  return dir;
}

/** surface.json and policy.json, parsed and validated; the problems of both at once (errors before warnings). */
function readPackFiles(dir: string) {
  const show = (f: string) => display(joinIn(dir, f));
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  let surface;
  try {
    const v = readValidated("SurfaceSchema", joinIn(dir, "surface.json"), show("surface.json"), CAPS.pack);
    surface = v.data;
    warnings.push(...v.warnings);
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    problems.push(...e.problems);
  }
  let policy;
  try {
    const v = readValidated("PolicySchema", joinIn(dir, "policy.json"), show("policy.json"), CAPS.pack);
    policy = v.data;
    warnings.push(...v.warnings);
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    problems.push(
      ...e.problems.map((p) =>
        p.code === "missing_file"
          ? { ...p, hint: 'every pack has a policy.json: { rows: { "<verb>": { operation: "read" } } }' }
          : p,
      ),
    );
  }
  if (problems.length || !surface || !policy)
    throw new HcpxError([
      ...problems.filter((p) => p.severity !== "warning"),
      ...problems.filter((p) => p.severity === "warning"),
    ]);

  return { surface, policy, warnings };
}

/**
 * Load a pack whose files parse and validate, and report (not throw) the
 * pack-level rules it breaks (packRuleProblems): `hcpx lint` then runs its
 * other rules over it too. Everything else calls loadPack, which refuses it.
 */
export function loadPackChecked(dirArg: string): { pack: Pack; problems: Problem[] } {
  const dir = packDir(dirArg);
  const { surface, policy, warnings } = readPackFiles(dir);
  const rows = policy.rows;
  const commands = packCommands(surface, policy);
  const pack: Pack = {
    id: surface.id,
    dir,
    surfaceFile: joinIn(dir, "surface.json"),
    policyFile: joinIn(dir, "policy.json"),
    skillFile: joinIn(dir, "SKILL.md"),
    // a member of the union on kind, or packRuleProblems reports it and loadPack refuses the pack
    surface: surface as Surface,
    policyRows: rows,
    policyInferred: policy.inferred === true,
    commands,
    warnings,
  };
  // its Binding values are secrets from now on, at every exit (src/util/redact.ts)
  holdSecretNames(bindingNamesOf(surface));
  return { pack, problems: packRuleProblems(dir, surface, rows, commands) };
}

/** The pack's commands: its surface's, then its pass-through subcommands, each with its Policy row (none: write + confirm). */
function packCommands(surface: SurfaceFile, policy: Policy): Command[] {
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
    http: c.http ? { ...c.http, method: c.http.method.toUpperCase() } : undefined,
    tool: c.tool,
    ...(c.inputs !== undefined ? { inputs: c.inputs } : {}),
    ...(c.prompt !== undefined ? { prompt: c.prompt } : {}),
    policy: policyFor(c.verb_key),
  }));
  if (passThrough) {
    for (const sub of passThrough.allowedSubcommands) {
      if (commands.some((c) => c.verb_key === sub)) continue;
      commands.push({
        verb_key: sub,
        summary: `Pass-through: \`${sub}\` with up to ${passThrough.maxArgv} literal arguments`,
        args: {},
        passThrough: { maxArgv: passThrough.maxArgv },
        policy: policyFor(sub),
      });
    }
  }
  function policyFor(verb: string) {
    const row = Object.hasOwn(rows, verb) ? rows[verb] : undefined;
    return {
      operation: row?.operation ?? "write",
      land: row?.land,
      confirm: row ? row.confirm === true : true,
      inferred: row?.inferred === true || (row !== undefined && policy.inferred === true),
    } as const;
  }
  return commands;
}

/** A problem at a path of a pack file, with its line and column. */
type At = (file: string, path: (string | number)[], code: ErrorCode, message: string, hint: string) => Problem;

/** The surface is one member of the union on kind (./adapters): its kind's section, no other kind's. */
function kindProblems(surface: SurfaceFile, surfaceFile: string, at: At): Problem[] {
  const out: Problem[] = [];
  const own = adapterOf(surface.kind);
  if (own?.section && surface[own.section] === undefined) {
    out.push(
      at(
        surfaceFile,
        ["kind"],
        "kind_missing_config",
        `kind is '${surface.kind}' but there is no '${own.section}' block`,
        own.sectionHint ?? `add ${own.section}: { … }`,
      ),
    );
  }
  for (const other of ADAPTERS as readonly AdapterEntry[]) {
    const key = other.section;
    if (key && surface.kind !== other.kind && surface[key] !== undefined) {
      out.push(
        at(
          surfaceFile,
          [key],
          "kind_config_mismatch",
          `'${key}' is set but kind is '${surface.kind}'`,
          `remove '${key}', or set kind: "${other.kind}"`,
        ),
      );
    }
  }
  return out;
}

/** Every command has exactly one policy row, every row names a command, and no read asks for a confirm. */
function policyRowProblems(
  rows: Record<string, PolicyRow>,
  commands: Command[],
  policyFile: string,
  at: At,
): Problem[] {
  const out: Problem[] = [];
  const verbs = new Set(commands.map((c) => c.verb_key));
  for (const c of commands) {
    if (!Object.hasOwn(rows, c.verb_key)) {
      out.push(
        at(
          policyFile,
          ["rows"],
          "policy_missing_row",
          `no policy row for '${c.verb_key}': a command without a row is refused`,
          `add "${c.verb_key}": { operation: "read" } (or operation: "write" with land and confirm) to rows`,
        ),
      );
    }
  }
  for (const [verb, row] of Object.entries(rows)) {
    // hcpx asks before writes only: a read's confirm would be shown to no one and the read would run unasked
    if (verbs.has(verb) && row.operation === "read" && row.confirm === true)
      out.push(
        at(
          policyFile,
          ["rows", verb, "confirm"],
          "policy_read_confirm",
          `'${verb}' is a read with confirm: true, but hcpx asks before writes only: it would run unasked`,
          `make it a write (operation: "write", land, confirm: true) if it changes anything, or drop confirm`,
        ),
      );
    if (!verbs.has(verb)) {
      out.push(
        at(
          policyFile,
          ["rows", verb],
          "policy_unknown_row",
          `policy row '${verb}' names no command of the pack`,
          `remove the row, or fix its name (commands: ${[...verbs].join(", ") || "none"})`,
        ),
      );
    }
  }
  return out;
}

/**
 * The rules a pack must meet before anything of it runs (src/pack/lint.ts
 * reports the same problems; the runtime refuses the pack, `bad_pack`):
 * the surface is its kind's member of the union on kind (./adapters), every
 * command has exactly one policy row and every row names a command,
 * neither wrap.agent_env nor binding.env names a variable of the
 * forbidden list (src/pack/envrules.ts), and the surface's description and
 * command texts are safe in host files (src/pack/hosttext.ts).
 */
function packRuleProblems(
  dir: string,
  surface: SurfaceFile,
  rows: Record<string, PolicyRow>,
  commands: Command[],
): Problem[] {
  const out: Problem[] = [];
  const surfaceFile = joinIn(dir, "surface.json");
  const policyFile = joinIn(dir, "policy.json");
  const at: At = (file, path, code, message, hint) => {
    const pos = locateIn(file, path);
    return {
      code,
      message,
      file: display(file),
      path: pathToString(path) || undefined,
      line: pos?.line,
      column: pos?.column,
      hint,
      severity: "error",
    };
  };
  out.push(...kindProblems(surface, surfaceFile, at), ...policyRowProblems(rows, commands, policyFile, at));
  // a confirm-gated write's tool takes `confirm` (the flag the model sets once the person agreed): an arg of
  // that name would be the flag's (generate and hcpx mcp refused the pack there; lint passed it)
  for (const c of commands)
    if (rows[c.verb_key]?.confirm === true && Object.hasOwn(c.args, "confirm")) {
      const i = (surface.commands ?? []).findIndex((x) => x.verb_key === c.verb_key);
      out.push(
        at(
          surfaceFile,
          i < 0 ? ["commands"] : ["commands", i, "args", "confirm"],
          "reserved_arg",
          `'${c.verb_key}' is a confirm-gated write with an arg named 'confirm': that name is its tool's confirm flag`,
          "rename the arg (and its {{…}} in cli): on a gated write `confirm` is the flag the model sets once the person agreed",
        ),
      );
    }
  // command inputs (docs/inputs.md) and a prompt's (docs/prompts.md): their rules load only for a pack that declares some
  if (commands.some((c) => c.inputs || c.prompt?.inputs)) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazily run bundled module, like schema-defs
    const rules = require("./input-rules") as typeof import("./input-rules");
    out.push(...rules.inputRuleProblems(commands, surfaceFile, at));
  }
  out.push(...argRuleProblems(commands, adapterOf(surface.kind)?.capabilities.cliArgv === true, surfaceFile, at));
  for (const f of forbiddenEnvOf(surface)) {
    const where = f.path[0] === "wrap" ? "wrap.agent_env" : "binding.env";
    out.push(
      at(
        surfaceFile,
        f.path,
        "env_forbidden",
        `${where} names ${f.name}, a variable that makes a program load other code or find other programs`,
        "remove it: a pack may not set or pass loader, interpreter or search-path variables (README: Security model)",
      ),
    );
  }
  // text that lands in host files and in hcpx mcp's answers: no marker, control or invisible character, no
  // import directive (./hosttext.ts), so mcp and exec refuse what lint and adopt refuse
  out.push(...surfaceTextProblems(surface, surfaceFile));
  if (surface.mcp)
    out.push(
      ...mcpFormProblems(surface.mcp, (path, code, message, hint) =>
        at(surfaceFile, ["mcp", ...path], code, message, hint),
      ),
    );
  return out;
}

/**
 * An mcp pack's server is one of two forms: a stdio program (`bin`) or a
 * remote endpoint (`url`, with `headers`). A remote one's credentials come
 * from the Binding only (src/pack/mcp-remote.ts); no message quotes a value.
 */
function mcpFormProblems(
  m: NonNullable<Surface["mcp"]>,
  at: (path: (string | number)[], code: ErrorCode, message: string, hint: string) => Problem,
): Problem[] {
  const out: Problem[] = [];
  if (m.bin !== undefined && m.url !== undefined)
    out.push(
      at(
        ["url"],
        "mcp_server_form",
        "mcp names both a program (bin) and a URL (url): a pack wraps one server",
        "keep bin (a stdio server) or url (a remote one), not both",
      ),
    );
  else if (m.bin === undefined && m.url === undefined)
    out.push(
      at(
        [],
        "mcp_server_form",
        "mcp names no server: neither bin (a stdio program) nor url (a remote server)",
        'add bin: "…" and args, or url: "https://…" (`hcpx pack from-mcp` writes either)',
      ),
    );
  if (m.url === undefined) {
    for (const k of ["headers"] as const)
      if (m[k] !== undefined)
        out.push(
          at(
            [k],
            "mcp_server_form",
            `mcp.${k} is for a remote server (url); a stdio server gets its settings from agent_env and binding.env`,
            `remove mcp.${k}`,
          ),
        );
  } else {
    const why = urlProblem(m.url);
    if (why)
      out.push(
        at(
          ["url"],
          "mcp_url_invalid",
          `mcp.url ${why}`,
          "give the server's http(s) endpoint; credentials go in mcp.headers as { env: NAME } from the Binding",
        ),
      );
    for (const k of ["args", "agent_env"] as const)
      if (m[k] !== undefined)
        out.push(
          at(
            [k],
            "mcp_server_form",
            `mcp.${k} is for a stdio server (bin); a remote server (url) starts no program`,
            `remove mcp.${k}`,
          ),
        );
  }
  for (const [name, h] of Object.entries(m.headers ?? {})) {
    if (typeof h === "string" && isCredentialHeader(name, h))
      out.push(
        at(
          ["headers", name],
          "header_literal_secret",
          `mcp.headers.${name} is a literal credential in pack text: a pack never holds a secret (the value is not shown here)`,
          `write ${name}: { env: "NAME", scheme: "Bearer" } and list NAME in binding.env; set NAME in hcpx's environment`,
        ),
      );
  }
  return out;
}

/** Where `path` is in `file` (read again: only on a problem). */
function locateIn(file: string, path: (string | number)[]): { line: number; column: number } | undefined {
  try {
    return locate(readTextFile(file, file, CAPS.pack), path);
  } catch {
    return undefined;
  }
}

export interface LoadProjectOptions {
  /** Explicit config file (`--config`), else $HCP_CONFIG, else search upward from cwd. */
  config?: string;
  cwd?: string;
  /**
   * Read the user config (~/.config/hcp/config.json5). Default true (merged under the
   * project's). "fallback": only where there is no project config — what writes or serves
   * a project's files (project-scope adopt, generate) holds the project's packs alone, and the
   * user's packs are served by the user-scope entry. "restrict": the same, for a runtime (the
   * project's MCP entry): where there is a project, the user config's packs, grants and sandbox
   * are left out but what it forbids still holds (its grants.deny, a stricter `confirm`, its
   * sandbox.enforce "os"), as for exec: a repository's config cannot lower the user's setting.
   */
  user?: boolean | "fallback" | "restrict";
  /** Do not fail when no config exists (returns an empty project at cwd). */
  optional?: boolean;
}

export function findProjectConfig(cwd: string): string | undefined {
  let dir = resolved(cwd);
  for (;;) {
    const f = joinIn(dir, CONFIG_NAME);
    // a link that leads nowhere is found too: reading it says what is wrong with it (not "run hcpx init")
    if (isThere(f)) return f;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

interface ReadConfig {
  file: string;
  /** the user's own config (~/.config/hcp/config.json5): trusted to name the sandbox's program and outside roots */
  user?: true;
  /** the user config read under a project's for what it forbids only (LoadProjectOptions.user "restrict") */
  restrictOnly?: true;
  dir: string;
  data: ConfigFile;
  warnings: Problem[];
}

function readConfig(file: string): ReadConfig {
  const v = readValidated("ConfigSchema", file, display(file), CAPS.config);
  const bad: Problem[] = [];
  for (const list of ["allow", "deny"] as const) {
    (v.data.grants?.[list] ?? []).forEach((pattern, i) => {
      try {
        checkPattern(pattern, { file: v.file, path: `grants.${list}[${i}]` });
      } catch (e) {
        if (!(e instanceof HcpxError)) throw e;
        const pos = locate(v.text(), ["grants", list, i]);
        bad.push(...e.problems.map((p) => ({ ...p, line: pos?.line, column: pos?.column })));
      }
    });
  }
  if (bad.length) throw new HcpxError(bad);
  return { file, dir: dirname(file), data: v.data, warnings: v.warnings };
}

export function loadProject(opts: LoadProjectOptions = {}): Project {
  const cwd = resolved(opts.cwd ?? process.cwd());
  const { projectFile, userFile, layers } = readLayers(opts, cwd);
  const root = projectFile ? dirname(projectFile) : cwd;
  return {
    root,
    configFile: projectFile,
    userConfigFile: layers.some((l) => l.file === userFile && !l.restrictOnly) ? userFile : undefined,
    ...mergeLayers(layers, root),
  };
}

/** The config layers that apply: the user's (unless opts say otherwise), then the project's; every one's problems at once. */
function readLayers(
  opts: LoadProjectOptions,
  cwd: string,
): { projectFile: string | undefined; userFile: string; layers: ReadConfig[] } {
  const explicit = opts.config ?? process.env.HCP_CONFIG;
  let projectFile: string | undefined;
  if (explicit) {
    projectFile = resolve(cwd, explicit);
    if (!isThere(projectFile))
      throw new HcpxError({
        code: "no_config",
        message: "config file not found",
        file: display(projectFile),
        hint: "check --config / HCP_CONFIG, or run `hcpx init`",
      });
  } else projectFile = findProjectConfig(cwd);
  const userFile = joinIn(userConfigDir(), "config.json5");
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
  const restrictOnly = opts.user === "restrict" && projectFile !== undefined;
  const withUser = opts.user === "fallback" ? projectFile === undefined : opts.user !== false;
  // a link leading nowhere is read: the reader says why
  if (withUser && isThere(userFile) && userFile !== projectFile) {
    tryRead(userFile);
    if (restrictOnly && layers.length) layers[0] = { ...layers[0]!, restrictOnly: true };
  }
  if (projectFile) tryRead(projectFile);
  for (const l of layers) if (l.file === userFile) l.user = true; // --config naming the user's own config too
  if (problems.length) throw new HcpxError(problems);
  // a project config a confined write could have made is not used (src/pack/nested.ts)
  if (projectFile && projectFile !== userFile)
    refuseUnlistedNested(projectFile, CONFIG_NAME, userSetsOs(layers), readConfig);
  if (!projectFile && !opts.optional && layers.length === 0) {
    throw new HcpxError({
      code: "no_config",
      message: `no ${CONFIG_NAME} in ${display(cwd)} or any parent directory`,
      hint: "run `hcpx init` to create one",
    });
  }
  return { projectFile, userFile, layers };
}

/** Whether the user config (a layer read in full or for what it forbids) turns the OS sandbox on. */
function userSetsOs(layers: ReadConfig[]): boolean {
  return layers.some((l) => l.user && l.data.sandbox?.enforce === "os");
}

/** The layers merged, the user's first and the project's over it. */
function mergeLayers(layers: ReadConfig[], root: string): Omit<Project, "root" | "configFile" | "userConfigFile"> {
  // Merge: user layer first, the project's over it. Lists are unions; scalars: project wins.
  // Sets keep the first-seen order and make the merge linear in the number of
  // packs (an array's includes() per pack was 0.8 s at 5,000 packs).
  const packDirs = new Set<string>();
  const allow = new Set<string>();
  const deny = new Set<string>();
  let principal: Project["principal"] = { id: process.env.USER || "user", kind: "agent" };
  let confirmBy: ConfirmMode | undefined;
  let confirmTimeout = DEFAULT_CONFIRM_TIMEOUT_MS;
  const verbNames = new Map<string, boolean>();
  const warnings: Problem[] = [];
  for (const layer of layers) {
    warnings.push(...layer.warnings);
    const d = layer.data;
    for (const a of d.grants?.deny ?? []) deny.add(a);
    if (d.confirm !== undefined) {
      const c = typeof d.confirm === "string" ? { by: d.confirm, timeout_ms: undefined } : d.confirm;
      // the stricter setting wins: a project config never lowers a user's "person" to "agent", nor the reverse
      if (confirmBy === undefined || CONFIRM_STRICTNESS[c.by] > CONFIRM_STRICTNESS[confirmBy]) confirmBy = c.by;
      if (c.timeout_ms !== undefined && !layer.restrictOnly) confirmTimeout = c.timeout_ms;
    }
    if (layer.restrictOnly) continue; // what the user forbids, above; not what they serve or allow
    for (const p of d.packs ?? []) {
      const abs = resolveIn(layer.dir, p.startsWith("~/") ? join(home(), p.slice(2)) : p);
      packDirs.add(abs);
    }
    for (const a of d.grants?.allow ?? []) allow.add(a);
    if (d.principal) principal = { id: d.principal.id, kind: d.principal.kind ?? "agent" };
    for (const [id, how] of Object.entries(d.mcp?.tool_names ?? {})) verbNames.set(id, how === "verb");
  }
  return {
    packDirs: [...packDirs],
    principal,
    grants: { allow: [...allow], deny: [...deny] },
    sandbox: mergeSandbox(layers, root, warnings),
    confirm: { by: confirmBy ?? "host", timeoutMs: confirmTimeout },
    ...(verbNames.size ? { verbToolNames: [...verbNames].filter(([, v]) => v).map(([k]) => k) } : {}),
    warnings,
  };
}

/**
 * The layers' sandbox settings. enforce "os" from any layer holds (the stricter wins), and a composite is
 * trusted, or a pack may write .git/config, only when every layer that asks "os" lists it. What a
 * repository's config could use to undo the user's "os" it does not decide: the sandbox's own program
 * (sandbox.bins.bwrap) is the user config's, and a write may change only the user config's roots and a
 * project config's inside its own folder.
 */
function mergeSandbox(layers: ReadConfig[], root: string, warnings: Problem[]): Project["sandbox"] {
  const bins: Record<string, string> = {};
  const roots = new Set<string>();
  const writable = new Set<string>();
  let cwd = root;
  const enforcedBy: string[] = [];
  let trusted: Set<string> | undefined;
  let gitWriters: Set<string> | undefined;
  let bwrap: string | undefined;
  const nested: string[] = [];
  for (const layer of layers) {
    const s = layer.data.sandbox;
    if (!s) continue;
    if (s.enforce === "os") {
      enforcedBy.push(layer.file);
      trusted = everyLists(trusted, s.trusted_composites);
      gitWriters = everyLists(gitWriters, s.git_config_writers);
    }
    const named = s.bins && Object.hasOwn(s.bins, "bwrap") ? resolve(layer.dir, s.bins.bwrap!) : undefined;
    if (named !== undefined && layer.user) bwrap = named;
    else if (named !== undefined)
      warnings.push({
        code: "sandbox_setting_ignored",
        severity: "warning",
        message:
          "sandbox.bins.bwrap in a project config is not used: the sandbox's program is named in your user config only",
        file: display(layer.file),
        path: "sandbox.bins.bwrap",
        hint: "move it to ~/.config/hcp/config.json5, or delete it",
      });
    if (layer.restrictOnly) continue;
    if (!layer.user) for (const n of s.nested_projects ?? []) nested.push(joinIn(resolve(layer.dir, n), CONFIG_NAME));
    for (const [name, path] of Object.entries(s.bins ?? {}))
      if (name !== "bwrap") bins[name] = resolve(layer.dir, path);
    for (const r of s.roots ?? []) {
      const abs = resolve(layer.dir, r);
      roots.add(abs);
      // inside its folder after its links: a root that is a link out of the project (`data` -> HOME) is not writable
      if (layer.user || abs === layer.dir || rootInside(abs, layer.dir) !== undefined) writable.add(abs);
    }
    if (s.cwd) cwd = resolve(layer.dir, s.cwd);
  }
  if (roots.size === 0) {
    roots.add(root);
    writable.add(root);
  }
  return {
    bins,
    roots: [...roots],
    writable: [...writable],
    ...(bwrap !== undefined ? { bwrap } : {}),
    cwd,
    enforce: enforcedBy.length ? "os" : "off",
    enforcedBy,
    trustedComposites: [...(trusted ?? [])],
    gitConfigWriters: [...(gitWriters ?? [])],
    ...(nested.length ? { nestedConfigs: nested } : {}),
  };
}

/** What every layer so far lists (`sofar`, undefined before the first) and this one lists too. */
function everyLists(sofar: Set<string> | undefined, listed: string[] | undefined): Set<string> {
  const mine = new Set(listed ?? []);
  return sofar ? new Set([...sofar].filter((t) => mine.has(t))) : mine;
}

export interface BrokenPack {
  /** absolute pack directory */
  dir: string;
  /** the id its surface.json declares, when it could be read */
  id?: string;
  problems: Problem[];
}

export interface LoadedPacks {
  /** the packs that loaded, sorted by id; never two with one id */
  packs: Pack[];
  /** the packs that did not load, and every pack whose id another activated pack also has */
  broken: BrokenPack[];
}

/**
 * The id a pack directory's surface.json declares, without validating it (undefined when unreadable):
 * the validated value when the validation cache has the file as it is, else the file parsed (`bytes`:
 * its bytes, read already).
 */
export function declaredId(dir: string, bytes?: Buffer): string | undefined {
  return idOf(surfaceValue(dir, bytes));
}

/** declaredId's value of `<dir>/surface.json`, not validated (undefined when unreadable). */
function surfaceValue(dir: string, bytes?: Buffer): unknown {
  try {
    const file = joinIn(dir, "surface.json");
    const read = cachedValue("SurfaceSchema", file, CAPS.pack);
    const text = read && !read.hit ? read.text : bytes?.toString("utf8"); // a miss's read, or the caller's
    return read?.hit ? read.value : text !== undefined ? parseJson5(text, file).value : readJson5(file).value;
  } catch {
    return undefined;
  }
}

function idOf(v: unknown): string | undefined {
  const id = v && typeof v === "object" ? (v as { id?: unknown }).id : undefined;
  return typeof id === "string" ? id : undefined;
}

/**
 * False only when a surface.json text certainly does not declare `id`: it has
 * neither the id written out between quotes (`"id"` or `'id'`: a JSON5 string
 * that spells an id of printable ASCII without quotes or backslashes with no
 * escape is exactly that) nor a backslash escape that could spell one of its
 * characters (the only way a JSON5 string spells a character otherwise:
 * \u, \x, an identity escape like \g, a line continuation; \n, \", \\ cannot).
 * Another id: the id itself anywhere in the text. Spares exec parsing every
 * other surface (~5-10 M instructions each, cold), and one that names the id
 * only in a comment or a longer string (calc's: "packs/calc-wrap declares …").
 */
export function mayDeclareText(text: string | Buffer, id: string): boolean {
  const needles = PLAIN_ID.test(id) ? [`"${id}"`, `'${id}'`] : [id];
  if (typeof text === "string") return needles.some((n) => text.includes(n)) || SPELLING_ESCAPE.test(text);
  // The file's bytes, undecoded (decoding the other packs' surfaces was most of what 30 more
  // packs cost exec): for an ASCII id the same answer, since UTF-8 never puts an ASCII byte
  // inside another character, and a byte that does not decode still is not one of the plain
  // escapes (spellingEscape).
  if (!ASCII_ID.test(id)) return mayDeclareText(text.toString("utf8"), id);
  return needles.some((n) => text.indexOf(n, 0, "latin1") !== -1) || spellingEscape(text);
}
const SPELLING_ESCAPE = /\\[^bfnrtv'"\\]/;
const ASCII_ID = /^[\x20-\x7e]+$/;
/** printable ASCII without a quote or a backslash (so ASCII_ID too): a JSON5 string spells such an id, unescaped, only as "id" or 'id' */
const PLAIN_ID = /^[\x20\x21\x23-\x26\x28-\x5b\x5d-\x7e]+$/;

/** The bytes of `<dir>/surface.json` when it is a regular file within the cap (never a blocking read), else undefined; with `opened`, the fstat of the descriptor read. */
function surfaceBytes(dir: string, opened?: { st?: Stats | BigIntStats }): Buffer | undefined {
  try {
    return readBytes(joinIn(dir, "surface.json"), "surface.json", CAPS.pack, opened && { opened });
  } catch {
    return undefined;
  }
}

function duplicateProblem(id: string, dir: string, others: string[]): Problem {
  return {
    code: "duplicate_pack",
    message: `pack id '${id}' is activated more than once (also ${others.map((d) => display(d)).join(", ")}): no command of '${id}' runs`,
    file: display(join(dir, "surface.json")),
    path: "id",
    hint: "pack ids are unique: rename the id of one, or remove one of the two from `packs` in the config (`hcpx deactivate <id>` would remove both)",
    severity: "error",
  };
}

/**
 * Load every activated pack, tolerantly: a pack that does not load is in
 * `broken` with its problems and takes nothing else down; two or more
 * activated packs with one id are all refused (`duplicate_pack`).
 */
export function loadPacksTolerant(project: Pick<Project, "packDirs">): LoadedPacks {
  const loaded: Pack[] = [];
  const broken: BrokenPack[] = [];
  for (const dir of project.packDirs) {
    try {
      loaded.push(loadPack(dir));
    } catch (e) {
      if (!(e instanceof HcpxError)) throw e;
      broken.push({ dir, id: declaredId(dir), problems: e.problems });
    }
  }
  const dirsOf = new Map<string, string[]>();
  for (const x of [
    ...loaded.map((p) => ({ id: p.id, dir: p.dir })),
    ...broken.filter((b) => b.id !== undefined).map((b) => ({ id: b.id!, dir: b.dir })),
  ]) {
    dirsOf.set(x.id, [...(dirsOf.get(x.id) ?? []), x.dir]);
  }
  const packs: Pack[] = [];
  for (const p of loaded) {
    const dirs = dirsOf.get(p.id)!;
    if (dirs.length > 1)
      broken.push({
        dir: p.dir,
        id: p.id,
        problems: [
          duplicateProblem(
            p.id,
            p.dir,
            dirs.filter((d) => d !== p.dir),
          ),
        ],
      });
    else packs.push(p);
  }
  for (const b of broken) {
    const dirs = b.id !== undefined ? dirsOf.get(b.id) : undefined;
    if (dirs && dirs.length > 1 && !b.problems.some((x) => x.code === "duplicate_pack"))
      b.problems.unshift(
        duplicateProblem(
          b.id!,
          b.dir,
          dirs.filter((d) => d !== b.dir),
        ),
      );
  }
  const order = new Map(project.packDirs.map((d, i) => [d, i]));
  broken.sort((a, b) => (order.get(a.dir) ?? 0) - (order.get(b.dir) ?? 0));
  return { packs: packs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)), broken };
}

/** Load every activated pack; collects every problem before throwing (generate, adopt: all or nothing). */
export function loadPacks(project: Project): Pack[] {
  const { packs, broken } = loadPacksTolerant(project);
  const problems = broken.flatMap((b) => b.problems);
  if (problems.some((p) => p.severity !== "warning")) throw new HcpxError(problems);
  return packs;
}

/**
 * Find one activated pack by id, parsing as few surfaces as it can (the exec
 * hot path): only a surface whose text may declare the id (mayDeclareText) is
 * parsed, wherever the pack's directory is and whatever it is named, and only
 * a pack whose surface declares the id (declaredId: parsed, not validated) is
 * loaded and validated. Every pack that declares the id counts, a broken one
 * too, so two activated packs with one id are refused here as in loadPacks. A
 * broken pack is reported when it declares the id (or, unreadable, its
 * directory is named like it); other broken packs do not stop this one.
 * Every other pack's Binding names are held as the found pack's are (mayBe):
 * exec hides every active pack's Binding values, as `hcpx mcp` does.
 */
export function findPack(project: Project, id: string): Pack {
  const found: Pack[] = [];
  const withId: string[] = [];
  let namedError: unknown;
  const dirs = project.packDirs;
  const isNamed = dirs.map((d) => basename(d) === id);
  // what an earlier call learned of the other packs (src/pack/undeclared.ts): which do not declare the
  // id, and the Binding names each reads (every active pack's Binding values are hidden, not only the
  // called one's: src/util/redact.ts); read from one other pack on (it saves that pack's read and parse)
  const undeclared = isNamed.some((named) => !named) ? undeclaredFor(id, dirs) : undefined;
  for (let i = 0; i < dirs.length; i++) {
    const dir = dirs[i]!;
    const named = isNamed[i]!;
    if (!named && !mayBe(dir, i, id, undeclared)) continue;
    let p: Pack;
    try {
      p = loadPack(dir);
    } catch (e) {
      const did = declaredId(dir);
      if (did === id || (did === undefined && named)) {
        namedError ??= e;
        withId.push(dir);
      }
      continue;
    }
    if (p.id === id) {
      found.push(p);
      withId.push(dir);
    }
  }
  undeclared?.save();
  if (withId.length > 1) throw new HcpxError(duplicateProblem(id, withId[0]!, withId.slice(1)));
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
  throw new HcpxError({
    code: "unknown_pack",
    message: `no activated pack '${id}'`,
    hint: `${didYouMean(id, ids)}run \`hcpx status\` to list active packs, or \`hcpx activate <pack-dir>\``,
  });
}

/**
 * Whether packDirs[i] (`dir`), not named like `id`, may be the pack `id`: only when its surface declares
 * the id (parsed, not validated). Its Binding names are held either way (from what an earlier call
 * remembered of it, or from its text): every active pack's Binding values are hidden, not only the
 * called one's (src/util/redact.ts).
 */
function mayBe(dir: string, i: number, id: string, undeclared: Undeclared | undefined): boolean {
  const held = undeclared?.known(i, joinIn(dir, "surface.json"));
  if (held) {
    holdSecretNames(held);
    return false;
  }
  // the descriptor's fstat and the read's time, for the entry (only when there is one to keep them in)
  const opened: { st?: Stats } | undefined = undeclared && {};
  const readAt = undeclared ? Date.now() : 0;
  const bytes = surfaceBytes(dir, opened);
  if (bytes === undefined) return false;
  // remembered only when these bytes alone decide (a text that names the id is read on every call),
  // with its Binding names
  if (!mayDeclareText(bytes, id)) {
    const names = bindingNamesIn(bytes, joinIn(dir, "surface.json"));
    holdSecretNames(names);
    undeclared?.note(i, opened?.st, readAt, names);
    return false;
  }
  undeclared?.note(i, undefined, readAt, []);
  const value = surfaceValue(dir, bytes);
  holdSecretNames(bindingNamesOf(value));
  // A pack that loads has the id its surface declares (the schemas keep the parsed value as it is);
  // one that does not load counts only when it declares the id: either way a surface that declares
  // another id, or none (it does not parse), is not this pack, and loading it (its schemas, its
  // policy) would decide nothing. The first call after install then validates the called pack
  // alone, not every pack whose text names it (calc, whose comment names calc-wrap: ~12 M instructions).
  return idOf(value) === id;
}

// `hcpx lint` as a library: every rule of the seeds (adapter.md, §12.4) and of
// DESIGN.md over one loaded pack, as Problems with a stable code, the file, the
// JSON path and the line. Not on the exec path (it reaches skill.ts → yaml).
import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { HcpxError, pathToString, type Problem } from "../util/errors";
import { display, isInside } from "../util/paths";
import { locate } from "./json5";
import { loadPackChecked } from "./load";
import { toolName, type Pack, type Project } from "./model";
import { loadSkill, parseSkill, readSkillText, type Skill } from "./skill";
import { CAPS, readTextFile } from "../util/readfile";
import { hostTextProblems } from "./hosttext";
import { SECRET_DIRS, SECRET_FILES } from "./secret-paths";
import type { SurfaceFile } from "./schema";
import { adapterOf, kindsWith } from "./adapters/index";

export const TOOL_NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;
/** Keep server + tool ≤ 50 characters (the tightest host); the reference MCP server is named `hcp`. */
export const SERVER_NAME = "hcp";
export const MAX_SERVER_TOOL = 50;
export const MAX_LEAD = 120;
const SKILL_NAME_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const PLACEHOLDER_RE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE_PLACEHOLDER_RE = /^\{\{([A-Za-z_][A-Za-z0-9_-]*)\}\}$/;
/**
 * A claim that the whole pack only reads (docs/pack-format.md#read-only-claims):
 * "Read-only …" at the start, "(read-only)" at the end, "every command is a
 * read", "only reads", "never writes". A claim about one verb
 * ("`query` is read-only") is not one.
 */
export const READ_ONLY_CLAIM_RE = /^\s*(?:[a-z0-9-]+:\s*)?read[- ]only\b|\(read[- ]only\)\s*\.?\s*$|\bevery command is a read\b|\ball (?:commands|verbs) are reads\b|\b(?:it|this pack) (?:only reads|never writes)\b/i;
const READ_ONLY_BODY_RE = /\bevery command is a read\b|\ball (?:commands|verbs) are reads\b/i;
const READ_ONLY_HINT = "say what it does without calling the whole pack read-only; the hot-path table marks each command read or write (docs/pack-format.md#read-only-claims)";

export { LINT_CODES, type LintCode } from "../util/lint-codes";
import type { LintCode } from "../util/lint-codes";

export interface LintOptions {
  /** When linting a project's packs: check bare bins against sandbox.bins. */
  project?: Project;
}

export interface LintResult {
  pack?: Pack;
  problems: Problem[];
}

type Seg = string | number;

function readTextSafe(file: string): string | undefined {
  try {
    return readTextFile(file, file, CAPS.pack);
  } catch {
    return undefined;
  }
}

/** Lint a loaded pack. `skill`: a parsed Skill; undefined → load it here (its load errors become problems); null → skip Skill rules. */
export function lintPack(pack: Pack, skill?: Skill | null, opts: LintOptions = {}): Problem[] {
  const out: Problem[] = [];
  const s: SurfaceFile = pack.surface;
  const surfaceFile = display(pack.surfaceFile);
  const policyFile = display(pack.policyFile);
  const skillFile = display(pack.skillFile);
  const surfaceText = readTextSafe(pack.surfaceFile);
  const policyText = readTextSafe(pack.policyFile);

  const at = (file: "surface" | "policy", segs: Seg[], code: LintCode, severity: "error" | "warning", message: string, hint?: string) => {
    const text = file === "surface" ? surfaceText : policyText;
    const pos = text !== undefined ? locate(text, segs) : undefined;
    out.push({ code, severity, message, hint, file: file === "surface" ? surfaceFile : policyFile, path: pathToString(segs) || undefined, line: pos?.line, column: pos?.column });
  };
  const sk = (line: number | undefined, code: LintCode, severity: "error" | "warning", message: string, hint?: string, path?: string) => {
    out.push({ code, severity, message, hint, file: skillFile, line, path });
  };

  // Load-time warnings first (none today: load problems are errors).
  out.push(...pack.warnings.map((w) => ({ ...w, severity: w.severity ?? ("warning" as const) })));

  const specs = s.commands ?? [];
  const passThrough = s.pass_through ?? s.wrap?.pass_through;
  const ptPath: Seg[] = s.pass_through ? ["pass_through"] : ["wrap", "pass_through"];

  // ---- ids ----
  if (!SKILL_NAME_RE.test(pack.id)) {
    at("surface", ["id"], "pack_id", "error", `pack id '${pack.id}' cannot be a Skill name (no leading, trailing or double hyphen)`, "use lower-case words joined by single hyphens, like `my-pack`");
  }

  // ---- kind and its config: the adapter table (./adapters) ----
  // (a section of another kind, or its own missing: load rules, src/pack/load.ts)
  const entry = adapterOf(s.kind);
  if (s.pass_through !== undefined && !entry?.capabilities.passThrough) {
    at("surface", ["pass_through"], "kind_config_mismatch", "error", `pass_through is for ${kindsWith("passThrough")} packs, but kind is '${s.kind}'`, `remove pass_through, or make the pack a ${kindsWith("passThrough")}`);
  }
  if (s.pass_through !== undefined && s.wrap?.pass_through !== undefined) {
    at("surface", ["pass_through"], "kind_config_mismatch", "error", "pass_through is set twice (top level and in wrap)", "keep one, in wrap");
  }
  entry?.lint({ surface: s, specs, passThrough, ptPath, at: (segs, code, severity, message, hint) => at("surface", segs, code, severity, message, hint) });

  if (!entry?.capabilities.serverTools) {
    specs.forEach((c, i) => {
      if (c.tool !== undefined) at("surface", ["commands", i, "tool"], "tool_not_mcp", "error", `'tool' names a server tool, but this pack is kind '${s.kind}'`, `remove 'tool', or make the pack kind ${kindsWith("serverTools")}`);
      for (const [name, a] of Object.entries(c.args ?? {})) {
        if (a.type === "json" && !entry?.capabilities.jsonArgs) at("surface", ["commands", i, "args", name, "type"], "arg_json_kind", "error", `arg '${name}' of '${c.verb_key}' has type json, which only ${kindsWith("jsonArgs")} packs take`, "use string, integer, number, boolean or enum");
      }
    });
  }

  // ---- files the surface names: inside the pack ----
  const insidePack = (rel: string, segs: Seg[], what: string, mustExist: boolean) => {
    if (isAbsolute(rel) || /^[A-Za-z]:[\\/]/.test(rel)) {
      at("surface", segs, "path_outside_pack", "error", `${what} '${rel}' is absolute; it must be a relative path inside the pack`, `move the file into the pack and write it as ./<file>`);
      return;
    }
    const abs = resolve(pack.dir, rel);
    if (!isInside(abs, pack.dir) || abs === pack.dir) {
      at("surface", segs, "path_outside_pack", "error", `${what} '${rel}' is outside the pack directory`, "a pack never loads code or documents from outside itself; move the file into the pack");
      return;
    }
    if (!existsSync(abs)) {
      if (mustExist) at("surface", segs, "missing_file", "error", `${what} '${rel}' does not exist`, "create it or fix the path (relative to the pack directory)");
      return;
    }
    try {
      if (!isInside(realpathSync(abs), realpathSync(pack.dir))) at("surface", segs, "path_outside_pack", "error", `${what} '${rel}' is a link leading outside the pack`, "copy the file into the pack instead of linking to it");
    } catch {
      /* unreadable: the runtime reports it */
    }
  };
  if (s.composite?.module) insidePack(s.composite.module, ["composite", "module"], "composite.module", true);
  if (s.openapi?.document) insidePack(s.openapi.document, ["openapi", "document"], "openapi.document", true);

  // ---- wrap.bin / mcp.bin ----
  const binKey = entry?.capabilities.binIn;
  const binSpec = binKey ? s[binKey] : undefined;
  if (binKey && binSpec?.bin !== undefined) {
    const bin = binSpec.bin;
    const bare = !bin.includes("/") && !bin.includes("\\");
    if (bare) {
      if (opts.project && !Object.hasOwn(opts.project.sandbox.bins, bin)) {
        at("surface", [binKey, "bin"], "bin_not_in_sandbox", "warning", `bare bin '${bin}' is not in sandbox.bins of ${opts.project.configFile ? display(opts.project.configFile) : "the config"}`, `add sandbox: { bins: { ${JSON.stringify(bin)}: "/absolute/path" } }; a bare name is never looked up on PATH`);
      }
    } else if (!isAbsolute(bin)) {
      if (!existsSync(resolve(pack.dir, bin))) at("surface", [binKey, "bin"], "bin_missing", "warning", `${binKey}.bin '${bin}' does not exist (resolved against the pack directory)`, "fix the path, or build the bin before running the pack");
    } else if (!existsSync(bin)) {
      at("surface", [binKey, "bin"], "bin_missing", "warning", `${binKey}.bin '${bin}' does not exist`, "fix the path");
    }
  }

  // ---- commands: duplicates, args, cli[], tool names ----
  const seenVerb = new Map<string, number>();
  specs.forEach((c, i) => {
    const prev = seenVerb.get(c.verb_key);
    if (prev !== undefined) at("surface", ["commands", i, "verb_key"], "duplicate_verb", "error", `verb_key '${c.verb_key}' is declared twice (also commands[${prev}])`, "each command has its own verb_key");
    else seenVerb.set(c.verb_key, i);
  });
  if (passThrough) {
    const seenSub = new Set<string>();
    passThrough.allowedSubcommands.forEach((sub, i) => {
      if (seenSub.has(sub)) at("surface", [...ptPath, "allowedSubcommands", i], "duplicate_verb", "error", `pass-through subcommand '${sub}' is listed twice`, "list it once");
      else if (seenVerb.has(sub)) at("surface", [...ptPath, "allowedSubcommands", i], "duplicate_verb", "error", `pass-through subcommand '${sub}' is also a named command`, "drop it from allowedSubcommands: the named command replaces it");
      seenSub.add(sub);
    });
  }

  let cliName: { name: string; index: number } | undefined;
  const allArgNames = new Set<string>();
  specs.forEach((c, i) => {
    const args = c.args ?? {};
    if (c.output !== undefined && !entry?.capabilities.readsStdout) at("surface", ["commands", i, "output"], "output_not_wrap", "error", `'${c.verb_key}' sets output, but only a ${kindsWith("readsStdout")} pack reads a program's stdout (kind is '${s.kind}')`, "remove output (see docs/pack-format.md#commands)");
    for (const [name, a] of Object.entries(args)) {
      allArgNames.add(name);
      const ap: Seg[] = ["commands", i, "args", name];
      if (a.type === "enum" && !a.values) at("surface", [...ap, "type"], "enum_no_values", "error", `arg '${name}' of '${c.verb_key}' is an enum without values`, 'add values: ["a", "b"]');
      if (a.type !== "enum" && a.values) at("surface", [...ap, "values"], "values_not_enum", "warning", `arg '${name}' of '${c.verb_key}' has values but type '${a.type}'`, 'set type: "enum", or drop values');
      if (a.required && a.flag) at("surface", [...ap, "flag"], "flag_on_required", "warning", `required arg '${name}' of '${c.verb_key}' is passed by flag`, "a required arg is usually positional: put {{" + name + "}} in cli[] and drop flag");
    }
    const usedInCli = new Set<string>();
    if (c.cli) {
      const first = c.cli[0]!;
      if (first.includes("{{")) at("surface", ["commands", i, "cli", 0], "placeholder_partial", "error", `cli[0] of '${c.verb_key}' must be the CLI name, not a placeholder`, "cli[0] is the pack's CLI name, e.g. the pack id");
      else if (!cliName) cliName = { name: first, index: i };
      else if (first !== cliName.name) at("surface", ["commands", i, "cli", 0], "cli_name_mismatch", "error", `cli[0] of '${c.verb_key}' is '${first}', but commands[${cliName.index}] (${specs[cliName.index]!.verb_key}) uses '${cliName.name}'`, "every command's cli[] starts with the same CLI name, the pack's (the CLI face: docs/pack-format.md#the-four-faces)");
      c.cli.forEach((tok, j) => {
        if (j === 0) return;
        const whole = WHOLE_PLACEHOLDER_RE.exec(tok);
        if (whole) {
          usedInCli.add(whole[1]!);
          if (!Object.hasOwn(args, whole[1]!)) at("surface", ["commands", i, "cli", j], "placeholder_unknown", "error", `{{${whole[1]}}} in cli[] of '${c.verb_key}' names no declared arg`, `declare args.${whole[1]}, or fix the name (declared: ${Object.keys(args).join(", ") || "none"})`);
          return;
        }
        const found = [...tok.matchAll(PLACEHOLDER_RE)];
        if (found.length) {
          for (const f of found) usedInCli.add(f[1]!);
          at("surface", ["commands", i, "cli", j], "placeholder_partial", "error", `'${tok}' in cli[] of '${c.verb_key}': a placeholder must be a whole argv element`, "write the placeholder alone, like \"{{name}}\"; use flag for --name=value style options");
        } else if (tok.includes("{{") || tok.includes("}}")) {
          at("surface", ["commands", i, "cli", j], "placeholder_partial", "error", `'${tok}' in cli[] of '${c.verb_key}' has an unbalanced placeholder`, 'write placeholders as "{{name}}"');
        }
      });
    }
    // Reachability: how does each arg get into the argv?
    if (entry?.capabilities.cliArgv) {
      const viaTemplate = !c.cli && s.wrap?.argv_template ? new Set(s.wrap.argv_template.flatMap((t) => [...t.matchAll(PLACEHOLDER_RE)].map((m) => m[1]!))) : undefined;
      if (!c.cli && !s.wrap?.argv_template) at("surface", ["commands", i], "cli_missing", "warning", `command '${c.verb_key}' has no cli[] and the wrap has no argv_template`, `add cli: ["<cli-name>", "${c.verb_key.split(".").join('", "')}"]`);
      for (const [name, a] of Object.entries(args)) {
        const reached = usedInCli.has(name) || viaTemplate?.has(name) || a.flag !== undefined;
        if (reached) continue;
        if (a.required) at("surface", ["commands", i, "args", name], "required_arg_unused", "error", `required arg '${name}' of '${c.verb_key}' appears nowhere in cli[] and has no flag`, `put "{{${name}}}" in cli[], or give it flag: "--${name}"`);
        else at("surface", ["commands", i, "args", name], "arg_unreachable", "warning", `arg '${name}' of '${c.verb_key}' appears nowhere in cli[] and has no flag, so it never reaches the bin`, `put "{{${name}}}" in cli[], or give it flag: "--${name}"`);
      }
    }
  });

  // argv_template: {{verb}} and declared arg names only.
  (s.wrap?.argv_template ?? []).forEach((tok, j) => {
    const whole = WHOLE_PLACEHOLDER_RE.exec(tok);
    if (whole) {
      if (whole[1] !== "verb" && !allArgNames.has(whole[1]!)) at("surface", ["wrap", "argv_template", j], "argv_template_placeholder", "error", `{{${whole[1]}}} in argv_template is neither {{verb}} nor a declared arg`, "use {{verb}} or the name of an arg");
    } else if (tok.includes("{{") || tok.includes("}}")) {
      at("surface", ["wrap", "argv_template", j], "argv_template_placeholder", "error", `'${tok}' in argv_template: a placeholder must be a whole argv element`, 'write "{{verb}}" or "{{arg}}" alone');
    }
  });

  // Host tool names (§12.4 face 3).
  const seenTool = new Map<string, string>();
  pack.commands.forEach((c) => {
    const i = specs.findIndex((sp) => sp.verb_key === c.verb_key);
    const segs: Seg[] = i >= 0 ? ["commands", i, "verb_key"] : [...ptPath, "allowedSubcommands", passThrough?.allowedSubcommands.indexOf(c.verb_key) ?? 0];
    const name = toolName(pack.id, c.verb_key);
    if (!TOOL_NAME_RE.test(name)) {
      at("surface", segs, "tool_name_invalid", "error", `host tool name '${name}' (${name.length} chars) does not match ^[a-zA-Z0-9_-]{1,64}$`, "shorten the pack id or the verb_key");
    } else if (SERVER_NAME.length + name.length > MAX_SERVER_TOOL) {
      at("surface", segs, "tool_name_long", "warning", `host tool name '${name}' is ${name.length} chars; with the server name '${SERVER_NAME}' that is ${SERVER_NAME.length + name.length} > ${MAX_SERVER_TOOL}, too long for some hosts`, "shorten the pack id or the verb_key: keep server + tool ≤ 50 characters for every host (docs/pack-format.md#the-four-faces)");
    }
    const other = seenTool.get(name);
    if (other !== undefined && other !== c.verb_key) at("surface", segs, "tool_name_collision", "error", `'${c.verb_key}' and '${other}' both become the host tool name '${name}'`, "rename one: dots become underscores in tool names (docs/pack-format.md#the-four-faces)");
    else seenTool.set(name, c.verb_key);
  });

  // ---- policy rows ----
  const verbs = new Set(pack.commands.map((c) => c.verb_key));
  if (pack.policyInferred) at("policy", ["inferred"], "policy_inferred", "warning", "this policy was inferred (inferred: true) and is not yet reviewed", "review each row (operation, land, confirm), then remove `inferred`");
  for (const [verb, row] of Object.entries(pack.policyRows)) {
    const rp: Seg[] = ["rows", verb];
    if (!verbs.has(verb)) continue; // a load error (src/pack/load.ts): the pack did not load
    if (row.operation === "write" && row.land === "external" && row.confirm !== true) at("policy", rp, "external_no_confirm", "warning", `'${verb}' writes where others see it (land: external) without confirm`, "add confirm: true so that it runs only with an explicit confirm (docs/pack-format.md#confirm)");
    if (row.operation === "read" && (row.land !== undefined || row.confirm !== undefined)) at("policy", rp, "policy_read_gated", "warning", `'${verb}' is a read but has ${[row.land !== undefined ? "land" : "", row.confirm !== undefined ? "confirm" : ""].filter(Boolean).join(" and ")}`, "land and confirm apply to writes; drop them, or make it a write (docs/pack-format.md#land)");
    if (row.inferred === true && !pack.policyInferred) at("policy", [...rp, "inferred"], "policy_inferred", "warning", `the row for '${verb}' was inferred and is not yet reviewed`, "review it, then remove `inferred`");
  }

  // ---- reach: what the OS sandbox gives beyond the Policy (docs/sandbox.md) ----
  const reach = pack.surface.reach;
  if (!reach?.network?.length && reach?.network_for !== undefined) at("surface", ["reach", "network_for"], "reach_network_unused", "error", "reach.network_for names calls that get the network, but reach.network declares no endpoint", "list the endpoints the program talks to in reach.network (host:port), or drop network_for (docs/sandbox.md)");
  // only where it matters: linting in a project whose config asks for "os"
  if (opts.project?.sandbox.enforce === "os" && adapterOf(pack.surface.kind)?.capabilities.binIn !== undefined) {
    for (const c of pack.commands) {
      const land = c.policy.operation === "write" ? c.policy.land : undefined;
      if ((land === "remote" || land === "external") && !reach?.network?.length) at("policy", ["rows", c.verb_key], "reach_no_network", "warning", `'${c.verb_key}' lands ${land}, but the pack declares no network (reach.network): under sandbox.enforce "os" it runs without one`, "declare the endpoints its program talks to: reach: { network: [\"host:port\"] } in surface.json (docs/sandbox.md)");
    }
  }
  (reach?.paths ?? []).forEach((p, i) => {
    const rel = p.startsWith("~/") ? p.slice(2).replace(/\/+$/, "") : undefined;
    if (rel === undefined || ![...SECRET_DIRS, ...SECRET_FILES].some((s) => rel === s || rel.startsWith(s + "/"))) at("surface", ["reach", "paths", i], "reach_path_unhidden", "warning", `reach.paths names ${p}, which hcpx does not hide: a confined call reads it without the declaration`, "declare only the hidden paths the program needs (~/.ssh/known_hosts, ~/.config/gh …: docs/sandbox.md lists them)");
  });

  // ---- a pack with writes does not call itself read-only ----
  const writes = pack.commands.filter((c) => c.policy.operation === "write").map((c) => c.verb_key);
  if (writes.length && READ_ONLY_CLAIM_RE.test(s.description)) {
    at("surface", ["description"], "skill_claims_read_only", "error", `the description claims the pack is read-only, but it has writes: ${writes.join(", ")}`, READ_ONLY_HINT);
  }

  // ---- SKILL.md ----
  let sk2: Skill | undefined;
  if (skill === undefined) {
    try {
      sk2 = loadSkill(pack);
    } catch (e) {
      if (!(e instanceof HcpxError)) throw e;
      out.push(...e.problems);
    }
  } else sk2 = skill ?? undefined;
  if (sk2) lintSkill(pack, sk2, sk);
  out.push(...lintHostText(pack, sk2));
  return out;
}

/** host_text_unsafe: pack text that would break the host files it is copied into (./hosttext.ts). */
function lintHostText(pack: Pack, skill: Skill | undefined): Problem[] {
  return hostTextProblems(pack, skill?.text, skill ? { leads: skill.leads, description: String(skill.frontmatter.description) } : undefined);
}

function lintSkill(pack: Pack, skill: Skill, sk: (line: number | undefined, code: LintCode, severity: "error" | "warning", message: string, hint?: string, path?: string) => void) {
  const fmLines = skill.frontmatterText.split(/\r?\n/);
  const fmLine = (key: string) => {
    const i = fmLines.findIndex((l) => l.startsWith(`${key}:`));
    return i >= 0 ? i + 2 : 2;
  };
  if (skill.frontmatter.name !== pack.id) sk(fmLine("name"), "skill_name_mismatch", "error", `Skill name '${skill.frontmatter.name}' is not the pack id '${pack.id}'`, `set name: ${pack.id}`, "name");
  const rawLeads = skill.frontmatter.leads;
  if (skill.leads.length === 0) sk(fmLine("leads"), "skill_no_leads", "warning", "the Skill has no leads (1–3 short lines for the system prompt)", 'add leads: ["<pack>: what it is for, in one line"]', "leads");
  else if (skill.leads.length > 3) sk(fmLine("leads"), "skill_leads_count", "error", `the Skill has ${skill.leads.length} leads; at most 3`, "keep the 1–3 lines that matter most", "leads");
  skill.leads.forEach((l, i) => {
    if (l.length > MAX_LEAD) sk(fmLine("leads"), "skill_lead_long", "warning", `lead ${i + 1} is ${l.length} chars (> ${MAX_LEAD})`, "keep each lead a short line: the system prompt carries every pack's leads", Array.isArray(rawLeads) ? `leads[${i}]` : "leads");
  });

  const writes = pack.commands.filter((c) => c.policy.operation === "write").map((c) => c.verb_key);
  if (writes.length) {
    if (READ_ONLY_CLAIM_RE.test(String(skill.frontmatter.description))) sk(fmLine("description"), "skill_claims_read_only", "error", `the Skill description claims the pack is read-only, but it has writes: ${writes.join(", ")}`, READ_ONLY_HINT, "description");
    skill.leads.forEach((l, i) => {
      if (READ_ONLY_CLAIM_RE.test(l)) sk(fmLine("leads"), "skill_claims_read_only", "error", `lead ${i + 1} claims the pack is read-only, but it has writes: ${writes.join(", ")}`, READ_ONLY_HINT, Array.isArray(rawLeads) ? `leads[${i}]` : "leads");
    });
    const lines = skill.body.split(/\r?\n/);
    lines.forEach((l, i) => {
      if (READ_ONLY_BODY_RE.test(l)) sk(skill.bodyLine + i, "skill_claims_read_only", "error", `the Skill says every command is a read, but the pack has writes: ${writes.join(", ")}`, READ_ONLY_HINT);
    });
  }

  const byVerb = new Map<string, (typeof skill.rows)[number]>();
  for (const row of skill.rows) {
    const cmd = pack.commands.find((c) => c.verb_key === row.verb);
    if (!cmd) {
      sk(row.line, "skill_row_unknown", "error", `hot-path row '${row.verb}' names no command of the pack`, `remove the row or fix the verb (commands: ${pack.commands.map((c) => c.verb_key).join(", ") || "none"})`);
      continue;
    }
    if (byVerb.has(row.verb)) {
      sk(row.line, "skill_row_duplicate", "error", `hot-path row '${row.verb}' appears twice (also line ${byVerb.get(row.verb)!.line})`, "keep one row per command");
      continue;
    }
    byVerb.set(row.verb, row);
    const want = cmd.policy.operation;
    const sync = `or run \`hcpx pack sync ${display(pack.dir)}\` (the Skill's read/write cells from policy.json)`;
    if (!row.operation) sk(row.line, "skill_row_operation", "error", `hot-path row '${row.verb}' has no read/write cell`, `end the row with | ${want}${cmd.policy.confirm ? ", confirm" : ""} |`);
    else if (row.operation !== want) sk(row.line, "skill_row_operation", "error", `hot-path row '${row.verb}' says ${row.operation}, policy.json says ${want}`, `make the Skill row say ${want} (policy.json is the source of truth), ${sync}`);
    if (want === "write" && cmd.policy.confirm && !row.confirm) sk(row.line, "skill_confirm_missing", "error", `'${row.verb}' needs confirm but its hot-path row has no confirm marker`, `write | write, confirm | in its read/write cell, ${sync}`);
    if (row.confirm && !cmd.policy.confirm) sk(row.line, "skill_confirm_extra", "warning", `hot-path row '${row.verb}' is marked confirm but policy.json does not require confirm`, `drop the marker, or add confirm: true to its policy row; ${sync}`);
  }
  const lastLine = skill.bodyLine + skill.body.split(/\r?\n/).length - 1;
  for (const c of pack.commands) {
    if (!byVerb.has(c.verb_key) && !skill.rows.some((r) => r.verb === c.verb_key)) {
      sk(skill.rows.length ? skill.rows[skill.rows.length - 1]!.line : lastLine, "skill_row_missing", "error", `the hot-path table has no row for '${c.verb_key}'`, `add | \`${c.verb_key}\` | ${c.summary} | ${c.policy.operation}${c.policy.confirm ? ", confirm" : ""} | (each command has a Skill row: docs/pack-format.md#the-four-faces)`);
    }
  }
}

/** Load and lint one pack directory; load errors become problems. */
export function lintPackDir(dir: string, opts: LintOptions = {}): LintResult {
  let pack: Pack;
  let ruleProblems: Problem[];
  try {
    ({ pack, problems: ruleProblems } = loadPackChecked(dir));
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    const problems = [...e.problems];
    // SKILL.md problems are still worth reporting when surface/policy fail.
    if (!problems.some((p) => p.code === "not_a_pack")) {
      const file = resolve(dir, "SKILL.md");
      try {
        parseSkill(readSkillText(file), display(file));
      } catch (e2) {
        if (e2 instanceof HcpxError) problems.push(...e2.problems);
        else throw e2;
      }
    }
    return { problems: sortProblems(problems) };
  }
  // A pack that breaks a load rule (policy rows, env names) gets every other rule checked
  // too; the runtime refuses it (loadPack).
  return { pack, problems: sortProblems([...ruleProblems, ...lintPack(pack, undefined, opts)]) };
}

const FILE_ORDER = (f: string | undefined) => (f?.endsWith("surface.json") ? 0 : f?.endsWith("policy.json") ? 1 : f?.endsWith("SKILL.md") ? 2 : 3);

/** Errors first, then by file (surface, policy, SKILL.md) and line. */
export function sortProblems(ps: Problem[]): Problem[] {
  return ps
    .map((p, i) => ({ p: { ...p, severity: p.severity ?? ("error" as const) }, i }))
    .sort((a, b) => {
      const sa = a.p.severity === "warning" ? 1 : 0;
      const sb = b.p.severity === "warning" ? 1 : 0;
      return sa - sb || FILE_ORDER(a.p.file) - FILE_ORDER(b.p.file) || (a.p.line ?? 0) - (b.p.line ?? 0) || a.i - b.i;
    })
    .map((x) => x.p);
}

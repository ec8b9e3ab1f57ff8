// hcpx lint's rules as a table: each entry is the codes it reports and its
// check, which returns its findings. lintPack (./lint.ts) runs them in this
// order; a kind's own rules are its adapter entry's `lint` (./adapters/*),
// run at the "kind" step. A new rule is one entry; a new kind touches none.
import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { Problem } from "../util/errors";
import { display, isInside } from "../util/paths";
import { toolName, type Pack } from "./model";
import { hostTextProblems } from "./hosttext";
import { SECRET_DIRS, SECRET_FILES } from "./secret-paths";
import { ADAPTERS, kindsWith } from "./adapters/index";
import type { PackFileRef } from "./adapters/types";
import { COMMAND_RULES, WHOLE_PLACEHOLDER_RE } from "./lint-commands";
import { READ_ONLY_CLAIM_RE, READ_ONLY_HINT, SKILL_RULES } from "./lint-skill";
import type { LintContext, PackLintRule, Seg } from "./lint-context";

export const TOOL_NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;
/** Keep server + tool ≤ 50 characters (the tightest host); the reference MCP server is named `hcp`. */
export const SERVER_NAME = "hcp";
export const MAX_SERVER_TOOL = 50;
const SKILL_NAME_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

const codesOf = (r: { code: PackLintRule["code"] }) => (typeof r.code === "string" ? [r.code] : r.code);

/** A file a kind's section names: a relative path inside the pack, there, and not a link leading out. */
function insidePack({ rel, segs, what }: PackFileRef, { pack, at }: LintContext): Problem[] {
  if (isAbsolute(rel) || /^[A-Za-z]:[\\/]/.test(rel)) {
    return [at(segs, "path_outside_pack", "error", `${what} '${rel}' is absolute; it must be a relative path inside the pack`, `move the file into the pack and write it as ./<file>`)];
  }
  const abs = resolve(pack.dir, rel);
  if (!isInside(abs, pack.dir) || abs === pack.dir) {
    return [at(segs, "path_outside_pack", "error", `${what} '${rel}' is outside the pack directory`, "a pack never loads code or documents from outside itself; move the file into the pack")];
  }
  if (!existsSync(abs)) return [at(segs, "missing_file", "error", `${what} '${rel}' does not exist`, "create it or fix the path (relative to the pack directory)")];
  try {
    if (!isInside(realpathSync(abs), realpathSync(pack.dir))) return [at(segs, "path_outside_pack", "error", `${what} '${rel}' is a link leading outside the pack`, "copy the file into the pack instead of linking to it")];
  } catch {
    /* unreadable: the runtime reports it */
  }
  return [];
}

/** wrap.bin / mcp.bin (the kind's `binIn`): a bare name is in sandbox.bins, a path exists. */
function binExists({ surface: s, pack, entry, opts, at }: LintContext): Problem[] {
  const binKey = entry?.capabilities.binIn;
  const bin = binKey ? s[binKey]?.bin : undefined;
  if (!binKey || bin === undefined) return [];
  const bare = !bin.includes("/") && !bin.includes("\\");
  if (bare) {
    if (!opts.project || Object.hasOwn(opts.project.sandbox.bins, bin)) return [];
    return [at([binKey, "bin"], "bin_not_in_sandbox", "warning", `bare bin '${bin}' is not in sandbox.bins of ${opts.project.configFile ? display(opts.project.configFile) : "the config"}`, `add sandbox: { bins: { ${JSON.stringify(bin)}: "/absolute/path" } }; a bare name is never looked up on PATH`)];
  }
  if (!isAbsolute(bin)) {
    return existsSync(resolve(pack.dir, bin)) ? [] : [at([binKey, "bin"], "bin_missing", "warning", `${binKey}.bin '${bin}' does not exist (resolved against the pack directory)`, "fix the path, or build the bin before running the pack")];
  }
  return existsSync(bin) ? [] : [at([binKey, "bin"], "bin_missing", "warning", `${binKey}.bin '${bin}' does not exist`, "fix the path")];
}

/** A verb_key declared twice, and pass-through subcommands listed twice or also named commands. */
function duplicateVerbs({ specs, passThrough, ptPath, at }: LintContext): Problem[] {
  const out: Problem[] = [];
  const seenVerb = new Map<string, number>();
  specs.forEach((c, i) => {
    const prev = seenVerb.get(c.verb_key);
    if (prev !== undefined) out.push(at(["commands", i, "verb_key"], "duplicate_verb", "error", `verb_key '${c.verb_key}' is declared twice (also commands[${prev}])`, "each command has its own verb_key"));
    else seenVerb.set(c.verb_key, i);
  });
  const seenSub = new Set<string>();
  (passThrough?.allowedSubcommands ?? []).forEach((sub, i) => {
    if (seenSub.has(sub)) out.push(at([...ptPath, "allowedSubcommands", i], "duplicate_verb", "error", `pass-through subcommand '${sub}' is listed twice`, "list it once"));
    else if (seenVerb.has(sub)) out.push(at([...ptPath, "allowedSubcommands", i], "duplicate_verb", "error", `pass-through subcommand '${sub}' is also a named command`, "drop it from allowedSubcommands: the named command replaces it"));
    seenSub.add(sub);
  });
  return out;
}

/** argv_template: {{verb}} and declared arg names only, each a whole element. */
function argvTemplate({ surface: s, specs, at }: LintContext): Problem[] {
  const allArgNames = new Set(specs.flatMap((c) => Object.keys(c.args ?? {})));
  return (s.wrap?.argv_template ?? []).flatMap((tok, j) => {
    const whole = WHOLE_PLACEHOLDER_RE.exec(tok);
    if (whole) return whole[1] !== "verb" && !allArgNames.has(whole[1]!) ? [at(["wrap", "argv_template", j], "argv_template_placeholder", "error", `{{${whole[1]}}} in argv_template is neither {{verb}} nor a declared arg`, "use {{verb}} or the name of an arg")] : [];
    if (tok.includes("{{") || tok.includes("}}")) return [at(["wrap", "argv_template", j], "argv_template_placeholder", "error", `'${tok}' in argv_template: a placeholder must be a whole argv element`, 'write "{{verb}}" or "{{arg}}" alone')];
    return [];
  });
}

/** Host tool names (§12.4 face 3): valid, short enough with the server name, and one per command. */
function toolNames(pack: Pack, { specs, passThrough, ptPath, at }: LintContext): Problem[] {
  const out: Problem[] = [];
  const seenTool = new Map<string, string>();
  pack.commands.forEach((c) => {
    const i = specs.findIndex((sp) => sp.verb_key === c.verb_key);
    const segs: Seg[] = i >= 0 ? ["commands", i, "verb_key"] : [...ptPath, "allowedSubcommands", passThrough?.allowedSubcommands.indexOf(c.verb_key) ?? 0];
    const name = toolName(pack.id, c.verb_key);
    if (!TOOL_NAME_RE.test(name)) {
      out.push(at(segs, "tool_name_invalid", "error", `host tool name '${name}' (${name.length} chars) does not match ^[a-zA-Z0-9_-]{1,64}$`, "shorten the pack id or the verb_key"));
    } else if (SERVER_NAME.length + name.length > MAX_SERVER_TOOL) {
      out.push(at(segs, "tool_name_long", "warning", `host tool name '${name}' is ${name.length} chars; with the server name '${SERVER_NAME}' that is ${SERVER_NAME.length + name.length} > ${MAX_SERVER_TOOL}, too long for some hosts`, "shorten the pack id or the verb_key: keep server + tool ≤ 50 characters for every host (docs/pack-format.md#the-four-faces)"));
    }
    const other = seenTool.get(name);
    if (other !== undefined && other !== c.verb_key) out.push(at(segs, "tool_name_collision", "error", `'${c.verb_key}' and '${other}' both become the host tool name '${name}'`, "rename one: dots become underscores in tool names (docs/pack-format.md#the-four-faces)"));
    else seenTool.set(name, c.verb_key);
  });
  return out;
}

/** Policy rows: a reviewed policy, external writes confirmed, reads without land/confirm. */
function policyRows(pack: Pack, { inPolicy }: LintContext): Problem[] {
  const out: Problem[] = [];
  const verbs = new Set(pack.commands.map((c) => c.verb_key));
  if (pack.policyInferred) out.push(inPolicy(["inferred"], "policy_inferred", "warning", "this policy was inferred (inferred: true) and is not yet reviewed", "review each row (operation, land, confirm), then remove `inferred`"));
  for (const [verb, row] of Object.entries(pack.policyRows)) {
    const rp: Seg[] = ["rows", verb];
    if (!verbs.has(verb)) continue; // a load error (src/pack/load.ts): the pack did not load
    if (row.operation === "write" && row.land === "external" && row.confirm !== true) out.push(inPolicy(rp, "external_no_confirm", "warning", `'${verb}' writes where others see it (land: external) without confirm`, "add confirm: true so that it runs only with an explicit confirm (docs/pack-format.md#confirm)"));
    if (row.operation === "read" && (row.land !== undefined || row.confirm !== undefined)) out.push(inPolicy(rp, "policy_read_gated", "warning", `'${verb}' is a read but has ${[row.land !== undefined ? "land" : "", row.confirm !== undefined ? "confirm" : ""].filter(Boolean).join(" and ")}`, "land and confirm apply to writes; drop them, or make it a write (docs/pack-format.md#land)"));
    if (row.inferred === true && !pack.policyInferred) out.push(inPolicy([...rp, "inferred"], "policy_inferred", "warning", `the row for '${verb}' was inferred and is not yet reviewed`, "review it, then remove `inferred`"));
  }
  return out;
}

/** Reach: what the OS sandbox gives beyond the Policy (docs/sandbox.md). */
function reachRules(pack: Pack, { entry, opts, at, inPolicy }: LintContext): Problem[] {
  const out: Problem[] = [];
  const reach = pack.surface.reach;
  if (!reach?.network?.length && reach?.network_for !== undefined) out.push(at(["reach", "network_for"], "reach_network_unused", "error", "reach.network_for names calls that get the network, but reach.network declares no endpoint", "list the endpoints the program talks to in reach.network (host:port), or drop network_for (docs/sandbox.md)"));
  // only where it matters: linting in a project whose config asks for "os"
  if (opts.project?.sandbox.enforce === "os" && entry?.capabilities.binIn !== undefined) {
    for (const c of pack.commands) {
      const land = c.policy.operation === "write" ? c.policy.land : undefined;
      if ((land === "remote" || land === "external") && !reach?.network?.length) out.push(inPolicy(["rows", c.verb_key], "reach_no_network", "warning", `'${c.verb_key}' lands ${land}, but the pack declares no network (reach.network): under sandbox.enforce "os" it runs without one`, "declare the endpoints its program talks to: reach: { network: [\"host:port\"] } in surface.json (docs/sandbox.md)"));
    }
  }
  (reach?.paths ?? []).forEach((p, i) => {
    const rel = p.startsWith("~/") ? p.slice(2).replace(/\/+$/, "") : undefined;
    if (rel === undefined || ![...SECRET_DIRS, ...SECRET_FILES].some((s) => rel === s || rel.startsWith(s + "/"))) out.push(at(["reach", "paths", i], "reach_path_unhidden", "warning", `reach.paths names ${p}, which hcpx does not hide: a confined call reads it without the declaration`, "declare only the hidden paths the program needs (~/.ssh/known_hosts, ~/.config/gh …: docs/sandbox.md lists them)"));
  });
  return out;
}

/** The rules every kind shares, in the order lintPack runs them. */
export const LINT_RULES: readonly PackLintRule[] = [
  {
    code: "pack_id",
    check: (pack, { at }) => (SKILL_NAME_RE.test(pack.id) ? [] : [at(["id"], "pack_id", "error", `pack id '${pack.id}' cannot be a Skill name (no leading, trailing or double hyphen)`, "use lower-case words joined by single hyphens, like `my-pack`")]),
  },
  {
    // a section of another kind, or its own missing: load rules (src/pack/load.ts)
    code: "kind_config_mismatch",
    check: (_pack, { surface: s, entry, at }) => [
      ...(s.pass_through !== undefined && !entry?.capabilities.passThrough ? [at(["pass_through"], "kind_config_mismatch", "error", `pass_through is for ${kindsWith("passThrough")} packs, but kind is '${s.kind}'`, `remove pass_through, or make the pack a ${kindsWith("passThrough")}`)] : []),
      ...(s.pass_through !== undefined && s.wrap?.pass_through !== undefined ? [at(["pass_through"], "kind_config_mismatch", "error", "pass_through is set twice (top level and in wrap)", "keep one, in wrap")] : []),
    ],
  },
  {
    // the kind's own rules: its entry of the adapter table
    code: [...new Set(ADAPTERS.flatMap((a) => a.lint.flatMap(codesOf)))],
    check: (_pack, ctx) => (ctx.entry?.lint ?? []).flatMap((r) => r.check(ctx.surface, ctx)),
  },
  {
    code: ["tool_not_mcp", "arg_json_kind"],
    check: (_pack, { surface: s, specs, entry, at }) =>
      entry?.capabilities.serverTools
        ? []
        : specs.flatMap((c, i) => [
            ...(c.tool !== undefined ? [at(["commands", i, "tool"], "tool_not_mcp", "error", `'tool' names a server tool, but this pack is kind '${s.kind}'`, `remove 'tool', or make the pack kind ${kindsWith("serverTools")}`)] : []),
            ...Object.entries(c.args ?? {}).flatMap(([name, a]) => (a.type === "json" && !entry?.capabilities.jsonArgs ? [at(["commands", i, "args", name, "type"], "arg_json_kind", "error", `arg '${name}' of '${c.verb_key}' has type json, which only ${kindsWith("jsonArgs")} packs take`, "use string, integer, number, boolean or enum")] : [])),
          ]),
  },
  {
    // the files every entry's section names (a section another kind set is checked too)
    code: ["path_outside_pack", "missing_file"],
    check: (_pack, ctx) => ADAPTERS.flatMap((a) => ("packFiles" in a ? a.packFiles(ctx.surface) : [])).flatMap((f) => insidePack(f, ctx)),
  },
  { code: ["bin_not_in_sandbox", "bin_missing"], check: (_pack, ctx) => binExists(ctx) },
  { code: "duplicate_verb", check: (_pack, ctx) => duplicateVerbs(ctx) },
  {
    code: [...new Set(COMMAND_RULES.flatMap(codesOf))],
    check: (_pack, ctx) => ctx.specs.flatMap((c, i) => COMMAND_RULES.flatMap((r) => r.check(c, i, ctx))),
  },
  { code: "argv_template_placeholder", check: (_pack, ctx) => argvTemplate(ctx) },
  { code: ["tool_name_invalid", "tool_name_long", "tool_name_collision"], check: toolNames },
  { code: ["policy_inferred", "external_no_confirm", "policy_read_gated"], check: policyRows },
  { code: ["reach_network_unused", "reach_no_network", "reach_path_unhidden"], check: reachRules },
  {
    // a pack with writes does not call itself read-only
    code: "skill_claims_read_only",
    check: (pack, { surface: s, at }) => {
      const writes = pack.commands.filter((c) => c.policy.operation === "write").map((c) => c.verb_key);
      return writes.length && READ_ONLY_CLAIM_RE.test(s.description) ? [at(["description"], "skill_claims_read_only", "error", `the description claims the pack is read-only, but it has writes: ${writes.join(", ")}`, READ_ONLY_HINT)] : [];
    },
  },
  // SKILL.md: its load errors (codes of ./skill.ts), then its rules (./lint-skill.ts)
  { code: [], check: (_pack, ctx) => ctx.skill().problems },
  ...SKILL_RULES,
  {
    // pack text that would break the host files it is copied into (./hosttext.ts)
    code: "host_text_unsafe",
    check: (pack, ctx) => {
      const { skill } = ctx.skill();
      return hostTextProblems(pack, skill?.text, skill ? { leads: skill.leads, description: String(skill.frontmatter.description) } : undefined);
    },
  },
];

// The checks of the rules every kind shares that read the surface (entries of
// the table in ./lint-rules.ts): the files a kind's section names, its bin,
// duplicate verbs, argv_template, host tool names.
import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { Problem } from "../util/errors";
import { display, isInside } from "../util/paths";
import { toolName, type Pack } from "./model";
import type { PackFileRef } from "./adapters/types";
import { WHOLE_PLACEHOLDER_RE } from "./lint-commands";
import type { LintContext, Seg } from "./lint-context";

export const TOOL_NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;
/** Keep server + tool ≤ 50 characters (the tightest host); the reference MCP server is named `hcp`. */
export const SERVER_NAME = "hcp";
export const MAX_SERVER_TOOL = 50;

/** A file a kind's section names: a relative path inside the pack, there, and not a link leading out. */
export function insidePack({ rel, segs, what }: PackFileRef, { pack, at }: LintContext): Problem[] {
  if (isAbsolute(rel) || /^[A-Za-z]:[\\/]/.test(rel)) {
    return [
      at(
        segs,
        "path_outside_pack",
        "error",
        `${what} '${rel}' is absolute; it must be a relative path inside the pack`,
        `move the file into the pack and write it as ./<file>`,
      ),
    ];
  }
  const abs = resolve(pack.dir, rel);
  if (!isInside(abs, pack.dir) || abs === pack.dir) {
    return [
      at(
        segs,
        "path_outside_pack",
        "error",
        `${what} '${rel}' is outside the pack directory`,
        "a pack never loads code or documents from outside itself; move the file into the pack",
      ),
    ];
  }
  if (!existsSync(abs))
    return [
      at(
        segs,
        "missing_file",
        "error",
        `${what} '${rel}' does not exist`,
        "create it or fix the path (relative to the pack directory)",
      ),
    ];
  try {
    if (!isInside(realpathSync(abs), realpathSync(pack.dir)))
      return [
        at(
          segs,
          "path_outside_pack",
          "error",
          `${what} '${rel}' is a link leading outside the pack`,
          "copy the file into the pack instead of linking to it",
        ),
      ];
  } catch {
    /* unreadable: the runtime reports it */
  }
  return [];
}

/** wrap.bin / mcp.bin (the kind's `binIn`): a bare name is in sandbox.bins, a path exists. */
export function binExists({ surface: s, pack, entry, opts, at }: LintContext): Problem[] {
  const binKey = entry?.capabilities.binIn;
  const bin = binKey ? s[binKey]?.bin : undefined;
  if (!binKey || bin === undefined) return [];
  const bare = !bin.includes("/") && !bin.includes("\\");
  if (bare) {
    if (!opts.project || Object.hasOwn(opts.project.sandbox.bins, bin)) return [];
    return [
      at(
        [binKey, "bin"],
        "bin_not_in_sandbox",
        "warning",
        `bare bin '${bin}' is not in sandbox.bins of ${opts.project.configFile ? display(opts.project.configFile) : "the config"}`,
        `add sandbox: { bins: { ${JSON.stringify(bin)}: "/absolute/path" } }; a bare name is never looked up on PATH`,
      ),
    ];
  }
  if (!isAbsolute(bin)) {
    return existsSync(resolve(pack.dir, bin))
      ? []
      : [
          at(
            [binKey, "bin"],
            "bin_missing",
            "warning",
            `${binKey}.bin '${bin}' does not exist (resolved against the pack directory)`,
            "fix the path, or build the bin before running the pack",
          ),
        ];
  }
  return existsSync(bin)
    ? []
    : [at([binKey, "bin"], "bin_missing", "warning", `${binKey}.bin '${bin}' does not exist`, "fix the path")];
}

/** A verb_key declared twice, and pass-through subcommands listed twice or also named commands. */
export function duplicateVerbs({ specs, passThrough, ptPath, at }: LintContext): Problem[] {
  const out: Problem[] = [];
  const seenVerb = new Map<string, number>();
  specs.forEach((c, i) => {
    const prev = seenVerb.get(c.verb_key);
    if (prev !== undefined)
      out.push(
        at(
          ["commands", i, "verb_key"],
          "duplicate_verb",
          "error",
          `verb_key '${c.verb_key}' is declared twice (also commands[${prev}])`,
          "each command has its own verb_key",
        ),
      );
    else seenVerb.set(c.verb_key, i);
  });
  const seenSub = new Set<string>();
  (passThrough?.allowedSubcommands ?? []).forEach((sub, i) => {
    if (seenSub.has(sub))
      out.push(
        at(
          [...ptPath, "allowedSubcommands", i],
          "duplicate_verb",
          "error",
          `pass-through subcommand '${sub}' is listed twice`,
          "list it once",
        ),
      );
    else if (seenVerb.has(sub))
      out.push(
        at(
          [...ptPath, "allowedSubcommands", i],
          "duplicate_verb",
          "error",
          `pass-through subcommand '${sub}' is also a named command`,
          "drop it from allowedSubcommands: the named command replaces it",
        ),
      );
    seenSub.add(sub);
  });
  return out;
}

/** argv_template: {{verb}} and declared arg names only, each a whole element. */
export function argvTemplate({ surface: s, specs, at }: LintContext): Problem[] {
  const allArgNames = new Set(specs.flatMap((c) => Object.keys(c.args ?? {})));
  return (s.wrap?.argv_template ?? []).flatMap((tok, j) => {
    const whole = WHOLE_PLACEHOLDER_RE.exec(tok);
    if (whole)
      return whole[1] !== "verb" && !allArgNames.has(whole[1]!)
        ? [
            at(
              ["wrap", "argv_template", j],
              "argv_template_placeholder",
              "error",
              `{{${whole[1]}}} in argv_template is neither {{verb}} nor a declared arg`,
              "use {{verb}} or the name of an arg",
            ),
          ]
        : [];
    if (tok.includes("{{") || tok.includes("}}"))
      return [
        at(
          ["wrap", "argv_template", j],
          "argv_template_placeholder",
          "error",
          `'${tok}' in argv_template: a placeholder must be a whole argv element`,
          'write "{{verb}}" or "{{arg}}" alone',
        ),
      ];
    return [];
  });
}

/** Host tool names (§12.4 face 3): valid, short enough with the server name, and one per command. */
export function toolNames(pack: Pack, { specs, passThrough, ptPath, at }: LintContext): Problem[] {
  const out: Problem[] = [];
  const seenTool = new Map<string, string>();
  pack.commands.forEach((c) => {
    const i = specs.findIndex((sp) => sp.verb_key === c.verb_key);
    const segs: Seg[] =
      i >= 0
        ? ["commands", i, "verb_key"]
        : [...ptPath, "allowedSubcommands", passThrough?.allowedSubcommands.indexOf(c.verb_key) ?? 0];
    const name = toolName(pack.id, c.verb_key);
    if (!TOOL_NAME_RE.test(name)) {
      out.push(
        at(
          segs,
          "tool_name_invalid",
          "error",
          `host tool name '${name}' (${name.length} chars) does not match ^[a-zA-Z0-9_-]{1,64}$`,
          "shorten the pack id or the verb_key",
        ),
      );
    } else if (SERVER_NAME.length + name.length > MAX_SERVER_TOOL) {
      out.push(
        at(
          segs,
          "tool_name_long",
          "warning",
          `host tool name '${name}' is ${name.length} chars; with the server name '${SERVER_NAME}' that is ${SERVER_NAME.length + name.length} > ${MAX_SERVER_TOOL}, too long for some hosts`,
          "shorten the pack id or the verb_key: keep server + tool ≤ 50 characters for every host (docs/pack-format.md#the-four-faces)",
        ),
      );
    }
    const other = seenTool.get(name);
    if (other !== undefined && other !== c.verb_key)
      out.push(
        at(
          segs,
          "tool_name_collision",
          "error",
          `'${c.verb_key}' and '${other}' both become the host tool name '${name}'`,
          "rename one: dots become underscores in tool names (docs/pack-format.md#the-four-faces)",
        ),
      );
    else seenTool.set(name, c.verb_key);
  });
  return out;
}

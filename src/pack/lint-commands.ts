// The lint rules of one command (src/pack/lint-rules.ts runs them command by
// command, in this order): its output, its args, its cli[] and whether each
// arg reaches the argv.
import type { Problem } from "../util/errors";
import type { LintCode } from "../util/lint-codes";
import type { CommandSpec } from "./schema";
import { kindsWith } from "./adapters/index";
import type { LintContext, Seg } from "./lint-context";

export const PLACEHOLDER_RE = /\{\{\s*([^{}]*?)\s*\}\}/g;
export const WHOLE_PLACEHOLDER_RE = /^\{\{([A-Za-z_][A-Za-z0-9_-]*)\}\}$/;

/** A rule of one command (`i`: its index in commands[]). */
export interface CommandLintRule {
  code: LintCode | readonly LintCode[];
  check(c: CommandSpec, i: number, ctx: LintContext): Problem[];
}

/** The arg names a command's cli[] uses after cli[0] (whole placeholders and ones inside a token). */
function cliPlaceholders(c: CommandSpec): Set<string> {
  const used = new Set<string>();
  (c.cli ?? []).forEach((tok, j) => {
    if (j === 0) return;
    const whole = WHOLE_PLACEHOLDER_RE.exec(tok);
    if (whole) used.add(whole[1]!);
    else for (const f of tok.matchAll(PLACEHOLDER_RE)) used.add(f[1]!);
  });
  return used;
}

/** The first command whose cli[0] is a name (not a placeholder): the pack's CLI name. */
function cliNameOf(specs: CommandSpec[]): { name: string; index: number } | undefined {
  const index = specs.findIndex((c) => c.cli && !c.cli[0]!.includes("{{"));
  return index >= 0 ? { name: specs[index]!.cli![0]!, index } : undefined;
}

/** cli[0] is the CLI name, the same for every command; every placeholder is a whole element naming an arg. */
function cliTokens(c: CommandSpec, i: number, { specs, at }: LintContext): Problem[] {
  if (!c.cli) return [];
  const out: Problem[] = [];
  const args = c.args ?? {};
  const first = c.cli[0]!;
  const cliName = cliNameOf(specs);
  if (first.includes("{{"))
    out.push(
      at(
        ["commands", i, "cli", 0],
        "placeholder_partial",
        "error",
        `cli[0] of '${c.verb_key}' must be the CLI name, not a placeholder`,
        "cli[0] is the pack's CLI name, e.g. the pack id",
      ),
    );
  else if (cliName && cliName.index < i && first !== cliName.name)
    out.push(
      at(
        ["commands", i, "cli", 0],
        "cli_name_mismatch",
        "error",
        `cli[0] of '${c.verb_key}' is '${first}', but commands[${cliName.index}] (${specs[cliName.index]!.verb_key}) uses '${cliName.name}'`,
        "every command's cli[] starts with the same CLI name, the pack's (the CLI face: docs/pack-format.md#the-four-faces)",
      ),
    );
  c.cli.forEach((tok, j) => {
    if (j === 0) return;
    const whole = WHOLE_PLACEHOLDER_RE.exec(tok);
    if (whole) {
      if (!Object.hasOwn(args, whole[1]!))
        out.push(
          at(
            ["commands", i, "cli", j],
            "placeholder_unknown",
            "error",
            `{{${whole[1]}}} in cli[] of '${c.verb_key}' names no declared arg`,
            `declare args.${whole[1]}, or fix the name (declared: ${Object.keys(args).join(", ") || "none"})`,
          ),
        );
    } else if (tok.match(PLACEHOLDER_RE)) {
      out.push(
        at(
          ["commands", i, "cli", j],
          "placeholder_partial",
          "error",
          `'${tok}' in cli[] of '${c.verb_key}': a placeholder must be a whole argv element`,
          'write the placeholder alone, like "{{name}}"; use flag for --name=value style options',
        ),
      );
    } else if (tok.includes("{{") || tok.includes("}}")) {
      out.push(
        at(
          ["commands", i, "cli", j],
          "placeholder_partial",
          "error",
          `'${tok}' in cli[] of '${c.verb_key}' has an unbalanced placeholder`,
          'write placeholders as "{{name}}"',
        ),
      );
    }
  });
  return out;
}

/** Reachability (a kind whose commands are argv): how does each arg get into the argv? */
function argReach(c: CommandSpec, i: number, { surface: s, entry, at }: LintContext): Problem[] {
  if (!entry?.capabilities.cliArgv) return [];
  const out: Problem[] = [];
  const usedInCli = cliPlaceholders(c);
  const viaTemplate =
    !c.cli && s.wrap?.argv_template
      ? new Set(s.wrap.argv_template.flatMap((t) => [...t.matchAll(PLACEHOLDER_RE)].map((m) => m[1]!)))
      : undefined;
  if (!c.cli && !s.wrap?.argv_template)
    out.push(
      at(
        ["commands", i],
        "cli_missing",
        "warning",
        `command '${c.verb_key}' has no cli[] and the wrap has no argv_template`,
        `add cli: ["<cli-name>", "${c.verb_key.split(".").join('", "')}"]`,
      ),
    );
  for (const [name, a] of Object.entries(c.args ?? {})) {
    const reached = usedInCli.has(name) || viaTemplate?.has(name) || a.flag !== undefined;
    if (reached) continue;
    if (a.required)
      out.push(
        at(
          ["commands", i, "args", name],
          "required_arg_unused",
          "error",
          `required arg '${name}' of '${c.verb_key}' appears nowhere in cli[] and has no flag`,
          `put "{{${name}}}" in cli[], or give it flag: "--${name}"`,
        ),
      );
    else
      out.push(
        at(
          ["commands", i, "args", name],
          "arg_unreachable",
          "warning",
          `arg '${name}' of '${c.verb_key}' appears nowhere in cli[] and has no flag, so it never reaches the bin`,
          `put "{{${name}}}" in cli[], or give it flag: "--${name}"`,
        ),
      );
  }
  return out;
}

export const COMMAND_RULES: readonly CommandLintRule[] = [
  {
    code: "output_not_wrap",
    check: (c, i, { surface: s, entry, at }) =>
      c.output !== undefined && !entry?.capabilities.readsStdout
        ? [
            at(
              ["commands", i, "output"],
              "output_not_wrap",
              "error",
              `'${c.verb_key}' sets output, but only a ${kindsWith("readsStdout")} pack reads a program's stdout (kind is '${s.kind}')`,
              "remove output (see docs/pack-format.md#commands)",
            ),
          ]
        : [],
  },
  {
    code: ["enum_no_values", "values_not_enum", "flag_on_required"],
    check: (c, i, { at }) =>
      Object.entries(c.args ?? {}).flatMap(([name, a]) => {
        const ap: Seg[] = ["commands", i, "args", name];
        const out: Problem[] = [];
        if (a.type === "enum" && !a.values)
          out.push(
            at(
              [...ap, "type"],
              "enum_no_values",
              "error",
              `arg '${name}' of '${c.verb_key}' is an enum without values`,
              'add values: ["a", "b"]',
            ),
          );
        if (a.type !== "enum" && a.values)
          out.push(
            at(
              [...ap, "values"],
              "values_not_enum",
              "warning",
              `arg '${name}' of '${c.verb_key}' has values but type '${a.type}'`,
              'set type: "enum", or drop values',
            ),
          );
        if (a.required && a.flag)
          out.push(
            at(
              [...ap, "flag"],
              "flag_on_required",
              "warning",
              `required arg '${name}' of '${c.verb_key}' is passed by flag`,
              "a required arg is usually positional: put {{" + name + "}} in cli[] and drop flag",
            ),
          );
        return out;
      }),
  },
  { code: ["placeholder_partial", "cli_name_mismatch", "placeholder_unknown"], check: cliTokens },
  { code: ["cli_missing", "required_arg_unused", "arg_unreachable"], check: argReach },
];

// hcpx lint's rules as a table: each entry is the codes it reports and its
// check, which returns its findings. lintPack (./lint.ts) runs them in this
// order; a kind's own rules are its adapter entry's `lint` (./adapters/*),
// run at the "kind" step. A new rule is one entry; a new kind touches none.
import { ADAPTERS, kindsWith } from "./adapters/index";
import { COMMAND_RULES } from "./lint-commands";
import { READ_ONLY_CLAIM_RE, READ_ONLY_HINT, SKILL_RULES } from "./lint-skill";
import { argvTemplate, binExists, duplicateVerbs, insidePack, toolNames } from "./lint-surface";
import { policyRows, reachRules } from "./lint-policy";
import type { PackLintRule } from "./lint-context";

export { MAX_SERVER_TOOL, SERVER_NAME, TOOL_NAME_RE } from "./lint-surface";

const SKILL_NAME_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

const codesOf = (r: { code: PackLintRule["code"] }) => (typeof r.code === "string" ? [r.code] : r.code);

/** The rules every kind shares, in the order lintPack runs them. */
export const LINT_RULES: readonly PackLintRule[] = [
  {
    code: "pack_id",
    check: (pack, { at }) =>
      SKILL_NAME_RE.test(pack.id)
        ? []
        : [
            at(
              ["id"],
              "pack_id",
              "error",
              `pack id '${pack.id}' cannot be a Skill name (no leading, trailing or double hyphen)`,
              "use lower-case words joined by single hyphens, like `my-pack`",
            ),
          ],
  },
  {
    // a section of another kind, or its own missing: load rules (src/pack/load.ts)
    code: "kind_config_mismatch",
    check: (_pack, { surface: s, entry, at }) => [
      ...(s.pass_through !== undefined && !entry?.capabilities.passThrough
        ? [
            at(
              ["pass_through"],
              "kind_config_mismatch",
              "error",
              `pass_through is for ${kindsWith("passThrough")} packs, but kind is '${s.kind}'`,
              `remove pass_through, or make the pack a ${kindsWith("passThrough")}`,
            ),
          ]
        : []),
      ...(s.pass_through !== undefined && s.wrap?.pass_through !== undefined
        ? [
            at(
              ["pass_through"],
              "kind_config_mismatch",
              "error",
              "pass_through is set twice (top level and in wrap)",
              "keep one, in wrap",
            ),
          ]
        : []),
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
            ...(c.tool !== undefined
              ? [
                  at(
                    ["commands", i, "tool"],
                    "tool_not_mcp",
                    "error",
                    `'tool' names a server tool, but this pack is kind '${s.kind}'`,
                    `remove 'tool', or make the pack kind ${kindsWith("serverTools")}`,
                  ),
                ]
              : []),
            ...Object.entries(c.args ?? {}).flatMap(([name, a]) =>
              a.type === "json" && !entry?.capabilities.jsonArgs
                ? [
                    at(
                      ["commands", i, "args", name, "type"],
                      "arg_json_kind",
                      "error",
                      `arg '${name}' of '${c.verb_key}' has type json, which only ${kindsWith("jsonArgs")} packs take`,
                      "use string, integer, number, boolean or enum",
                    ),
                  ]
                : [],
            ),
          ]),
  },
  {
    // the files every entry's section names (a section another kind set is checked too)
    code: ["path_outside_pack", "missing_file"],
    check: (_pack, ctx) =>
      ADAPTERS.flatMap((a) => ("packFiles" in a ? a.packFiles(ctx.surface) : [])).flatMap((f) => insidePack(f, ctx)),
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
      return writes.length && READ_ONLY_CLAIM_RE.test(s.description)
        ? [
            at(
              ["description"],
              "skill_claims_read_only",
              "error",
              `the description claims the pack is read-only, but it has writes: ${writes.join(", ")}`,
              READ_ONLY_HINT,
            ),
          ]
        : [];
    },
  },
  // SKILL.md: its load errors (codes of ./skill.ts, host_text_unsafe among them), then its rules (./lint-skill.ts);
  // the surface's host_text_unsafe is a load rule (./load.ts packRuleProblems)
  { code: [], check: (_pack, ctx) => ctx.skill().problems },
  ...SKILL_RULES,
];

// Each lint rule fires on a minimal bad pack (and the base pack is clean).
import { describe, expect, it } from "vitest";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LINT_CODES, lintPackDir } from "../../src/pack/lint";
import type { Problem } from "../../src/util/errors";
import { tmp } from "../support/hcpx";
import { baseRows, miniPack, skillRow, skillText, type Json, type MiniOptions } from "./minipack";

interface RuleCase {
  name: string;
  code: (typeof LINT_CODES)[number];
  severity: "error" | "warning";
  /** which file the problem points at */
  file: "surface.json" | "policy.json" | "SKILL.md";
  /** expected JSON path (surface/policy) */
  path?: string;
  /** expected line (SKILL.md rows) */
  line?: number;
  pack: MiniOptions | (() => string);
}

const sense = (s: Json) => {
  s.kind = "sense_only";
  delete s.wrap;
  delete s.commands;
  s.stimuli = [{ id: "thing.happened", trigger: "webhook:/hooks/mini/thing" }];
};
const noRows = { rows: [] as string[] };
const emptyPolicy = (p: Json) => {
  p.rows = {};
};
const composite = (s: Json) => {
  s.kind = "composite";
  delete s.wrap;
  s.composite = { module: "./index.mjs" };
  for (const c of s.commands) delete c.cli;
};
const openapi = (s: Json) => {
  s.kind = "openapi";
  delete s.wrap;
  s.openapi = { document: "./openapi.json", base_url: "http://127.0.0.1:9" };
  for (const c of s.commands) {
    delete c.cli;
    c.http = { method: "GET", path: "/items" };
  }
};
const mcp = (s: Json) => {
  s.kind = "mcp";
  delete s.wrap;
  s.mcp = { bin: "node", args: ["./server.mjs"] };
  for (const c of s.commands) {
    delete c.cli;
    c.tool = c.verb_key;
  }
};
const withFile = (f: string, text = "export default {};\n") => ({ [f]: text });
// Rows 1..3 of the base Skill table are at lines 14, 15, 16 (checked below).
const ROW1 = 14;

const cases: RuleCase[] = [
  // kinds
  {
    name: "wrap with neither commands nor pass_through",
    code: "wrap_no_commands",
    severity: "error",
    file: "surface.json",
    path: "kind",
    pack: { surface: (s) => delete s.commands, policy: emptyPolicy, skill: noRows },
  },
  {
    name: "wrap with an empty commands list",
    code: "wrap_no_commands",
    severity: "error",
    file: "surface.json",
    path: "commands",
    pack: { surface: (s) => (s.commands = []), policy: emptyPolicy, skill: noRows },
  },
  {
    name: "a lone mega-command run",
    code: "mega_command",
    severity: "error",
    file: "surface.json",
    path: "commands[0].verb_key",
    pack: {
      surface: (s) =>
        (s.commands = [
          {
            verb_key: "run",
            summary: "Run anything",
            cli: ["mini", "{{line}}"],
            args: { line: { type: "string", required: true } },
          },
        ]),
      policy: (p) => (p.rows = { run: { operation: "write", land: "local" } }),
      skill: { rows: [skillRow("run", "Run anything", "write")] },
    },
  },
  {
    name: "a lone pass-through subcommand run",
    code: "mega_command",
    severity: "error",
    file: "surface.json",
    path: "wrap.pass_through.allowedSubcommands[0]",
    pack: {
      surface: (s) => {
        delete s.commands;
        s.wrap.pass_through = { allowedSubcommands: ["run"], maxArgv: 8 };
      },
      policy: (p) => (p.rows = { run: { operation: "read" } }),
      skill: { rows: [skillRow("run", "Run", "read")] },
    },
  },
  {
    name: "wrap kind without a wrap block",
    code: "kind_missing_config",
    severity: "error",
    file: "surface.json",
    path: "kind",
    pack: { surface: (s) => delete s.wrap },
  },
  {
    name: "composite without composite.module",
    code: "kind_missing_config",
    severity: "error",
    file: "surface.json",
    path: "kind",
    pack: { surface: (s) => (composite(s), delete s.composite) },
  },
  {
    name: "openapi without document or url",
    code: "kind_missing_config",
    severity: "error",
    file: "surface.json",
    path: "openapi",
    pack: { surface: (s) => (openapi(s), (s.openapi = { base_url: "http://127.0.0.1:9" })) },
  },
  {
    name: "wrap config on a composite",
    code: "kind_config_mismatch",
    severity: "error",
    file: "surface.json",
    path: "wrap",
    pack: { surface: (s) => (composite(s), (s.wrap = { bin: "./bin.mjs" })), raw: withFile("index.mjs") },
  },
  {
    name: "openapi config on a wrap",
    code: "kind_config_mismatch",
    severity: "error",
    file: "surface.json",
    path: "openapi",
    pack: { surface: (s) => (s.openapi = { url: "http://127.0.0.1:9/openapi.json" }) },
  },
  {
    name: "pass_through on a composite",
    code: "kind_config_mismatch",
    severity: "error",
    file: "surface.json",
    path: "pass_through",
    pack: {
      surface: (s) => (composite(s), (s.pass_through = { allowedSubcommands: ["x"], maxArgv: 2 })),
      policy: (p) => (p.rows.x = { operation: "read" }),
      raw: withFile("index.mjs"),
    },
  },
  {
    name: "composite with no commands",
    code: "no_commands",
    severity: "error",
    file: "surface.json",
    path: "commands",
    pack: {
      surface: (s) => (composite(s), (s.commands = [])),
      policy: emptyPolicy,
      skill: noRows,
      raw: withFile("index.mjs"),
    },
  },
  {
    name: "openapi command without http",
    code: "http_missing",
    severity: "error",
    file: "surface.json",
    path: "commands[1]",
    pack: { surface: (s) => (openapi(s), delete s.commands[1].http), raw: withFile("openapi.json", "{}") },
  },
  {
    name: "openapi base_url with user:password",
    code: "openapi_userinfo",
    severity: "error",
    file: "surface.json",
    path: "openapi.base_url",
    pack: {
      surface: (s) => (openapi(s), (s.openapi.base_url = "https://u:p4ss@api.example.com")),
      raw: withFile("openapi.json", "{}"),
    },
  },
  {
    name: "openapi security naming no scheme",
    code: "openapi_security_unknown",
    severity: "error",
    file: "surface.json",
    path: "commands[0].http.security",
    pack: {
      surface: (s) => (openapi(s), (s.commands[0].http.security = [["nope"]])),
      raw: withFile("openapi.json", "{}"),
    },
  },
  {
    name: "openapi body.whole naming no body arg",
    code: "openapi_body_whole",
    severity: "error",
    file: "surface.json",
    path: "commands[0].http.body.whole",
    pack: {
      surface: (s) => (openapi(s), (s.commands[0].http.body = { media: "application/json", whole: "nope" })),
      raw: withFile("openapi.json", "{}"),
    },
  },
  {
    name: "openapi path placeholder naming no arg",
    code: "http_path_placeholder",
    severity: "error",
    file: "surface.json",
    path: "commands[0].http.path",
    pack: {
      surface: (s) => (openapi(s), (s.commands[0].http.path = "/items/{item_id}")),
      raw: withFile("openapi.json", "{}"),
    },
  },
  // mcp
  {
    name: "mcp kind without an mcp block",
    code: "kind_missing_config",
    severity: "error",
    file: "surface.json",
    path: "kind",
    pack: { surface: (s) => (mcp(s), delete s.mcp) },
  },
  {
    name: "mcp config on a wrap",
    code: "kind_config_mismatch",
    severity: "error",
    file: "surface.json",
    path: "mcp",
    pack: { surface: (s) => (s.mcp = { bin: "node" }) },
  },
  {
    name: "mcp command naming no server tool",
    code: "mcp_tool_missing",
    severity: "error",
    file: "surface.json",
    path: "commands[1]",
    pack: { surface: (s) => (mcp(s), delete s.commands[1].tool) },
  },
  {
    name: "mcp with both bin and url",
    code: "mcp_server_form",
    severity: "error",
    file: "surface.json",
    path: "mcp.url",
    pack: { surface: (s) => (mcp(s), (s.mcp.url = "https://mcp.example.com/mcp")) },
  },
  {
    name: "mcp url with a token in its query",
    code: "mcp_url_invalid",
    severity: "error",
    file: "surface.json",
    path: "mcp.url",
    pack: { surface: (s) => (mcp(s), (s.mcp = { url: "https://mcp.example.com/mcp?api_key=abc" })) },
  },
  {
    name: "mcp header with a literal credential",
    code: "header_literal_secret",
    severity: "error",
    file: "surface.json",
    path: "mcp.headers.Authorization",
    pack: {
      surface: (s) => (
        mcp(s),
        (s.mcp = { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer abc" } })
      ),
    },
  },
  {
    name: "two mcp commands calling one tool",
    code: "mcp_tool_duplicate",
    severity: "warning",
    file: "surface.json",
    path: "commands[1].tool",
    pack: { surface: (s) => (mcp(s), (s.commands[1].tool = s.commands[0].tool)) },
  },
  {
    name: "a server tool named on a wrap command",
    code: "tool_not_mcp",
    severity: "error",
    file: "surface.json",
    path: "commands[0].tool",
    pack: { surface: (s) => (s.commands[0].tool = "show") },
  },
  {
    name: "a json arg on a wrap command",
    code: "arg_json_kind",
    severity: "error",
    file: "surface.json",
    path: "commands[0].args.id.type",
    pack: { surface: (s) => (s.commands[0].args.id.type = "json") },
  },
  // sense_only
  {
    name: "sense_only with commands",
    code: "sense_has_commands",
    severity: "error",
    file: "surface.json",
    path: "commands",
    pack: {
      surface: (s) => (sense(s), (s.commands = [{ verb_key: "poll", summary: "Poll" }])),
      policy: (p) => (p.rows = { poll: { operation: "read" } }),
      skill: { rows: [skillRow("poll", "Poll", "read")] },
    },
  },
  {
    name: "sense_only without stimuli",
    code: "sense_no_stimulus",
    severity: "error",
    file: "surface.json",
    path: "kind",
    pack: { surface: (s) => (sense(s), delete s.stimuli), policy: emptyPolicy, skill: noRows },
  },
  {
    name: "sense_only with no trigger ref",
    code: "sense_no_trigger",
    severity: "error",
    file: "surface.json",
    path: "stimuli",
    pack: {
      surface: (s) => (sense(s), (s.stimuli = [{ id: "a" }, { id: "b", trigger: " " }])),
      policy: emptyPolicy,
      skill: noRows,
    },
  },
  {
    name: "sense_only stimulus without trigger next to one with",
    code: "sense_no_trigger",
    severity: "warning",
    file: "surface.json",
    path: "stimuli[1]",
    pack: { surface: (s) => (sense(s), s.stimuli.push({ id: "other" })), policy: emptyPolicy, skill: noRows },
  },
  // commands
  {
    name: "duplicate verb_key",
    code: "duplicate_verb",
    severity: "error",
    file: "surface.json",
    path: "commands[3].verb_key",
    pack: { surface: (s) => s.commands.push({ ...s.commands[0] }) },
  },
  {
    name: "pass-through subcommand listed twice",
    code: "duplicate_verb",
    severity: "error",
    file: "surface.json",
    path: "wrap.pass_through.allowedSubcommands[1]",
    pack: {
      surface: (s) => (delete s.commands, (s.wrap.pass_through = { allowedSubcommands: ["list", "list"], maxArgv: 3 })),
      policy: (p) => (p.rows = { list: { operation: "read" } }),
      skill: { rows: [skillRow("list", "List", "read")] },
    },
  },
  {
    name: "pass-through subcommand that is also a named command",
    code: "duplicate_verb",
    severity: "error",
    file: "surface.json",
    path: "wrap.pass_through.allowedSubcommands[0]",
    pack: { surface: (s) => (s.wrap.pass_through = { allowedSubcommands: ["show"], maxArgv: 3 }) },
  },
  // four faces: CLI
  {
    name: "cli[0] differs across commands",
    code: "cli_name_mismatch",
    severity: "error",
    file: "surface.json",
    path: "commands[1].cli[0]",
    pack: { surface: (s) => (s.commands[1].cli[0] = "minicli") },
  },
  {
    name: "cli[0] is a placeholder",
    code: "placeholder_partial",
    severity: "error",
    file: "surface.json",
    path: "commands[0].cli[0]",
    pack: { surface: (s) => (s.commands[0].cli = ["{{id}}", "show"]) },
  },
  {
    name: "placeholder naming no declared arg",
    code: "placeholder_unknown",
    severity: "error",
    file: "surface.json",
    path: "commands[0].cli[2]",
    pack: { surface: (s) => (s.commands[0].cli[2] = "{{ident}}") },
  },
  {
    name: "placeholder naming an Object.prototype key ({{constructor}})",
    code: "placeholder_unknown",
    severity: "error",
    file: "surface.json",
    path: "commands[0].cli[2]",
    pack: { surface: (s) => (s.commands[0].cli[2] = "{{constructor}}") },
  },
  {
    name: "verb_key `constructor` without a policy row is a missing row (not Object.prototype)",
    code: "policy_missing_row",
    severity: "error",
    file: "policy.json",
    path: "rows",
    pack: {
      surface: (s) => s.commands.push({ verb_key: "constructor", summary: "Build", cli: ["mini", "constructor"] }),
      skill: { rows: [...baseRows(), skillRow("constructor", "Build", "read")] },
    },
  },
  {
    name: "placeholder inside a larger argv element (x{{a}})",
    code: "placeholder_partial",
    severity: "error",
    file: "surface.json",
    path: "commands[0].cli[2]",
    pack: { surface: (s) => (s.commands[0].cli[2] = "x{{id}}") },
  },
  {
    name: "--flag={{a}} style placeholder",
    code: "placeholder_partial",
    severity: "error",
    file: "surface.json",
    path: "commands[1].cli[3]",
    pack: { surface: (s) => (s.commands[1].cli[3] = "--name={{name}}") },
  },
  {
    name: "unbalanced placeholder",
    code: "placeholder_partial",
    severity: "error",
    file: "surface.json",
    path: "commands[0].cli[2]",
    pack: { surface: (s) => (s.commands[0].cli[2] = "{{id}") },
  },
  {
    name: "required arg in neither cli[] nor a flag",
    code: "required_arg_unused",
    severity: "error",
    file: "surface.json",
    path: "commands[0].args.id",
    pack: { surface: (s) => (s.commands[0].cli = ["mini", "show"]) },
  },
  {
    name: "optional arg that can never reach the bin",
    code: "arg_unreachable",
    severity: "warning",
    file: "surface.json",
    path: "commands[1].args.note",
    pack: { surface: (s) => delete s.commands[1].args.note.flag },
  },
  {
    name: "command without cli[] and no argv_template",
    code: "cli_missing",
    severity: "warning",
    file: "surface.json",
    path: "commands[0]",
    pack: {
      surface: (s) => (
        delete s.wrap.argv_template,
        delete s.commands[0].cli,
        (s.commands[0].args.id.flag = "--id"),
        (s.commands[0].args.id.required = false)
      ),
    },
  },
  {
    name: "argv_template with an unknown placeholder",
    code: "argv_template_placeholder",
    severity: "error",
    file: "surface.json",
    path: "wrap.argv_template[1]",
    pack: { surface: (s) => (s.wrap.argv_template = ["{{verb}}", "{{nope}}"]) },
  },
  {
    name: "argv_template with a partial placeholder",
    code: "argv_template_placeholder",
    severity: "error",
    file: "surface.json",
    path: "wrap.argv_template[0]",
    pack: { surface: (s) => (s.wrap.argv_template = ["do-{{verb}}"]) },
  },
  // four faces: host tool name
  {
    name: "tool name over 64 characters",
    code: "tool_name_invalid",
    severity: "error",
    file: "surface.json",
    path: "commands[0].verb_key",
    pack: () => {
      const id = "p" + "a".repeat(31);
      const verb = "v".repeat(40);
      return miniPack({
        name: id,
        surface: (s) => ((s.id = id), (s.commands[0].verb_key = verb)),
        policy: (p) => ((p.rows[verb] = p.rows.show), delete p.rows.show),
        skill: { name: id, rows: [skillRow(verb, "Show one item", "read"), ...baseRows().slice(1)] },
      });
    },
  },
  {
    name: "tool name longer than 50 with the server name hcp",
    code: "tool_name_long",
    severity: "warning",
    file: "surface.json",
    path: "commands[0].verb_key",
    pack: () => {
      const verb = "show.everything.about.one.item.x"; // mini__ + 32 = 38 ... make it 48
      const long = verb + "yyyyyyyyyy"; // 6 + 42 = 48 chars; + 3 = 51
      return miniPack({
        surface: (s) => (s.commands[0].verb_key = long),
        policy: (p) => ((p.rows[long] = p.rows.show), delete p.rows.show),
        skill: { rows: [skillRow(long, "Show one item", "read"), ...baseRows().slice(1)] },
      });
    },
  },
  {
    name: "two verbs map to one tool name (a.b vs a_b)",
    code: "tool_name_collision",
    severity: "error",
    file: "surface.json",
    path: "commands[3].verb_key",
    pack: {
      surface: (s) =>
        s.commands.push({
          verb_key: "item_add",
          summary: "Add an item (old name)",
          cli: ["mini", "item-add", "{{name}}"],
          args: { name: { type: "string", required: true } },
        }),
      policy: (p) => (p.rows.item_add = { operation: "write", land: "local" }),
      skill: { rows: [...baseRows(), skillRow("item_add", "Add an item (old name)", "write")] },
    },
  },
  // four faces: Skill rows
  {
    name: "Skill table lacks a row",
    code: "skill_row_missing",
    severity: "error",
    file: "SKILL.md",
    pack: { skill: { rows: baseRows().slice(0, 2) } },
  },
  {
    name: "Skill row for an unknown verb",
    code: "skill_row_unknown",
    severity: "error",
    file: "SKILL.md",
    line: ROW1 + 3,
    pack: { skill: { rows: [...baseRows(), skillRow("item.move", "Move", "write")] } },
  },
  {
    name: "Skill row twice",
    code: "skill_row_duplicate",
    severity: "error",
    file: "SKILL.md",
    line: ROW1 + 3,
    pack: { skill: { rows: [...baseRows(), baseRows()[0]!] } },
  },
  {
    name: "Skill row says read, policy says write",
    code: "skill_row_operation",
    severity: "error",
    file: "SKILL.md",
    line: ROW1 + 1,
    pack: { skill: { rows: [baseRows()[0]!, skillRow("item.add", "Add an item", "read"), baseRows()[2]!] } },
  },
  {
    name: "Skill row without a read/write cell",
    code: "skill_row_operation",
    severity: "error",
    file: "SKILL.md",
    line: ROW1,
    pack: { skill: { rows: ["| `show` | Show one item |", ...baseRows().slice(1)] } },
  },
  {
    name: "confirm write without its confirm marker",
    code: "skill_confirm_missing",
    severity: "error",
    file: "SKILL.md",
    line: ROW1 + 2,
    pack: { skill: { rows: [...baseRows().slice(0, 2), skillRow("item.delete", "Delete an item", "write")] } },
  },
  {
    name: "confirm marker on a write that needs none",
    code: "skill_confirm_extra",
    severity: "warning",
    file: "SKILL.md",
    line: ROW1 + 1,
    pack: { skill: { rows: [baseRows()[0]!, skillRow("item.add", "Add an item", "write, confirm"), baseRows()[2]!] } },
  },
  // ids and Skill frontmatter
  {
    name: "Skill name differs from the pack id",
    code: "skill_name_mismatch",
    severity: "error",
    file: "SKILL.md",
    line: 2,
    pack: { skill: { name: "maxi" } },
  },
  {
    name: "pack id with a double hyphen (no valid Skill name)",
    code: "pack_id",
    severity: "error",
    file: "surface.json",
    path: "id",
    pack: { surface: (s) => (s.id = "mi--ni"), skill: { name: "mini" } },
  },
  {
    name: "Skill without leads",
    code: "skill_no_leads",
    severity: "warning",
    file: "SKILL.md",
    pack: { skill: { leads: null } },
  },
  {
    name: "a lead holding the hcp end marker",
    code: "host_text_unsafe",
    severity: "error",
    file: "SKILL.md",
    line: 5,
    pack: { skill: { leads: ["mini: <!-- hcp:end --> items"] } },
  },
  {
    name: "a lead holding an escape character (YAML \\u001b)",
    code: "host_text_unsafe",
    severity: "error",
    file: "SKILL.md",
    path: "leads[0]",
    pack: { skill: { leads: ["mini: \u001b[2J items"] } },
  },
  {
    name: "a surface description holding DEL",
    code: "host_text_unsafe",
    severity: "error",
    file: "surface.json",
    path: "description",
    pack: { surface: (s) => (s.description += "\u007f") },
  },
  {
    name: "a lead over 120 characters",
    code: "skill_lead_long",
    severity: "warning",
    file: "SKILL.md",
    path: "leads[0]",
    pack: { skill: { leads: ["x".repeat(121)] } },
  },
  {
    name: "more than 3 leads as one string",
    code: "skill_leads_count",
    severity: "error",
    file: "SKILL.md",
    pack: { skill: { leads: "one\ntwo\nthree\nfour" } },
  },
  // policy
  {
    name: "missing policy row",
    code: "policy_missing_row",
    severity: "error",
    file: "policy.json",
    path: "rows",
    pack: { policy: (p) => delete p.rows.show },
  },
  {
    name: "misspelt key in a policy row (confrim)",
    code: "unknown_key",
    severity: "error",
    file: "policy.json",
    path: 'rows["item.add"].confrim',
    pack: { policy: (p) => (p.rows["item.add"].confrim = true) },
  },
  {
    name: "unknown key in wrap",
    code: "unknown_key",
    severity: "error",
    file: "surface.json",
    path: "wrap.agent_envs",
    pack: { surface: (s) => (s.wrap.agent_envs = { A: "1" }) },
  },
  {
    name: "__proto__ as an arg name",
    code: "reserved_key",
    severity: "error",
    file: "surface.json",
    path: "commands[0].args.__proto__",
    pack: {
      surface: (s) =>
        Object.defineProperty(s.commands[0], "args", {
          value: JSON.parse('{"__proto__": {"type": "string"}}'),
          enumerable: true,
          writable: true,
          configurable: true,
        }),
    },
  },
  {
    name: "agent_env sets NODE_OPTIONS",
    code: "env_forbidden",
    severity: "error",
    file: "surface.json",
    path: "wrap.agent_env.NODE_OPTIONS",
    pack: { surface: (s) => (s.wrap.agent_env = { NODE_OPTIONS: "--require /tmp/x.js" }) },
  },
  {
    name: "binding.env passes ld_preload (any case)",
    code: "env_forbidden",
    severity: "error",
    file: "surface.json",
    path: "binding.env[1]",
    pack: { surface: (s) => (s.binding = { env: ["MINI_TOKEN", "ld_preload"] }) },
  },
  {
    name: "policy row for an unknown verb",
    code: "policy_unknown_row",
    severity: "error",
    file: "policy.json",
    path: "rows.nope",
    pack: { policy: (p) => (p.rows.nope = { operation: "read" }) },
  },
  {
    name: "external write without confirm",
    code: "external_no_confirm",
    severity: "warning",
    file: "policy.json",
    path: 'rows["item.add"]',
    pack: { policy: (p) => (p.rows["item.add"].land = "external") },
  },
  {
    name: "reach.network_for without reach.network",
    code: "reach_network_unused",
    severity: "error",
    file: "surface.json",
    path: "reach.network_for",
    pack: { surface: (s) => (s.reach = { network_for: ["read"] }) },
  },
  {
    name: "reach.paths names a path hcpx does not hide",
    code: "reach_path_unhidden",
    severity: "warning",
    file: "surface.json",
    path: "reach.paths[1]",
    pack: { surface: (s) => (s.reach = { paths: ["~/.ssh/known_hosts", "~/projects"] }) },
  },
  {
    name: "land on a read",
    code: "policy_read_gated",
    severity: "warning",
    file: "policy.json",
    path: "rows.show",
    pack: { policy: (p) => (p.rows.show.land = "local") },
  },
  {
    name: "confirm: false on a read",
    code: "policy_read_gated",
    severity: "warning",
    file: "policy.json",
    path: "rows.show",
    pack: { policy: (p) => (p.rows.show.confirm = false) },
  },
  {
    name: "confirm: true on a read (it would run unasked: the pack does not load)",
    code: "policy_read_confirm",
    severity: "error",
    file: "policy.json",
    path: "rows.show.confirm",
    pack: { policy: (p) => (p.rows.show.confirm = true) },
  },
  {
    name: "an arg named confirm on a confirm-gated write (the tool's own flag: the pack does not load)",
    code: "reserved_arg",
    severity: "error",
    file: "surface.json",
    path: "commands[2].args.confirm",
    pack: {
      surface: (s) => {
        const del = s.commands.find((c: Json) => c.verb_key === "item.delete");
        del.args = { ...del.args, confirm: { type: "string" } };
      },
    },
  },
  {
    name: "inferred policy not reviewed (file level)",
    code: "policy_inferred",
    severity: "warning",
    file: "policy.json",
    path: "inferred",
    pack: { policy: (p) => (p.inferred = true) },
  },
  {
    name: "inferred policy row not reviewed",
    code: "policy_inferred",
    severity: "warning",
    file: "policy.json",
    path: "rows.show.inferred",
    pack: { policy: (p) => (p.rows.show.inferred = true) },
  },
  // args
  {
    name: "enum without values",
    code: "enum_no_values",
    severity: "error",
    file: "surface.json",
    path: "commands[0].args.id.type",
    pack: { surface: (s) => (s.commands[0].args.id.type = "enum") },
  },
  {
    name: "a default that is not a value of its arg (it would fail every call without it: the pack does not load)",
    code: "arg_default",
    severity: "error",
    file: "surface.json",
    path: "commands[0].args.id.default",
    pack: { surface: (s) => (s.commands[0].args.id.default = 5) },
  },
  {
    name: "values on a non-enum",
    code: "values_not_enum",
    severity: "warning",
    file: "surface.json",
    path: "commands[0].args.id.values",
    pack: { surface: (s) => (s.commands[0].args.id.values = ["a", "b"]) },
  },
  {
    name: "flag on a required arg",
    code: "flag_on_required",
    severity: "warning",
    file: "surface.json",
    path: "commands[1].args.name.flag",
    pack: { surface: (s) => (s.commands[1].args.name.flag = "--name") },
  },
  // paths
  {
    name: "composite.module outside the pack",
    code: "path_outside_pack",
    severity: "error",
    file: "surface.json",
    path: "composite.module",
    pack: { surface: (s) => (composite(s), (s.composite.module = "../evil.mjs")) },
  },
  {
    name: "composite.module absolute",
    code: "path_outside_pack",
    severity: "error",
    file: "surface.json",
    path: "composite.module",
    pack: { surface: (s) => (composite(s), (s.composite.module = "/tmp/evil.mjs")) },
  },
  {
    name: "openapi.document outside the pack",
    code: "path_outside_pack",
    severity: "error",
    file: "surface.json",
    path: "openapi.document",
    pack: { surface: (s) => (openapi(s), (s.openapi.document = "../../openapi.json")) },
  },
  {
    name: "composite.module a symlink leading outside",
    code: "path_outside_pack",
    severity: "error",
    file: "surface.json",
    path: "composite.module",
    pack: () => {
      const parent = tmp("hcpx-lint-");
      writeFileSync(join(parent, "outside.mjs"), "export default {};\n");
      const dir = miniPack({ parent, surface: composite });
      symlinkSync(join(parent, "outside.mjs"), join(dir, "index.mjs"));
      return dir;
    },
  },
  {
    name: "composite.module missing",
    code: "missing_file",
    severity: "error",
    file: "surface.json",
    path: "composite.module",
    pack: { surface: composite },
  },
  // output per command: only a wrap reads a program's stdout
  {
    name: "output on a command of a composite pack",
    code: "output_not_wrap",
    severity: "error",
    file: "surface.json",
    path: "commands[0].output",
    pack: { surface: (s) => (composite(s), (s.commands[0].output = "json")), raw: withFile("index.mjs") },
  },
  // a pack with writes does not call itself read-only (the base pack has two writes)
  {
    name: "a Skill description claiming read-only when the pack writes",
    code: "skill_claims_read_only",
    severity: "error",
    file: "SKILL.md",
    path: "description",
    pack: { skill: { description: "Mini: show, add and delete items; every command is a read." } },
  },
  {
    name: "a lead ending (read-only) when the pack writes",
    code: "skill_claims_read_only",
    severity: "error",
    file: "SKILL.md",
    path: "leads[0]",
    pack: { skill: { leads: ["mini: show, item.add (read-only)."] } },
  },
  {
    name: "a surface description starting Read-only when the pack writes",
    code: "skill_claims_read_only",
    severity: "error",
    file: "surface.json",
    path: "description",
    pack: { surface: (s) => (s.description = "Read-only mini: items") },
  },
  {
    name: "relative wrap.bin missing",
    code: "bin_missing",
    severity: "warning",
    file: "surface.json",
    path: "wrap.bin",
    pack: { raw: { "bin.mjs": null } },
  },
];

function lint(pack: RuleCase["pack"]): Problem[] {
  const dir = typeof pack === "function" ? pack() : miniPack(pack);
  return lintPackDir(dir).problems;
}

describe("lint rules", () => {
  it("the minimal base pack is clean (no errors, no warnings)", () => {
    expect(lint({})).toEqual([]);
    const c = lint({ surface: composite, raw: withFile("index.mjs") });
    expect(c).toEqual([]);
    const o = lint({ surface: openapi, raw: withFile("openapi.json", "{}") });
    expect(o).toEqual([]);
    expect(lint({ surface: sense, policy: emptyPolicy, skill: noRows })).toEqual([]);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const problems = lint(c.pack);
    const hit = problems.find(
      (p) =>
        p.code === c.code && (c.path === undefined || p.path === c.path) && (c.line === undefined || p.line === c.line),
    );
    expect(
      hit,
      `expected ${c.code}${c.path ? ` at ${c.path}` : ""}${c.line ? ` line ${c.line}` : ""}; got:\n${problems.map((p) => `${p.code} ${p.path ?? ""} ${p.line ?? ""} ${p.message}`).join("\n")}`,
    ).toBeDefined();
    expect(hit!.severity).toBe(c.severity);
    expect(hit!.file!.endsWith(c.file)).toBe(true);
    expect(hit!.line, "every problem has a line").toBeGreaterThan(0);
    expect(hit!.message.length).toBeGreaterThan(10);
    expect(hit!.hint, "every lint problem has a hint").toBeTruthy();
  });

  it("a claim about one verb, or a read-only pack calling itself read-only, is fine", () => {
    expect(lint({ skill: { description: "Mini: `show` is read-only; `item.add` and `item.delete` write." } })).toEqual(
      [],
    );
    const readsOnly = (s: Json) => (s.commands = [s.commands[0]]);
    expect(
      lint({
        surface: readsOnly,
        policy: (p) => (p.rows = { show: { operation: "read" } }),
        skill: {
          rows: [baseRows()[0]!],
          leads: ["mini: show (read-only)."],
          description: "Read-only mini; every command is a read.",
        },
      }),
    ).toEqual([]);
  });

  it("the base Skill's first hot-path row is at line ROW1", () => {
    expect(skillText().split("\n")[ROW1 - 1]).toBe(baseRows()[0]);
  });

  it("every rule code is exercised by a case above, except the project-level ones tested via the CLI", () => {
    const covered = new Set(cases.map((c) => c.code));
    const viaCli = new Set(["bin_not_in_sandbox", "duplicate_pack", "reach_no_network"]);
    expect(LINT_CODES.filter((c) => !covered.has(c) && !viaCli.has(c))).toEqual([]);
  });

  it("a symlink inside the pack that stays inside is fine", () => {
    const dir = miniPack({ surface: composite, raw: withFile("real.mjs") });
    mkdirSync(join(dir, "lib"));
    symlinkSync(join(dir, "real.mjs"), join(dir, "index.mjs"));
    expect(lintPackDir(dir).problems).toEqual([]);
  });
});

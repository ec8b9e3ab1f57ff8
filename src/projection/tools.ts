// Tool definitions of §12.2: the in-process shape (one tool per granted command,
// JSON Schema input from `args`) and the shell shape (the single `hcpx` tool),
// plus `hcp__read_skill`. Dialect renderers for MCP, Anthropic and OpenAI.
import { CAPS, readTextFile } from "../util/readfile";
import { locate } from "../pack/json5";
import { toolName, type Command, type Pack } from "../pack/model";
import type { ArgSpec } from "../pack/schema";
import { HcpxError, type Problem } from "../util/errors";
import { display } from "../util/paths";
import type { ProjectedPack, ToolDef } from "./types";
import { READ_SKILL_TOOL } from "./names";

/** Anthropic and OpenAI tool names (the stricter of the dialects we emit). */
export const TOOL_NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;
export { READ_SKILL_TOOL };
/** The single tool of the shell shape; the same name as the MCP export's tool (§12.5.1). */
export const SHELL_TOOL = "hcp";
/** The words every confirm-gated write carries on every surface. */
export const CONFIRM_MARKER = "confirm required";

/** `[write · remote · confirm required]`: operation, land and confirm of a command. */
export function policyTag(c: Command): string {
  const parts: string[] = [c.policy.operation];
  if (c.policy.land) parts.push(c.policy.land);
  if (c.policy.confirm) parts.push(CONFIRM_MARKER);
  return `[${parts.join(" · ")}]`;
}

function argSchema(a: ArgSpec): Record<string, unknown> {
  const s: Record<string, unknown> = {};
  switch (a.type) {
    case "enum": {
      const values = a.values ?? [];
      // the runtime takes a value of either type (src/runtime/args.ts): numbers and strings mixed advertise both
      const types = [...new Set(values.map((v) => (typeof v === "number" ? "number" : "string")))].sort();
      s.type = types.length === 1 ? types[0] : types.length ? types : "string";
      s.enum = values;
      break;
    }
    case "array":
    case "object":
    case "json":
      // the JSON Schema from the pack (openapi: the document's), passed through
      Object.assign(s, a.schema ?? {});
      if (a.type !== "json") s.type = a.type;
      break;
    default:
      s.type = a.type;
  }
  if (a.description) s.description = a.description;
  if (a.default !== undefined) s.default = a.default;
  return s;
}

/** JSON Schema of one command's input (an object; `additionalProperties: false`). */
export function inputSchema(packId: string, c: Command): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  if (c.passThrough) {
    properties.argv = {
      type: "array",
      items: { type: "string" },
      maxItems: c.passThrough.maxArgv,
      description: `Literal arguments after \`${c.verb_key}\`, passed as given (at most ${c.passThrough.maxArgv})`,
    };
  }
  for (const [name, a] of Object.entries(c.args)) {
    if (name === "confirm" && c.policy.confirm) {
      throw new HcpxError({
        code: "reserved_arg",
        message: `${packId}.${c.verb_key}: an arg named 'confirm' clashes with the confirm flag of a confirm-gated write`,
        hint: "rename the arg",
      });
    }
    properties[name] = argSchema(a);
    if (a.required) required.push(name);
  }
  if (c.policy.confirm) {
    properties.confirm = {
      type: "boolean",
      description: "Must be true for this write to run; set it only after the user has agreed",
    };
  }
  const schema: Record<string, unknown> = { type: "object", properties };
  if (required.length) schema.required = required;
  schema.additionalProperties = false;
  return schema;
}

/**
 * `s` in one piece. A string grown by concatenation (a printed value, a template) is kept by V8 as a
 * tree of its pieces until something reads it whole. A text kept for the rest of the run (a shared
 * schema: ~50 pieces, ~2.5 KB as a tree, ~0.5 KB in one piece; 50,000 of them at 5,000 packs) is read
 * once here: charCodeAt makes V8 copy the tree into one flat string, and the pieces go at the next
 * collection instead of being copied from the young generation to the old one and kept.
 */
export function flat(s: string): string {
  s.charCodeAt(0);
  return s;
}

/** A policy label the pack wrote itself (`[read]`, `[write · remote]`, `[w, confirm required]`): only hcpx's, from policy.json, is shown. */
const PACK_LABEL_RE = /\s*\[(?:read|write|r|w)(?:[\s\u00b7,:][^\]]*)?\]/gi;

export function commandTool(packId: string, c: Command, name: string, summary = c.summary): ToolDef {
  const s = summary
    .replace(PACK_LABEL_RE, "")
    .trim()
    .replace(/[.;:,]$/, "");
  let description = `${packId}: ${s}. ${policyTag(c)}`;
  const more = c.description?.replace(PACK_LABEL_RE, "").trim();
  if (more) description += ` ${more}`;
  if (c.policy.confirm) description += " Runs only with confirm: true; ask the user first.";
  return {
    name,
    // kept until the lists are written (~200,000 pieces at 5,000 packs as built)
    description: flat(description),
    inputSchema: inputSchema(packId, c),
    annotations:
      c.policy.operation === "read"
        ? { readOnlyHint: true }
        : { readOnlyHint: false, destructiveHint: c.policy.confirm || c.policy.land === "external" },
  };
}

export function readSkillTool(packIds: string[]): ToolDef {
  return {
    name: READ_SKILL_TOOL,
    description:
      "Return the full Skill (SKILL.md) of an HCP pack: what its commands do, their arguments and examples. Read it before the first use of a pack.",
    inputSchema: {
      type: "object",
      properties: { pack: { type: "string", enum: packIds, description: "Pack id" } },
      required: ["pack"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  };
}

/** The shell shape: the single tool `hcp`, forwarding to `hcpx exec <pack> <verb> [--confirm] -- k=v …`. */
/** `[w:remote, confirm required]`-style marker (operation, land, confirm); empty for a read. */
export function verbMarker(c: Command): string {
  const p = c.policy;
  if (p.operation === "read") return "";
  return `[w${p.land ? `:${p.land}` : ""}${p.confirm ? `, ${CONFIRM_MARKER}` : ""}]`;
}

/**
 * How many characters of verbs one pack may put into the prompt block or the
 * `hcp` tool description. A pack with more (an OpenAPI import of 1,000
 * operations) lists what fits and points to its Skill for the rest: the
 * context every agent turn carries stays bounded, whatever the pack's size.
 */
export const VERB_LIST_BUDGET = 600;

/** `a, b, c, … and 12 more (<rest>)` within `budget` characters (the tail not counted). */
export function boundedList(items: string[], rest: string, budget = VERB_LIST_BUDGET): string {
  let used = 0;
  let k = 0;
  for (; k < items.length; k++) {
    const add = items[k]!.length + (k ? 2 : 0);
    if (used + add > budget && k > 0) break;
    used += add;
  }
  const shown = items.slice(0, k).join(", ");
  return k < items.length ? `${shown}, … and ${items.length - k} more (${rest})` : shown;
}

/** One line per pack: `- ledger: accounts, balance, entry.add[w:remote], transfer[w:remote, confirm required]`. */
export function packLine(p: ProjectedPack): string {
  const passThrough = p.commands.some((c) => c.command.passThrough);
  const verbs = boundedList(
    p.commands.map((c) => `${c.command.verb_key}${verbMarker(c.command)}`),
    `${READ_SKILL_TOOL} {pack: "${p.pack.id}"} lists them with their markers`,
  );
  return `- ${p.pack.id}${passThrough ? " (argv)" : ""}: ${verbs}`;
}

/**
 * The single `hcp` tool of the shell shape and of the MCP export (one schema
 * for both). `listVerbs`: the description lists every granted verb with its
 * markers — for the MCP export, where no system-prompt block travels with the
 * tool; `generate`'s shell shape leaves that to the prompt block (context cost).
 */
export function shellTool(packs: ProjectedPack[], opts: { listVerbs?: boolean } = {}): ToolDef {
  const callable = packs.filter((p) => p.commands.length > 0);
  const ids = callable.map((p) => p.pack.id);
  const gated = callable.flatMap((p) =>
    p.commands.filter((c) => c.command.policy.confirm).map((c) => `${p.pack.id}.${c.command.verb_key}`),
  );
  let description: string;
  if (opts.listVerbs) {
    description = [
      "Run a command of an HCP pack through the hcpx runtime (grants, Policy and credentials are applied there).",
      `Call ${READ_SKILL_TOOL} {pack} first to learn a pack's verbs and their args.`,
      `Markers: [w:<land>] write; "${CONFIRM_MARKER}" = runs only with confirm: true, after the user agreed; no marker = read.`,
      "(argv) packs take argv: [string], passed literally.",
      "Packs:",
      ...(callable.length ? callable.map(packLine) : ["- (none granted)"]),
    ].join("\n");
  } else {
    description =
      "Run a command of an HCP pack through the hcpx runtime, the same as `hcpx exec <pack> <verb> [--confirm] -- key=value …`. " +
      `Packs: ${ids.length ? ids.join(", ") : "(none)"}. Read a pack's Skill (${READ_SKILL_TOOL}) before its first use.`;
    if (gated.length)
      description += ` Writes with confirm required: ${boundedList(gated, "each pack's Skill marks them; the runtime refuses them without confirm")} — they run only with confirm: true; ask the user first.`;
  }
  return {
    name: SHELL_TOOL,
    description,
    inputSchema: {
      type: "object",
      properties: {
        pack: { type: "string", enum: ids, description: "Pack id" },
        verb: { type: "string", description: "The command's verb_key, e.g. entry.add" },
        args: {
          type: "object",
          description: "Arguments by name (key=value)",
          additionalProperties: { type: ["string", "number", "boolean", "array", "object"] },
        },
        argv: { type: "array", items: { type: "string" }, description: "pass_through verbs only: literal arguments" },
        confirm: {
          type: "boolean",
          description: `true to run a write marked ${CONFIRM_MARKER}, only after the user has agreed`,
        },
      },
      required: ["pack", "verb"],
      additionalProperties: false,
    },
  };
}

function surfacePathOf(pack: Pack, c: Command): (string | number)[] {
  const i = (pack.surface.commands ?? []).findIndex((s) => s.verb_key === c.verb_key);
  if (i >= 0) return ["commands", i, "verb_key"];
  const pt = pack.surface.pass_through ? ["pass_through"] : ["wrap", "pass_through"];
  const list = (pack.surface.pass_through ?? pack.surface.wrap?.pass_through)?.allowedSubcommands ?? [];
  return [...pt, "allowedSubcommands", Math.max(0, list.indexOf(c.verb_key))];
}

function where(pack: Pack, c: Command): Pick<Problem, "file" | "path" | "line" | "column"> {
  const path = surfacePathOf(pack, c);
  let pos: { line: number; column: number } | undefined;
  try {
    pos = locate(readTextFile(pack.surfaceFile, pack.surfaceFile, CAPS.pack), path);
  } catch {
    pos = undefined;
  }
  const shown = path
    .map((s) => (typeof s === "number" ? `[${s}]` : `.${s}`))
    .join("")
    .slice(1);
  return { file: display(pack.surfaceFile), path: shown, line: pos?.line, column: pos?.column };
}

/**
 * Tool names of the granted commands, checked against `^[a-zA-Z0-9_-]{1,64}$`
 * and for collisions (two commands, or a command and `hcp__read_skill`, mapping
 * to one name). Throws one HcpxError listing every problem.
 */
export function checkToolNames(
  entries: { pack: Pack; command: Command }[],
  verbNamed: readonly string[] = [],
): Map<Command, string> {
  const names = new Map<Command, string>();
  const seen = new Map<string, string>([
    [READ_SKILL_TOOL, "the built-in hcp__read_skill tool"],
    [SHELL_TOOL, "the built-in hcp tool"],
  ]);
  const problems: Problem[] = [];
  for (const { pack, command } of entries) {
    // config mcp.tool_names: { <pack>: "verb" } names the pack's tools by their verb alone
    const name = verbNamed.includes(pack.id)
      ? command.verb_key.replace(/\./g, "_")
      : toolName(pack.id, command.verb_key);
    const label = `${pack.id}.${command.verb_key}`;
    if (!TOOL_NAME_RE.test(name)) {
      problems.push({
        code: "tool_name",
        message:
          name.length > 64
            ? `the tool name of ${label}, '${name}', is ${name.length} characters; tool names are at most 64 (^[a-zA-Z0-9_-]{1,64}$)`
            : `the tool name of ${label}, '${name}', does not match ^[a-zA-Z0-9_-]{1,64}$`,
        ...where(pack, command),
        hint: "shorten the verb_key (or the pack id) so that <pack>__<verb_with_dots_as_underscores> fits in 64 characters",
      });
    }
    const prev = seen.get(name);
    if (prev) {
      problems.push({
        code: "tool_name_collision",
        message: `${label} and ${prev} both map to the tool name '${name}'`,
        ...where(pack, command),
        hint: verbNamed.includes(pack.id)
          ? `pack ${pack.id} is named by verb alone (config mcp.tool_names): rename the verb, or drop that setting`
          : "rename one of the verbs: dots become underscores in tool names, so `a.b` and `a_b` collide",
      });
    } else seen.set(name, label);
    names.set(command, name);
  }
  if (problems.length) throw new HcpxError(problems);
  return names;
}

// ---- dialects ----

export function toMcp(t: ToolDef): Record<string, unknown> {
  const o: Record<string, unknown> = { name: t.name, description: t.description, inputSchema: t.inputSchema };
  if (t.annotations) o.annotations = t.annotations;
  return o;
}

export function toAnthropic(t: ToolDef): Record<string, unknown> {
  return { name: t.name, description: t.description, input_schema: t.inputSchema };
}

/** OpenAI function tool (Chat Completions shape). `strict` is left unset: optional args stay optional. */
export function toOpenAI(t: ToolDef): Record<string, unknown> {
  return { type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } };
}

export type ToolDialect = "mcp" | "anthropic" | "openai";

/**
 * The tool list in one dialect: what `generate` writes to tools/<dialect>.json
 * and what the library's `tools(shape)` returns (one source, src/lib/).
 */
export function toolList(tools: ToolDef[], dialect: ToolDialect): Record<string, unknown>[] {
  return tools.map(dialect === "anthropic" ? toAnthropic : dialect === "openai" ? toOpenAI : toMcp);
}

// The projection of the activated packs for the Principal: one in-memory value
// that generate, adopt and mcp render from. Deterministic: packs sorted by id,
// commands in surface order, no timestamps, no absolute paths, LF endings.
// Ungranted commands appear nowhere; every confirm-gated write carries its marker.
import { sha256Hex } from "../util/argshash";
import { grantedCommands } from "../pack/grants";
import type { Command, Pack, Project } from "../pack/model";
import { loadSkill } from "../pack/skill";
import { HcpxError } from "../util/errors";
import { display } from "../util/paths";
import { filterDescription, filterLeads, rowCell, skillCopy } from "./skillcopy";
import {
  CONFIRM_MARKER,
  READ_SKILL_TOOL,
  SHELL_TOOL,
  boundedList,
  checkToolNames,
  commandTool,
  readSkillTool,
  shellTool,
} from "./tools";
import type { BlockOptions, ProjectedPack, ProjectedSkill, Projection, ToolDef } from "./types";
import { callable } from "../pack/adapters/index";

export interface BuildOptions extends BlockOptions {
  /**
   * Where the Skill copies are, relative to the project root (posix), as the
   * prompt block tells the agent. Default `.hcp/generated/skills`.
   */
  skillsPath?: string;
  /** The MCP export only: pack ids whose tools are named by verb alone (config mcp.tool_names, docs/inputs.md). */
  verbToolNames?: readonly string[];
}

export type { BlockOptions };

export const DEFAULT_SKILLS_PATH = ".hcp/generated/skills";
const SKILL_NAME_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

const byId = (a: { pack: Pack }, b: { pack: Pack }) => (a.pack.id < b.pack.id ? -1 : a.pack.id > b.pack.id ? 1 : 0);

/**
 * The prompt block's hash: sha256 (hex), its first 16 digits, through src/util/argshash.ts sha256Hex: an
 * `hcpx mcp` start building its tool list does not load node:crypto for this one hash (~25 M instructions,
 * src/util/builtins.ts), and generate's large blocks are still hashed natively.
 */
export function sha16(text: string): string {
  return sha256Hex(text).slice(0, 16);
}

/** `r`, `w`, `w, confirm required`: the compact marker of the prompt block. */
function marker(c: ProjectedPack["commands"][number]["command"]): string {
  const op = c.policy.operation === "read" ? "r" : "w";
  return c.policy.confirm ? `${op}, ${CONFIRM_MARKER}` : op;
}

export function buildProjection(project: Project, packs: Pack[], opts: BuildOptions = {}): Projection {
  const skillsPath = (opts.skillsPath ?? DEFAULT_SKILLS_PATH).replace(/\\/g, "/").replace(/\/+$/, "");
  const projected: (ProjectedPack & { skillText: string })[] = [];
  const summaries = new Map<Command, string>();
  for (const pack of packs) {
    const granted = grantedCommands(project.grants, pack);
    const senseOnly = !callable(pack.surface.kind);
    if (granted.length === 0 && !senseOnly) continue;
    if (!SKILL_NAME_RE.test(pack.id)) {
      throw new HcpxError({
        code: "skill_name",
        message: `pack id '${pack.id}' is not a valid Agent Skills name`,
        file: display(pack.surfaceFile),
        path: "id",
        hint: "use lower-case words joined by single hyphens (no leading, trailing or double hyphen)",
      });
    }
    const withheld = pack.commands.filter((c) => !granted.includes(c)).map((c) => c.verb_key);
    const w = { packId: pack.id, verbs: withheld, all: pack.commands.map((c) => c.verb_key) };
    const skill = loadSkill(pack);
    let leads = filterLeads(skill.leads, w);
    if (leads.length === 0) {
      // No lead survives the grants: the surface description, as a lead (mentions of withheld commands cut
      // out), its line breaks folded: a lead is one line of the block (src/pack/leads.ts)
      const d = (filterLeads([pack.surface.description], w)[0] ?? "").replace(/\s+/g, " ").trim();
      leads = /[A-Za-z0-9]/.test(d) ? [`${pack.id}: ${d}`] : [];
    }
    // A pass_through verb has only a synthesised summary; its Skill row says what it does, as the copy shows it.
    for (const c of granted) {
      const row = c.passThrough ? skill.rows.find((r) => r.verb === c.verb_key) : undefined;
      const said = row?.cells[1] ? rowCell(row.cells[1], w) : "";
      if (/[A-Za-z0-9]/.test(said)) summaries.set(c, said);
    }
    const skillText = skillCopy(skill, { id: pack.id, version: pack.surface.version }, leads, granted, w);
    projected.push({
      pack,
      commands: granted.map((command) => ({ command, toolName: "" })),
      withheld,
      leads,
      description: filterDescription(String(skill.frontmatter.description), w),
      skillText,
    });
  }
  projected.sort(byId);

  const names = checkToolNames(
    projected.flatMap((p) => p.commands.map((c) => ({ pack: p.pack, command: c.command }))),
    opts.verbToolNames,
  );
  for (const p of projected) for (const c of p.commands) c.toolName = names.get(c.command)!;

  const ids = projected.map((p) => p.pack.id);
  const tools: ToolDef[] = projected.flatMap((p) =>
    p.commands.map((c) => commandTool(p.pack.id, c.command, c.toolName, summaries.get(c.command))),
  );
  const readSkill = readSkillTool(ids);
  tools.push(readSkill);
  const shell = shellTool(projected);

  const skills: ProjectedSkill[] = projected.map((p) => ({ packId: p.pack.id, content: p.skillText }));
  const packsOut: ProjectedPack[] = projected.map(({ skillText: _s, ...rest }) => rest);
  return {
    packs: packsOut,
    ...promptBlock(packsOut, skillsPath, opts),
    shellTool: shell,
    tools,
    readSkillTool: readSkill,
    skills,
  };
}

function promptBlock(
  packs: ProjectedPack[],
  skillsPath: string,
  opts: BlockOptions,
): { promptBlock: string; hash: string } {
  const body = promptBody(packs, skillsPath, opts);
  const hash = sha16(body);
  return { promptBlock: `<!-- hcp:prompt sha256:${hash} -->\n${body}`, hash };
}

/**
 * The same projection with a prompt block that names another skills dir (each
 * host reads its Skill copies from its own dir). Only the block is rendered
 * again; everything else is shared.
 */
export function withSkillsPath(projection: Projection, skillsPath: string, opts: BlockOptions = {}): Projection {
  return { ...projection, ...promptBlock(projection.packs, skillsPath.replace(/\\/g, "/").replace(/\/+$/, ""), opts) };
}

function promptBody(packs: ProjectedPack[], skillsPath: string, opts: BlockOptions): string {
  const shell = !opts.remote && (opts.shell ?? true);
  const shellCommand = opts.shellCommand ?? "hcpx";
  const server = opts.server ?? "hcp";
  const L: string[] = [];
  L.push("## Packs (Harness Context Protocol)", "");
  // a remote server serves its own packs: none here is no reason to say none are granted
  if (packs.length === 0 && !opts.remote) {
    L.push("No pack commands are granted to you.");
    return L.join("\n") + "\n";
  }
  const shellWay = `\`${shellCommand} exec <pack> <verb> --json -- key=value …\` (shell${shellCommand === "hcpx" ? "" : `; \`hcpx\` is not on PATH here: this is the command the ${server} MCP entry runs`})`;
  const argvNote = shell
    ? `A pass_through verb takes literal words after \`--\` instead of key=value${opts.tools ? " (`argv` in a tool call)" : ""}.`
    : "A pass_through verb takes literal words (`argv`) instead of args.";
  const gate = opts.gate ? ` ${opts.gate}` : "";
  const confirmLine = shell
    ? `A write marked "${CONFIRM_MARKER}" runs only with \`--confirm\` (\`confirm: true\` in a tool call): ask the user first.${gate}`
    : `A write marked "${CONFIRM_MARKER}" runs only with \`confirm: true\` in the tool call: ask the user first.${gate}`;
  let how: string;
  switch (opts.remote ? "remote" : opts.tools) {
    case "remote":
      how = `The ${server} MCP server is a remote hcpx server, not this machine's: run a pack's command with its tools (its tool list names them, in the shape that server serves); it serves the packs it grants you there${packs.length ? ", which may differ from the ones below" : ""}.`;
      break;
    case "single":
      how = `Run a pack's command with the \`${SHELL_TOOL}\` tool of the ${server} MCP server ({pack, verb, args, confirm})${shell ? `, or with ${shellWay}` : ""}.`;
      break;
    case "per-command":
      how = `Each granted command is a tool of the ${server} MCP server named \`<pack>__<verb>\` (dots in the verb become \`_\`), taking the verb's args${shell ? `; or run it with ${shellWay}` : ""}.`;
      break;
    case "mixed":
      how = `Run a pack's command with the tools of the ${server} MCP server (its tool list names them)${shell ? `, or with ${shellWay}` : ""}.`;
      break;
    default:
      how = shell
        ? `Run a pack's command with ${shellWay}, the \`${SHELL_TOOL}\` tool ({pack, verb, args, confirm}), or in a tool loop the tool \`<pack>__<verb>\` (dots in the verb become \`_\`).`
        : `Run a pack's command with the \`${SHELL_TOOL}\` tool ({pack, verb, args, confirm}), or in a tool loop the tool \`<pack>__<verb>\` (dots in the verb become \`_\`).`;
  }
  L.push(
    `${how} ${argvNote}`,
    confirmLine,
    `Before the first use of a pack, read its Skill: the \`${READ_SKILL_TOOL}\` tool with \`{"pack": "<pack>"}\`${packs.length ? `, or \`${skillsPath}/<pack>/SKILL.md\`` : ""}.`,
  );
  if (packs.length === 0) return L.join("\n") + "\n";
  L.push("", `Each verb below is marked r (read) or w (write); "${CONFIRM_MARKER}" marks a gated write.`);
  return L.join("\n") + "\n" + packLines(packs) + "\n";
}

/**
 * The packs' part of the block, which no option changes: rendered once per projection's packs (the
 * block is rendered again for each host's Skill path: ~1.2 MB of it at 5,000 packs, each time).
 */
const PACK_LINES = new WeakMap<ProjectedPack[], string>();

function packLines(packs: ProjectedPack[]): string {
  let text = PACK_LINES.get(packs);
  if (text !== undefined) return text;
  const L: string[] = [];
  for (const p of packs) {
    L.push("", `### ${p.pack.id}`, ...p.leads);
    if (p.commands.length === 0) L.push("Observes only: no commands (never call it as a tool).");
    else
      L.push(
        `Verbs: ${boundedList(
          p.commands.map((c) => `${c.command.verb_key} (${marker(c.command)})`),
          `the Skill lists every verb with its marker`,
        )}`,
      );
  }
  PACK_LINES.set(packs, (text = L.join("\n")));
  return text;
}

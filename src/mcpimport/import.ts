// An MCP server's tool list → an `mcp` pack: one named command per tool
// (arguments from the tool's input schema), a draft Policy from the tool
// annotations, and a SKILL.md with the hot-path table. Pure functions: the
// CLI command (src/cli/commands/pack-from-mcp.ts) talks to the server and
// writes the files. The annotations are the server's hints (untrusted): the
// rows are a draft the person reviews, and lint warns until they have.
import { bidiEscaped } from "../util/bidi";
import { codeSpan, firstSentence, oneLine } from "../util/prose";
import { ARG_NAME_RE } from "../pack/schema";
import { isObj } from "../util/is";
import { defaultProblem } from "../pack/arg-rules";
import { destructiveWords, writeNameWords } from "../pack/destructive";
import { RESERVED_KEYS } from "../pack/validate";
import { fittedVerb, verbFromTool } from "./verbs";

type Json = Record<string, unknown>;

export { verbFromTool };

export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    openWorldHint?: boolean;
    idempotentHint?: boolean;
    title?: string;
  };
}

export interface DraftArg {
  type: "string" | "integer" | "number" | "boolean" | "enum" | "json";
  required?: boolean;
  description?: string;
  values?: (string | number)[];
  default?: string | number | boolean;
}

export interface DraftCommand {
  verb_key: string;
  tool: string;
  summary: string;
  description?: string;
  args: Record<string, DraftArg>;
  operation: "read" | "write";
  land?: "local" | "external";
  confirm: boolean;
  /** the row is a guess (no annotation said read-only or destructive) */
  inferred: boolean;
  /** which annotation decided the row, for the person reviewing it */
  why: string;
}

export interface McpDraft {
  id: string;
  description: string;
  version: string;
  server: { name?: string; version?: string };
  bin: string;
  args: string[];
  env: string[];
  commands: DraftCommand[];
  /** tools left out, and why */
  notes: string[];
  /** per tool name of a command: hashes of what the person reviews (src/runtime/mcp-pins.ts) */
  pins?: Record<string, Record<string, string>>;
  /** a remote server (then bin and args are unused) and its headers (a credential only as a Binding reference) */
  url?: string;
  headers?: Record<string, string | { env: string; scheme?: string }>;
}

function argFrom(schema: unknown): DraftArg {
  if (!isObj(schema)) return { type: "json" };
  let s: Json = schema;
  for (const k of ["anyOf", "oneOf"]) {
    const alts = s[k];
    if (Array.isArray(alts) && s.type === undefined) {
      const nonNull = alts.filter((a) => isObj(a) && a.type !== "null");
      if (nonNull.length === 1 && isObj(nonNull[0]))
        s = { ...nonNull[0], description: s.description ?? nonNull[0].description };
      else return { type: "json", ...(oneLine(s.description) ? { description: oneLine(s.description) } : {}) };
    }
  }
  const description = oneLine(s.description);
  let type = s.type;
  if (Array.isArray(type)) {
    const t = type.filter((x) => x !== "null");
    type = t.length === 1 ? t[0] : undefined;
  }
  const withDesc = (a: DraftArg): DraftArg => (description ? { ...a, description } : a);
  const dflt = (a: DraftArg): DraftArg => {
    const d = s.default;
    // a default that is not a value of the arg would fail the pack at load (src/pack/arg-rules.ts): left out
    if ((typeof d === "string" || typeof d === "number" || typeof d === "boolean") && a.type !== "json")
      return defaultProblem(a, d, false) ? a : { ...a, default: d };
    return a;
  };
  if (Array.isArray(s.enum) && s.enum.length > 0 && s.enum.every((x) => typeof x === "string" || typeof x === "number"))
    return dflt(withDesc({ type: "enum", values: s.enum as (string | number)[] }));
  switch (type) {
    case "string":
      return dflt(withDesc({ type: "string" }));
    case "integer":
      return dflt(withDesc({ type: "integer" }));
    case "number":
      return dflt(withDesc({ type: "number" }));
    case "boolean":
      return dflt(withDesc({ type: "boolean" }));
    default:
      return withDesc({ type: "json" });
  }
}

/**
 * The draft Policy row from a tool's annotations (MCP: destructiveHint and openWorldHint default to true). A
 * readOnlyHint tool is a read, reviewed, unless its own name or description says it destroys something, or its
 * name says it writes (src/pack/destructive.ts): then write + confirm, inferred, the words in `why`.
 */
export function policyFrom(
  t: Pick<McpToolInfo, "name" | "description" | "annotations">,
): Pick<DraftCommand, "operation" | "land" | "confirm" | "inferred" | "why"> {
  const a = t.annotations;
  const land = a?.openWorldHint === false ? ("local" as const) : ("external" as const);
  const destroys = a?.readOnlyHint === true ? destructiveWords([t.name, t.description]) : undefined;
  // a name that says it writes (`write_file`, `send_email`): a read activate would grant, were the hint believed
  const writes = a?.readOnlyHint === true && !destroys ? writeNameWords(t.name) : undefined;
  if (destroys || writes) {
    const said = (destroys ?? writes)!.map((w) => `"${w}"`).join(", ");
    return {
      operation: "write",
      land,
      confirm: true,
      inferred: true,
      why: `readOnlyHint, but its name${destroys ? " or description" : ""} says ${said}: drafted write + confirm`,
    };
  }
  // a server that calls a tool read-only and destructive at once: its word is no read
  if (a?.readOnlyHint === true && a.destructiveHint === true)
    return {
      operation: "write",
      land,
      confirm: true,
      inferred: true,
      why: "readOnlyHint and destructiveHint both: drafted write + confirm",
    };
  if (a?.readOnlyHint === true) return { operation: "read", confirm: false, inferred: false, why: "readOnlyHint" };
  if (a?.destructiveHint === true)
    return { operation: "write", land, confirm: true, inferred: false, why: "destructiveHint" };
  // a non-destructive write that reaches the outside world (openWorldHint) still waits for a confirm
  if (a?.destructiveHint === false)
    return {
      operation: "write",
      land,
      confirm: land === "external",
      inferred: true,
      why: `not readOnlyHint, destructiveHint: false${land === "external" ? ", openWorldHint" : ""}`,
    };
  // no hint: MCP's default for a non-read-only tool is destructive, so it waits for a confirm
  return { operation: "write", land, confirm: true, inferred: true, why: "no readOnlyHint or destructiveHint" };
}

/** A tool's inputSchema as hcpx args, or the first property name hcpx cannot take (`bad`). */
function argsFromSchema(inputSchema: unknown): { args: Record<string, DraftArg>; bad?: string } {
  const schema = isObj(inputSchema) ? inputSchema : {};
  const props = isObj(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((x): x is string => typeof x === "string") : [],
  );
  const args: Record<string, DraftArg> = {};
  for (const [name, p] of Object.entries(props)) {
    if (!ARG_NAME_RE.test(name)) return { args, bad: name };
    // the tool call's flag of a gated write, and JavaScript's own names (a pack that holds one does not load)
    if (name === "confirm" || RESERVED_KEYS.has(name)) return { args, bad: name };
    const a = argFrom(p);
    args[name] = required.has(name) ? { ...a, required: true } : a;
  }
  return { args };
}

export function draftFromTools(
  tools: readonly McpToolInfo[],
  opts: {
    id: string;
    bin: string;
    args: string[];
    env: string[];
    server: { name?: string; version?: string; title?: string };
  },
): McpDraft {
  const notes: string[] = [];
  const commands: DraftCommand[] = [];
  const used = new Set<string>();
  const usedTool = new Set<string>();
  for (const t of tools) {
    if (typeof t?.name !== "string" || t.name === "") {
      notes.push("a tool without a name was left out");
      continue;
    }
    let verb = verbFromTool(t.name);
    // the name keys the pin (mcp.pins) and the verb the Policy row: JavaScript's own names key neither
    if (!verb || RESERVED_KEYS.has(verb) || RESERVED_KEYS.has(t.name)) {
      notes.push(`tool '${t.name}': its name gives no verb_key${verb ? " hcpx can use" : ""}; left out`);
      continue;
    }
    const { args, bad } = argsFromSchema(t.inputSchema);
    if (bad !== undefined) {
      notes.push(`tool '${t.name}': its argument '${bad}' cannot be an hcpx argument name; left out`);
      continue;
    }
    // taken: the verb, or the host tool name it makes (dots become `_`: `a.b` and `a_b` meet as `<pack>__a_b`)
    verb = fittedVerb(verb, t.name, opts.id, (v) => used.has(v) || usedTool.has(v.replace(/\./g, "_")), notes);
    used.add(verb);
    usedTool.add(verb.replace(/\./g, "_"));
    const summary =
      firstSentence(t.description, 2000) ??
      oneLine(t.title ?? t.annotations?.title) ??
      `Call the server's tool ${oneLine(t.name) ?? verb}`;
    const description = oneLine(t.description, 1000);
    commands.push({
      verb_key: verb,
      tool: t.name,
      summary,
      ...(description && description !== summary ? { description } : {}),
      args,
      ...policyFrom(t),
    });
  }
  const title = oneLine(opts.server.title) ?? oneLine(opts.server.name) ?? opts.id;
  return {
    id: opts.id,
    description: `${title}: an MCP server's tools as hcpx commands (drafted by hcpx pack from-mcp)`,
    // one line: the pack's version lands in its Skill copies (src/projection/skillcopy.ts); mcp.server records the server's words as said
    version: oneLine(opts.server.version, 40) ?? "0.0.0",
    server: {
      ...(opts.server.name ? { name: opts.server.name } : {}),
      ...(opts.server.version ? { version: opts.server.version } : {}),
    },
    bin: opts.bin,
    args: opts.args,
    env: opts.env,
    commands,
    notes,
  };
}

const q = (s: string) => JSON.stringify(s);

export function renderSurface(d: McpDraft): string {
  const surface: Json = {
    hcp: "1.1",
    id: d.id,
    version: d.version,
    description: d.description,
    kind: "mcp",
    mcp: {
      ...(d.url !== undefined
        ? { url: d.url, ...(d.headers ? { headers: d.headers } : {}) }
        : { bin: d.bin, args: d.args }),
      ...(Object.keys(d.server).length ? { server: d.server } : {}),
      ...(d.pins ? { pins: d.pins } : {}),
    },
    ...(d.env.length ? { binding: { env: d.env } } : {}),
    commands: d.commands.map((c) => ({
      verb_key: c.verb_key,
      tool: c.tool,
      summary: c.summary,
      ...(c.description ? { description: c.description } : {}),
      args: c.args,
    })),
  };
  const what =
    d.url !== undefined
      ? "at mcp.url (its headers' credentials come from the Binding)"
      : "started by mcp.bin + mcp.args (a bare bin resolves through sandbox.bins)";
  return bidiEscaped(
    `// ${d.id} — drafted by \`hcpx pack from-mcp\`. Each command calls one tool of the MCP server\n// ${what}. Review the\n// verb_keys and args.\n${JSON.stringify(surface, null, 2)}\n`,
  );
}

export function renderPolicy(d: McpDraft): string {
  const rows = d.commands.map((c) => {
    const parts = [`operation: ${q(c.operation)}`];
    if (c.operation === "write") {
      if (c.land) parts.push(`land: ${q(c.land)}`);
      if (c.confirm) parts.push("confirm: true");
    }
    if (c.inferred) parts.push("inferred: true");
    return `    ${q(c.verb_key)}: { ${parts.join(", ")} }, // ${c.why}`;
  });
  return bidiEscaped(
    `// Draft Policy from the server's tool annotations (\`hcpx pack from-mcp\`): readOnlyHint ->\n// read, but write + confirm, marked inferred, when the tool's name or description says delete,\n// wipe, destroy, purge, drop, reset or remove, or its name says it writes (write, create, send…);\n// destructiveHint -> write with confirm; otherwise\n// write, marked inferred. The annotations are the server's own claims: review every row\n// (operation, land, confirm), then remove the \`inferred\` marks (hcpx grants no row still\n// marked inferred by default).\n{\n  rows: {\n${rows.join("\n")}\n  },\n}\n`,
  );
}

function cell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\s+/g, " ");
}

/**
 * Items joined by ", " while `head + list` stays within `budget` characters, whole items
 * only: a list cut mid-name ("edit_f…") would name a command that does not exist, and
 * outlive a withheld command's removal. Items that do not fit are left out (the Skill
 * lists every command).
 */
function fitList(head: string, items: string[], budget: number): string {
  let out = "";
  for (const it of items) {
    const next = out ? `${out}, ${it}` : it;
    if (head.length + next.length > budget) break;
    out = next;
  }
  return out;
}

/** The lead and the description of a from-mcp Skill: every command named as a list item, so that withholding one cuts it cleanly. */
export function skillText(d: McpDraft): { lead: string; description: string } {
  const reads = d.commands.filter((c) => c.operation === "read").map((c) => c.verb_key);
  const confirms = d.commands.filter((c) => c.confirm).map((c) => c.verb_key);
  let lead = `${d.id}: ${oneLine(d.server.name, 40) ?? "MCP server"} tools`;
  const r = fitList(`${lead}; reads: `, reads, 118);
  if (r) lead += `; reads: ${r}`;
  const c = fitList(`${lead}; confirm: `, confirms, 118);
  if (c) lead += `; confirm: ${c}`;
  // the commands as code spans: a projection cuts a withheld one out of the description (a plain word is prose and stays)
  const head = `${d.description}. Commands: `;
  const list = fitList(
    head,
    d.commands.map((x) => `\`${x.verb_key}\``),
    998,
  );
  return { lead, description: list ? `${head}${list}.` : `${d.description}.` };
}

export function renderSkill(d: McpDraft): string {
  const { lead, description: desc } = skillText(d);
  const example = d.commands.find((c) => c.operation === "read") ?? d.commands[0];
  const exArgs = example
    ? Object.entries(example.args)
        .filter(([, a]) => a.required)
        .map(([n, a]) => `${n}=<${a.type === "enum" ? (a.values ?? []).join("|") : a.type}>`)
    : [];
  const lines = [
    "---",
    `name: ${d.id}`,
    `description: ${q(desc)}`,
    "leads:",
    `  - ${q(lead)}`,
    "---",
    "",
    `# ${d.id}`,
    "",
    `The tools of the MCP server ${codeSpan(d.server.name ?? (d.url !== undefined ? new URL(d.url).host : d.bin))}${d.server.version ? ` ${oneLine(d.server.version, 40)}` : ""}, as hcpx commands: each call`,
    d.url !== undefined
      ? "reaches the remote server and calls one tool. Arguments of type json take a JSON value"
      : "starts the server, calls one tool and stops it. Arguments of type json take a JSON value",
    "(an array or an object) — on the command line, write it as JSON after `name=`.",
    "Drafted by `hcpx pack from-mcp`: the Policy comes from the server's annotations — review it.",
    "",
    ...(example
      ? ["```sh", `hcpx exec ${d.id} ${example.verb_key}${exArgs.length ? ` -- ${exArgs.join(" ")}` : ""}`, "```", ""]
      : []),
    "## Hot path",
    "",
    "| verb | what it does | read/write |",
    "|---|---|---|",
    ...d.commands.map(
      (c) => `| \`${c.verb_key}\` | ${cell(c.summary)} | ${c.operation}${c.confirm ? ", confirm" : ""} |`,
    ),
    "",
  ];
  return lines.join("\n");
}

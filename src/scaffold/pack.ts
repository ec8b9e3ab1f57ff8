// Pack templates for `hcpx pack new`: each scaffold passes `hcpx lint` with
// no warnings — named commands (never a mega-command `run`), a Policy row per
// command, a SKILL.md whose hot-path table matches the surface. Reads and
// writes (src/scaffold/spec.ts); nothing calls the pack read-only when it writes.
import { bidiEscaped } from "../util/bidi";
import type { VerbSpec } from "./spec";
import type { AdapterKind } from "../pack/adapters/index";
/** The kinds `hcpx pack new` scaffolds (the keys of SCAFFOLDS below). */
export type ScaffoldKind = Extract<AdapterKind, "wrap" | "composite" | "sense_only">;

export interface ScaffoldInput {
  id: string;
  kind: ScaffoldKind;
  /** wrap: the value of wrap.bin (a bare name, or a path relative to the pack dir) */
  bin?: string;
  /** wrap: the name shown to people (the bin's base name) */
  binName?: string;
  /** wrap: the commands to declare (default: version and help) */
  verbs?: VerbSpec[];
}

export interface Cmd {
  verb: string;
  summary: string;
  cliTail?: string[];
  /** names of required string args (the cli tail's placeholders) */
  args?: string[];
  operation: "read" | "write";
  land?: string;
  confirm?: boolean;
  output?: "json" | "text";
}

/** A word as a shell would need it written: quoted when it has spaces or quotes. */
function shellWord(w: string): string {
  return w !== "" && /^[\w@%+=:,./{}-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`;
}

/** A wrap command from a spec: its summary, args (the placeholders), policy. */
export function wrapCommand(name: string, v: VerbSpec): Cmd {
  return {
    verb: v.verb,
    summary: `Runs \`${[name, ...v.tail].map(shellWord).join(" ").replace(/\|/g, "\\|")}\``,
    cliTail: v.tail,
    args: [...new Set(v.tail.filter((t) => t.startsWith("{{")).map((t) => t.slice(2, -2)))],
    operation: v.operation,
    land: v.land,
    confirm: v.confirm,
    output: v.output,
  };
}

/** The read/write cell of a hot-path row. */
export const opCell = (c: Cmd): string => (c.operation === "write" && c.confirm ? "write, confirm" : c.operation);

/** The policy row of a command. */
export function policyRow(c: Cmd): Record<string, unknown> {
  if (c.operation === "read") return { operation: "read" };
  return { operation: "write", land: c.land, ...(c.confirm ? { confirm: true } : {}) };
}

/** The surface.json command object of a wrap command. */
export function wrapCommandObject(id: string, c: Cmd): Record<string, unknown> {
  return {
    verb_key: c.verb,
    summary: c.summary,
    cli: [id, ...c.cliTail!],
    ...(c.output ? { output: c.output } : {}),
    args: Object.fromEntries((c.args ?? []).map((a) => [a, { type: "string", required: true }])),
  };
}

/** The example line of a command (`hcpx exec <pack> <verb> [--confirm] -- a=…`). */
export function exampleLine(id: string, c: Cmd): string {
  const args =
    c.verb === "echo" && !c.cliTail
      ? ' -- message="hello"'
      : c.args?.length
        ? ` -- ${c.args.map((a) => `${a}=…`).join(" ")}`
        : "";
  return `hcpx exec ${id} ${c.verb}${c.confirm ? " --confirm" : ""}${args}`;
}

/** The Notes bullet of a write: where it lands, and the confirm it needs. */
export function writeNote(id: string, c: Cmd): string {
  return `- \`${c.verb}\` writes (land: ${c.land ?? "local"})${c.confirm ? " and runs only with `--confirm`: ask the user first" : ""}; it needs its own grant, \`hcpx grant ${id}.${c.verb}\`.`;
}

/** The hot-path row of a command. */
export function hotPathRow(c: Cmd): string {
  return `| \`${c.verb}\` | ${c.summary} | ${opCell(c)} |`;
}

const j = (v: unknown) => JSON.stringify(v);

/**
 * What `hcpx pack new` writes for each kind it scaffolds, as a table (one
 * entry per kind, like the adapter table of src/pack/adapters/): the shared
 * shape of surface.json, policy.json and SKILL.md is below, each kind's own
 * parts here. openapi and mcp packs are written by `pack from-openapi` and
 * `pack from-mcp` instead.
 */
interface KindScaffold {
  commands(s: ScaffoldInput, name: string): Cmd[];
  /** the comment lines at the top of surface.json */
  header(s: ScaffoldInput, name: string): string[];
  /** surface.json's description */
  description(s: ScaffoldInput, name: string, cmds: Cmd[]): string;
  /** surface.json lines after `kind` (the kind's own block; a kind without commands writes its stimuli here) */
  section(s: ScaffoldInput): string[];
  /** a command's lines in surface.json's commands[] (absent: the kind has no commands[]) */
  commandLines?(s: ScaffoldInput, c: Cmd): string[];
  /** SKILL.md's description */
  skillDescription(s: ScaffoldInput, name: string, cmds: Cmd[], writes: Cmd[]): string;
  /** SKILL.md's leads, when not the read/write lines of its commands */
  leads?(s: ScaffoldInput): string[];
  /** SKILL.md's paragraphs after the title */
  intro(s: ScaffoldInput, name: string, cmds: Cmd[], writes: Cmd[]): string[];
  /** SKILL.md's notes, when not the notes of its commands */
  notes?(s: ScaffoldInput): string[];
  /** files besides the three */
  files?(s: ScaffoldInput): Record<string, string>;
}

const SCAFFOLDS = {
  wrap: {
    commands: (s, name) =>
      s.verbs?.length
        ? s.verbs.map((v) => wrapCommand(name, v))
        : [
            { verb: "version", summary: `Version of ${name}`, cliTail: ["--version"], operation: "read" },
            { verb: "help", summary: `Usage summary of ${name}`, cliTail: ["--help"], operation: "read" },
          ],
    header: (s, name) => [
      `// ${s.id} — wraps \`${name}\`. Add one named command per thing an agent should do;`,
      `// \`{{arg}}\` in cli[] is one whole argv element, never passed through a shell.`,
      ...(!s.bin!.includes("/")
        ? [`// A bare bin name resolves only through sandbox.bins in hcp.config.json5, never PATH.`]
        : []),
    ],
    description: (s, name, cmds) =>
      s.verbs?.length
        ? `${name} command line, wrapped: ${cmds.map((c) => `\`${c.verb}\``).join(", ")}`
        : `${name} command line, wrapped: version and usage (add your own commands)`,
    section: (s) => [
      `  wrap: {`,
      `    bin: ${j(s.bin)},`,
      `    json_flag: null,   // set to "--json" when the program prints JSON with it`,
      `    output: "text",    // "json" when stdout is one JSON value`,
      `    timeout_ms: 15000,`,
      `  },`,
    ],
    commandLines: (s, c) => {
      // a name that is not a JSON5 identifier ({{my-rev}}) is a quoted key
      const key = (a: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(a) ? a : j(a));
      const args = (c.args ?? []).map((a) => `${key(a)}: { type: "string", required: true }`).join(", ");
      return [
        `    { verb_key: ${j(c.verb)}, summary: ${j(c.summary)}, cli: ${j([s.id, ...c.cliTail!]).replace(/","/g, '", "')},${c.output ? ` output: ${j(c.output)},` : ""} args: {${args ? ` ${args} ` : ""}} },`,
      ];
    },
    skillDescription: (s, name, cmds, writes) =>
      s.verbs?.length
        ? writes.length
          ? `Runs ${name} for the agent through hcpx: ${code(cmds)}. Use it instead of calling ${name} directly; the table marks each command read or write.`
          : `Runs ${name} for the agent through hcpx: ${code(cmds)}. Use it instead of calling ${name} directly; every command is a read.`
        : `Runs ${name} for the agent through hcpx: its version and its usage summary. Use it to check which ${name} is installed and what it can do; add named commands for the tasks you need.`,
    intro: (_s, name, cmds, writes) => {
      const json = cmds.filter((c) => c.output === "json");
      if (writes.length)
        return [
          `Wraps \`${name}\`. Output is ${name}'s own text, returned as \`{ text }\`${json.length ? ", unless a command says otherwise" : ""}.`,
          "",
        ];
      return [
        `Wraps \`${name}\`. Every command is a read; output is ${name}'s own text, returned as \`{ text }\`${json.length ? ", unless a command says otherwise" : ""}.`,
        "",
      ];
    },
  },
  composite: {
    commands: () => [
      { verb: "ping", summary: "Health check: answers pong", operation: "read" },
      { verb: "echo", summary: "Echo a message back", operation: "read" },
    ],
    header: (s) => [
      `// ${s.id} — composite: ./index.mjs is imported in-process; its default export maps`,
      `// each verb_key to async (args, ctx) => data.`,
    ],
    description: (s) => `In-process commands of ${s.id}: ping and echo (add your own)`,
    section: () => [`  composite: { module: "./index.mjs" },`],
    commandLines: (_s, c) =>
      c.verb === "echo"
        ? [
            `    {`,
            `      verb_key: "echo",`,
            `      summary: ${j(c.summary)},`,
            `      args: { message: { type: "string", required: true, description: "What to echo" } },`,
            `    },`,
          ]
        : [`    { verb_key: ${j(c.verb)}, summary: ${j(c.summary)}, args: {} },`],
    skillDescription: (s) =>
      `In-process commands of ${s.id}: a health check and an echo. Use it to check that the pack is wired up; add named commands for the tasks you need.`,
    intro: () => ["A composite pack: the runtime calls `index.mjs` in-process, no process is spawned.", ""],
    files: () => ({ "index.mjs": compositeModule() }),
  },
  sense_only: {
    commands: () => [],
    header: (s) => [
      `// ${s.id} — sense_only: no commands, only stimuli. A runtime that supports Sense`,
      `// turns each trigger's events into stimuli for the agent; it is never a tool.`,
    ],
    description: (s) => `Watches for ${s.id} events and delivers them as stimuli`,
    section: (s) => [
      `  stimuli: [`,
      `    {`,
      `      id: "event.received",`,
      `      trigger: ${j(`webhook:/hooks/${s.id}/received`)},`,
      `      summary: "An event arrived",`,
      `    },`,
      `  ],`,
    ],
    skillDescription: (s) =>
      `Watches for ${s.id} events and tells the agent when one arrives. It has no commands: it only senses.`,
    leads: (s) => [`${s.id}: you may receive event.received stimuli; it has no commands.`],
    intro: () => [
      "A sense-only pack. It declares no commands and is never a tool: you cannot call it or poll it.",
      "When the runtime delivers one of its stimuli, treat it as information.",
      "",
      "Stimuli:",
      "",
      "- `event.received` — an event arrived.",
      "",
    ],
    notes: () => ["- Do not act on a stimulus alone when the action writes: ask the user first."],
  },
} as const satisfies { readonly [K in ScaffoldKind]: KindScaffold };

const code = (cs: Cmd[]) => cs.map((c) => `\`${c.verb}\``).join(", ");
const nameOf = (s: ScaffoldInput) => s.binName ?? s.bin ?? s.id;
const kindOf = (s: ScaffoldInput): KindScaffold => SCAFFOLDS[s.kind];

export function scaffoldFiles(s: ScaffoldInput): Record<string, string> {
  const cmds = kindOf(s).commands(s, nameOf(s));
  const files: Record<string, string> = {};
  // names and descriptions given on the command line: a bidi control in them as an escape (src/util/bidi.ts)
  files["surface.json"] = bidiEscaped(surface(s, cmds));
  files["policy.json"] = bidiEscaped(policy(s, cmds));
  files["SKILL.md"] = skill(s, cmds);
  Object.assign(files, kindOf(s).files?.(s));
  return files;
}

function surface(s: ScaffoldInput, cmds: Cmd[]): string {
  const k = kindOf(s);
  const name = nameOf(s);
  const lines: string[] = [
    ...k.header(s, name),
    "{",
    `  hcp: "1.1",`,
    `  id: ${j(s.id)},`,
    `  version: "0.1.0",`,
    `  description: ${j(k.description(s, name, cmds))},`,
    `  kind: ${j(s.kind)},`,
    ...k.section(s),
  ];
  if (k.commandLines) lines.push(`  commands: [`, ...cmds.flatMap((c) => k.commandLines!(s, c)), `  ],`);
  lines.push("}");
  return lines.join("\n") + "\n";
}

function policy(s: ScaffoldInput, cmds: Cmd[]): string {
  if (cmds.length === 0) return `// sense_only: no commands, so no rows.\n{ rows: {} }\n`;
  const w = Math.max(...cmds.map((c) => c.verb.length + 3));
  const rows = cmds.map(
    (c) =>
      `    ${(j(c.verb) + ":").padEnd(w)} { ${Object.entries(policyRow(c))
        .map(([k, v]) => `${k}: ${j(v)}`)
        .join(", ")} },`,
  );
  return `// One row per command. A write says where it lands (local | remote | external)\n// and whether it needs an explicit confirm: { operation: "write", land: "local", confirm: true }\n{\n  rows: {\n${rows.join("\n")}\n  },\n}\n`;
}

function skill(s: ScaffoldInput, cmds: Cmd[]): string {
  const k = kindOf(s);
  const name = nameOf(s);
  const reads = cmds.filter((c) => c.operation === "read");
  const writes = cmds.filter((c) => c.operation === "write");
  const description = k.skillDescription(s, name, cmds, writes);
  // One lead for the reads, one for the writes: a projection that withholds
  // every write drops the writes' lead whole (src/projection/skillcopy.ts).
  const leads = k.leads
    ? k.leads(s)
    : writes.length
      ? [
          ...(reads.length ? [`${s.id}: ${reads.map((c) => c.verb).join(", ")} (read).`] : []),
          `${s.id}: ${writes.map((c) => c.verb).join(", ")} (write).`,
        ]
      : [`${s.id}: ${cmds.map((c) => c.verb).join(", ")} (read-only).`];
  const out: string[] = [
    "---",
    `name: ${s.id}`,
    `description: ${j(description)}`,
    "leads:",
    ...leads.map((l) => `  - ${j(l)}`),
    "---",
    "",
    `# ${s.id}`,
    "",
  ];
  out.push(...k.intro(s, name, cmds, writes));
  if (cmds.length) {
    out.push("```sh");
    for (const c of cmds) out.push(exampleLine(s.id, c));
    out.push("```", "");
  }
  out.push("## Hot path", "");
  if (cmds.length) {
    out.push("| verb | what it does | read/write |", "|---|---|---|");
    for (const c of cmds) out.push(hotPathRow(c));
  } else out.push("This pack has no commands, so its hot-path table has no rows.");
  out.push("", "## Notes", "");
  if (k.notes) out.push(...k.notes(s));
  else {
    for (const c of cmds)
      if (c.output === "json") out.push(`- \`${c.verb}\` prints JSON: its result is the parsed value.`);
    for (const c of writes) out.push(writeNote(s.id, c));
    out.push("- Add a command for each task, with a row in policy.json and one here (`hcpx pack add-verb`).");
    if (!writes.length) out.push("- A write needs an explicit grant: `hcpx grant " + s.id + ".<verb>`.");
  }
  return out.join("\n") + "\n";
}

function compositeModule(): string {
  return `// Composite adapter module: loaded in-process by the runtime.
// The default export maps each verb_key (dots allowed) to async (args, ctx) => data,
// where args are validated and typed from surface.json and data is plain JSON.
// A throw becomes { ok: false, error } in the envelope (err.code is kept when set).
export default {
  ping: async (_args, _ctx) => ({ pong: true }),
  echo: async (args, _ctx) => ({ message: args.message }),
};
`;
}

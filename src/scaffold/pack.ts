// Pack templates for `hcpx pack new`: each scaffold passes `hcpx lint` with
// no warnings — named commands (never a mega-command `run`), a Policy row per
// command, a SKILL.md whose hot-path table matches the surface.
export type ScaffoldKind = "wrap" | "composite" | "sense_only";

export interface ScaffoldInput {
  id: string;
  kind: ScaffoldKind;
  /** wrap: the value of wrap.bin (a bare name, or a path relative to the pack dir) */
  bin?: string;
  /** wrap: the name shown to people (the bin's base name) */
  binName?: string;
  /** wrap: the read commands to declare (default: version and help) */
  verbs?: ScaffoldVerb[];
}

export interface ScaffoldVerb {
  verb: string;
  /** argv after the CLI name; `{{name}}` elements become required string args */
  tail: string[];
}

interface Cmd {
  verb: string;
  summary: string;
  cliTail?: string[];
  /** names of required string args (the cli tail's placeholders) */
  args?: string[];
  operation: "read";
}

const j = (v: unknown) => JSON.stringify(v);

function commandsFor(s: ScaffoldInput): Cmd[] {
  if (s.kind === "wrap") {
    const name = s.binName ?? s.bin ?? s.id;
    if (s.verbs?.length) {
      return s.verbs.map((v) => ({
        verb: v.verb,
        summary: `Runs \`${[name, ...v.tail].join(" ")}\``,
        cliTail: v.tail,
        args: v.tail.filter((t) => t.startsWith("{{")).map((t) => t.slice(2, -2)),
        operation: "read" as const,
      }));
    }
    return [
      { verb: "version", summary: `Version of ${name}`, cliTail: ["--version"], operation: "read" },
      { verb: "help", summary: `Usage summary of ${name}`, cliTail: ["--help"], operation: "read" },
    ];
  }
  if (s.kind === "composite") {
    return [
      { verb: "ping", summary: "Health check: answers pong", operation: "read" },
      { verb: "echo", summary: "Echo a message back", operation: "read" },
    ];
  }
  return [];
}

export function scaffoldFiles(s: ScaffoldInput): Record<string, string> {
  const cmds = commandsFor(s);
  const files: Record<string, string> = {};
  files["surface.json"] = surface(s, cmds);
  files["policy.json"] = policy(s, cmds);
  files["SKILL.md"] = skill(s, cmds);
  if (s.kind === "composite") files["index.mjs"] = compositeModule();
  return files;
}

function surface(s: ScaffoldInput, cmds: Cmd[]): string {
  const name = s.binName ?? s.bin ?? s.id;
  const lines: string[] = [];
  if (s.kind === "wrap") {
    lines.push(`// ${s.id} — wraps \`${name}\`. Add one named command per thing an agent should do;`);
    lines.push(`// \`{{arg}}\` in cli[] is one whole argv element, never passed through a shell.`);
    if (!s.bin!.includes("/")) lines.push(`// A bare bin name resolves only through sandbox.bins in hcp.config.json5, never PATH.`);
  } else if (s.kind === "composite") {
    lines.push(`// ${s.id} — composite: ./index.mjs is imported in-process; its default export maps`);
    lines.push(`// each verb_key to async (args, ctx) => data.`);
  } else {
    lines.push(`// ${s.id} — sense_only: no commands, only stimuli. A runtime that supports Sense`);
    lines.push(`// turns each trigger's events into stimuli for the agent; it is never a tool.`);
  }
  lines.push("{");
  lines.push(`  hcp: "1.1",`);
  lines.push(`  id: ${j(s.id)},`);
  lines.push(`  version: "0.1.0",`);
  const desc =
    s.kind === "wrap" ? (s.verbs?.length ? `${name} command line, wrapped: ${cmds.map((c) => c.verb).join(", ")}` : `${name} command line, wrapped: version and usage (add your own commands)`) : s.kind === "composite" ? `In-process commands of ${s.id}: ping and echo (add your own)` : `Watches for ${s.id} events and delivers them as stimuli`;
  lines.push(`  description: ${j(desc)},`);
  lines.push(`  kind: ${j(s.kind)},`);
  if (s.kind === "wrap") {
    lines.push(`  wrap: {`);
    lines.push(`    bin: ${j(s.bin)},`);
    lines.push(`    json_flag: null,   // set to "--json" when the program prints JSON with it`);
    lines.push(`    output: "text",    // "json" when stdout is one JSON value`);
    lines.push(`    timeout_ms: 15000,`);
    lines.push(`  },`);
  }
  if (s.kind === "composite") lines.push(`  composite: { module: "./index.mjs" },`);
  if (s.kind === "sense_only") {
    lines.push(`  stimuli: [`);
    lines.push(`    {`);
    lines.push(`      id: "event.received",`);
    lines.push(`      trigger: ${j(`webhook:/hooks/${s.id}/received`)},`);
    lines.push(`      summary: "An event arrived",`);
    lines.push(`    },`);
    lines.push(`  ],`);
  } else {
    lines.push(`  commands: [`);
    for (const c of cmds) {
      if (s.kind === "wrap") {
        const args = (c.args ?? []).map((a) => `${a}: { type: "string", required: true }`).join(", ");
        lines.push(`    { verb_key: ${j(c.verb)}, summary: ${j(c.summary)}, cli: ${j([s.id, ...c.cliTail!]).replace(/","/g, '", "')}, args: {${args ? ` ${args} ` : ""}} },`);
      } else if (c.verb === "echo") {
        lines.push(`    {`);
        lines.push(`      verb_key: "echo",`);
        lines.push(`      summary: ${j(c.summary)},`);
        lines.push(`      args: { message: { type: "string", required: true, description: "What to echo" } },`);
        lines.push(`    },`);
      } else lines.push(`    { verb_key: ${j(c.verb)}, summary: ${j(c.summary)}, args: {} },`);
    }
    lines.push(`  ],`);
  }
  lines.push("}");
  return lines.join("\n") + "\n";
}

function policy(s: ScaffoldInput, cmds: Cmd[]): string {
  if (cmds.length === 0) return `// sense_only: no commands, so no rows.\n{ rows: {} }\n`;
  const w = Math.max(...cmds.map((c) => c.verb.length + 3));
  const rows = cmds.map((c) => `    ${(j(c.verb) + ":").padEnd(w)} { operation: ${j(c.operation)} },`);
  return `// One row per command. A write says where it lands (local | remote | external)\n// and whether it needs an explicit confirm: { operation: "write", land: "local", confirm: true }\n{\n  rows: {\n${rows.join("\n")}\n  },\n}\n`;
}

function skill(s: ScaffoldInput, cmds: Cmd[]): string {
  const name = s.binName ?? s.bin ?? s.id;
  const description =
    s.kind === "wrap"
      ? s.verbs?.length
        ? `Runs ${name} for the agent through hcpx: ${cmds.map((c) => c.verb).join(", ")}. Use it instead of calling ${name} directly; every command is a read.`
        : `Runs ${name} for the agent through hcpx: its version and its usage summary. Use it to check which ${name} is installed and what it can do; add named commands for the tasks you need.`
      : s.kind === "composite"
        ? `In-process commands of ${s.id}: a health check and an echo. Use it to check that the pack is wired up; add named commands for the tasks you need.`
        : `Watches for ${s.id} events and tells the agent when one arrives. It has no commands: it only senses.`;
  const lead =
    s.kind === "sense_only" ? `${s.id}: you may receive event.received stimuli; it has no commands.` : `${s.id}: ${cmds.map((c) => c.verb).join(", ")} (read-only).`;
  const out: string[] = ["---", `name: ${s.id}`, `description: ${j(description)}`, "leads:", `  - ${j(lead)}`, "---", "", `# ${s.id}`, ""];
  if (s.kind === "wrap") {
    out.push(`Wraps \`${name}\`. Every command is a read; output is ${name}'s own text, returned as \`{ text }\`.`, "");
  } else if (s.kind === "composite") {
    out.push("A composite pack: the runtime calls `index.mjs` in-process, no process is spawned.", "");
  } else {
    out.push("A sense-only pack. It declares no commands and is never a tool: you cannot call it or poll it.", "When the runtime delivers one of its stimuli, treat it as information.", "");
    out.push("Stimuli:", "", "- `event.received` — an event arrived.", "");
  }
  if (cmds.length) {
    out.push("```sh");
    for (const c of cmds) out.push(`hcpx exec ${s.id} ${c.verb}${c.verb === "echo" ? ' -- message="hello"' : c.args?.length ? ` -- ${c.args.map((a) => `${a}=…`).join(" ")}` : ""}`);
    out.push("```", "");
  }
  out.push("## Hot path", "");
  if (cmds.length) {
    out.push("| verb | what it does | read/write |", "|---|---|---|");
    for (const c of cmds) out.push(`| \`${c.verb}\` | ${c.summary} | ${c.operation} |`);
  } else out.push("This pack has no commands, so its hot-path table has no rows.");
  out.push("", "## Notes", "");
  if (s.kind === "sense_only") out.push("- Do not act on a stimulus alone when the action writes: ask the user first.");
  else out.push("- Add a command for each task, with a row in policy.json and one here.", "- A write needs an explicit grant: `hcpx grant " + s.id + ".<verb>`.");
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

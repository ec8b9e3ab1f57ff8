// An import's files: surface.json, the draft policy.json and SKILL.md.
import { bidiEscaped } from "../util/bidi";
import { openapiLead, POLICY_LINE } from "../pack/skillsync";
import { codeSpan } from "../util/prose";
import { type ImportedArg, type ImportResult, type Json } from "./types";
import { envPrefix } from "./names";

const q = (s: string) => JSON.stringify(s);

/** Every Binding env name of the schemes. */
export function bindingEnv(r: ImportResult): string[] {
  return Object.values(r.schemes).flatMap((s) => (s.type === "basic" ? [s.username_env, s.password_env] : [s.env]));
}

export function renderSurface(r: ImportResult, documentFile: string): string {
  const env = bindingEnv(r);
  const surface: Json = {
    hcp: "1.1",
    id: r.id,
    version: r.version,
    description: r.description,
    kind: "openapi",
    openapi: {
      document: `./${documentFile}`,
      base_url: r.baseUrl,
      ...(Object.keys(r.schemes).length ? { schemes: r.schemes } : {}),
      ...(r.security ? { security: r.security } : {}),
    },
    ...(env.length ? { binding: { env } } : {}),
    commands: r.commands.map((c) => ({
      verb_key: c.verb_key,
      summary: c.summary,
      ...(c.description ? { description: c.description } : {}),
      http: c.http,
      args: c.args,
    })),
  };
  // one command per line: a 1,000-operation pack stays a readable, diffable file of moderate size
  const cmds = (surface.commands as Json[]).map((c) => `    ${JSON.stringify(c)}`).join(",\n");
  const head = JSON.stringify({ ...surface, commands: [] }, null, 2).replace(
    /"commands": \[\]\n\}$/,
    `"commands": [\n${cmds}\n  ]\n}`,
  );
  return bidiEscaped(
    `// ${r.id} — drafted by \`hcpx pack from-openapi\` from ${documentFile}. Review the verb_keys\n// and args; the runtime sends each command as an HTTP request (base URL override:\n// $HCP_${envPrefix(r.id)}_BASE_URL).\n${head}\n`,
  );
}

export function renderPolicy(r: ImportResult): string {
  const rows = r.commands.map(
    (c) =>
      `    ${q(c.verb_key)}: { operation: ${q(c.operation)}${c.operation === "write" ? `, land: ${q(c.land ?? "remote")}` : ""}${c.confirm ? ", confirm: true" : ""}, inferred: true },`,
  );
  return bidiEscaped(
    `// Draft Policy inferred by \`hcpx pack from-openapi\` (GET/HEAD -> read, but write + confirm when\n// its operationId, path, summary or description says delete, wipe, destroy, purge, drop, reset or\n// remove; other methods -> write, DELETE -> write + confirm, a write whose effect the document says\n// others see -> external + confirm). hcpx grants no row still marked inferred by default: review\n// each row (operation, land, confirm), remove the \`inferred\` marks, then run\n// \`hcpx pack sync <dir>\` to carry the review into SKILL.md.\n{\n  inferred: true,\n  rows: {\n${rows.join("\n")}\n  },\n}\n`,
  );
}

function cell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\s+/g, " ");
}

function credentialText(r: ImportResult): string {
  const parts = Object.entries(r.schemes).map(([name, s]) =>
    s.type === "bearer"
      ? `\`${s.env}\` as a bearer token (${name})`
      : s.type === "basic"
        ? `\`${s.username_env}\`/\`${s.password_env}\` as HTTP Basic (${name})`
        : `\`${s.env}\` as the ${s.in} ${s.in === "header" ? "header" : "parameter"} ${codeSpan(s.name)} (${name})`,
  );
  return parts.length ? ` with the user's credentials from the environment: ${parts.join("; ")}` : "";
}

function argHint(a: ImportedArg): string {
  if (a.type === "enum") return (a.values ?? []).join("|");
  if (a.type === "array") return "JSON array";
  if (a.type === "object") return "JSON object";
  return a.type;
}

export function renderSkill(r: ImportResult): string {
  const reads = r.commands.filter((c) => c.operation === "read").map((c) => c.verb_key);
  const confirms = r.commands.filter((c) => c.confirm).map((c) => c.verb_key);
  const lead = openapiLead(r.id, r.title, reads, confirms);
  const tags = [...new Set(r.commands.map((c) => c.tag))];
  const desc = `${r.description}${r.description.endsWith(".") ? "" : "."} ${r.commands.length} commands${tags.length > 1 ? ` by area: ${tags.join(", ")}` : `: ${r.commands.map((c) => c.verb_key).join(", ")}`}.`;
  const description = desc.length > 1000 ? desc.slice(0, 999).replace(/[,\s]+[^,\s]*$/, "") + "…" : desc;
  const example = r.commands.find((c) => c.operation === "read") ?? r.commands[0];
  const exArgs = example
    ? Object.entries(example.args)
        .filter(([, a]) => a.required)
        .map(([n, a]) => `${n}=<${argHint(a)}>`)
    : [];
  const lines = [
    "---",
    `name: ${r.id}`,
    `description: ${q(description)}`,
    "leads:",
    `  - ${q(lead)}`,
    "---",
    "",
    `# ${r.id}`,
    "",
    `${r.title}: an OpenAPI pack. The runtime sends each command as an HTTP request to`,
    `${codeSpan(/^[a-z]+:/i.test(r.baseUrl) ? r.baseUrl : `$HCP_${envPrefix(r.id)}_BASE_URL + ${r.baseUrl}`, 300)}${credentialText(r)}.`,
    POLICY_LINE.inferred,
    "Array and object arguments take JSON: `labels='[\"bug\"]'` on the command line, plain JSON in a tool call.",
    "",
    ...(example
      ? ["```sh", `hcpx exec ${r.id} ${example.verb_key}${exArgs.length ? ` -- ${exArgs.join(" ")}` : ""}`, "```", ""]
      : []),
    "## Hot path",
  ];
  for (const tag of tags) {
    const cmds = r.commands.filter((c) => c.tag === tag);
    if (tags.length > 1) lines.push("", `### ${cell(tag)}`);
    lines.push(
      "",
      "| verb | what it does | read/write |",
      "|---|---|---|",
      ...cmds.map((c) => `| \`${c.verb_key}\` | ${cell(c.summary)} | ${c.operation}${c.confirm ? ", confirm" : ""} |`),
    );
  }
  lines.push("");
  return lines.join("\n");
}

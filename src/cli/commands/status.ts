// hcpx status: active packs, granted and withheld commands (read/write/confirm),
// hosts adopted and where. A table on a TTY, the envelope with --json.
// Exit 0 when everything loads, 2 with warnings, 1 when a pack does not load (§12.1.7).
import { display } from "../../util/paths";
import { loadProject } from "../../pack/load";
import { isGranted } from "../../pack/grants";
import { loadActive, servedByScope } from "../../config/active";
import { readAdopted } from "../../config/adopted";
import type { CommonOpts } from "../../config/common";
import type { Problem } from "../../util/errors";
import { c, finish, makeOut, unpainted } from "../output";
import { callable } from "../../pack/adapters/index";
import { canonicalHost, loadDescriptor } from "../../host/descriptor";

/** The MCP server name a host's entry has in a scope (descriptor `servers`: the user scope's is apart). */
function serverOf(host: string, scope: string): string | undefined {
  try {
    const d = loadDescriptor(canonicalHost(host));
    return (scope === "user" || scope === "project" ? d.servers?.[scope] : undefined) ?? d.server ?? "hcp";
  } catch {
    return undefined; // a ledger naming a host hcpx does not know: the ledger's own check says so
  }
}

export interface StatusCommand {
  verb: string;
  name: string;
  operation: "read" | "write";
  land?: string;
  confirm: boolean;
  granted: boolean;
}

export async function run(opts: CommonOpts): Promise<number> {
  const out = makeOut(opts);
  const project = loadProject({ config: opts.config });
  const { packs, broken } = loadActive(project);
  const adopted = readAdopted(project.root);
  // which entry serves what: the project's (project scope) its own config's packs, the user-scope entry the user config's
  const own = (file: string | undefined) => (file ? loadProject({ config: file, user: false }).packDirs : []);
  const serves = servedByScope(packs, own(project.configFile), own(project.userConfigFile));
  const data = {
    config: project.configFile ?? null,
    userConfig: project.userConfigFile ?? null,
    principal: project.principal,
    grants: project.grants,
    packs: packs.map((p) => ({
      id: p.id,
      kind: p.surface.kind,
      version: p.surface.version,
      dir: p.dir,
      commands: p.commands.map(
        (cmd): StatusCommand => ({
          verb: cmd.verb_key,
          name: `${p.id}.${cmd.verb_key}`,
          operation: cmd.policy.operation,
          ...(cmd.policy.land ? { land: cmd.policy.land } : {}),
          confirm: cmd.policy.confirm,
          granted: isGranted(project.grants, p.id, cmd.verb_key),
        }),
      ),
      ...(!callable(p.surface.kind) ? { stimuli: (p.surface.stimuli ?? []).map((s) => s.id) } : {}),
    })),
    broken: broken.map((b) => ({ dir: b.dir, problems: b.problems })),
    serves,
    hosts: adopted.hosts.map((h) => ({ ...h, ...(serverOf(h.host, h.scope) ? { server: serverOf(h.host, h.scope) } : {}) })),
    ...(adopted.errors.length ? { ledgerErrors: adopted.errors } : {}),
    warnings: project.warnings as Problem[],
  };
  const code = broken.length ? 1 : project.warnings.length || adopted.errors.length ? 2 : 0;
  const why = broken.length
    ? { code: "broken_packs" as const, message: `${broken.length} activated pack(s) cannot be loaded`, hint: "run `hcpx lint` for each, or `hcpx deactivate <dir>`" }
    : { code: "warnings" as const, message: `${project.warnings.length + adopted.errors.length} warning(s) in the config or the adopt ledger`, hint: "see details.warnings and details.ledgerErrors" };
  return finish(out, code, data, code ? why : undefined, (col) => render(data, col));
}

type Data = {
  config: string | null;
  principal: { id: string; kind: string };
  packs: { id: string; kind: string; version: string; dir: string; commands: StatusCommand[]; stimuli?: string[] }[];
  broken: { dir: string; problems: Problem[] }[];
  userConfig: string | null;
  serves: { project: string[]; user: string[] };
  hosts: { host: string; scope: string; server?: string; files: string[] }[];
  ledgerErrors?: { file: string; message: string }[];
  warnings: Problem[];
};

function table(rows: string[][], col: boolean, header: boolean): string[] {
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => strip(r[i] ?? "").length)));
  return rows.map((r, ri) => {
    const line = r.map((cell, i) => (i === r.length - 1 ? cell : cell + " ".repeat(w[i]! - strip(cell).length))).join("  ").trimEnd();
    return header && ri === 0 ? c.bold(col, line) : line;
  });
}
const strip = unpainted;

function render(d: Data, col: boolean): string {
  const lines: string[] = [];
  lines.push(`config     ${d.config ? display(d.config) : "(none: run hcpx init)"}`);
  lines.push(`principal  ${d.principal.id} (${d.principal.kind})`);
  lines.push("");
  if (d.packs.length === 0 && d.broken.length === 0) lines.push("no active packs — `hcpx activate <pack-dir>` adds one");
  else {
    const rows: string[][] = [["command", "op", "granted"]];
    for (const p of d.packs) {
      if (p.stimuli) {
        rows.push([`${p.id} (sense)`, "-", `stimuli: ${(p.stimuli ?? []).join(", ")}`]);
        continue;
      }
      for (const cmd of p.commands) {
        const op = cmd.operation + (cmd.land ? `/${cmd.land}` : "") + (cmd.confirm ? ", confirm" : "");
        rows.push([cmd.name, op, cmd.granted ? c.green(col, "yes") : c.dim(col, "withheld")]);
      }
    }
    lines.push(...table(rows, col, true));
    for (const b of d.broken) {
      const p = b.problems.find((x) => x.severity !== "warning") ?? b.problems[0];
      const where = p?.file ? `${p.file}${p.line ? `:${p.line}` : ""}: ` : "";
      lines.push(c.red(col, `✗ ${display(b.dir)}: ${where}${p?.message ?? "does not load"}`) + (b.problems.length > 1 ? ` (+${b.problems.length - 1} more)` : ""));
    }
  }
  lines.push("");
  lines.push(...servesLines(d));
  if (d.hosts.length === 0) lines.push("no hosts adopted — `hcpx adopt <host> --write` places the packs where a host reads them");
  else {
    const rows: string[][] = [["host", "scope", "server", "files"]];
    for (const h of d.hosts) rows.push([h.host, h.scope, h.server ?? "?", h.files.join(", ")]);
    lines.push(...table(rows, col, true));
  }
  for (const e of d.ledgerErrors ?? []) lines.push(c.yellow(col, `! ${e.file}: ${e.message}`));
  for (const w of d.warnings) lines.push(c.yellow(col, `! ${w.file ? `${w.file}${w.line ? `:${w.line}` : ""} ` : ""}${w.message}`));
  return lines.join("\n");
}

/** Which scope's MCP entry serves which packs (status and doctor). */
export function servesLines(d: { config: string | null; userConfig: string | null; serves: { project: string[]; user: string[] } }): string[] {
  const out: string[] = [];
  if (d.config) out.push(`project scope (${display(d.config)}) serves: ${d.serves.project.join(", ") || "(no packs)"}`);
  if (d.userConfig) out.push(`user scope (${display(d.userConfig)}) serves: ${d.serves.user.join(", ") || "(no packs)"}${d.config ? " — not in this project's files: adopt them with --scope user" : ""}`);
  return out;
}

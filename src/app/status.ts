// The status use case (`hcpx status`, and doctor's line of who serves what):
// the active packs with each command's Policy and grant, the packs that do not
// load, the hosts adopted and where, and which scope's MCP entry serves what.
// Read-only; nothing here prints (the CLI renders the report).
import { display } from "../util/paths";
import { loadProject } from "../pack/load";
import { isGranted } from "../pack/grants";
import { loadActive, servedByScope } from "../config/active";
import { readAdopted } from "../config/adopted";
import type { Problem } from "../util/errors";
import { callable } from "../pack/adapters/index";
import { canonicalHost, loadDescriptor } from "../host/descriptor";

/** What `hcpx status` is asked. */
export interface StatusOptions {
  /** `--config <file>` */
  config?: string;
}

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
  /** its Policy row is still marked inferred: a drafted guess nobody reviewed (activate grants no such read) */
  inferred?: true;
}

export interface StatusReport {
  config: string | null;
  userConfig: string | null;
  principal: { id: string; kind: string };
  grants: { allow: string[]; deny: string[] };
  packs: { id: string; kind: string; version: string; dir: string; commands: StatusCommand[]; stimuli?: string[] }[];
  broken: { dir: string; problems: Problem[] }[];
  serves: { project: string[]; user: string[] };
  hosts: { host: string; scope: string; server?: string; files: string[] }[];
  ledgerErrors?: { file: string; message: string }[];
  warnings: Problem[];
}

/** The report, its exit code (0 all loads, 2 warnings, 1 a pack does not load) and why when not 0. */
export function status(opts: StatusOptions = {}): {
  data: StatusReport;
  code: 0 | 1 | 2;
  why?: { code: "broken_packs" | "warnings"; message: string; hint: string };
} {
  const project = loadProject({ config: opts.config });
  const { packs, broken } = loadActive(project);
  const adopted = readAdopted(project.root);
  // which entry serves what: the project's (project scope) its own config's packs, the user-scope entry the user config's
  const own = (file: string | undefined) => (file ? loadProject({ config: file, user: false }).packDirs : []);
  const serves = servedByScope(packs, own(project.configFile), own(project.userConfigFile));
  const data: StatusReport = {
    config: project.configFile ?? null,
    userConfig: project.userConfigFile ?? null,
    principal: project.principal,
    grants: project.grants,
    packs: packs.map((p) => ({
      id: p.id,
      kind: p.surface.kind,
      version: p.surface.version,
      dir: p.dir,
      commands: p.commands.map((cmd): StatusCommand => ({
        verb: cmd.verb_key,
        name: `${p.id}.${cmd.verb_key}`,
        operation: cmd.policy.operation,
        ...(cmd.policy.land ? { land: cmd.policy.land } : {}),
        confirm: cmd.policy.confirm,
        granted: isGranted(project.grants, p.id, cmd.verb_key),
        ...(cmd.policy.inferred ? { inferred: true as const } : {}),
      })),
      ...(!callable(p.surface.kind) ? { stimuli: (p.surface.stimuli ?? []).map((s) => s.id) } : {}),
    })),
    broken: broken.map((b) => ({ dir: b.dir, problems: b.problems })),
    serves,
    hosts: adopted.hosts.map((h) => ({
      ...h,
      ...(serverOf(h.host, h.scope) ? { server: serverOf(h.host, h.scope) } : {}),
    })),
    ...(adopted.errors.length ? { ledgerErrors: adopted.errors } : {}),
    warnings: project.warnings as Problem[],
  };
  const code = broken.length ? 1 : project.warnings.length || adopted.errors.length ? 2 : 0;
  const why = broken.length
    ? {
        code: "broken_packs" as const,
        message: `${broken.length} activated pack(s) cannot be loaded`,
        hint: "run `hcpx lint <pack-dir>` for each, or `hcpx deactivate <id>` (the folder's name where its surface.json does not load)",
      }
    : {
        code: "warnings" as const,
        message: `${project.warnings.length + adopted.errors.length} warning(s) in the config or the adopt ledger`,
        hint: "see details.warnings and details.ledgerErrors",
      };
  return { data, code, ...(code ? { why } : {}) };
}

/** Which scope's MCP entry serves which packs (status and doctor). */
export function servesLines(d: {
  config: string | null;
  userConfig: string | null;
  serves: { project: string[]; user: string[] };
}): string[] {
  const out: string[] = [];
  if (d.config) out.push(`project scope (${display(d.config)}) serves: ${d.serves.project.join(", ") || "(no packs)"}`);
  if (d.userConfig)
    out.push(
      `user scope (${display(d.userConfig)}) serves: ${d.serves.user.join(", ") || "(no packs)"}${d.config ? " — not in this project's files: adopt them with --scope user" : ""}`,
    );
  return out;
}

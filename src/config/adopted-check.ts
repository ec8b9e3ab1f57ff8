// doctor: is what each adopted host got still what `hcpx adopt` would write
// now? The same plan as `hcpx adopt <host> --check` (src/host/engine.ts).
import { HcpxError, type Problem } from "../util/errors";
import type { Pack, Project } from "../pack/model";
import { readAdopted } from "./adopted";

export type CheckStatus = "ok" | "warn" | "fail";

/** One of doctor's checks (this module makes the adopted hosts' ones). */
export interface Check {
  id: string;
  status: CheckStatus;
  message: string;
  hint?: string;
  problems?: Problem[];
}

export async function adoptedSync(project: Project, packs: Pack[]): Promise<Check[]> {
  const led = readAdopted(project.root);
  const checks: Check[] = led.errors.map((e) => ({ id: "adopted", status: "fail" as const, message: `${e.file}: ${e.message}`, hint: "restore it from version control, or delete it and run `hcpx adopt <host> --write`" }));
  if (led.hosts.length === 0) return checks;
  const { planAdopt } = await import("../host/engine");
  const { buildProjection } = await import("../projection/build");
  const { checkHealth } = await import("../host/health");
  const { loadUserScope } = await import("../host/userscope");
  const { loadPacks } = await import("../pack/load");
  const { home } = await import("../util/paths");
  for (const h of led.hosts) {
    const again = `hcpx adopt ${h.host}${h.scope === "user" ? " --scope user" : ""} --write`;
    try {
      // user scope serves the user config, not this project's: the same plan as `adopt --scope user`
      const user = h.scope === "user" ? loadUserScope({ remove: false }) : undefined;
      const proj = user?.project ?? project;
      const ps = user ? loadPacks(user.project) : packs;
      const plan = await planAdopt(proj, [h.host], (skillsPath, o) => buildProjection(proj, ps, { skillsPath, ...o }), { scope: h.scope, userConfig: user?.configFile });
      // "in sync" is not "healthy": will the host use the server (command, cwd, trust, allow-lists)?
      const health = await checkHealth([h.host], { scope: h.scope, root: proj.root, home: home(), commands: plan.commands, config: user ? user.configFile : proj.configFile });
      if (health.length) {
        checks.push({ id: `host:${h.host}`, status: "fail", message: `host ${h.host} (${h.scope}) will not use the server: ${health.map((p) => (p.file ? `${p.file}: ` : "") + p.message).join("; ")}`, hint: health[0]!.hint, problems: health });
        continue;
      }
      // the vendor ended the product (descriptor `endOfLife`): said with every result for the host
      const { loadDescriptor } = await import("../host/descriptor");
      const eol = loadDescriptor(h.host).endOfLife;
      const unchecked = loadDescriptor(h.host).scopes[h.scope]?.unchecked ?? [];
      const ended = (eol ? `; ${loadDescriptor(h.host).name} is end of life since ${eol.since} (${eol.note}): adopt keeps working` : "") + (unchecked.length ? `; not checked (hcpx cannot read it): ${unchecked.join("; ")}` : "");
      const n = plan.changes.length;
      const hand = plan.conflicts.length;
      // a recorded MCP command this hcpx would not write, an ignored ledger entry: named, never blessed
      const warned = plan.warnings.map((w) => w.message);
      // a remote entry (an earlier --url): named; its URL is the ledger's word, reached only when the person names it
      const remote = plan.remotes[h.host];
      const said = remote ? `; remote entry ${remote.url}${remote.tokenEnv ? ` (token from $${remote.tokenEnv})` : ""}, not contacted (\`hcpx doctor --url ${remote.url}${remote.tokenEnv ? ` --token-env ${remote.tokenEnv}` : ""}\` reaches it)` : "";
      if (n === 0 && hand === 0 && warned.length === 0) checks.push({ id: `host:${h.host}`, status: "ok", message: `host ${h.host} (${h.scope}): ${h.files.length} file(s) in sync${said}${ended}` });
      else
        checks.push({
          id: `host:${h.host}`,
          status: "warn",
          message: `host ${h.host} (${h.scope}): ${[n ? `${n} file(s) out of date (${plan.changes.map((c) => c.path).join(", ")})` : "", hand ? `${hand} changed by hand` : "", ...warned].filter(Boolean).join("; ")}${ended}`,
          hint: plan.warnings.some((w) => w.code === "recorded_command") ? `review with \`hcpx adopt ${h.host}${h.scope === "user" ? " --scope user" : ""}\`; keep the recorded command with --use-recorded-command` : hand && !n ? `review with \`hcpx adopt ${h.host} --check\`` : again,
        });
    } catch (e) {
      if (!(e instanceof HcpxError)) throw e;
      const p = e.problems[0]!;
      const where = p.file ? `${p.file}${p.line ? `:${p.line}${p.column ? `:${p.column}` : ""}` : ""}: ` : "";
      checks.push({ id: `host:${h.host}`, status: "fail", message: `host ${h.host} (${h.scope}): ${where}${p.message}`, hint: p.hint ?? `hcpx adopt ${h.host} --check`, problems: e.problems });
    }
  }
  return checks;
}

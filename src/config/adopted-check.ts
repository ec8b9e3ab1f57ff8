// doctor: is what each adopted host got still what `hcpx adopt` would write
// now? The same plan as `hcpx adopt <host> --check` (src/host/engine.ts).
import { HcpxError, type Problem } from "../util/errors";
import type { Pack, Project } from "../pack/model";
import { readAdopted } from "./adopted";
import type { RemoteOptions, RemoteProbe } from "../host/remote";

export type CheckStatus = "ok" | "warn" | "fail";

/** One of doctor's checks (this module makes the adopted hosts' ones). */
export interface Check {
  id: string;
  status: CheckStatus;
  message: string;
  hint?: string;
  problems?: Problem[];
  /** the remote check (`doctor --url`): what the host will see at the URL */
  probe?: RemoteProbe;
}

/**
 * The adopted hosts' checks; with `url` (`doctor --url <url> [--token-env NAME]`,
 * the person's word) also what a host will see there. A URL recorded in a ledger
 * is the repository's word: it is compared and shown, never contacted, and no
 * token is sent anywhere but to the URL given on the command line, from the
 * variable named there (docs/remote-hosts.md).
 */
export async function adoptedSync(project: Project, packs: Pack[], url?: RemoteOptions): Promise<Check[]> {
  const users: string[] = [];
  const checks = await hostChecks(project, packs, url, users);
  if (url) checks.push(await remoteCheck(url, users));
  return checks;
}

/** `users`: the adopted hosts (`host (scope)`) whose remote entry names the URL. */
async function remoteCheck(url: RemoteOptions, users: string[]): Promise<Check> {
  const { probeRemote, probeSummary } = await import("../host/remote");
  const probe = await probeRemote(url);
  const summary = probeSummary(probe);
  const who = users.length ? `; the remote entry of ${users.join(", ")}` : "; no adopted host's entry names this URL";
  if (!probe.reachable) return { id: "remote", status: "fail", message: summary + who, hint: "start the server (`hcpx mcp --http`), or check the URL and the proxy in front of it", probe };
  if (!probe.authenticated) return { id: "remote", status: "fail", message: summary + who, hint: url.tokenEnv ? `check that ${url.tokenEnv} holds a token the server knows (\`hcpx token add <principal>\` on the server)` : "give --token-env NAME: the variable the host reads the token from", probe };
  if (!probe.tools) return { id: "remote", status: "fail", message: summary + who, hint: "check that the URL is the MCP endpoint (e.g. …/mcp)", probe };
  return { id: "remote", status: users.length ? "ok" : "warn", message: summary + who, ...(users.length ? {} : { hint: "doctor --url checks the URL a host's remote entry names (`hcpx adopt <host> --url <url> --write`)" }), probe };
}

async function hostChecks(project: Project, packs: Pack[], url: RemoteOptions | undefined, users: string[]): Promise<Check[]> {
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
      const probed = remote && url?.url === remote.url;
      if (probed) users.push(`${h.host} (${h.scope})`);
      const otherToken = probed && remote.tokenEnv !== url.tokenEnv ? ` (the host reads the token from ${remote.tokenEnv ? `$${remote.tokenEnv}` : "nowhere: its entry sends none"}; --token-env named ${url.tokenEnv ? `$${url.tokenEnv}` : "none"})` : "";
      const said = !remote ? "" : probed ? `; remote entry ${remote.url} probed: see the remote check${otherToken}` : `; remote entry ${remote.url}${remote.tokenEnv ? ` (token from $${remote.tokenEnv})` : ""}, not contacted (\`hcpx doctor --url ${remote.url}${remote.tokenEnv ? ` --token-env ${remote.tokenEnv}` : ""}\` reaches it)`;
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

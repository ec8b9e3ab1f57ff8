// The doctor use case (`hcpx doctor`, §12.1.3, §12.1.7): is this project
// healthy? Node's version, the config, which scope serves what, each active
// pack's lint, each bin, the sandbox, adopted hosts in sync with what the
// adopt use case would write now (./adopt.ts, its own plan), and `hcpx mcp`
// answering (the caller's check: it starts a process). Read-only; the CLI
// renders the checks. Exit 0 healthy, 2 warnings, 1 failure.
import { accessSync, constants } from "node:fs";
import { HcpxError, type Problem } from "../util/errors";
import { display } from "../util/paths";
import { loadActive, servedByScope } from "../config/active";
import { readAdopted } from "../config/adopted";
import { loadPack, loadPacks, loadPacksTolerant, loadProject } from "../pack/load";
import type { Pack, Project } from "../pack/model";
import { lintPackDir } from "../pack/lint";
import { resolveBin } from "../runtime/wrap";
import { binOf } from "../runtime/pack-bins";
import { probeBackend } from "../runtime/sandbox/index";
import { servesLines } from "./status";
import type { RemoteOptions, RemoteProbe } from "../host/remote";

export type CheckStatus = "ok" | "warn" | "fail";

/** One of doctor's checks. */
export interface Check {
  id: string;
  status: CheckStatus;
  message: string;
  hint?: string;
  problems?: Problem[];
  /** the remote check (`doctor --url`): what the host will see at the URL */
  probe?: RemoteProbe;
}

export const MIN_NODE = [20, 19] as const;

/** What `hcpx doctor` is asked. */
export interface DoctorOptions {
  /** `--config <file>` */
  config?: string;
  /** `--url <url> [--token-env NAME]`: the person's word, the one URL doctor reaches (docs/remote-hosts.md) */
  url?: RemoteOptions;
  /** the check that `hcpx mcp` answers (the CLI's: it starts the server as a host would) */
  mcpCheck(project: Project): Promise<Check>;
}

/** Every check, in order. */
export async function doctor(opts: DoctorOptions): Promise<Check[]> {
  const checks: Check[] = [nodeCheck()];
  const project = projectCheck(opts.config, checks);
  if (!project) return checks;
  // which scope's MCP entry serves which packs (the project's files hold the project's alone)
  const own = (file: string | undefined) => (file ? loadProject({ config: file, user: false }).packDirs : []);
  const serves = servedByScope(loadActive(project).packs, own(project.configFile), own(project.userConfigFile));
  const said = servesLines({ config: project.configFile ?? null, userConfig: project.userConfigFile ?? null, serves });
  if (said.length) checks.push({ id: "scopes", status: "ok", message: said.join("; ") });
  const packs = packChecks(project, checks);
  checks.push(...binChecks(project, packs));
  if (project.sandbox.enforce === "os") checks.push(sandboxCheck(project));
  checks.push(...(await adoptedSync(project, packs, opts.url)));
  checks.push(await opts.mcpCheck(project));
  return checks;
}

function nodeCheck(): Check {
  const [maj, min] = process.versions.node.split(".").map(Number) as [number, number];
  const nodeOk = maj > MIN_NODE[0] || (maj === MIN_NODE[0] && min >= MIN_NODE[1]);
  return {
    id: "node",
    status: nodeOk ? "ok" : "fail",
    message: `Node ${process.versions.node}${nodeOk ? "" : ` (hcpx needs ≥ ${MIN_NODE.join(".")})`}`,
    ...(nodeOk ? {} : { hint: "install Node 20.19 or newer" }),
  };
}

/** The config parses (its warnings said): the project, or undefined when it does not load. */
function projectCheck(config: string | undefined, checks: Check[]): Project | undefined {
  try {
    const project = loadProject({ config });
    const w = project.warnings;
    checks.push({
      id: "config",
      status: w.length ? "warn" : "ok",
      message: project.configFile
        ? `config ${display(project.configFile)} parses${w.length ? ` (${w.length} warning(s): ${w[0]!.message})` : ""}`
        : "no project config; using the user config",
      ...(w.length ? { problems: w, hint: w[0]!.hint } : {}),
    });
    return project;
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    const p = e.problems[0]!;
    const where = p.file ? `${p.file}${p.line ? `:${p.line}${p.column ? `:${p.column}` : ""}` : ""}: ` : "";
    checks.push({
      id: "config",
      status: "fail",
      message: `${where}${p.message}`,
      hint: p.hint ?? "fix the config",
      problems: e.problems,
    });
    return undefined;
  }
}

/** Each active pack lints (and one id is one pack): the packs that load. */
function packChecks(project: Project, checks: Check[]): Pack[] {
  const packs: Pack[] = [];
  if (project.packDirs.length === 0)
    checks.push({ id: "packs", status: "warn", message: "no active packs", hint: "hcpx activate <pack-dir>" });
  for (const dir of project.packDirs) {
    const r = lintPackDir(dir, { project });
    const errors = r.problems.filter((p) => p.severity !== "warning");
    const warnings = r.problems.filter((p) => p.severity === "warning");
    const name = r.pack ? `pack ${r.pack.id}` : `pack ${display(dir)}`;
    const first = (errors[0] ?? warnings[0])!;
    checks.push({
      id: `pack:${r.pack?.id ?? display(dir)}`,
      status: errors.length ? "fail" : warnings.length ? "warn" : "ok",
      message: errors.length
        ? `${name}: ${errors.length} lint error(s); first: ${first.message}`
        : warnings.length
          ? `${name}: ${warnings.length} lint warning(s); first: ${first.message}`
          : `${name} lints clean`,
      ...(first ? { hint: first.hint ?? `hcpx lint ${display(dir)}`, problems: r.problems } : {}),
    });
    if (r.pack) packs.push(r.pack);
    else {
      try {
        packs.push(loadPack(dir));
      } catch {
        /* reported above */
      }
    }
  }
  // one id, one pack: lint checks each directory alone, so the clash is checked here
  for (const b of loadPacksTolerant(project).broken) {
    const dup = b.problems.find((x) => x.code === "duplicate_pack");
    if (dup)
      checks.push({
        id: `pack:${b.id}:duplicate`,
        status: "fail",
        message: `${display(b.dir)}: ${dup.message}`,
        hint: dup.hint,
        problems: [dup],
      });
  }
  return packs;
}

/** Each program a pack starts resolves (sandbox.bins, roots) and is executable. */
function binChecks(project: Project, packs: Pack[]): Check[] {
  const checks: Check[] = [];
  for (const pack of packs) {
    const named = binOf(pack);
    if (!named) continue;
    const { bin, field } = named;
    const r = resolveBin(pack, project, bin, field);
    if ("ok" in r)
      checks.push({
        id: `bin:${pack.id}`,
        status: "fail",
        message: `pack ${pack.id}: ${r.error.message}`,
        hint: typeof r.error.hint === "string" ? r.error.hint : `fix ${field} or sandbox.bins`,
      });
    else if (r.command !== process.execPath && !executable(r.path))
      checks.push({
        id: `bin:${pack.id}`,
        status: "fail",
        message: `pack ${pack.id}: bin ${r.path} is not executable`,
        hint: `chmod +x ${r.path}`,
      });
    else checks.push({ id: `bin:${pack.id}`, status: "ok", message: `pack ${pack.id}: bin ${bin} → ${r.path}` });
  }
  return checks;
}

/** sandbox.enforce "os" must be possible here, else every wrap and mcp call is refused: say what to install. */
function sandboxCheck(project: Project): Check {
  const p = probeBackend(project);
  return p.ok
    ? { id: "sandbox", status: "ok", message: `sandbox.enforce "os": ${p.message}` }
    : {
        id: "sandbox",
        status: "fail",
        message: `sandbox.enforce is "os" but ${p.some ? "" : "every wrap and mcp call is refused: "}${p.message}`,
        hint: p.hint,
      };
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Is what each adopted host got still what `hcpx adopt` would write now? The adopt use case's
 * own plan (`adopt <host> --check`). With `url` (`doctor --url <url> [--token-env NAME]`, the
 * person's word) also what a host will see there. A URL recorded in a ledger is the repository's
 * word: it is compared and shown, never contacted, and no token is sent anywhere but to the URL
 * given on the command line, from the variable named there (docs/remote-hosts.md).
 */
export async function adoptedSync(project: Project, packs: Pack[], url?: RemoteOptions): Promise<Check[]> {
  const users: string[] = [];
  // reached once, first: a host whose remote entry names this URL has its approval rules checked against what it lists
  const probe = url ? await (await import("../host/remote")).probeRemote(url) : undefined;
  const checks = await hostChecks(project, packs, probe, url, users);
  if (url && probe) checks.push(await remoteCheck(url, probe, users));
  return checks;
}

/** `users`: the adopted hosts (`host (scope)`) whose remote entry names the URL. */
async function remoteCheck(url: RemoteOptions, probe: RemoteProbe, users: string[]): Promise<Check> {
  const { probeSummary } = await import("../host/remote");
  const message =
    probeSummary(probe) +
    (users.length ? `; the remote entry of ${users.join(", ")}` : "; no adopted host's entry names this URL");
  const fail = (hint: string): Check => ({ id: "remote", status: "fail", message, hint, probe });
  if (!probe.reachable)
    return fail(
      "start the server (`hcpx mcp --http <port> --server-config <file>`, docs/http.md), or check the URL and the proxy in front of it",
    );
  if (!probe.authenticated)
    return fail(
      url.tokenEnv
        ? `check that ${url.tokenEnv} holds a token the server knows (\`hcpx token add <principal> --server-config <file>\` on the server)`
        : "give --token-env NAME: the variable the host reads the token from",
    );
  if (!probe.tools) return fail("check that the URL is the MCP endpoint (e.g. …/mcp)");
  return users.length
    ? { id: "remote", status: "ok", message, probe }
    : {
        id: "remote",
        status: "warn",
        message,
        hint: "doctor --url checks the URL a host's remote entry names (`hcpx adopt <host> --url <url> --write`)",
        probe,
      };
}

/** Remote-entry words for a host's check: probed (the URL given) or named and not contacted. */
function remoteWords(
  remote: { url: string; tokenEnv?: string } | undefined,
  url: RemoteOptions | undefined,
  probe: RemoteProbe | undefined,
  onProbed: () => void,
): string {
  if (!remote) return "";
  if (url?.url !== remote.url)
    return `; remote entry ${remote.url}${remote.tokenEnv ? ` (token from $${remote.tokenEnv})` : ""}, not contacted, its approval rules not checked against the server (\`hcpx doctor --url ${remote.url}${remote.tokenEnv ? ` --token-env ${remote.tokenEnv}` : ""}\` reaches it)`;
  onProbed();
  const otherToken =
    remote.tokenEnv !== url.tokenEnv
      ? ` (the host reads the token from ${remote.tokenEnv ? `$${remote.tokenEnv}` : "nowhere: its entry sends none"}; --token-env named ${url.tokenEnv ? `$${url.tokenEnv}` : "none"})`
      : "";
  // in sync with the listing (this is said with an in-sync host only): its rules are the listed tools'
  const listed = probe?.classes ? Object.keys(probe.classes).length : undefined;
  const rules =
    listed === undefined
      ? "its approval rules not checked (nothing listed)"
      : `its approval rules follow the ${listed} tool(s) it lists`;
  return `; remote entry ${remote.url} probed: see the remote check; ${rules}${otherToken}`;
}

async function hostChecks(
  project: Project,
  packs: Pack[],
  probe: RemoteProbe | undefined,
  url: RemoteOptions | undefined,
  users: string[],
): Promise<Check[]> {
  const led = readAdopted(project.root);
  const checks: Check[] = led.errors.map((e) => ({
    id: "adopted",
    status: "fail" as const,
    message: `${e.file}: ${e.message}`,
    hint: "restore it from version control, or delete it and run `hcpx adopt <host> --write`",
  }));
  if (led.hosts.length === 0) return checks;
  for (const h of led.hosts) {
    try {
      checks.push(await hostCheck(h, project, packs, probe, url, users));
    } catch (e) {
      if (!(e instanceof HcpxError)) throw e;
      const p = e.problems[0]!;
      const where = p.file ? `${p.file}${p.line ? `:${p.line}${p.column ? `:${p.column}` : ""}` : ""}: ` : "";
      checks.push({
        id: `host:${h.host}`,
        status: "fail",
        message: `host ${h.host} (${h.scope}): ${where}${p.message}`,
        hint: p.hint ?? `hcpx adopt ${h.host}${h.scope === "user" ? " --scope user" : ""} --check`,
        problems: e.problems,
      });
    }
  }
  return checks;
}

/** One adopted host: the plan and health of `hcpx adopt <host> --check`. */
async function hostCheck(
  h: { host: string; scope: "project" | "user"; files: unknown[] },
  project: Project,
  packs: Pack[],
  probe: RemoteProbe | undefined,
  url: RemoteOptions | undefined,
  users: string[],
): Promise<Check> {
  const { planAdoption } = await import("./adopt");
  const { loadUserScope } = await import("../host/userscope");
  // user scope serves the user config, not this project's: the same plan as `adopt --scope user`
  const user = h.scope === "user" ? loadUserScope({ remove: false }) : undefined;
  // project scope: the project's packs alone, as `adopt` plans it (the user's own are the user-scope entry's)
  const proj =
    user?.project ??
    (project.userConfigFile
      ? loadProject({ config: project.configFile, cwd: project.root, optional: true, user: "fallback" })
      : project);
  const ps = user
    ? loadPacks(user.project)
    : proj === project
      ? packs
      : packs.filter((p) => proj.packDirs.includes(p.dir));
  // "in sync" is not "healthy" (will the host use the server?)
  const { plan, health } = await planAdoption({
    opts: { hosts: [h.host], check: true },
    scope: h.scope,
    hosts: [h.host],
    project: proj,
    packs: ps,
    userConfig: user?.configFile,
    userNotes: [],
    // the URL given (doctor --url): a remote entry that names it has its rules planned from what it listed
    ...(probe ? { probe } : {}),
  });
  if (health.length)
    return {
      id: `host:${h.host}`,
      status: "fail",
      message: `host ${h.host} (${h.scope}) will not use the server or the rules adopt wrote: ${health.map((p) => (p.file ? `${p.file}: ` : "") + p.message).join("; ")}`,
      hint: health[0]!.hint,
      problems: health,
    };
  // a remote entry checked against the URL given: only a write with that URL lists the tools its rules follow
  const rem = plan.remotes[h.host];
  const listed =
    rem && url?.url === rem.url ? ` --url ${rem.url}${rem.tokenEnv ? ` --token-env ${rem.tokenEnv}` : ""}` : "";
  const again = `hcpx adopt ${h.host}${h.scope === "user" ? " --scope user" : ""}${listed} --write`;
  // the vendor ended the product (descriptor `endOfLife`): said with every result for the host
  const ended = await hostNotes(h.host, h.scope);
  const n = plan.changes.length;
  const hand = plan.conflicts.length;
  // a recorded MCP command this hcpx would not write, an ignored ledger entry: named, never blessed
  const warned = plan.warnings.map((w) => w.message);
  // a remote entry (an earlier --url): named; its URL is the ledger's word, reached only when the person names it
  const said = remoteWords(plan.remotes[h.host], url, probe, () => users.push(`${h.host} (${h.scope})`));
  if (n === 0 && hand === 0 && warned.length === 0)
    return {
      id: `host:${h.host}`,
      status: "ok",
      message: `host ${h.host} (${h.scope}): ${h.files.length} file(s) in sync${said}${ended}`,
    };
  return {
    id: `host:${h.host}`,
    status: "warn",
    message: `host ${h.host} (${h.scope}): ${[n ? `${n} file(s) out of date (${plan.changes.map((c) => c.path).join(", ")})` : "", hand ? `${hand} changed by hand` : "", ...warned].filter(Boolean).join("; ")}${ended}`,
    hint: plan.warnings.some((w) => w.code === "recorded_command")
      ? `review with \`hcpx adopt ${h.host}${h.scope === "user" ? " --scope user" : ""}\`; keep the recorded command with --use-recorded-command`
      : hand && !n
        ? `review with \`hcpx adopt ${h.host}${h.scope === "user" ? " --scope user" : ""} --check\``
        : again,
  };
}

/** What is said with every result for a host: the vendor ended it (descriptor `endOfLife`), what hcpx cannot read. */
async function hostNotes(host: string, scope: "project" | "user"): Promise<string> {
  const { loadDescriptor } = await import("../host/descriptor");
  const d = loadDescriptor(host);
  const eol = d.endOfLife;
  const unchecked = d.scopes[scope]?.unchecked ?? [];
  return (
    (eol ? `; ${d.name} is end of life since ${eol.since} (${eol.note}): adopt keeps working` : "") +
    (unchecked.length ? `; not checked (hcpx cannot read it): ${unchecked.join("; ")}` : "")
  );
}

// What a format handler (src/host/formats/) gets for one host of an adopt
// plan: the files, the ledger, the rendered prose and the MCP entry.
import { dirname } from "node:path";
import type { Projection } from "../projection/types";
import type { Descriptor } from "./descriptor";
import { clientHostsOf, namesItsHost } from "./ask-rules";
import { render, type TemplateContext } from "./templates";
import type { McpCommand } from "./command";
import { remoteEntryValue } from "./remote";
import type { TargetContext } from "./formats";
import { expandItems } from "./formats/rules";
import { ledgerKey, type LedgerEntry } from "./ledger";
import { keptField, remoteFor } from "./adopt-remote";
import { commandClasses, entryValue, toolApprovals } from "./entry-value";
import { shellCommandOf } from "./block-route";
import type { RemoteRules, RunView } from "./adopt-types";
import { forwardedHomes } from "./homes";

export function targetContext(
  run: RunView,
  desc: Descriptor,
  projection: Projection,
  mcp: McpCommand,
  dirs: Set<string>,
  rules: RemoteRules,
): TargetContext {
  const host = desc.host;
  const old = run.ledger.hosts[host];
  const served = servedArgv(run, desc, mcp);
  const remote = recordRoute(run, desc, served);
  // a remote entry's rules: the tools its server listed (never this checkout's packs, grants or shell route)
  const classes =
    rules === undefined
      ? commandClasses(projection, desc, run.scope, shellCommandOf(run, desc))
      : rules === "kept"
        ? []
        : rules;
  const envVars = [...new Set(projection.packs.flatMap((p) => p.pack.surface.binding?.env ?? []))].sort();
  // the host's home variables it does not pass its servers by itself: the entry forwards them (src/host/homes.ts)
  const forwarded = [...new Set([...envVars, ...forwardedHomes(desc, run.scope)])].sort();
  const tctx: TemplateContext = {
    command: served[0]!,
    args: served.slice(1),
    argv: served,
    envVars,
    promptBlock: projection.promptBlock,
    hash: projection.hash,
    packs: projection.packs.map((p) => p.pack.id),
    host,
    hostName: desc.name,
    bundle: run.opts.bundle,
  };
  // A file or block another host's adopt wrote (AGENTS.md and .agents/skills for Codex and
  // opencode) is shared: this host takes over what that entry knows (created, prefix…), so
  // that whichever host is removed last restores what was there before.
  const same = (e: Pick<LedgerEntry, "path" | "kind" | "key">) => (x: LedgerEntry) =>
    ledgerKey(x) === ledgerKey(e as LedgerEntry);
  return {
    host,
    desc,
    force: run.opts.force === true,
    approve: run.opts.approve === true,
    conflicts: run.conflicts,
    classes,
    skills: run.opts.skills === false ? false : projection.skills,
    machineSpecific: remote ? undefined : mcp.machineSpecific,
    oldEntry: (e) => old?.entries.find(same(e)) ?? run.allLedgerEntries().find(same(e)),
    ownedBefore: (e) => run.allLedgerEntries().some(same(e)),
    ownerOf: (e, sha) =>
      Object.entries(run.ledger.hosts).find(
        ([h, lh]) =>
          h !== host &&
          !run.hosts.includes(h) &&
          lh.scope === run.scope &&
          lh.entries.some((x) => same(e)(x) && x.sha256 === sha),
      )?.[0],
    render: (t) => render(host, t.template!, tctx),
    entryValue: (t) =>
      remote ? remoteValue(run, desc, t, remote, rules, classes) : entryValue(t, served, forwarded, desc, classes),
    file: (abs) => run.file(abs),
    touched: (f) => touched(run, host, dirs, f),
    preview: run.opts.preview === true,
    reads: { fs: run.fs, home: run.homeDir, root: run.base, env: run.env, desc },
    unread: run.unread,
  };
}

/** The entry's command line: the host's tool shape, the host(s) whose ask rules count, the user config. */
function servedArgv(run: RunView, desc: Descriptor, mcp: McpCommand): string[] {
  // the host's tool shape (descriptor `tools`): per-command lets its approval tell reads from gated writes
  const shapedOnly = desc.tools === "per-command" ? [...mcp.argv, "--shape", "per-command"] : mcp.argv;
  // a host with ask rules hcpx writes, alone in reading this entry: the server knows which host's rules guard it
  // (`--host`, src/host/approval.ts), so that under confirm "host" the host's prompt is the person's one question
  // an entry several hosts read: the hosts whose rule may count when the client's clientInfo names them (--client-host)
  const clientHosts = run.opts.preview ? [] : clientHostsOf(desc, run.scope);
  const shaped =
    !run.opts.preview && namesItsHost(desc, run.scope)
      ? [...shapedOnly, "--host", desc.host]
      : clientHosts.length
        ? [...shapedOnly, "--client-host", clientHosts.join(",")]
        : shapedOnly;
  // user scope: the entry serves the user config, whatever directory and environment the host starts it in
  const served =
    run.scope === "user" && run.opts.userConfig && !run.opts.preview
      ? [...shaped, "--config", run.opts.userConfig]
      : shaped;
  return served;
}

/** The route recorded for the host (its command, or its remote entry); the remote entry kept from an earlier --url, if any. */
function recordRoute(run: RunView, desc: Descriptor, served: string[]): ReturnType<typeof remoteFor> {
  const host = desc.host;
  // a remote entry runs no local command: nothing for the health checks to find on PATH
  const remote = remoteFor(run, host);
  run.commands[desc.host] = remote ? [] : served;
  if (remote) run.remotes[desc.host] = remote;
  if (remote && !run.opts.remote)
    run.notes.push(
      `${desc.name}: the remote entry recorded in ${run.state.show} (an earlier --url) is kept: ${remote.url}${remote.tokenEnv ? `, the token from $${remote.tokenEnv}` : ""}; a recorded URL is compared, not contacted (\`hcpx adopt ${host}${run.scope === "user" ? " --scope user" : ""} --check --url <url> [--token-env NAME]\` reaches it); --url replaces it, --command writes the local entry instead`,
    );
  return remote;
}

/** A remote entry's value: a field kept from the entry as it was, else the tools its server listed. */
function remoteValue(
  run: RunView,
  desc: Descriptor,
  t: Parameters<TargetContext["entryValue"]>[0],
  remote: NonNullable<ReturnType<typeof remoteFor>>,
  rules: RemoteRules,
  classes: ReturnType<typeof commandClasses>,
): ReturnType<TargetContext["entryValue"]> {
  return remoteEntryValue(
    t,
    remote,
    desc,
    (v, field) =>
      (rules === "kept" ? keptField(run, desc, t, field) : undefined) ??
      (v === "toolApprovals"
        ? desc.toolApprovals
          ? toolApprovals(desc.toolApprovals, classes)
          : undefined
        : expandItems((v as { items: Parameters<typeof expandItems>[0] }).items, classes)),
  );
}

/** The directories a write of this file creates, and those another host's adopt created for it, are this host's too. */
function touched(run: RunView, host: string, dirs: Set<string>, f: Parameters<TargetContext["touched"]>[0]): void {
  if (run.opts.preview) return;
  for (const d of run.fs.missingDirs(dirname(f.real), run.base)) dirs.add(run.showOf(d));
  // directories another host's adopt created for this same file are shared too
  for (const [h, lh] of Object.entries(run.ledger.hosts))
    if (h !== host && lh.entries.some((x) => x.path === f.show))
      for (const d of lh.dirs) if (f.show.startsWith(d + "/")) dirs.add(d);
}

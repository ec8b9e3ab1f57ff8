// The remote entry of an adopt plan (`--url`, or the one the ledger records)
// and its approval rules: what the planner decides about a host served by a
// team server (docs/remote-hosts.md).
import type { Descriptor, Target } from "./descriptor";
import { HANDLERS } from "./formats";
import { mcpTarget, type RemoteOptions } from "./remote";
import { isObj } from "../util/is";
import type { RemoteRules, RunView } from "./adopt-types";

// ---- the remote entry: --url, else the one the ledger records (an earlier --url) ----
// A recorded remote is what the host's file already names: a plan without --url
// or --command compares with it and keeps it (so --check, a re-run and doctor
// agree), saying so. It is never contacted from here: hcpx reaches only a URL on
// its own command line (remote.ts probeRemote, docs/remote-hosts.md).
export function remoteFor(run: RunView, host: string): RemoteOptions | undefined {
  const opts = run.opts;
  if (opts.remote) return opts.remote;
  if (opts.command !== undefined || opts.preview || opts.remove) return undefined;
  const recorded = run.ledger.hosts[host]?.remote;
  // the ledger is a file of the repository: its URL is kept only while the host's own file names
  // that URL in hcpx's entry (what an earlier --url wrote); else it is never written (a planted
  // ledger must not make adopt send a token variable to a URL the person never named)
  return recorded && hostFileNames(run, host, recorded.url) ? recorded : undefined;
}

/**
 * The approval rules of `desc`'s remote entry (undefined: a local entry, whose rules are the packs'):
 *   - the URL was listed in this run (`--url`, `doctor --url`): its tools, by the server's annotations;
 *   - not listed, and the ledger records this URL for the host (an earlier --url wrote the rules): "kept",
 *     the rules stay as the file holds them (a recorded URL is never contacted, and a ledger is the
 *     repository's word: nothing it says is turned into an allow);
 *   - else none: no per-tool rule, the host asks before every tool of the server.
 */
export function remoteRules(run: RunView, desc: Descriptor): RemoteRules {
  const remote = remoteFor(run, desc.host);
  if (!remote || run.opts.remove) return undefined;
  const probe = run.opts.probe;
  const server = desc.servers?.[run.scope] ?? desc.server ?? "hcp";
  const again = `\`hcpx adopt ${desc.host}${run.scope === "user" ? " --scope user" : ""} --url ${remote.url}${remote.tokenEnv ? ` --token-env ${remote.tokenEnv}` : ""} --write\``;
  if (probe?.url === remote.url && probe.classes) {
    const listed = Object.entries(probe.classes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const n = (c: string) => listed.filter(([, x]) => x === c).length;
    const skipped = (probe.tools?.length ?? 0) - listed.length;
    run.notes.push(
      `${desc.name}: approval rules from the ${listed.length} tool(s) ${remote.url} lists ${probe.tokenFrom ? `with the token from $${probe.tokenFrom}` : "without a token"}: ${n("read")} read-only allowed, ${n("confirm")} asked (gated, or not marked read-only and non-destructive), ${n("write")} left to ${desc.name}'s own default${skipped > 0 ? `; ${skipped} tool name(s) no rule may hold as is get none` : ""}`,
    );
    return listed.map(([tool, cls]) => ({ cls, vars: { tool, server } }));
  }
  const why = probe?.url === remote.url ? ` (${probe.error ?? "nothing listed"})` : "";
  if (run.ledger.hosts[desc.host]?.remote?.url === remote.url) {
    run.notes.push(
      `${desc.name}: its approval rules for ${remote.url} are kept as the last --url wrote them: without a listing${why} hcpx does not know the server's tools (a recorded URL is never contacted); ${again} lists them again`,
    );
    return "kept";
  }
  run.notes.push(
    `${desc.name}: hcpx could not list the tools of ${remote.url}${why}, so it writes no per-tool rule for that server (hcpx's own hcp__read_skill aside): ${desc.name} asks before each of its tools; ${again} with the server reachable writes them`,
  );
  return [];
}

/**
 * A field of the remote entry that holds approval rules (Codex's per-tool `tools`), as the host's file holds
 * it, while the entry is exactly what hcpx recorded writing (its ledger hash); else undefined (the rules
 * are then written as for no listed tool). Keeps the rules of a remote entry without a listing.
 */
export function keptField(run: RunView, desc: Descriptor, t: Target, field: string): unknown {
  if (!t.key || !t.entry?.remoteFields) return undefined;
  const fmt = HANDLERS[t.format].doc;
  const f = run.file(run.targetPath(t, desc));
  if (!fmt || f.orig.kind !== "file") return undefined;
  try {
    const have = fmt.get(fmt.read(f.orig.text, f.show, t, desc.name), t.key, t);
    if (!isObj(have) || !Object.hasOwn(have, field)) return undefined;
    const ours = Object.fromEntries(
      Object.keys(t.entry.remoteFields)
        .filter((k) => Object.hasOwn(have, k))
        .map((k) => [k, have[k]]),
    );
    const rec = run.ledger.hosts[desc.host]?.entries.find(
      (e) => e.kind === fmt.kind && e.path === f.show && JSON.stringify(e.key) === JSON.stringify(t.key),
    );
    return rec && fmt.hash(ours) === rec.sha256 ? have[field] : undefined;
  } catch {
    return undefined; // a file the format cannot read: its own error comes from the plan
  }
}

/** Whether `host`'s MCP entry, as its file holds it now, names `url` in the descriptor's URL field. */
export function hostFileNames(run: RunView, host: string, url: string): boolean {
  const desc = run.descriptors.find((d) => d.host === host);
  const t = desc && mcpTarget(desc, run.scope);
  const field = t?.entry?.remoteFields && Object.entries(t.entry.remoteFields).find(([, v]) => v === "url")?.[0];
  if (!desc || !t?.key || !field) return false;
  const f = run.file(run.targetPath(t, desc));
  if (f.orig.kind !== "file") return false;
  try {
    const fmt = HANDLERS[t.format].doc!;
    const entry = fmt.get(fmt.read(f.orig.text, f.show, t, desc.name), t.key, t);
    return isObj(entry) && entry[field] === url;
  } catch {
    return false; // a file the format cannot read: its own error comes from the plan
  }
}

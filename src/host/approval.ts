// Does the host's own approval guard a gated write? Under `confirm: "host"`
// that approval is the person's one question, and hcpx does not ask again
// (docs/confirm.md). It counts only when all of this holds, read from disk at
// each call (nothing is cached):
//   - `hcpx mcp --host <id>` names the host that started it (adopt writes it
//     into the entries of hosts with ask rules);
//   - the host's descriptor (hosts/<id>.json5, shipped with hcpx — never a file
//     of the repository) has an ask rule for gated writes at this scope: an
//     `items.confirm` list, a `members.confirm` decision, or the per-tool
//     `toolApprovals` value for confirm;
//   - the file the descriptor names still holds that rule for exactly this tool,
//     at the descriptor's key, under the server name of the scope served;
//   - no rule of the person's lets the tool run without asking (the descriptor's
//     `widens`, in every scope's files the host reads);
//   - the file holding the rule is one the host reads: not one it skips as a
//     whole (`gate.skipped`: Claude Code's settings file that is not plain JSON
//     or holds a known key of another type; src/host/skipped.ts);
//   - every `gate.inForce` fact holds (no setting that switches the host's
//     asking off, e.g. Claude Code's bypassPermissions), also with the files
//     the host skips passed over;
//   - nothing the host merges over its rules that hcpx does not read is there
//     (`gate.unread`: opencode's OPENCODE_CONFIG, a managed config; src/host/unread.ts);
//   - no hook that may approve the call so the host never asks (`gate.hooks`: Claude Code's PreToolUse
//     and PermissionRequest hooks, also its enabled plugins', src/host/plugin-hooks.ts; Codex's and Qwen
//     Code's PermissionRequest; src/host/hooks.ts).
//   - the server can tell which files the host reads: a `~/…` path is where the
//     descriptor's `homes` variable in the server's environment moves it (the
//     host's own value: $CLAUDE_CONFIG_DIR, $CODEX_HOME, which Codex's entry
//     forwards), unless the entry sets it for the server alone (hostPaths).
// Where the rule is and what it must say come from the descriptor alone: the
// adopt ledger (.hcp/adopted.json) is a file of the repository, and anyone may
// have written it. Anything else — no --host, a rule removed or changed, a file
// that does not parse, a duplicate key on the way — is "not in force", and hcpx
// asks the person itself (or refuses, if it cannot).
//
// An entry several hosts read (Claude Code's project .mcp.json, also started by
// Copilot CLI and Qoder) names no one host: adopt writes `--client-host <ids>`,
// the readers whose rule may count, and the client's clientInfo name (legacy
// `initialize`, or a 2026-07-28 request's own `_meta`) says which of them calls —
// matched against the descriptor's `clientNames` (clientHostApproval). clientInfo
// is the client's word: docs/confirm.md says what that guarantees.
import { homedir } from "node:os";
import { isAbsolute } from "node:path";
import { pathResolver, homeVariables } from "./homes";
import type { Project } from "../pack/model";
import { readEntry, type Entry } from "../util/fsio";
import { loadDescriptor, slotField, type Descriptor, type Target } from "./descriptor";
import { inForceFact } from "./health";
import { afterLists, expandItems, fill, itemKey, widening } from "./formats/rules";
import type { CommandClass } from "./formats/types";
import { askOf, type Ask, type Scope } from "./ask-rules";
import { isObj } from "../util/is";
import { targetFiles, unreadLayers, unreadVariables } from "./unread";
import { approvingHooks } from "./hooks";
import { firstFile, hostValueAt } from "./value-at";
import { skipsOf } from "./skipped";
import type { HostApproval } from "../runtime/execute";

/**
 * The check for the host named by `--host` (undefined: no host named, the approval never
 * counts). An unknown host is an error here, at start (`unknown_host`).
 */
export function hostApproval(host: string | undefined, o: Where = {}): HostApproval | undefined {
  if (!host) return undefined;
  const d = loadDescriptor(host);
  return async (project, pack, verb, tool) => {
    try {
      return await inForce(d, project, pack, verb, tool, o);
    } catch {
      return false; // a file that does not parse, a duplicate key, a swapped file: not in force
    }
  };
}

/**
 * An entry several hosts read (`--client-host a,b`): the check for the one host of these whose
 * descriptor's `clientNames` holds the calling client's clientInfo name. No name, a name no
 * listed host claims, or one that more than one claims (ambiguous): not in force. Unknown
 * ids are an error at start (`unknown_host`), as with --host.
 */
export function clientHostApproval(hosts: string[], o: Where = {}): HostApproval {
  const ds = hosts.map((h) => loadDescriptor(h));
  return async (project, pack, verb, tool, client) => {
    if (client === undefined) return false;
    const named = ds.filter((d) => d.clientNames?.includes(client));
    if (named.length !== 1) return false;
    try {
      return await inForce(named[0]!, project, pack, verb, tool, o);
    } catch {
      return false;
    }
  };
}

/** Where the server finds the host's files: $HOME, the environment and folder it was started with (default: this process's). */
interface Where {
  home?: string;
  env?: NodeJS.ProcessEnv;
  /** the folder the host started the server in (default: this process's working directory) */
  cwd?: string;
  /** the folder system files (/etc/…) are read below: a test's scratch "/" (`hcpx mcp` never sets it) */
  system?: string;
}

/** The scope this server serves: the user config (adopt's user entry passes it with --config), else the project's. */
function servedScope(project: Project): Scope {
  return project.configFile === undefined || project.configFile === project.userConfigFile ? "user" : "project";
}

/** `tool`: the name the host sees the call under (its rules name that, not the pack and verb). */
async function inForce(
  d: Descriptor,
  project: Project,
  pack: string,
  verb: string,
  tool: string,
  where: Where,
): Promise<boolean> {
  const scope = servedScope(project);
  const server = d.servers?.[scope] ?? d.server ?? "hcp";
  const cls: CommandClass = { cls: "confirm", vars: { tool, pack, verb, server } };
  const spec = d.scopes[scope];
  if (!spec) return false;
  // each file read once in this check: the entry, its ask rules and the widenings are often one file
  const read = readsOnce();
  const skips = skipsOf(d);
  // the host's files where the host reads them (its homes, moved or not), or: hcpx cannot tell → not in force
  const abs = await hostPaths(d, scope, { ...where, root: project.root }, read);
  if (!abs) return false;
  // 0. nothing the host merges over its files that hcpx does not read (gate.unread): a rule there may widen
  if (unreadThere(d, scope, abs, read, where)) return false;
  // 0b. no hook that may approve the call so the host never asks (gate.hooks): hcpx cannot know what it decides
  if ((await approvingHooks(d, { scope, abs: hereFor(d, scope, abs, where), server, tools: [tool], read })).length)
    return false;
  // 1. the ask rule, where the descriptor says, for exactly this tool
  let asked = false;
  for (const t of spec.targets) {
    const ask = askOf(t, d);
    if (!ask) continue;
    const file = firstFile(t, abs, read);
    if (!file) continue;
    // a file the host skips as a whole (gate.skipped: not plain JSON, a known key of another type): no one's question
    if (skips(file.show, file.text)) continue;
    const value = await hostValueAt(file.text, t.format, ask.at, file.show);
    if (holds(ask, value, cls)) asked = true;
  }
  if (!asked) return false;
  // 2. no rule of the person's that lets it run without asking, in any scope's files (user's first: see merged)
  const merged = new Map<string, Merged>();
  for (const sc of ["user", "project"] as const) {
    for (const t of d.scopes[sc]?.targets ?? []) {
      if (!t.widens) continue;
      const file = firstFile(t, abs, read);
      if (!file) continue;
      const value = await hostValueAt(file.text, t.format, t.key ?? [], file.show);
      if (!(t.widens.order === "last" && t.members)) {
        if (widening(t, value, [cls], { file: file.show, hostName: d.name }).length) return false;
        continue;
      }
      mergeMembers(merged, t.id, t, value, file.show, sc === scope, false);
      // the lists the host evaluates after these (opencode's agent.<name>.permission), each merged on its own
      if (!t.widens.after) continue;
      const doc = await hostValueAt(file.text, t.format, [], file.show);
      for (const [at] of afterLists(t, doc)) {
        const v = await hostValueAt(file.text, t.format, at, file.show); // a duplicate key on the way: not in force
        mergeMembers(merged, `${t.id}\0${at.join("\0")}`, t, v, file.show, sc === scope, at.join("."));
      }
    }
  }
  for (const m of merged.values()) {
    const o = { file: m.show, hostName: d.name, ...(m.after ? { where: m.after, theirs: true } : {}) };
    if (widening(m.t, m.value, [cls], o).length) return false;
  }
  // 3. nothing switches the host's asking off
  const fillVars = (s: string) => s.replaceAll("{root}", project.root).replaceAll("{server}", server);
  // (the host's own settings, where it finds them: a folder its `homes` moves)
  // (and with the files the host skips passed over, as it does: a mode there does not hide the next file's)
  for (const h of d.gate?.inForce ?? [])
    if (!(await inForceFact(d, h, abs, fillVars, server, { read, skips })).ok) return false;
  return true;
}

/**
 * A `gate.unread` layer is there for this server (src/host/unread.ts): a variable in its environment,
 * a file beside the ones this check reads. A project's file, at user scope: where the host runs, the
 * folder it started this server in.
 */
function unreadThere(
  d: Descriptor,
  scope: Scope,
  abs: (p: string) => string,
  read: (file: string) => Entry,
  where: Where,
): boolean {
  const files = targetFiles(d, scope, abs, read);
  const env = where.env ?? process.env;
  return unreadLayers(d, scope, { env, abs: hereFor(d, scope, abs, where), read: files, server: true }).length > 0;
}

/** Paths as the host reads them for this server: a project's file, at user scope, in the folder the host started it in. */
function hereFor(d: Descriptor, scope: Scope, abs: (p: string) => string, where: Where): (p: string) => string {
  if (scope !== "user") return abs;
  const env = where.env ?? process.env;
  return pathResolver(d, {
    root: where.cwd ?? process.cwd(),
    home: where.home ?? homedir(),
    env,
    system: where.system,
  });
}

/**
 * Rules where the last that matches decides (`widens.order` "last", opencode's `permission`) are one
 * list across the files: the host merges its user file, then the project's, a key keeping the place
 * it first had and taking the later value (what a JavaScript object does). A rule in one file can so
 * come after hcpx's in another. A decision for every tool (`"permission": "allow"`) is the rule `*`.
 * The served scope's target says which rules are hcpx's; in a list after these (widens.after), none is.
 */
interface Merged {
  t: Target;
  value: Record<string, unknown>;
  show: string;
  /** a list hcpx never writes, evaluated after the target's (widens.after): where it is */
  after: string | false;
}

function mergeMembers(
  merged: Map<string, Merged>,
  id: string,
  t: Target,
  value: unknown,
  show: string,
  served: boolean,
  after: string | false,
): void {
  const rules = isObj(value) ? value : typeof value === "string" ? { "*": value } : undefined;
  if (!rules) return;
  const m = merged.get(id) ?? { t, value: {}, show, after };
  for (const [k, v] of Object.entries(rules)) m.value[k] = v;
  if (served) m.t = t;
  m.show = m.show === show ? show : `${m.show} + ${show}`;
  merged.set(id, m);
}

/** readEntry, each file once: what one check reads (nothing is kept past it; the next call reads anew). */
function readsOnce(): (file: string) => Entry {
  const seen = new Map<string, Entry>();
  return (file) => {
    let e = seen.get(file);
    if (e === undefined) seen.set(file, (e = readEntry(file)));
    return e;
  };
}

function holds(ask: Ask, value: unknown, cls: CommandClass): boolean {
  const tool = cls.vars.tool!;
  switch (ask.kind) {
    case "items": {
      if (!Array.isArray(value)) return false;
      const have = new Set(value.map(itemKey).filter((k): k is string => k !== undefined));
      const want = expandItems({ confirm: ask.items }, [cls]);
      return want.length > 0 && want.every((x) => have.has(itemKey(x)!));
    }
    case "member":
      return (
        isObj(value) &&
        Object.hasOwn(value, fill(ask.pattern, cls.vars)) &&
        value[fill(ask.pattern, cls.vars)] === ask.decision
      );
    case "toolApproval": {
      const per = isObj(value) && Object.hasOwn(value, tool) ? value[tool] : undefined;
      return isObj(per) && per[ask.field] === ask.value;
    }
  }
}

/**
 * `~/…` paths as the host that started this server reads them (descriptor `homes`, with the server's
 * environment), or undefined when hcpx cannot tell, and so the host's approval is not in force:
 *  - a home variable's value is not an absolute path (the host would take it from its own folder);
 *  - the entry this scope's server is started from sets HOME or a home variable in its `env`: the
 *    value reached the server only (Claude Code applies an entry's env to that server, and a project's
 *    .mcp.json is anyone's to write), not the host, which reads its own;
 *  - a home variable the server does not have, where the host passes its servers only the variables
 *    `launch.env` lists and not this one (Codex: CODEX_HOME), unless the entry forwards it (`envNames`,
 *    which adopt writes): absent then means the host has none. Where the host passes its whole
 *    environment (no `launch.env`), absent means the same.
 */
async function hostPaths(
  d: Descriptor,
  scope: Scope,
  where: Where & { root: string },
  read: (file: string) => Entry,
): Promise<((p: string) => string) | undefined> {
  const env = where.env ?? process.env;
  const vars = homeVariables(d);
  if (vars.some((v) => env[v] && !isAbsolute(env[v]))) return undefined;
  const abs = pathResolver(d, { root: where.root, home: where.home ?? homedir(), env, system: where.system });
  const forwarded = new Set<string>();
  for (const t of d.scopes[scope]?.targets ?? []) {
    if (!t.entry || !t.key) continue;
    const file = firstFile(t, abs, read);
    if (!file) continue;
    const entry = await hostValueAt(file.text, t.format, t.key, file.show);
    if (!isObj(entry)) continue;
    const envField = slotField(t.entry, "env");
    const set = envField !== undefined ? entry[envField] : undefined;
    for (const v of ["HOME", ...vars, ...unreadVariables(d)])
      if (isObj(set) && Object.hasOwn(set, v) && set[v] !== t.envSyntax?.replaceAll("VAR", v)) return undefined;
    const namesField = slotField(t.entry, "envNames");
    const names = namesField !== undefined ? entry[namesField] : undefined;
    // Codex's env_vars: a name, or { name, source } where source "local" (the default) is the host's own value
    for (const n of Array.isArray(names) ? names : []) {
      if (typeof n === "string") forwarded.add(n);
      else if (isObj(n) && typeof n.name === "string" && (n.source === undefined || n.source === "local"))
        forwarded.add(n.name);
    }
  }
  const passed = d.scopes[scope]?.launch?.env;
  for (const v of vars)
    if (!env[v] && passed !== undefined && !passed.includes(v) && !forwarded.has(v)) return undefined;
  return abs;
}

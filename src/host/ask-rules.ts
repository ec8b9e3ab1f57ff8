// Where a host keeps the ask rule hcpx writes for a confirm-gated write, read from its
// descriptor alone (hosts/<host>.json5): an `items.confirm` list, a `members.confirm`
// decision, an MCP entry's `{ items }` field, or the per-tool `toolApprovals` value.
// adopt asks it whether to write `--host` into an entry; src/host/approval.ts reads the
// rule back under `confirm: "host"`.
import { listHosts, loadDescriptor, type Descriptor, type RuleClasses, type Target } from "./descriptor";
import type { Scope } from "./adopt-types";

export type { Scope };

/** Whether a descriptor has an ask rule hcpx writes for gated writes (what `--host` can stand on). */
export function hasAskRules(d: Descriptor, scope: Scope): boolean {
  return (d.scopes[scope]?.targets ?? []).some((t) => askOf(t, d) !== undefined);
}

const pathsOf = (t: Target) => (Array.isArray(t.path) ? t.path : [t.path]);
const entryOf = (d: Descriptor, scope: Scope) => (d.scopes[scope]?.targets ?? []).filter((t) => t.entry !== undefined);

/**
 * Whether adopt may write `--host <id>` into this host's MCP entry: the host has ask rules,
 * and no other host reads the same entry (Claude Code, Copilot CLI and Qoder share
 * `.mcp.json`'s `hcp`: a server started from it cannot know which of them started it, and
 * the approval of one is not the question of another — hcpx then asks itself).
 */
export function namesItsHost(d: Descriptor, scope: Scope): boolean {
  if (!hasAskRules(d, scope)) return false;
  const mine = entryOf(d, scope);
  for (const other of listHosts()) {
    if (other === d.host) continue;
    let o: Descriptor;
    try {
      o = loadDescriptor(other);
    } catch {
      // hosts/ ships with hcpx and every shipped descriptor loads (test/adopt/descriptor.test.ts);
      // one that does not is refused wherever it is named, so no entry of its host is ever written
      continue;
    }
    for (const t of entryOf(o, scope))
      for (const m of mine)
        if (pathsOf(t).some((p) => pathsOf(m).includes(p)) && JSON.stringify(t.key) === JSON.stringify(m.key))
          return false;
  }
  return true;
}

/**
 * On an entry other hosts read as well (namesItsHost false): the hosts among its readers
 * whose ask rule may still count, told apart by the client's clientInfo name — each has
 * ask rules at this scope and `clientNames` in its descriptor. adopt writes them as
 * `--client-host <id>[,<id>…]` (sorted, so every reader's adopt writes the same entry).
 */
export function clientHostsOf(d: Descriptor, scope: Scope): string[] {
  if (namesItsHost(d, scope)) return [];
  const mine = entryOf(d, scope);
  if (!mine.length) return [];
  const ids = new Set<string>();
  for (const id of listHosts()) {
    let o: Descriptor;
    try {
      o = id === d.host ? d : loadDescriptor(id);
    } catch {
      continue; // as in namesItsHost: a descriptor that does not load is refused wherever it is named
    }
    if (!o.clientNames?.length || !hasAskRules(o, scope)) continue;
    if (
      entryOf(o, scope).some((t) =>
        mine.some(
          (m) => pathsOf(t).some((p) => pathsOf(m).includes(p)) && JSON.stringify(t.key) === JSON.stringify(m.key),
        ),
      )
    )
      ids.add(o.host);
  }
  return [...ids].sort();
}

export type Ask =
  | { kind: "items"; items: RuleClasses["confirm"]; at: string[] }
  | { kind: "member"; pattern: string; decision: string; at: string[] }
  | { kind: "toolApproval"; field: string; value: string; at: string[] };

/** Where a target holds the ask rule for a gated write, from the descriptor. */
export function askOf(t: Target, d: Descriptor): Ask | undefined {
  if (t.items?.confirm?.length) return { kind: "items", items: t.items.confirm, at: t.key ?? [] };
  if (t.members?.confirm !== undefined)
    return { kind: "member", pattern: t.members.pattern, decision: t.members.confirm, at: t.key ?? [] };
  for (const [k, f] of Object.entries(t.entry?.fields ?? {})) {
    if (f === "toolApprovals" && d.toolApprovals)
      return {
        kind: "toolApproval",
        field: d.toolApprovals.field,
        value: d.toolApprovals.confirm,
        at: [...(t.key ?? []), k],
      };
    if (typeof f === "object" && "items" in f && f.items.confirm?.length)
      return { kind: "items", items: f.items.confirm, at: [...(t.key ?? []), k] };
  }
  return undefined;
}

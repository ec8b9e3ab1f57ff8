// Does the host's own approval guard a gated write? Under `confirm: "host"`
// that approval is the person's one question, and hcpx does not ask again
// (README "Who confirms a write"). It counts only when all of this holds, read
// from disk at each call (nothing is cached):
//   - `hcpx mcp --host <id>` names the host that started it (adopt's entry);
//   - the adopt ledger (.hcp/adopted.json, or the user one) records, for that
//     host, an approval rule hcpx wrote for exactly this tool (a list item or
//     object member ending in `_<pack>__<verb>`: a gated write's tool name is
//     never in an allow rule);
//   - the host's file still has that rule (the item in the list at its key, or
//     the member with a value other than "allow").
// Anything else — no --host, no ledger, a rule removed or changed, a file
// that does not parse, a host whose rules are not JSON lists — is "not in
// force", and hcpx asks the person itself (or refuses, if it cannot).
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { readLedgerQuiet } from "./detect";
import type { LedgerEntry } from "./ledger";
import { parseJson5 } from "../pack/json5";
import type { Project } from "../pack/model";
import { CAPS, readTextFile } from "../util/readfile";
import { userConfigDir } from "../util/paths";
import { homedir } from "node:os";

/** Same shape as src/mcp/front.ts HostApproval (the CLI hands one to the other). */
export type HostApproval = (project: Project, pack: string, verb: string) => boolean;

export function toolOf(pack: string, verb: string): string {
  return `${pack}__${verb.replace(/\./g, "_")}`;
}

/** The check for the host named by `--host` (undefined: no host named, the approval never counts). */
export function hostApproval(host: string | undefined): HostApproval | undefined {
  if (!host) return undefined;
  return (project, pack, verb) => {
    const tool = toolOf(pack, verb);
    for (const scope of ["project", "user"] as const) {
      const base = scope === "project" ? project.root : homedir();
      const file = scope === "project" ? join(project.root, ".hcp", "adopted.json") : join(userConfigDir(), "adopted.json");
      if (!existsSync(file)) continue;
      const h = readLedgerQuiet(file, scope, base)?.hosts[host];
      if (!h) continue;
      for (const e of h.entries) if (e.kind === "json-items" && e.items?.some((i) => i.endsWith(`_${tool}`)) && ruleInForce(e, base, tool)) return true;
    }
    return false;
  };
}

function ruleInForce(e: LedgerEntry, base: string, tool: string): boolean {
  const path = e.path.startsWith("~/") ? join(homedir(), e.path.slice(2)) : isAbsolute(e.path) ? e.path : join(base, e.path);
  let value: unknown;
  try {
    value = parseJson5(readTextFile(path, e.path, CAPS.pack), e.path).value;
  } catch {
    return false;
  }
  for (const k of e.key ?? []) {
    if (!value || typeof value !== "object" || Array.isArray(value)) return false;
    value = (value as Record<string, unknown>)[k];
  }
  const mine = (e.items ?? []).filter((i) => i.endsWith(`_${tool}`));
  if (Array.isArray(value)) return mine.every((i) => value.includes(i));
  if (value && typeof value === "object") return mine.every((i) => i in (value as object) && (value as Record<string, unknown>)[i] !== "allow");
  return false;
}

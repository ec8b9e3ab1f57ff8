// What `hcpx mcp --host <id>` decides of a host's own approval (src/host/approval.ts), called in this
// process against a scratch project adopt wrote, and what adopt --check / doctor warn: one helper for
// the files that test the host files hcpx reads (test/adopt/gates, last-rule; test/mcp/unread-layers,
// system-layers, gemini-policies, hook-layers).
import { join } from "node:path";
import { hostApproval } from "../../src/host/approval";
import type { Project } from "../../src/pack/model";

/**
 * Is `host`'s prompt the person's one yes for the gated ledger.transfer? The project's server, or with
 * `user` the server of that user config; `env` the server's environment (HOME is the scratch one),
 * `cwd` the folder the host started it in (default the project), `system` a scratch "/" for /etc files.
 */
export function approvalInForce(
  host: string,
  s: { dir: string; home: string },
  o: { env?: Record<string, string>; user?: string; cwd?: string; system?: string } = {},
): Promise<boolean> {
  const where = { home: s.home, env: { HOME: s.home, ...o.env }, cwd: o.cwd ?? s.dir };
  const check = hostApproval(host, o.system === undefined ? where : { ...where, system: o.system })!;
  const project = (o.user
    ? { root: join(o.user, ".."), configFile: o.user, userConfigFile: o.user }
    : { root: s.dir, configFile: join(s.dir, "hcp.config.json5") }) as unknown as Project;
  return check(project, "ledger", "transfer", "ledger__transfer");
}

/** The warnings of an `adopt --json` or `doctor --json` envelope (a --check with warnings fails: they are in its error's details). */
export function warningsOf(stdout: string): { code: string; message: string; file?: string; hint?: string }[] {
  const e = JSON.parse(stdout) as { ok: boolean; data?: { warnings?: [] }; error?: { details?: { warnings?: [] } } };
  return (e.ok ? e.data?.warnings : e.error?.details?.warnings) ?? [];
}

// Where a host keeps a file of its own: `~/…` below $HOME, or in the folder a variable of the
// descriptor's `homes` moves it to (Codex: ~/.codex is $CODEX_HOME when set), or relative to the
// project. A module of its own, without the parsers: health.ts (and so the MCP server's approval
// check) uses it too.
import { join, resolve } from "node:path";
import type { Descriptor } from "./descriptor";

/**
 * A path of the host's own as the host finds it: `~/…` below $HOME, or where a variable of the
 * descriptor's `homes` moves that folder (`$CODEX_HOME`, shown as the absolute path then);
 * anything else relative to the project.
 */
export function hostPath(
  p: string,
  k: { home: string; root: string; env: NodeJS.ProcessEnv; desc: Pick<Descriptor, "homes"> },
): { abs: string; show: string } {
  for (const h of k.desc.homes ?? []) {
    const moved = k.env[h.env];
    if (!moved || (p !== h.path && !p.startsWith(h.path + "/"))) continue;
    const abs = join(resolve(moved), p.slice(h.path.length));
    return { abs, show: abs };
  }
  if (p === "~" || p.startsWith("~/")) return { abs: join(k.home, p.slice(1)), show: p };
  return { abs: join(k.root, p), show: p };
}

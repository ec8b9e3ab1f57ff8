// Where a host keeps a file of its own: `~/…` below $HOME, or where a variable of the descriptor's
// `homes` moves it (src/host/homes.ts: Codex's ~/.codex is $CODEX_HOME when set), or relative to the
// project. A module of its own, without the parsers: health.ts (and so the MCP server's approval
// check) uses it too.
import { joinIn } from "../util/paths";
import type { Descriptor } from "./descriptor";
import { homePath } from "./homes";

/**
 * A path of the host's own as the host finds it (homes.ts homePath; a moved one shown as its absolute
 * path), or relative to the project. A home variable that is not an absolute path is an error (`host_home`).
 */
export function hostPath(
  p: string,
  k: { home: string; root: string; env: NodeJS.ProcessEnv; desc: Descriptor },
): { abs: string; show: string } {
  const moved = homePath(k.desc, p, k.home, k.env);
  if (!moved) return { abs: joinIn(k.root, p), show: p };
  return { abs: moved.abs, show: moved.by ? moved.abs : p };
}

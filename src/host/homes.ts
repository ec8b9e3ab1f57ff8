// Where a host's user files are when an environment variable moves them (descriptor `homes`):
// Claude Code reads $CLAUDE_CONFIG_DIR instead of ~/.claude (and $CLAUDE_CONFIG_DIR/.claude.json
// instead of ~/.claude.json), Codex $CODEX_HOME instead of ~/.codex. Every place that turns a
// descriptor's `~/…` path into a file goes through here: adopt's targets, its health checks and
// detection (with adopt's own environment, the person's shell), and the approval check of
// `hcpx mcp` (with the server's environment, src/host/approval.ts), so that hcpx reads and writes
// the files the host reads. The paths the descriptor names stay `~/…`: the host's default.
import { isAbsolute, join } from "node:path";
import { HcpxError } from "../util/errors";
import { joinIn, tildePath } from "../util/paths";
import type { Descriptor } from "./descriptor";

/** A `homes` key that moves `p`: the key, the variable and the path below the variable's folder. */
interface Move {
  key: string;
  variable: string;
  below: string[];
}

/** The `homes` keys that move `p`, longest first (a file of its own before the folder it is in). */
function movesOf(d: Descriptor, p: string): Move[] {
  const out: Move[] = [];
  for (const [key, to] of Object.entries(d.homes ?? {})) {
    if (p !== key && !p.startsWith(key + "/")) continue;
    const [variable, ...below] = to.slice(1).split("/");
    out.push({ key, variable: variable!, below });
  }
  return out.sort((a, b) => b.key.length - a.key.length);
}

/** Every variable that moves a home of the host (descriptor `homes`), sorted. */
export function homeVariables(d: Descriptor): string[] {
  return [...new Set(Object.values(d.homes ?? {}).map((v) => v.slice(1).split("/")[0]!))].sort();
}

/** The host reads a variable that is set and not empty (Claude Code and Codex both ignore an empty one). */
function valueOf(env: NodeJS.ProcessEnv, variable: string): string | undefined {
  const v = env[variable];
  return v === undefined || v === "" ? undefined : v;
}

/** What moved a path: the variable and its value (for notes and errors). */
export interface MovedBy {
  variable: string;
  value: string;
  /** the descriptor's `~/…` path it moves */
  key: string;
}

/**
 * A descriptor path as the host reads it: `~` or `~/…` below `home`, or where a `homes` variable
 * that is set moves it; else undefined (a project path: the caller joins it to the project).
 * A value that is not an absolute path is an error (`host_home`): hcpx cannot tell where the host
 * looks (the host would take it from its own working directory).
 */
export function homePath(
  d: Descriptor,
  p: string,
  home: string,
  env: NodeJS.ProcessEnv,
): { abs: string; by?: MovedBy } | undefined {
  if (p !== "~" && !p.startsWith("~/")) return undefined;
  for (const m of movesOf(d, p)) {
    const value = valueOf(env, m.variable);
    if (value === undefined) continue;
    if (!isAbsolute(value)) throw notAbsolute(d, m.variable, value);
    return { abs: join(value, ...m.below, p.slice(m.key.length)), by: { variable: m.variable, value, key: m.key } };
  }
  return { abs: p === "~" ? home : joinIn(home, p.slice(2)) };
}

/**
 * `homePath` for a descriptor path, a project path joined to `root`, an absolute one (a managed or
 * system file: /etc/claude-code/…) as it is — below `system` only where a test puts its scratch "/".
 */
export function pathResolver(
  d: Descriptor,
  o: { root: string; home: string; env: NodeJS.ProcessEnv; system?: string },
): (p: string) => string {
  return (p) =>
    isAbsolute(p)
      ? o.system === undefined
        ? p
        : joinIn(o.system, p.slice(1))
      : (homePath(d, p, o.home, o.env)?.abs ?? joinIn(o.root, p));
}

function notAbsolute(d: Descriptor, variable: string, value: string): HcpxError {
  return new HcpxError({
    code: "host_home",
    message: `${d.name} reads its user files from $${variable}, which is ${JSON.stringify(value)}: not an absolute path, so hcpx cannot tell which folder ${d.name} uses`,
    hint: `set ${variable} to an absolute path (or unset it) in the shell you start ${d.name} from, then run the command again`,
  });
}

/**
 * The homes `d` reads from a variable that is set in `env`, once each: what adopt says with its plan
 * ("Claude Code: $CLAUDE_CONFIG_DIR is set: …"), and what it checks stays below `home` at user scope.
 */
export function movedHomes(d: Descriptor, home: string, env: NodeJS.ProcessEnv): (MovedBy & { abs: string })[] {
  const out: (MovedBy & { abs: string })[] = [];
  for (const key of Object.keys(d.homes ?? {})) {
    const r = homePath(d, key, home, env);
    if (r?.by && r.by.key === key) out.push({ ...r.by, abs: r.abs });
  }
  return out;
}

/**
 * The home variables the entry of a scope must forward for its server to see them: those the host
 * does not pass by itself (the scope's `launch.env` lists the only variables it passes, and not
 * these: Codex's CODEX_HOME). Written in the entry's `envNames` (Codex's `env_vars`), so that the
 * server learns whether the host has one at all (src/host/approval.ts).
 */
export function forwardedHomes(d: Descriptor, scope: "project" | "user"): string[] {
  const passed = d.scopes[scope]?.launch?.env;
  return passed === undefined ? [] : homeVariables(d).filter((v) => !passed.includes(v));
}

/**
 * A descriptor's message, hint or file name (`~/.codex/config.toml`) as the person reads it: each home a
 * set variable moves shown where the host reads it (`~/codex-work/config.toml`, or the absolute path
 * outside `home`), so that a health message names the file hcpx read. A value hcpx cannot use is left
 * as written (homePath refuses it where a path is made from it).
 */
export function homeText(d: Descriptor, home: string, env: NodeJS.ProcessEnv): (s: string) => string {
  let moved: (MovedBy & { abs: string })[];
  try {
    moved = movedHomes(d, home, env).sort((a, b) => b.key.length - a.key.length);
  } catch {
    return (s) => s;
  }
  if (!moved.length) return (s) => s;
  // a key not followed by more of a name: `~/.claude` is not the start of `~/.claude.json`
  const at = new RegExp(moved.map((m) => m.key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|") + "(?![\\w.-])", "g");
  const to = new Map(moved.map((m) => [m.key, tildePath(m.abs, home)]));
  return (s) => s.replace(at, (k) => to.get(k)!);
}

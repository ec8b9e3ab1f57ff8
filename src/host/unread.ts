// What a host merges into its rules that hcpx does not read (descriptor `gate.unread`): an
// environment variable it reads a config from (opencode's OPENCODE_CONFIG, OPENCODE_CONFIG_CONTENT,
// OPENCODE_PERMISSION…), or a config file no target names (a managed config in /etc/opencode, the
// project's .opencode/opencode.json, the second of opencode.json and opencode.jsonc). A rule there can
// let a gated write run without the host asking, and hcpx would not see it: while one is there, the
// host's approval is not in force (src/host/approval.ts: hcpx asks the person itself), and adopt
// --check and doctor say which (src/host/health.ts, `policy_widened`). A variable the host does not
// pass to its servers (`hidden`: Kilo deletes KILO_CONFIG, KILO_CONFIG_CONTENT and KILO_CONFIG_DIR
// from their environment) cannot be seen by the server at all: there it is never in force.
import { lstatSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Descriptor, HealthCheck } from "./descriptor";
import { checkPaths } from "./unread-zod";
import type { Scope } from "./adopt-types";
import { readEntry, type Entry } from "../util/fsio";
import { firstFile } from "./value-at";
import type { Problem } from "../util/errors";

export type Unread = NonNullable<NonNullable<Descriptor["gate"]>["unread"]>[number];

/** One layer the host reads that is there (or, hidden, may be): what it is and how it is shown. */
export interface UnreadFound {
  item: Unread;
  /** `$OPENCODE_CONFIG`, or the file as the descriptor names it */
  shown: string;
  /** the server cannot see whether it is set (the host does not pass it): counted as there */
  unknown?: true;
  /** in a folder above the project (`above`): `shown` is its whole path */
  above?: true;
}

/** The environment variables a descriptor names in `gate.unread` (an entry must not set them for its server). */
export function unreadVariables(d: Descriptor): string[] {
  return (d.gate?.unread ?? []).flatMap((u) => (u.env !== undefined ? [u.env] : []));
}

/**
 * The `gate.unread` layers that are there for a server of `scope`: a variable set (not empty) in
 * `env`, a file that exists (anything but "no such file": a folder, a file hcpx may not read…) and
 * is not one of `read` (the files hcpx read for this check: opencode reads both opencode.json and
 * opencode.jsonc, hcpx the first). `server`: the check of `hcpx mcp`, where a `hidden` variable is
 * unknown, so counted; adopt's own check (the person's shell) sees it, and says it when it is set.
 */
export function unreadLayers(
  d: Descriptor,
  scope: Scope,
  o: { env: NodeJS.ProcessEnv; abs: (p: string) => string; read: ReadonlySet<string>; server: boolean },
): UnreadFound[] {
  const out: UnreadFound[] = [];
  let above: string[] | undefined; // the folders above the one the host runs in, walked once
  const named = new Set<string>();
  for (const item of d.gate?.unread ?? []) {
    if (item.scope !== undefined && item.scope !== scope) continue;
    if (item.env !== undefined) {
      if (item.hidden && o.server) out.push({ item, shown: `$${item.env}`, unknown: true });
      else if (o.env[item.env]) out.push({ item, shown: `$${item.env}` });
    } else if (item.path !== undefined) {
      const file = o.abs(item.path); // an absolute path too (pathResolver: /etc/…, below a test's scratch "/")
      if (!o.read.has(file) && there(file)) {
        out.push({ item, shown: item.path });
        named.add(file);
      }
      if (!item.above) continue;
      for (const dir of (above ??= foldersAbove(resolve(o.abs("."))))) {
        const up = join(dir, item.path);
        if (!o.read.has(up) && there(up)) out.push({ item, shown: up, above: true });
      }
    }
  }
  // a folder above that is also named by a path of its own (HOME's .opencode/, walked up to /): said once
  return out.filter((f) => !f.above || !named.has(f.shown));
}

/**
 * The folders above `start` that a host walking up from it reads (`above`): each parent up to the root
 * of the git worktree `start` is in (the nearest folder, `start` too, holding a `.git`), or up to the file
 * system's root outside one (opencode 1.18.33 merges every opencode.json and .opencode/ on the way: its
 * `debug config`). A `.git` hcpx cannot see counts as absent: the walk goes on (more folders, not fewer).
 * `toRoot`: up to the file system's root, a repository or not (their TUI's tui.json: `above: "root"`).
 */
export function foldersAbove(start: string, toRoot = false): string[] {
  const out: string[] = [];
  for (let dir = start; toRoot || !gitRoot(dir);) {
    const up = dirname(dir);
    if (up === dir) break;
    out.push((dir = up));
  }
  return out;
}

/**
 * The files a gate check reads, in order: each of its paths (`abs`), and after a path with `above` the same
 * project path in each folder above the project, nearest first (foldersAbove from `abs(".")`, walked once).
 * `shown`: the path as written, or the whole path above. A folder above that another path names (HOME's
 * .opencode/, walked up to /) is read once, as that path.
 */
export function checkFiles(
  h: Pick<HealthCheck, "path">,
  abs: (p: string) => string,
): { file: string; shown: string; above?: true }[] {
  const paths = checkPaths(h);
  const named = new Set(paths.map((p) => abs(p.path)));
  const walks: Partial<Record<"worktree" | "root", string[]>> = {};
  const out: { file: string; shown: string; above?: true }[] = [];
  for (const p of paths) {
    out.push({ file: abs(p.path), shown: p.path });
    if (!p.above) continue;
    const to = p.above === "root" ? "root" : "worktree";
    for (const dir of (walks[to] ??= foldersAbove(resolve(abs(".")), to === "root"))) {
      const file = join(dir, p.path);
      if (!named.has(file)) out.push({ file, shown: file, above: true });
    }
  }
  return out;
}

function gitRoot(dir: string): boolean {
  try {
    lstatSync(join(dir, ".git"));
    return true;
  } catch {
    return false;
  }
}

/** Anything at `file`, or hcpx cannot tell (a folder on the way it may not search): only "no such file" is absent. */
function there(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code !== "ENOENT" && code !== "ENOTDIR";
  }
}

/**
 * The files a scope's keyed targets are read from: of each target's paths, the first that is there
 * (what approval.ts reads; a target whose first path is not a file reads none). The other of a pair
 * the host reads both of (opencode.json and opencode.jsonc) is then a layer hcpx does not read.
 */
export function targetFiles(
  d: Descriptor,
  scope: Scope,
  abs: (p: string) => string,
  read: (file: string) => Entry = readEntry,
): Set<string> {
  const out = new Set<string>();
  for (const t of d.scopes[scope]?.targets ?? []) {
    const f = t.key ? firstFile(t, abs, read) : undefined;
    if (f) out.add(abs(f.show));
  }
  return out;
}

/** What adopt --check and doctor say of a layer the host reads that hcpx does not: `policy_widened`. */
export function unreadProblem(d: Descriptor, f: UnreadFound): Problem {
  const u = f.item;
  const where =
    u.env !== undefined
      ? `${f.shown} is set`
      : `${f.shown} is there${f.above ? ` (a folder above the project, which ${d.name} reads up to the root of its git worktree)` : ""}`;
  return {
    code: "policy_widened",
    severity: "warning",
    ...(u.path !== undefined ? { file: f.shown } : {}),
    message:
      `${d.name}: ${where}: ${u.what}, which hcpx does not read. A rule there may let a write the Policy gates ` +
      `with confirm run without ${d.name} asking` +
      (u.hidden ? ` (and ${d.name} does not pass ${u.env} to its MCP servers)` : "") +
      `, so hcpx does not count ${d.name}'s prompt: it asks the person itself where it can`,
    hint:
      u.env !== undefined
        ? `unset ${u.env} in the shell you start ${d.name} from (keep the rules in the files adopt wrote), or accept that hcpx asks for gated writes itself`
        : `move the rules in ${f.shown} into the file adopt wrote (or remove it), or accept that hcpx asks for gated writes itself`,
  };
}

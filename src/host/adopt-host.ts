// Steps of one host's adopt plan (src/host/adopt-run.ts adoptHost) that read
// the run but keep no state of their own: the notes said for the host, and the
// checks on a target's own file.
import { HcpxError } from "../util/errors";
import type { Descriptor, Target } from "./descriptor";
import type { McpCommand } from "./command";
import type { VFile } from "./formats";
import { requireFileOrAbsent } from "./formats/common";
import type { RunView } from "./adopt-types";
import { homeText, movedHomes } from "./homes";
import { canonicalHost } from "./descriptor";
import { ledgerKey, type Ledger } from "./ledger";
import { isInside } from "../util/paths";

/**
 * The display paths a target writes: its path (each alternative), and the files the host reads
 * instead in the same folder (`shadowedBy`), which get the block too.
 */
export function targetShows(run: Pick<RunView, "pathOf" | "showOf">, d: Descriptor, t: Target): string[] {
  const paths = Array.isArray(t.path) ? t.path : [t.path];
  const folder = (p: string) => p.slice(0, p.lastIndexOf("/") + 1);
  const shadows = paths.flatMap((p) => (t.shadowedBy?.files ?? []).map((n) => folder(p) + n));
  return [...paths, ...shadows].map((p) => run.showOf(run.pathOf(d, p)));
}

/** The first of a target path given as one or several. */
export function first<T>(x: T | T[]): T {
  return Array.isArray(x) ? x[0]! : x;
}

/** What is said for the host: its scope's notes, its end of life, how the person approves the server here. */
export function hostNotes(
  run: RunView,
  desc: Descriptor,
  spec: NonNullable<Descriptor["scopes"][RunView["scope"]]>,
): void {
  const { scope } = run;
  const host = desc.host;
  // the host's files named where it reads them (a home its variable moves)
  const said = homeText(desc, run.homeDir, run.env);
  for (const n of spec.notes ?? []) run.notes.push(said(`${desc.name}: ${n}`));
  if (desc.endOfLife)
    run.notes.push(
      `${desc.name}: end of life since ${desc.endOfLife.since}: ${desc.endOfLife.note}; adopt keeps working for people who still run it`,
    );
  // how the person approves the server here, or what a gated write relies on (descriptor gate.person)
  const gate = desc.gate?.person?.[scope];
  if (gate && !run.opts.preview) run.notes.push(said(`${desc.name}: ${gate}`));
  // the person's approval: written with --approve where the descriptor has a place for it; else where they approve
  const approval = spec.targets.find((t) => t.approval);
  if (!run.opts.preview && !run.opts.remove) {
    const where = approval ? said(first(approval.path)) : undefined;
    if (approval && !run.opts.approve)
      run.notes.push(
        `${desc.name}: \`hcpx adopt ${host}${scope === "user" ? " --scope user" : ""} --approve --write\` writes your approval of the server to ${where} (your own file${scope === "project" ? ", kept out of git" : ""})`,
      );
    else if (approval)
      run.notes.push(
        `${desc.name}: --approve: your approval of the server is in ${where} (\`${approval.key!.join(".")}\`)`,
      );
    else if (run.opts.approve)
      run.notes.push(
        `${desc.name}: --approve: hcpx writes no approval for this host (it keeps it in its own records); ${gate ?? "nothing to approve here"}`,
      );
  }
}

/** The checks on a target's own file: a file (or absent), no host variable in the command, the target's note. */
export function targetFile(f: VFile, t: Target, desc: Descriptor, mcp: McpCommand): void {
  requireFileOrAbsent(f);
  // the host expands its variable syntax (hosts/<host>.json5 `vars`) in what we write: no host has an escape, so refuse
  if (t.vars) {
    const re = new RegExp(t.vars.pattern, "u");
    const w = mcp.argv.find((x) => re.test(x));
    if (w !== undefined) {
      throw new HcpxError({
        code: "host_variable",
        message: `the MCP command word ${JSON.stringify(w)} holds ${JSON.stringify(re.exec(w)![0])}, which ${desc.name} expands as a variable here (${t.vars.syntax}); it has no escape for it, so hcpx writes nothing`,
        file: f.show,
        hint: "install or run hcpx from a path without that text, or pass --command with a command line without it",
      });
    }
  }
  if (t.note) f.notes.push(t.note);
}

/**
 * A home of the host's that a variable moves (descriptor `homes`), said with the plan at user scope, where
 * adopt writes there; a value hcpx cannot use is a problem: not an absolute path (at any scope: the health
 * checks read there too), or, at user scope, outside $HOME (user-scope files are written only below it).
 */
export function homeNotes(run: RunView, d: Descriptor): void {
  if (!d.homes || !d.scopes[run.scope]) return;
  let moved;
  try {
    moved = movedHomes(d, run.homeDir, run.env);
  } catch (err) {
    if (err instanceof HcpxError) return void run.problems.push(...err.problems);
    throw err;
  }
  if (run.scope !== "user") return;
  // the homes adopt writes in: those holding a target of this scope
  const written = d.scopes.user!.targets.flatMap((t) => (Array.isArray(t.path) ? t.path : [t.path]));
  const refused = new Set<string>();
  for (const m of moved) {
    if (!written.some((p) => p === m.key || p.startsWith(m.key + "/"))) continue;
    if (!isInside(m.abs, run.homeDir) || m.abs === run.homeDir) {
      if (refused.has(m.variable)) continue;
      refused.add(m.variable);
      run.problems.push({
        code: "host_home",
        message: `$${m.variable} is ${m.value}: ${d.name} reads its ${m.key} at ${m.abs}, outside your home (${run.homeDir}); user-scope adopt writes only below your home`,
        hint: `point ${m.variable} at a folder below ${run.homeDir} (move ${d.name}'s files there) in the shell you start ${d.name} from, then run adopt again`,
      });
      continue;
    }
    run.notes.push(
      `${d.name}: $${m.variable} is set: ${d.name}'s ${m.key} is ${run.showOf(m.abs)}, where adopt reads and writes it`,
    );
  }
}

/** A ledger that recorded a host under an id it has left (descriptor `aliases`: windsurf) is read as the host's, in place. */
export function canonicalLedgerHosts(ledger: Ledger): void {
  for (const k of Object.keys(ledger.hosts)) {
    const id = canonicalHost(k);
    if (id === k) continue;
    const old = ledger.hosts[k]!;
    const now = ledger.hosts[id];
    ledger.hosts[id] =
      now && now.scope === old.scope
        ? {
            ...now,
            entries: [
              ...now.entries,
              ...old.entries.filter((e) => !now.entries.some((x) => ledgerKey(x) === ledgerKey(e))),
            ],
            dirs: [...new Set([...now.dirs, ...old.dirs])].sort(),
          }
        : (now ?? old);
    delete ledger.hosts[k];
  }
}

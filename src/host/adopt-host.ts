// Steps of one host's adopt plan (src/host/adopt-run.ts adoptHost) that read
// the run but keep no state of their own: the notes said for the host, and the
// checks on a target's own file.
import { HcpxError } from "../util/errors";
import type { Descriptor, Target } from "./descriptor";
import type { McpCommand } from "./command";
import type { VFile } from "./formats";
import { requireFileOrAbsent } from "./formats/common";
import type { RunView } from "./adopt-types";

/**
 * The display paths a target writes: its path (each alternative), and the files the host reads
 * instead in the same folder (`shadowedBy`), which get the block too.
 */
export function targetShows(run: Pick<RunView, "absOf" | "showOf">, t: Target): string[] {
  const paths = Array.isArray(t.path) ? t.path : [t.path];
  const folder = (p: string) => p.slice(0, p.lastIndexOf("/") + 1);
  const shadows = paths.flatMap((p) => (t.shadowedBy?.files ?? []).map((n) => folder(p) + n));
  return [...paths, ...shadows].map((p) => run.showOf(run.absOf(p)));
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
  for (const n of spec.notes ?? []) run.notes.push(`${desc.name}: ${n}`);
  if (desc.endOfLife)
    run.notes.push(
      `${desc.name}: end of life since ${desc.endOfLife.since}: ${desc.endOfLife.note}; adopt keeps working for people who still run it`,
    );
  // how the person approves the server here, or what a gated write relies on (descriptor gate.person)
  const gate = desc.gate?.person?.[scope];
  if (gate && !run.opts.preview) run.notes.push(`${desc.name}: ${gate}`);
  // the person's approval: written with --approve where the descriptor has a place for it; else where they approve
  const approval = spec.targets.find((t) => t.approval);
  if (!run.opts.preview && !run.opts.remove) {
    const where = approval ? first(approval.path) : undefined;
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

// Which of the files adopt writes belong in git: per file, from the descriptor
// (`git: "commit" | "ignore"` on a project-scope target; "commit" by default), and
// a `.gitignore` block hcpx keeps on request (`adopt --gitignore`): the "ignore"
// files of every host the project ledger records, and hcpx's own transient files.
// The block sits between two marker lines; the person's lines around it are never
// touched, and a block whose markers are broken stops adopt with the line.
import { join } from "node:path";
import { HcpxError } from "../util/errors";
import { loadDescriptor, type Target } from "./descriptor";
import { parseLedger } from "./ledger";
import type { FileChange, FilePlan, LedgerRecord } from "../plan/types";
import { diskFs, type ReadFs } from "../plan/fs";

/** What of an adopt plan (src/host/adopt-types.ts AdoptPlan) the .gitignore block is planned from. */
interface AdoptPlanned extends Pick<FilePlan, "changes" | "base"> {
  scope: "project" | "user";
  record: LedgerRecord;
}

export const GITIGNORE_BEGIN = "# hcp:begin (kept by `hcpx adopt --gitignore`; your own lines go outside this block)";
export const GITIGNORE_END = "# hcp:end";
const BEGIN_RE = /^# hcp:begin\b/;
const END_RE = /^# hcp:end\s*$/;

/** hcpx's own files that never belong in git (the ledger, `.hcp/adopted.json`, does: it is shared). */
export const HCPX_TRANSIENT = ["/.hcp/generated/", "/.hcp/adopt.journal.json", "/.hcp/*.lock", "/.hcp/*.tmp"];

export type GitClass = "commit" | "ignore";

/** The git class of a display path hcpx writes for `host` at project scope (skill copies: their dir's). */
export function gitClassOf(host: string, path: string): GitClass {
  let targets: Target[] = [];
  try {
    targets = loadDescriptor(host).scopes.project?.targets ?? [];
  } catch {
    return "commit";
  }
  for (const t of targets) {
    const paths = Array.isArray(t.path) ? t.path : [t.path];
    if (paths.includes(path) || (t.format === "dir-of-skills" && paths.some((d) => path.startsWith(d + "/"))))
      return t.git ?? "commit";
  }
  return "commit";
}

/** Per file of a written plan: commit or ignore (project scope only). */
export function gitClasses(plan: Pick<AdoptPlanned, "changes" | "scope">): { path: string; git: GitClass }[] {
  if (plan.scope !== "project") return [];
  return plan.changes
    .filter((c) => c.kind !== "delete")
    .map((c) => ({
      path: c.path,
      git: c.hosts.some((h) => gitClassOf(h, c.path) === "ignore") ? ("ignore" as const) : ("commit" as const),
    }));
}

interface Span {
  start: number;
  end: number;
}

function findSpan(text: string, show: string): Span | undefined {
  const lines = text.split("\n");
  let begin = -1;
  let offset = 0;
  let startOff = 0;
  for (const [i, raw] of lines.entries()) {
    const line = raw.replace(/\r$/, "");
    if (BEGIN_RE.test(line)) {
      if (begin >= 0)
        throw new HcpxError({
          code: "bad_gitignore_block",
          message: "a second `# hcp:begin` line before `# hcp:end`",
          file: show,
          line: i + 1,
          hint: "keep one hcp block (hcpx writes it); remove the extra marker line",
        });
      begin = i;
      startOff = offset;
    } else if (END_RE.test(line)) {
      if (begin < 0)
        throw new HcpxError({
          code: "bad_gitignore_block",
          message: "`# hcp:end` without `# hcp:begin` above it",
          file: show,
          line: i + 1,
          hint: "remove the stray marker line, or restore the block's first line",
        });
      const end = offset + raw.length + (i < lines.length - 1 ? 1 : 0);
      // a second block further down is as ambiguous as a broken one
      const rest = lines
        .slice(i + 1)
        .findIndex((l) => BEGIN_RE.test(l.replace(/\r$/, "")) || END_RE.test(l.replace(/\r$/, "")));
      if (rest >= 0)
        throw new HcpxError({
          code: "bad_gitignore_block",
          message: "more than one hcp block",
          file: show,
          line: i + 2 + rest,
          hint: "keep one hcp block; remove the other",
        });
      return { start: startOff, end };
    }
    offset += raw.length + 1;
  }
  if (begin >= 0)
    throw new HcpxError({
      code: "bad_gitignore_block",
      message: "`# hcp:begin` without `# hcp:end`",
      file: show,
      line: begin + 1,
      hint: "restore the `# hcp:end` line (hcpx never guesses where its block ends)",
    });
  return undefined;
}

/** The text with the block set to `lines` (undefined: removed). */
export function setGitignoreBlock(text: string, lines: string[] | undefined, show: string): string {
  const span = findSpan(text, show);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const block = lines ? [GITIGNORE_BEGIN, ...lines, GITIGNORE_END].join(eol) + eol : "";
  if (span) return text.slice(0, span.start) + block + text.slice(span.end);
  if (!lines) return text;
  return text + (text === "" || text.endsWith("\n") ? "" : eol) + block;
}

/**
 * The `.gitignore` change for a project plan, or undefined when there is none:
 * with `request` (--gitignore), or when the file already holds hcpx's block.
 * The block lists hcpx's transient files and every "ignore" file the new ledger records.
 */
export function gitignoreChange(plan: AdoptPlanned, request: boolean, fs: ReadFs = diskFs): FileChange | undefined {
  if (plan.scope !== "project") return undefined;
  const abs = join(plan.base, ".gitignore");
  const show = ".gitignore";
  const real = fs.resolve(abs, plan.base, show);
  const e = fs.entry(real);
  if (e.kind === "binary")
    throw new HcpxError({
      code: "not_utf8",
      message: `is not UTF-8 text (invalid byte at offset ${e.offset}); left untouched`,
      file: show,
      hint: "hcpx keeps a block in a UTF-8 .gitignore: convert it to UTF-8, or leave out --gitignore",
    });
  if (e.kind !== "file" && e.kind !== "absent")
    throw new HcpxError({
      code: "not_a_file",
      message: "is not a regular file",
      file: show,
      hint: "hcpx keeps a block in a .gitignore file; move this away, or leave out --gitignore",
    });
  const old = e.kind === "file" ? e.text : undefined;
  const present = old !== undefined && findSpan(old, show) !== undefined;
  if (!request && !present) return undefined;
  const ledger = plan.record.new ? parseLedger(plan.record.new, ".hcp/adopted.json") : undefined;
  const ignored = new Set<string>();
  for (const [host, h] of Object.entries(ledger?.hosts ?? {})) {
    if (h.scope !== "project") continue;
    for (const en of h.entries) if (gitClassOf(host, en.path) === "ignore") ignored.add("/" + en.path);
  }
  const hosts = Object.values(ledger?.hosts ?? {}).some((h) => h.scope === "project");
  const lines = hosts ? [...HCPX_TRANSIENT, ...[...ignored].sort()] : undefined;
  let next = setGitignoreBlock(old ?? "", lines, show);
  if (old === undefined && next === "") return undefined;
  if (next === old) return undefined;
  const kind = old === undefined ? "create" : next === "" ? "delete" : "update";
  if (kind === "delete") next = "";
  return {
    path: show,
    abs,
    real,
    kind,
    ...(old !== undefined ? { old } : {}),
    ...(kind !== "delete" ? { new: next } : {}),
    parts: [{ kind: "file" }],
    hosts: [],
    notes: [lines ? "the hcp block: files that stay out of git" : "the hcp block removed (no host adopted)"],
  };
}

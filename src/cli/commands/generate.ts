// `hcpx generate [--out DIR] [--host H…] [--check] [--json]`: writes every
// projection of §12 for review. Atomic writes; removes only files it wrote
// itself (listed in DIR/.manifest.json) and the user has not changed since.
// The manifest is committed with the out dir, so what it names passes guardPath
// (src/util/fsio.ts): a path outside the out dir, or through a symlink that
// leaves it, is ignored with a warning and never read or deleted.
import { applyGeneration, planGeneration, type GenerateOptions as AppGenerateOptions } from "../../app/generate";
import type { PlannedFile } from "../../projection/types";
import type { Problem } from "../../util/errors";
import { c, done, failure, makeOut, printWarnings, sayErrRaw, writeJson } from "../output";

export interface GenerateOptions extends Pick<AppGenerateOptions, "out" | "host" | "check"> {
  json?: boolean;
}

export { DEFAULT_HOSTS, MANIFEST, type FileState } from "../../app/generate";

export async function run(opts: GenerateOptions, globals: { config?: string }): Promise<number> {
  const out = makeOut(opts);
  const projectWarnings: Problem[] = [];
  const r = await planGeneration({
    out: opts.out,
    host: opts.host,
    check: opts.check,
    config: globals.config,
    warn: (ps) => {
      printWarnings(ps, out);
      projectWarnings.push(...ps);
    },
  });
  printWarnings(r.warnings, out);
  // --json: the same warnings the text run prints (the project's, the manifest's), in the envelope
  const warnings = [...projectWarnings, ...r.warnings];
  const { shownOut, drift, changes } = r;
  if (opts.check) {
    if (drift.length === 0) {
      done(
        out,
        { out: shownOut, current: true, files: r.files.length, warnings },
        `${shownOut} is up to date (${r.files.length} files)`,
      );
      return 0;
    }
    const lines = [
      ...changes.map((ch) => `  ${ch.state.padEnd(7)} ${ch.path}`),
      ...r.others.map((d) => `  ${d.kind.padEnd(7)} ${d.path}${d.at ? ` at ${d.at}` : ""}`),
    ];
    // what generate would bring up to date; files left in place (not hcpx's, or changed since) need a person
    const again = `run \`hcpx generate${opts.out ? ` --out ${opts.out}` : ""}\``;
    const hint = r.conflicts.length
      ? `${again}; ${r.conflicts.length} file(s) it leaves in place (above) need moving away first`
      : `${again} and commit the result`;
    if (out.json) {
      writeJson(
        failure("out_of_date", `${shownOut} is out of date: ${drift.length} file(s)`, {
          hint,
          out: shownOut,
          files: changes,
          drift,
          warnings,
        }),
      );
    } else {
      sayErrRaw(`${shownOut} is out of date (${drift.length} file(s)):\n${lines.join("\n")}\n  hint: ${hint}\n`);
    }
    return 1;
  }

  printWarnings(r.conflicts, out);
  const res = applyGeneration(r);
  const changed = new Set(res.written);
  const removed = res.deleted;

  const summary = summarize(r.files);
  done(
    out,
    {
      out: shownOut,
      files: r.files.map((f) => f.path),
      written: [...changed].sort(),
      removed,
      groups: summary.map((s) => ({ group: s.group, files: s.count, detail: s.detail })),
      conflicts: r.conflicts,
      warnings,
    },
    (color) => {
      const head = `${c.bold(color, "Generated")} ${shownOut}/ ${c.dim(color, `(${r.files.length} files, ${changed.size} written, ${removed.length} removed)`)}`;
      const w = Math.max(...summary.map((s) => s.group.length));
      return [head, ...summary.map((s) => `  ${s.group.padEnd(w)}  ${s.detail}`)].join("\n");
    },
  );
  return 0;
}

function summarize(files: PlannedFile[]): { group: string; count: number; detail: string }[] {
  const groups = new Map<string, PlannedFile[]>();
  for (const f of files) {
    const g = f.path.includes("/") ? f.path.slice(0, f.path.indexOf("/") + 1) : f.path;
    const key = g === "hosts/" ? `hosts/${f.path.split("/")[1]}/` : g;
    const g2 = groups.get(key);
    if (g2) g2.push(f);
    else groups.set(key, [f]);
  }
  const rows: { group: string; count: number; detail: string }[] = [];
  for (const [group, fs] of groups) {
    let detail: string;
    if (group === "system-prompt.md") {
      const f = fs[0]!;
      const hash = /sha256:([0-9a-f]{16})/.exec(f.content)?.[1];
      detail = `stable prompt block, ${Buffer.byteLength(f.content)} bytes${hash ? `, sha256:${hash}` : ""}`;
    } else if (group === "tools/") {
      // the tool lists say how many tools they hold (rendering one to count would print ~35 MB at 5,000 packs × 10 commands)
      const count = (p: string) => fs.find((f) => f.path === p)?.items ?? 0;
      detail = `shell shape (${count("tools/shell.json")} tools), in-process shape as MCP, Anthropic, OpenAI (${count("tools/mcp.json")} tools each)`;
    } else if (group === "skills/") {
      const ids = fs.map((f) => f.path.split("/")[1]);
      detail = `${fs.length} Skill copies: ${ids.slice(0, 8).join(", ")}${ids.length > 8 ? `, … (${ids.length - 8} more)` : ""}`;
    } else {
      detail = `${fs.map((f) => f.path.split("/").slice(2).join("/")).join(", ")} (+ the skills/ copies, which adopt places in the host's skills dir)`;
    }
    rows.push({ group, count: fs.length, detail });
  }
  const order = (g: string) => (g === "system-prompt.md" ? 0 : g === "tools/" ? 1 : g === "skills/" ? 2 : 3);
  return rows.sort((a, b) => order(a.group) - order(b.group) || (a.group < b.group ? -1 : 1));
}

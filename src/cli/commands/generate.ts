// `hcpx generate [--out DIR] [--host H…] [--check] [--json]`: writes every
// projection of §12 for review. Atomic writes; removes only files it wrote
// itself (listed in DIR/.manifest.json) and the user has not changed since.
// The manifest is committed with the out dir, so what it names passes guardPath
// (src/util/fsio.ts): a path outside the out dir, or through a symlink that
// leaves it, is ignored with a warning and never read or deleted.
import { join, relative, resolve } from "node:path";
import { loadPacks, loadProject } from "../../pack/load";
import { DEFAULT_SKILLS_PATH } from "../../projection/build";
import { DEFAULT_HOSTS, planGenerate } from "../../projection/plan";
import type { PlannedFile } from "../../projection/types";
import { fail } from "../../util/errors";
import { guardPath } from "../../util/fsio";
import { renderHostPreviews } from "../../host/preview";
import { applyPlan } from "../../host/apply";
import { driftOf, type Drift, type DriftKind } from "../../plan/drift";
import { planFiles } from "../../plan/files";
import { didYouMean } from "../../util/suggest";
import { canonicalHost, listHosts } from "../../host/descriptor";
import { display, isInside, toPosix } from "../../util/paths";
import { c, done, failure, makeOut, printWarnings, sayErrRaw, writeJson } from "../output";

export interface GenerateOptions {
  out?: string;
  host?: string[];
  check?: boolean;
  json?: boolean;
}

export const MANIFEST = ".manifest.json";

export type FileState = "differs" | "missing" | "stale";
/** how `generate --check` has always named the drift of a file (a stale file someone changed is still stale) */
const STATE: Partial<Record<DriftKind, FileState>> = { missing: "missing", changed: "differs", stale: "stale", foreign: "stale" };

export async function run(opts: GenerateOptions, globals: { config?: string }): Promise<number> {
  const out = makeOut(opts);
  // the project's packs alone: generate writes files the project commits (the user's own packs are not the team's)
  const project = loadProject({ config: globals.config, user: "fallback" });
  const packs = loadPacks(project);
  printWarnings(project.warnings, out);

  const outDir = resolve(opts.out ?? join(project.root, ".hcp", "generated"));
  const relOut = toPosix(relative(project.root, outDir)) || ".";
  const skillsPath = opts.out === undefined ? DEFAULT_SKILLS_PATH : `${relOut === "." ? "" : relOut + "/"}skills`;
  const hostList = opts.host?.flatMap((h) => h.split(",")).map((h) => h.trim()).filter(Boolean);
  const known = listHosts();
  // a host's old id is the host (descriptor `aliases`: windsurf → devin)
  const hosts = hostList === undefined ? undefined : hostList.includes("none") ? [] : [...new Set(hostList.map((h) => (known.includes(h) ? h : canonicalHost(h))))];
  for (const h of hosts ?? []) {
    if (!known.includes(h)) fail("unknown_host", `unknown host '${h}'`, { hint: `${didYouMean(h, [...known, "none"])}known hosts: ${known.join(", ")} (or \`none\`)`, exit: 64 });
  }
  const plan = await planGenerate(project, packs, { hosts, skillsPath, previews: renderHostPreviews });

  // The default out dir is inside the project: a symlink on the way must not lead out of it.
  const root = project.root;
  if (isInside(outDir, root) && outDir !== root) {
    const g = guardPath(outDir, { dir: root, prefix: "" }, "absolute");
    if (!g.ok) fail("symlink_refused", `the out dir ${g.reason}`, { file: display(outDir), hint: "replace the symlink with a directory, or pass --out with a directory of its own" });
  }
  // every planned file, and every stale file the manifest names, passes the one guard (src/plan/files.ts)
  const fp = planFiles({ files: plan.files, dir: outDir, label: "the out dir", manifest: MANIFEST, symlinkHint: "replace the symlink with a directory or a file of its own; hcpx writes nothing outside its out dir" });
  printWarnings(fp.warnings, out);
  const shownOut = display(outDir);

  if (opts.check) {
    const drift = driftOf(fp);
    // paths relative to the out dir (a file left in place is named by its display path)
    const rel = (d: Drift) => (d.kind === "foreign" ? toPosix(relative(outDir, resolve(d.path))) : d.path);
    const changes = drift.filter((d) => STATE[d.kind]).map((d) => ({ path: rel(d), state: STATE[d.kind]! }));
    if (drift.length === 0) {
      done(out, { out: shownOut, current: true, files: plan.files.length }, `${shownOut} is up to date (${plan.files.length} files)`);
      return 0;
    }
    const lines = [...changes.map((ch) => `  ${ch.state.padEnd(7)} ${ch.path}`), ...drift.filter((d) => !STATE[d.kind]).map((d) => `  ${d.kind.padEnd(7)} ${d.path}${d.at ? ` at ${d.at}` : ""}`)];
    if (out.json) {
      writeJson(failure("out_of_date", `${shownOut} is out of date: ${drift.length} file(s)`, { hint: "run `hcpx generate` and commit the result", out: shownOut, files: changes, drift }));
    } else {
      sayErrRaw(`${shownOut} is out of date (${drift.length} file(s)):\n${lines.join("\n")}\n  hint: run \`hcpx generate\`${opts.out ? ` --out ${opts.out}` : ""} to update it\n`);
    }
    return 1;
  }

  printWarnings(fp.conflicts, out);
  const res = applyPlan(fp);
  const changed = new Set(res.written);
  const removed = res.deleted;

  const summary = summarize(plan.files);
  done(
    out,
    { out: shownOut, files: plan.files.map((f) => f.path), written: [...changed].sort(), removed, groups: summary.map((s) => ({ group: s.group, files: s.count, detail: s.detail })) },
    (color) => {
      const head = `${c.bold(color, "Generated")} ${shownOut}/ ${c.dim(color, `(${plan.files.length} files, ${changed.size} written, ${removed.length} removed)`)}`;
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
      const count = (p: string) => (JSON.parse(fs.find((f) => f.path === p)?.content ?? "[]") as unknown[]).length;
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

export { DEFAULT_HOSTS };

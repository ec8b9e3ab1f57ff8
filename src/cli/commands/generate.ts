// `hcpx generate [--out DIR] [--host H…] [--check] [--json]`: writes every
// projection of §12 for review. Atomic writes; removes only files it wrote
// itself (listed in DIR/.manifest.json) and the user has not changed since.
// The manifest is committed with the out dir, so what it names passes guardPath
// (src/host/fsio.ts): a path outside the out dir, or through a symlink that
// leaves it, is ignored with a warning and never read or deleted.
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, realpathSync, rmdirSync, unlinkSync } from "node:fs";
import { CAPS, readTextFile } from "../../util/readfile";
import { dirname, join, relative, resolve } from "node:path";
import { loadPacks, loadProject } from "../../pack/load";
import { DEFAULT_SKILLS_PATH } from "../../projection/build";
import { DEFAULT_HOSTS, planGenerate } from "../../projection/plan";
import type { PlannedFile } from "../../projection/types";
import { atomicWrite } from "../../util/atomic";
import { HcpxError, type Problem, fail } from "../../util/errors";
import { guardPath, type TrustBase } from "../../host/fsio";
import { didYouMean } from "../../util/suggest";
import { listHosts } from "../../host/descriptor";
import { display, isInside, toPosix } from "../../util/paths";
import { c, done, failure, makeOut, printWarnings, writeJson } from "../output";

export interface GenerateOptions {
  out?: string;
  host?: string[];
  check?: boolean;
  json?: boolean;
}

export const MANIFEST = ".manifest.json";

const hashOf = (s: string | Buffer) => createHash("sha256").update(s).digest("hex");

interface Manifest {
  generator: "hcpx";
  files: Record<string, string>;
}

function readManifest(out: TrustBase): { manifest?: Manifest; problem?: string } {
  const g = guardPath(MANIFEST, out);
  if (!g.ok) return { problem: `${g.reason} ` };
  let text: string;
  try {
    // what the out dir holds is read back, not trusted: a regular file of bounded size, never a blocking open
    text = readTextFile(g.real, MANIFEST, CAPS.ledger);
  } catch (e) {
    if (e instanceof HcpxError && e.problems[0]?.code === "missing_file") return {};
    if (e instanceof HcpxError) return { problem: `${e.problems[0]!.message} ` };
    return {};
  }
  try {
    const m = JSON.parse(text) as Manifest;
    if (!m || typeof m.files !== "object" || m.files === null || Array.isArray(m.files)) return { problem: "has no files map" };
    return { manifest: m };
  } catch (e) {
    return { problem: `is not valid JSON (${(e as Error).message})` };
  }
}

function readOr(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}


function pruneEmptyDirs(from: string, root: string): void {
  let d = dirname(from);
  while (d !== root && isInside(d, root)) {
    try {
      if (readdirSync(d).length) return;
      rmdirSync(d);
    } catch {
      return;
    }
    d = dirname(d);
  }
}

export type FileState = "differs" | "missing" | "stale";

export async function run(opts: GenerateOptions, globals: { config?: string }): Promise<number> {
  const out = makeOut(opts);
  const project = loadProject({ config: globals.config });
  const packs = loadPacks(project);
  printWarnings(project.warnings, out);

  const outDir = resolve(opts.out ?? join(project.root, ".hcp", "generated"));
  const relOut = toPosix(relative(project.root, outDir)) || ".";
  const skillsPath = opts.out === undefined ? DEFAULT_SKILLS_PATH : `${relOut === "." ? "" : relOut + "/"}skills`;
  const hostList = opts.host?.flatMap((h) => h.split(",")).map((h) => h.trim()).filter(Boolean);
  const hosts = hostList === undefined ? undefined : hostList.includes("none") ? [] : hostList;
  const known = listHosts();
  for (const h of hosts ?? []) {
    if (!known.includes(h)) fail("unknown_host", `unknown host '${h}'`, { hint: `${didYouMean(h, [...known, "none"])}known hosts: ${known.join(", ")} (or \`none\`)`, exit: 64 });
  }
  const plan = await planGenerate(project, packs, { hosts, skillsPath });

  // The default out dir is inside the project: a symlink on the way must not lead out of it.
  const root = project.root;
  if (isInside(outDir, root) && outDir !== root) {
    const g = guardPath(outDir, { dir: root, prefix: "" }, "absolute");
    if (!g.ok) fail("symlink_refused", `the out dir ${g.reason}`, { file: display(outDir), hint: "replace the symlink with a directory, or pass --out with a directory of its own" });
  }
  const outBase: TrustBase = { dir: outDir, prefix: "", label: "the out dir" };
  const { manifest, problem } = readManifest(outBase);
  const warnings: Problem[] = [];
  // every planned file, and every stale file the manifest names, through the one guard
  const realOf = new Map<string, string>();
  for (const f of plan.files) {
    const g = guardPath(f.path, outBase);
    if (!g.ok) fail("symlink_refused", `${f.path} ${g.reason}`, { file: display(join(outDir, f.path)), hint: "replace the symlink with a directory or a file of its own; hcpx writes nothing outside its out dir" });
    realOf.set(f.path, g.real);
  }
  const planned = new Set(plan.files.map((f) => f.path));
  const stale = Object.keys(manifest?.files ?? {})
    .filter((p) => {
      if (planned.has(p)) return false;
      const g = guardPath(p, outBase);
      if (!g.ok) {
        warnings.push({ code: "manifest_entry_ignored", severity: "warning", file: display(join(outDir, MANIFEST)), path: `files[${JSON.stringify(p)}]`, message: `entry ${JSON.stringify(p)} ${g.reason} (it must stay inside the out dir); ignored: never read or deleted`, hint: "the manifest is written by hcpx generate; restore it from version control if someone changed it" });
        return false;
      }
      realOf.set(p, g.real);
      return readOr(g.real) !== undefined;
    })
    .sort();
  printWarnings(warnings, out);

  const changes: { path: string; state: FileState }[] = [];
  for (const f of plan.files) {
    const disk = readOr(realOf.get(f.path)!);
    if (disk === undefined) changes.push({ path: f.path, state: "missing" });
    else if (!disk.equals(Buffer.from(f.content, "utf8"))) changes.push({ path: f.path, state: "differs" });
  }
  for (const p of stale) changes.push({ path: p, state: "stale" });
  const shownOut = display(outDir);

  if (opts.check) {
    if (changes.length === 0) {
      done(out, { out: shownOut, current: true, files: plan.files.length }, `${shownOut} is up to date (${plan.files.length} files)`);
      return 0;
    }
    const lines = changes.map((ch) => `  ${ch.state.padEnd(7)} ${ch.path}`);
    if (out.json) {
      writeJson(failure("out_of_date", `${shownOut} is out of date: ${changes.length} file(s)`, { hint: "run `hcpx generate` and commit the result", out: shownOut, files: changes }));
    } else {
      process.stderr.write(`${shownOut} is out of date (${changes.length} file(s)):\n${lines.join("\n")}\n  hint: run \`hcpx generate\`${opts.out ? ` --out ${opts.out}` : ""} to update it\n`);
    }
    return 1;
  }

  if (problem) {
    printWarnings([{ code: "bad_manifest", message: `${MANIFEST} ${problem}; files it listed are left in place`, file: display(join(outDir, MANIFEST)) }], out);
  }
  const changed = new Set(changes.filter((ch) => ch.state !== "stale").map((ch) => ch.path));
  for (const f of plan.files) if (changed.has(f.path)) atomicWrite(realOf.get(f.path)!, f.content);
  const removed: string[] = [];
  const kept: string[] = [];
  const realOut = realpathSync(outDir); // it exists now: every planned file is below it
  for (const p of stale) {
    const file = realOf.get(p)!;
    const disk = readOr(file);
    if (disk && hashOf(disk) === manifest!.files[p]) {
      unlinkSync(file);
      pruneEmptyDirs(file, realOut);
      removed.push(p);
    } else kept.push(p);
  }
  if (kept.length) printWarnings(kept.map((p) => ({ code: "changed_by_user", message: `no longer generated, but changed since hcpx wrote it: left in place`, file: display(join(outDir, p)) })), out);
  const newManifest: Manifest = { generator: "hcpx", files: Object.fromEntries(plan.files.map((f) => [f.path, hashOf(f.content)])) };
  const mtext = JSON.stringify(newManifest, null, 2) + "\n";
  // the manifest itself: replaced (a rename, never written through a link)
  if (problem !== undefined || readOr(join(outDir, MANIFEST))?.toString("utf8") !== mtext) atomicWrite(join(outDir, MANIFEST), mtext);

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
    groups.set(key, [...(groups.get(key) ?? []), f]);
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

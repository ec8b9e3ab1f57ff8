// hcpx pack add <source> [--yes] | pack install [--check] | pack update [id] [--yes] | pack remove <id>
// Packs from elsewhere (npm, git, a path), vendored under .hcp/packs/<id> and
// recorded in hcp.lock (src/packs/). A fetched pack is untrusted: it is
// staged, loaded and linted (errors refuse it), and the person sees what it
// runs, from where, the env it reads and its writes before it is vendored
// (`--yes` says they have). `add` then activates it and grants its reads only;
// `update` shows the Policy diff and never grants a write: a command that
// became a write, or lost its confirm, is withdrawn from the grants.
import { createInterface } from "node:readline/promises";
import { existsSync } from "node:fs";
import { guard, swapDir, type Base } from "../../util/door";
import { dirname, join, resolve } from "node:path";
import { HcpxError, type Problem, fail } from "../../util/errors";
import { display } from "../../util/paths";
import { findProjectConfig, loadPack, loadProject } from "../../pack/load";
import { isGranted } from "../../pack/grants";
import { lintPackDir } from "../../pack/lint";
import type { Project } from "../../pack/model";
import { arrayAppend, arrayRemove } from "../../config/edit";
import { openConfig, writeConfig } from "../../config/file";
import { configPackEntries } from "../../config/active";
import { interactive, type CommonOpts } from "../../config/common";
import { diffHashes, hashBytes, hashTree, lockFile, packDir, PACKS_DIR, readLock, writeLock, type Lock, type Source } from "../../packs/lock";
import { fetchLatest, fetchLocked, fetchNew, parseSource, removeDir, stage, type Fetched } from "../../packs/source";
import { diffEmpty, diffLines, diffReach, reachLines, reachOf, widenedVerbs, type Reach, type ReachDiff } from "../../packs/review";
import { activateDir } from "./activate";
import { c, done, failure, makeOut, neutralLine as o, printWarnings, sayRaw, writeJson } from "../output";

export interface VendorOpts extends CommonOpts {
  yes?: boolean;
  force?: boolean;
  check?: boolean;
  /** update: a new spec (npm), ref (git) or path (path) for the pack's source */
  to?: string;
}

function projectRoot(opts: CommonOpts): string {
  const explicit = opts.config ?? process.env.HCP_CONFIG;
  const file = explicit ? resolve(explicit) : findProjectConfig(process.cwd());
  if (!file) fail("no_config", `no hcp.config.json5 in ${display(process.cwd())} or any parent directory`, { hint: "run `hcpx init` first; packs are vendored next to the config" });
  return dirname(file);
}

function hashesOf(f: Fetched): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of f.entries) out[e.path] = hashBytes(e.data);
  return out;
}

/** Every write of these commands goes through src/util/door.ts with the project root as its base. */
function baseOf(root: string): Base {
  return { dir: root, label: "the project" };
}

/** A pack's folder under .hcp/packs, refused when a component of its path (the folder included) is a link leading out of the project. */
function packTarget(root: string, id: string): string {
  const target = packDir(root, id);
  guard(baseOf(root), target, display(target));
  return target;
}

/** Replace `target` with `staging` (renames inside the project; the old folder is removed after). */
function swapIn(root: string, staging: string, target: string): void {
  swapDir(baseOf(root), staging, target, display(target));
}

/** Where a pack comes from, on one line (the lock and a package's metadata are outside text). */
function sourceLabel(s: Source): string {
  if (s.type === "npm") return s.spec.startsWith("./") || s.spec.startsWith("/") ? `npm tarball ${o(s.spec)} (${o(s.version)})` : `npm ${o(s.resolved)}`;
  if (s.type === "git") return `git ${o(s.url)}${s.ref ? `#${o(s.ref)}` : ""} @ ${o(s.commit.slice(0, 12))}`;
  return `path ${o(s.path)}`;
}

/** Stage, load and lint a fetched pack; the staging folder is removed on any refusal. */
function stageChecked(f: Fetched, root: string, project: Project | undefined, label: string): { staging: string; id: string; reach: Reach; warnings: Problem[] } {
  const staging = stage(f.entries, baseOf(root), join(root, ...PACKS_DIR.split("/")));
  try {
    if (!existsSync(join(staging, "surface.json"))) fail("not_a_pack", `${label} has no surface.json at its root, so it is not a pack; nothing was vendored`, { hint: "a pack is a folder (an npm package, a repository) with surface.json, policy.json and SKILL.md at its top" });
    const pack = loadPack(staging);
    const problems = lintPackDir(staging, project ? { project } : {}).problems;
    const errors = problems.filter((p) => p.severity !== "warning");
    if (errors.length) {
      throw new HcpxError([{ code: "lint_failed", message: `the pack from ${label} has ${errors.length} lint error(s); nothing was vendored`, hint: "a pack from elsewhere is used only when it lints clean; ask its author to fix it" }, ...errors]);
    }
    return { staging, id: pack.id, reach: reachOf(pack, project), warnings: problems.filter((p) => p.severity === "warning") };
  } catch (e) {
    removeDir(baseOf(root), staging);
    // problems point at the staging folder, which is gone: name the source instead
    if (e instanceof HcpxError) throw new HcpxError(e.problems.map((p) => (p.file ? { ...p, file: p.file.split(display(staging)).join(`${label}:`).replace(/:\//, ":") } : p)), e.exitCode);
    throw e;
  }
}

async function confirmed(opts: VendorOpts, question: string): Promise<boolean> {
  if (opts.yes) return true;
  if (!interactive(opts)) return false;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    sayRaw(`${question} [y/N] `);
    return /^y(es)?$/i.test((await rl.question("")).trim());
  } finally {
    rl.close();
  }
}

/** The review was shown (on stdout) but not accepted; with --json its lines travel in the envelope's problems. */
function reviewRequired(what: string, lines: string[], hint: string, json: boolean): HcpxError {
  return new HcpxError([{ code: "review_required", message: what, hint }, ...(json ? lines.map((l) => ({ code: "review" as const, message: l.trim(), severity: "warning" as const })) : [])]);
}

/** Show the paths a reviewed pack will have once vendored, not its staging folder's. */
function relocate(reach: Reach, staging: string, target: string): Reach {
  return { ...reach, bins: reach.bins.map((b) => ({ ...b, resolves: b.resolves.split(display(staging)).join(display(target)) })) };
}

// ---------------------------------------------------------------- add

export async function runAdd(source: string, opts: VendorOpts): Promise<number> {
  const out = makeOut(opts);
  const root = projectRoot(opts);
  const project = loadProject({ config: opts.config });
  const lock = readLock(root);
  const parsed = parseSource(source, process.cwd());
  const fetched = fetchNew(parsed, root, source);
  const staged = stageChecked(fetched, root, project, source);
  const { staging, id, warnings } = staged;
  const target = packTarget(root, id);
  const reach = relocate(staged.reach, staging, target);
  let change: ReachDiff | undefined;
  try {
    if (lock.packs[id] && !opts.force) fail("exists", `pack '${id}' is already in ${display(lockFile(root))} (${sourceLabel(lock.packs[id].source)})`, { hint: `run \`hcpx pack update ${id}\` to move it to a new version, or \`hcpx pack remove ${id}\` first` });
    if (!lock.packs[id] && existsSync(target) && !opts.force) fail("exists", `${display(target)} exists but is not in hcp.lock`, { file: display(target), hint: "remove it, or pass --force to replace it" });
    const lines = [`pack '${id}' from ${sourceLabel(fetched.source)}:`, ...reachLines(reach)];
    // --force over a vendored version: its Policy change is a consent change too
    const beforeReach = existsSync(target) ? reachIfLoads(target) : undefined;
    change = beforeReach ? diffReach(beforeReach, reach) : undefined;
    if (change && change.changed.length) lines.push(`  Policy changes from the version vendored here:`, ...diffLines({ ...change, newWrites: [], newConfirmless: [], newReads: [], removed: [], newBins: [], newEnv: [], newSetsEnv: [], newModules: [], newHttp: [], kindChanged: undefined }));
    if (!out.json) sayRaw(lines.join("\n") + "\n");
    if (!(await confirmed(opts, `vendor '${id}' into ${display(target)} and activate it (its reads granted)?`))) {
      throw reviewRequired(`pack '${id}' is from elsewhere and untrusted until you have seen what it runs and reads; nothing was vendored`, lines.slice(1), "read the review (what runs, from where, the env it reads, its writes), then re-run with --yes", out.json);
    }
    swapIn(root, staging, target);
  } catch (e) {
    removeDir(baseOf(root), staging);
    throw e;
  }
  const files = hashesOf(fetched);
  const landed = diffHashes(files, hashTree(target));
  if (landed.length) fail("hash_mismatch", `what landed in ${display(target)} differs from what was fetched: ${landed.join(", ")}`, { hint: "something changed the folder while hcpx wrote it; run `hcpx pack install`" });
  const pack = loadPack(target);
  const prior = lock.packs[id];
  lock.packs[id] = { source: fetched.source, version: pack.surface.version, files };
  writeLock(root, lock);
  let act;
  try {
    act = await activateDir(target, opts);
  } catch (e) {
    // not activated (e.g. another active pack has this id): take the vendoring back
    removeDir(baseOf(root), target);
    if (prior) lock.packs[id] = prior;
    else delete lock.packs[id];
    writeLock(root, lock);
    throw e;
  }
  // a command the forced version widened (write → read included) is not granted by this add
  const widened = change ? widenedVerbs(change) : [];
  const w = widened.length ? withdrawGrants(loadProject({ config: opts.config }), opts, id, widened) : { removed: [], denied: [] };
  if (widened.length) act.granted = act.granted.filter((g) => !w.removed.includes(g) && !w.denied.includes(g));
  printWarnings([...warnings], out);
  done(out, { id, dir: display(target), source: fetched.source, lock: display(lockFile(root)), files: Object.keys(files).length, reach, granted: act.granted, withheld: act.withheld, ...(change?.changed.length ? { changed: change.changed, withdrawn: w.removed, denied: w.denied } : {}) }, (col) =>
    [
      `${c.green(col, "✓")} vendored '${id}' ${o(pack.surface.version)} into ${display(target)} (${Object.keys(files).length} files, hashes in ${display(lockFile(root))})`,
      act.granted.length ? `${c.green(col, "✓")} activated; granted ${act.granted.length} read command(s): ${act.granted.join(", ")}` : `${c.green(col, "✓")} activated; no read grants needed`,
      ...(w.removed.length ? [`  withdrew grant(s) of command(s) whose Policy widened: ${w.removed.join(", ")}`] : []),
      ...(w.denied.length ? [`  denied by name (a wider pattern granted them): ${w.denied.join(", ")}`] : []),
      ...(act.withheld.length ? [`  not granted: ${act.withheld.map((w) => `${id}.${w.verb} (${w.operation}${w.confirm ? ", confirm" : ""})`).join(", ")}`, `  to grant one: hcpx grant ${id}.${act.withheld[0]!.verb}`] : []),
    ].join("\n"),
  );
  return 0;
}

// ---------------------------------------------------------------- install

/** The reach of a vendored pack, or undefined when it does not load (nothing sound to compare). */
function reachIfLoads(dir: string): Reach | undefined {
  try {
    return reachOf(loadPack(dir));
  } catch (e) {
    if (e instanceof HcpxError) return undefined;
    throw e;
  }
}

export async function runInstall(opts: VendorOpts): Promise<number> {
  const out = makeOut(opts);
  const root = projectRoot(opts);
  const lock = readLock(root);
  const results: { id: string; status: "unchanged" | "restored" | "refused" | "differs"; detail?: string[]; diff?: ReachDiff; withdrawn?: string[]; denied?: string[] }[] = [];
  const problems: Problem[] = [];
  const changes: { id: string; diff: ReachDiff; result: (typeof results)[number] }[] = [];
  for (const [id, entry] of Object.entries(lock.packs)) {
    const target = packTarget(root, id);
    let current: string[] | undefined;
    try {
      current = existsSync(target) ? diffHashes(entry.files, hashTree(target)) : undefined;
    } catch (e) {
      if (!(e instanceof HcpxError)) throw e;
      current = [e.problems[0]!.message];
    }
    if (current && current.length === 0) {
      results.push({ id, status: "unchanged" });
      continue;
    }
    if (opts.check) {
      results.push({ id, status: "differs", detail: current ?? ["not installed"] });
      problems.push({ code: "pack_differs", message: `${display(target)} does not match hcp.lock: ${(current ?? ["not installed"]).join(", ")}`, file: display(target), hint: "run `hcpx pack install` to restore the locked files" });
      continue;
    }
    try {
      const fetched = fetchLocked(entry.source, root, `${id} (${sourceLabel(entry.source)})`);
      const mismatch = diffHashes(entry.files, hashesOf(fetched));
      if (mismatch.length) {
        fail("hash_mismatch", `pack '${id}' from ${sourceLabel(entry.source)} does not match hcp.lock: ${mismatch.slice(0, 8).join(", ")}${mismatch.length > 8 ? ", …" : ""}; nothing was written`, { file: display(lockFile(root)), path: `packs.${id}`, hint: "the source changed since it was locked (or the lock was edited): review the change with `hcpx pack update " + id + "`" });
      }
      // what the person consented to: the vendored folder this install replaces (none in a fresh clone)
      const before = existsSync(target) ? reachIfLoads(target) : undefined;
      const staging = stage(fetched.entries, baseOf(root), join(root, ...PACKS_DIR.split("/")));
      try {
        const again = diffHashes(entry.files, hashTree(staging));
        if (again.length) fail("hash_mismatch", `pack '${id}': the staged files differ from hcp.lock: ${again.join(", ")}`, { hint: "retry" });
        swapIn(root, staging, target);
      } catch (e) {
        removeDir(baseOf(root), staging);
        throw e;
      }
      const result: (typeof results)[number] = { id, status: "restored" };
      results.push(result);
      const after = before ? reachIfLoads(target) : undefined;
      if (before && after) {
        const diff = diffReach(before, after);
        if (!diffEmpty(diff)) {
          result.diff = diff;
          changes.push({ id, diff, result });
        }
      }
    } catch (e) {
      if (!(e instanceof HcpxError)) throw e;
      results.push({ id, status: "refused", detail: e.problems.map((p) => p.message) });
      problems.push(...e.problems);
    }
  }
  // the lock's content changed under a vendored pack: a Policy change is a consent change,
  // so a grant the change would widen is withdrawn, as `pack update` does
  if (changes.length) {
    const project = loadProject({ config: opts.config });
    for (const ch of changes) {
      const w = withdrawGrants(project, opts, ch.id, widenedVerbs(ch.diff));
      ch.result.withdrawn = w.removed;
      ch.result.denied = w.denied;
    }
  }
  if (problems.length) throw new HcpxError(problems);
  done(out, { lock: display(lockFile(root)), packs: results }, (col) =>
    results.length === 0
      ? `no packs in ${display(lockFile(root))}`
      : results
          .map((r) =>
            [
              `${c.green(col, "✓")} ${r.id}: ${r.status === "unchanged" ? "matches hcp.lock" : r.diff ? "restored from hcp.lock, which differs from the version that was vendored here:" : "restored from hcp.lock"}`,
              ...(r.diff ? diffLines(r.diff) : []),
              ...(r.withdrawn?.length ? [`  withdrew grant(s) of command(s) whose Policy widened: ${r.withdrawn.join(", ")}`] : []),
              ...(r.denied?.length ? [`  denied by name (a wider pattern granted them): ${r.denied.join(", ")}`] : []),
            ].join("\n"),
          )
          .join("\n"),
  );
  return 0;
}

// ---------------------------------------------------------------- update

function withdrawGrants(project: Project, cfgOpts: CommonOpts, id: string, verbs: string[]): { removed: string[]; denied: string[] } {
  const cfg = openConfig(cfgOpts);
  let text = cfg.text;
  const removed: string[] = [];
  const denied: string[] = [];
  for (const verb of verbs) {
    if (!isGranted(project.grants, id, verb)) continue;
    const exact = `${id}.${verb}`;
    if ((cfg.data.grants?.allow ?? []).includes(exact)) {
      text = arrayRemove(text, ["grants", "allow"], exact);
      removed.push(exact);
    }
    // still granted by a wider pattern (id.*, *): deny it by name
    const rest = { allow: project.grants.allow.filter((p) => p !== exact), deny: project.grants.deny };
    if (isGranted(rest, id, verb)) {
      text = arrayAppend(text, ["grants", "deny"], exact);
      denied.push(exact);
    }
  }
  if (text !== cfg.text) writeConfig(cfg.file, text);
  return { removed, denied };
}

function grantReads(cfgOpts: CommonOpts, project: Project, id: string, verbs: string[]): string[] {
  const cfg = openConfig(cfgOpts);
  let text = cfg.text;
  const granted: string[] = [];
  for (const verb of verbs) {
    if (isGranted(project.grants, id, verb)) continue;
    text = arrayAppend(text, ["grants", "allow"], `${id}.${verb}`);
    granted.push(`${id}.${verb}`);
  }
  if (text !== cfg.text) writeConfig(cfg.file, text);
  return granted;
}

/** `pack update <id> --to X`: the same kind of source, with a new npm spec, git ref or path. */
function retarget(src: Source, to: string): Source {
  if (!to.trim()) fail("usage", "--to needs a value", { hint: "an npm spec or tarball path, a git ref, or a path" });
  if (src.type === "npm") return { ...src, spec: to.startsWith(".") || to.startsWith("/") ? resolve(to) : to };
  if (src.type === "git") return { ...src, ref: to };
  return { type: "path", path: resolve(to) };
}

export async function runUpdate(idArg: string | undefined, opts: VendorOpts): Promise<number> {
  const out = makeOut(opts);
  const root = projectRoot(opts);
  const lock: Lock = readLock(root);
  const ids = idArg ? [idArg] : Object.keys(lock.packs).sort();
  if (opts.to !== undefined && !idArg) fail("usage", "--to goes with one pack id", { hint: "hcpx pack update <id> --to <spec | ref | path>" });
  if (idArg && !lock.packs[idArg]) fail("unknown_pack", `no pack '${idArg}' in ${display(lockFile(root))}`, { hint: Object.keys(lock.packs).length ? `locked packs: ${Object.keys(lock.packs).sort().join(", ")}` : "`hcpx pack add <source>` adds one" });
  const project = loadProject({ config: opts.config });
  const results: { id: string; status: "up_to_date" | "updated" | "review_required"; from?: string; to?: string; diff?: ReachDiff; granted?: string[]; withdrawn?: string[]; denied?: string[] }[] = [];
  const pending: string[] = [];
  for (const id of ids) {
    const entry = lock.packs[id]!;
    const target = packTarget(root, id);
    const intact = existsSync(target) ? diffHashes(entry.files, hashTree(target)) : ["not installed"];
    if (intact.length) fail("pack_differs", `${display(target)} does not match hcp.lock (${intact.slice(0, 5).join(", ")}), so there is nothing sound to compare the update with`, { hint: "run `hcpx pack install` first" });
    const fetched = fetchLatest(opts.to !== undefined ? retarget(entry.source, opts.to) : entry.source, root, `${id} (${sourceLabel(entry.source)})`);
    const files = hashesOf(fetched);
    if (diffHashes(entry.files, files).length === 0) {
      results.push({ id, status: "up_to_date" });
      continue;
    }
    const before = reachOf(loadPack(target), project);
    const staged = stageChecked(fetched, root, project, `${id} (${sourceLabel(fetched.source)})`);
    const { staging, id: newId } = staged;
    const after = relocate(staged.reach, staging, target);
    try {
      if (newId !== id) fail("id_changed", `the new version of '${id}' says its id is '${newId}'`, { hint: `add it as a new pack (\`hcpx pack add\`) and remove '${id}'` });
      const diff = diffReach(before, after);
      const newVersion = loadPack(staging).surface.version;
      const head = `pack '${id}' ${o(entry.version)} → ${o(newVersion)} (${sourceLabel(fetched.source)}):`;
      const lines = diffEmpty(diff) ? ["  no change to what it runs, reads or writes (file contents changed)"] : diffLines(diff);
      if (!out.json) sayRaw([head, ...lines].join("\n") + "\n");
      if (!(await confirmed(opts, `update '${id}'?`))) {
        removeDir(baseOf(root), staging);
        results.push({ id, status: "review_required", from: entry.version, to: newVersion, diff });
        pending.push(...[head, ...lines]);
        continue;
      }
      swapIn(root, staging, target);
      lock.packs[id] = { source: fetched.source, version: newVersion, files };
      writeLock(root, lock);
      // never grant a write or a widening: withdraw grants of commands that became writes,
      // became reads (a read runs without a confirm), lost their confirm or land wider
      const w = withdrawGrants(project, opts, id, widenedVerbs(diff));
      const p2 = loadProject({ config: opts.config });
      const granted = grantReads(opts, p2, id, diff.newReads);
      results.push({ id, status: "updated", from: entry.version, to: newVersion, diff, granted, withdrawn: w.removed, denied: w.denied });
    } catch (e) {
      removeDir(baseOf(root), staging);
      throw e;
    }
  }
  if (pending.length) {
    const r = reviewRequired(`${results.filter((x) => x.status === "review_required").length} pack(s) have updates; nothing was changed`, pending, "read the diff (new writes are never granted by an update), then re-run with --yes", false);
    if (out.json) {
      writeJson(failure("review_required", r.problems[0]!.message, { hint: r.problems[0]!.hint, packs: results }));
      return 1;
    }
    throw r;
  }
  done(out, { packs: results }, (col) =>
    results
      .map((r) => {
        if (r.status === "up_to_date") return `${c.green(col, "✓")} ${r.id}: up to date`;
        const writes = r.diff ? widenedVerbs(r.diff) : [];
        return [
          `${c.green(col, "✓")} ${r.id}: ${o(r.from ?? "")} → ${o(r.to ?? "")}`,
          ...(r.granted?.length ? [`  granted new read(s): ${r.granted.join(", ")}`] : []),
          ...(r.withdrawn?.length ? [`  withdrew grant(s) of command(s) whose Policy widened: ${r.withdrawn.join(", ")}`] : []),
          ...(r.denied?.length ? [`  denied by name (a wider pattern granted them): ${r.denied.join(", ")}`] : []),
          ...(writes.length ? [`  not granted: ${writes.map((v) => `${r.id}.${v}`).join(", ")}; to grant one: hcpx grant ${r.id}.${writes[0]}`] : []),
        ].join("\n");
      })
      .join("\n"),
  );
  return 0;
}

// ---------------------------------------------------------------- remove

export async function runRemove(id: string, opts: VendorOpts): Promise<number> {
  const out = makeOut(opts);
  const root = projectRoot(opts);
  const lock = readLock(root);
  if (!lock.packs[id]) fail("unknown_pack", `no pack '${id}' in ${display(lockFile(root))}`, { hint: Object.keys(lock.packs).length ? `locked packs: ${Object.keys(lock.packs).sort().join(", ")}` : "nothing was added with `hcpx pack add`" });
  const target = packTarget(root, id);
  const cfg = openConfig(opts);
  let text = cfg.text;
  const entries = configPackEntries(cfg).filter((e) => resolve(e.dir) === target);
  for (const e of entries) text = arrayRemove(text, ["packs"], e.entry);
  const removedGrants = (cfg.data.grants?.allow ?? []).filter((p) => p.startsWith(`${id}.`));
  for (const p of removedGrants) text = arrayRemove(text, ["grants", "allow"], p);
  if (text !== cfg.text) writeConfig(cfg.file, text);
  removeDir(baseOf(root), target);
  delete lock.packs[id];
  writeLock(root, lock);
  done(out, { id, dir: display(target), deactivated: entries.map((e) => e.entry), removedGrants }, (col) =>
    [`${c.green(col, "✓")} removed '${id}' (${display(target)}, its hcp.lock entry${entries.length ? ", its config entry" : ""})`, ...(removedGrants.length ? [`  removed grants: ${removedGrants.join(", ")}`] : [])].join("\n"),
  );
  return 0;
}

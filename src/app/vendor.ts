// The vendoring use cases: `hcpx pack install` and `pack remove` whole, and the
// steps `pack add` (./vendor-add.ts) and `pack update` (./vendor-update.ts) are
// made of (the question to the person stays in the CLI,
// src/cli/commands/pack-vendor.ts). Packs from
// elsewhere (npm, git, a path) are vendored under .hcp/packs/<id> and recorded
// in hcp.lock (src/packs/); every write goes through the door (src/util/door.ts,
// swapDir replaces a pack's folder) with the project root as its base. Nothing
// here prints or asks.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { HcpxError, type Problem, fail } from "../util/errors";
import { baseOf, packTarget, swapIn } from "./vendor-files";
import { sweepStaging } from "./vendor-sweep";
import { editedProblem, forgetWritten, lookAt, readRecord, recordReplacing, recordWritten } from "./vendor-record";
export { baseOf, packTarget, swapIn, swapInKeep, swapOut } from "./vendor-files";
import { display } from "../util/paths";
import { neutralLine as o } from "../util/neutral";
import { findProjectConfig, loadPack, loadProject } from "../pack/load";
import { grantedByDefault, isGranted } from "../pack/grants";
import { lintPackDir } from "../pack/lint";
import type { Pack, Project } from "../pack/model";
import { arrayAppend, arrayRemove } from "../config/edit";
import { lockedConfigFile, openConfig, writeConfig } from "../config/file";
import { configPackEntries } from "../config/active";
import type { CommonOpts } from "../config/common";
import {
  diffHashes,
  hashBytes,
  hashTree,
  lockFile,
  openLock,
  packsRoot,
  readLock,
  writeLock,
  type Lock,
  type Source,
} from "../packs/lock";
import { fetchLocked, removeDir, stage, type Fetched } from "../packs/source";
import { diffEmpty, diffReach, reachOf, widenedVerbs, type Reach, type ReachDiff } from "../packs/review";

/** What the vendoring commands are asked. */
export interface VendorOpts extends CommonOpts {
  yes?: boolean;
  force?: boolean;
  check?: boolean;
  /** update: a new spec (npm), ref (git) or path (path) for the pack's source */
  to?: string;
}

export interface InstallResult {
  id: string;
  /** edited: files changed or added by hand since hcpx wrote the folder; nothing was written for it (pack_edited) */
  status: "unchanged" | "restored" | "refused" | "differs" | "edited";
  detail?: string[];
  diff?: ReachDiff;
  withdrawn?: string[];
  denied?: string[];
}

export interface InstallReport {
  lock: string;
  packs: InstallResult[];
  /** what interrupted runs had left in .hcp/packs, and what was done with it (src/app/vendor-sweep.ts) */
  swept?: string[];
  /** why a pack was not restored (or, with --check, differs): the command fails, after saying what it did */
  problems?: Problem[];
}

export interface RemoveReport {
  id: string;
  dir: string;
  deactivated: string[];
  removedGrants: string[];
}

export function projectRoot(opts: CommonOpts): string {
  const explicit = opts.config ?? process.env.HCP_CONFIG;
  const file = explicit ? resolve(explicit) : findProjectConfig(process.cwd());
  if (!file)
    fail("no_config", `no hcp.config.json5 in ${display(process.cwd())} or any parent directory`, {
      hint: "run `hcpx init` first; packs are vendored next to the config",
    });
  return dirname(file);
}

export function hashesOf(f: Fetched): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of f.entries) out[e.path] = hashBytes(e.data);
  return out;
}

/** Where a pack comes from, on one line (the lock and a package's metadata are outside text). */
export function sourceLabel(s: Source): string {
  if (s.type === "npm")
    return s.spec.startsWith("./") || s.spec.startsWith("/")
      ? `npm tarball ${o(s.spec)} (${o(s.version)})`
      : `npm ${o(s.resolved)}`;
  if (s.type === "git") return `git ${o(s.url)}${s.ref ? `#${o(s.ref)}` : ""} @ ${o(s.commit.slice(0, 12))}`;
  return `path ${o(s.path)}`;
}

/** Stage, load and lint a fetched pack; the staging folder is removed on any refusal. */
export function stageChecked(
  f: Fetched,
  root: string,
  project: Project | undefined,
  label: string,
): { staging: string; id: string; reach: Reach; warnings: Problem[] } {
  const staging = stage(f.entries, baseOf(root), packsRoot(root));
  try {
    if (!existsSync(join(staging, "surface.json")))
      fail("not_a_pack", `${label} has no surface.json at its root, so it is not a pack; nothing was vendored`, {
        hint: "a pack is a folder (an npm package, a repository) with surface.json, policy.json and SKILL.md at its top",
      });
    const pack = loadPack(staging);
    const problems = lintPackDir(staging, project ? { project } : {}).problems;
    const errors = problems.filter((p) => p.severity !== "warning");
    if (errors.length) {
      throw new HcpxError([
        {
          code: "lint_failed",
          message: `the pack from ${label} has ${errors.length} lint error(s); nothing was vendored`,
          hint: "a pack from elsewhere is used only when it lints clean; ask its author to fix it",
        },
        ...errors,
      ]);
    }
    return {
      staging,
      id: pack.id,
      reach: reachOf(pack, project),
      warnings: problems.filter((p) => p.severity === "warning"),
    };
  } catch (e) {
    removeDir(baseOf(root), staging);
    // problems point at the staging folder, which is gone: name the source instead
    if (e instanceof HcpxError)
      throw new HcpxError(
        e.problems.map((p) =>
          p.file ? { ...p, file: p.file.split(display(staging)).join(`${label}:`).replace(/:\//, ":") } : p,
        ),
        e.exitCode,
      );
    throw e;
  }
}

/** Show the paths a reviewed pack will have once vendored, not its staging folder's. */
export function relocate(reach: Reach, staging: string, target: string): Reach {
  return {
    ...reach,
    bins: reach.bins.map((b) => ({ ...b, resolves: b.resolves.split(display(staging)).join(display(target)) })),
  };
}

/** The reach of a vendored pack, or undefined when it does not load (nothing sound to compare). */
export function reachIfLoads(dir: string): Reach | undefined {
  try {
    return reachOf(loadPack(dir));
  } catch (e) {
    if (e instanceof HcpxError) return undefined;
    throw e;
  }
}

/**
 * Take the config's edit lock now, held until the command is done (src/config/file.ts): a vendoring command
 * takes it before its last look at a pack's folder, so that a wait for it (another command editing the
 * config) comes before that look, never between the look and the swap, where a hand edit made while it
 * waited would be replaced unseen. The config is read where it is edited (withdrawGrants), not here.
 */
export function holdConfig(cfgOpts: CommonOpts): void {
  lockedConfigFile(cfgOpts);
}

/**
 * Withdraw the grants of `verbs` of pack `id` (an exact allow removed; a wider pattern denied by name).
 * It always opens the config, so the config's edit lock is held from here on (src/config/file.ts): the
 * vendoring commands call it before they swap a new version in (having taken that lock, holdConfig,
 * before their last look at the folder).
 */
export function withdrawGrants(
  project: Project,
  cfgOpts: CommonOpts,
  id: string,
  verbs: string[],
): { removed: string[]; denied: string[] } {
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

/** Grant those of `verbs` (commands of `pack`) that hcpx grants by default (grantedByDefault: reads, no pass-through verb). */
export function grantReads(cfgOpts: CommonOpts, project: Project, pack: Pack, verbs: string[]): string[] {
  const id = pack.id;
  const cfg = openConfig(cfgOpts);
  let text = cfg.text;
  const granted: string[] = [];
  for (const verb of verbs) {
    const cmd = pack.commands.find((c) => c.verb_key === verb);
    if (!cmd || !grantedByDefault(cmd) || isGranted(project.grants, id, verb)) continue;
    text = arrayAppend(text, ["grants", "allow"], `${id}.${verb}`);
    granted.push(`${id}.${verb}`);
  }
  if (text !== cfg.text) writeConfig(cfg.file, text);
  return granted;
}

/** `pack update <id> --to X`: the same kind of source, with a new npm spec, git ref or path. */
export function retarget(src: Source, to: string): Source {
  if (!to.trim()) fail("usage", "--to needs a value", { hint: "an npm spec or tarball path, a git ref, or a path" });
  if (src.type === "npm") return { ...src, spec: to.startsWith(".") || to.startsWith("/") ? resolve(to) : to };
  if (src.type === "git") return { ...src, ref: to };
  return { type: "path", path: resolve(to) };
}

/** `hcpx pack install [--check]`: each locked pack as hcp.lock says (restored, or with --check only compared); a pack it could not restore is in `problems`, the others are restored all the same. */
export function vendorInstall(opts: VendorOpts): InstallReport {
  const root = projectRoot(opts);
  const lock = opts.check ? readLock(root) : openLock(root);
  // what a killed run left is put right first (a pack folder it took away put back from its copy), and
  // again at the end (an old copy kept while its pack's folder differed from the lock is now spare)
  const swept = opts.check ? [] : sweepStaging(root);
  const record = readRecord(root);
  const results: InstallResult[] = [];
  const problems: Problem[] = [];
  // the lock's content changed under a vendored pack: a Policy change is a consent change, so a
  // grant the change would widen is withdrawn, as `pack update` does, before the new bytes land
  const grants = {
    hold: () => holdConfig(opts),
    narrow: (id: string, diff: ReachDiff) => {
      const w = withdrawGrants(loadProject({ config: opts.config }), opts, id, widenedVerbs(diff));
      return { withdrawn: w.removed, denied: w.denied };
    },
  };
  for (const [id, entry] of Object.entries(lock.packs)) {
    const target = packTarget(root, id);
    // a file that is neither what hcpx last wrote here nor what the lock records is a hand edit (./vendor-record.ts)
    const look = lookAt(target, entry.files, record?.packs[id]);
    if (look.state === "unchanged") {
      // exactly the locked files: what hcpx wrote here from now on (a folder from an older hcpx, a clone)
      const rec = record?.packs[id];
      if (!opts.check && (!rec || rec.replacing || diffHashes(entry.files, rec.files).length))
        recordWritten(root, id, entry.files);
      results.push({ id, status: "unchanged" });
      continue;
    }
    if (look.state === "edited" && !opts.force) {
      results.push({ id, status: "edited", detail: look.edits });
      problems.push(editedProblem(id, target, look));
      continue;
    }
    if (opts.check) {
      const detail = look.state === "missing" ? ["not installed"] : look.detail;
      results.push({ id, status: "differs", detail });
      problems.push({
        code: "pack_differs",
        message: `${display(target)} does not match hcp.lock: ${detail.join(", ")}`,
        file: display(target),
        hint: "run `hcpx pack install` to restore the locked files",
      });
      continue;
    }
    try {
      results.push(restoreLocked(root, id, entry, { target, force: opts.force === true }, grants));
    } catch (e) {
      if (!(e instanceof HcpxError)) throw e;
      results.push({ id, status: "refused", detail: e.problems.map((p) => p.message) });
      problems.push(...e.problems);
    }
  }
  // the end's sweep only after a run that did all it was asked (as before: an edited pack's old copy stays)
  // (a folder it keeps, named by both sweeps, is said once)
  if (!opts.check && !problems.length) for (const l of sweepStaging(root)) if (!swept.includes(l)) swept.push(l);
  return {
    lock: display(lockFile(root)),
    packs: results,
    ...(swept.length ? { swept } : {}),
    ...(problems.length ? { problems } : {}),
  };
}

/**
 * Fetch a locked pack, check it against hcp.lock and swap it in; its change from the folder it replaced,
 * if any, is given to `grants.narrow` (the grants it widens withdrawn) before the swap, the config's edit
 * lock taken (`grants.hold`) before the last look at that folder.
 */
function restoreLocked(
  root: string,
  id: string,
  entry: Lock["packs"][string],
  at: { target: string; force: boolean },
  grants: { hold(): void; narrow(id: string, diff: ReachDiff): Pick<InstallResult, "withdrawn" | "denied"> },
): InstallResult {
  const { target } = at;
  const fetched = fetchLocked(entry.source, root, `${id} (${sourceLabel(entry.source)})`);
  const mismatch = diffHashes(entry.files, hashesOf(fetched));
  if (mismatch.length) {
    fail(
      "hash_mismatch",
      `pack '${id}' from ${sourceLabel(entry.source)} does not match hcp.lock: ${mismatch.slice(0, 8).join(", ")}${mismatch.length > 8 ? ", …" : ""}; nothing was written`,
      {
        file: display(lockFile(root)),
        path: `packs.${id}`,
        hint:
          "the source changed since it was locked (or the lock was edited): review the change with `hcpx pack update " +
          id +
          "`",
      },
    );
  }
  // what the person consented to: the vendored folder this install replaces (none in a fresh clone)
  const before = existsSync(target) ? reachIfLoads(target) : undefined;
  const staging = stage(fetched.entries, baseOf(root), packsRoot(root));
  const result: InstallResult = { id, status: "restored" };
  try {
    const again = diffHashes(entry.files, hashTree(staging));
    if (again.length)
      fail("hash_mismatch", `pack '${id}': the staged files differ from hcp.lock: ${again.join(", ")}`, {
        hint: "retry",
      });
    const after = before ? reachIfLoads(staging) : undefined;
    const diff = before && after ? diffReach(before, after) : undefined;
    const change = diff && !diffEmpty(diff) ? diff : undefined;
    // its grants are narrowed under the config's edit lock, which may be waited for: taken before the look
    if (change) grants.hold();
    // edited while this one fetched (or waited): still nothing of the person's is replaced
    const look = at.force ? undefined : lookAt(target, entry.files, readRecord(root)?.packs[id]);
    if (look?.state === "edited") throw new HcpxError(editedProblem(id, target, look));
    if (change) Object.assign(result, { diff: change }, grants.narrow(id, change));
    // the folder as the look above hashed it (with --force, hashed here): its files hcpx wrote, or hcp.lock records
    const rec = recordReplacing(root, id, entry.files, target, entry.files, look);
    swapIn(root, staging, target, [entry.files, rec?.files]);
    recordWritten(root, id, entry.files);
  } catch (e) {
    removeDir(baseOf(root), staging);
    throw e;
  }
  return result;
}

/** `hcpx pack remove <id>`: its folder, its hcp.lock entry, its config entry and grants. */
export function vendorRemove(id: string, opts: VendorOpts): RemoveReport {
  const root = projectRoot(opts);
  const lock = openLock(root);
  sweepStaging(root);
  if (!lock.packs[id])
    fail("unknown_pack", `no pack '${id}' in ${display(lockFile(root))}`, {
      hint: Object.keys(lock.packs).length
        ? `locked packs: ${Object.keys(lock.packs).sort().join(", ")}`
        : "nothing was added with `hcpx pack add`",
    });
  const target = packTarget(root, id);
  // the judgement install makes (./vendor-record.ts): only a hand edit is refused (a missing file is no
  // loss; a folder as hcpx last wrote it, under a lock changed by a pull, is removed) unless --force
  const look = opts.force ? undefined : lookAt(target, lock.packs[id]!.files, readRecord(root)?.packs[id]);
  if (look?.state === "edited") throw new HcpxError(editedProblem(id, target, look, true));
  const cfg = openConfig(opts);
  let text = cfg.text;
  const entries = configPackEntries(cfg).filter((e) => resolve(e.dir) === target);
  for (const e of entries) text = arrayRemove(text, ["packs"], e.entry);
  const removedGrants = (cfg.data.grants?.allow ?? []).filter((p) => p.startsWith(`${id}.`));
  for (const p of removedGrants) text = arrayRemove(text, ["grants", "allow"], p);
  if (text !== cfg.text) writeConfig(cfg.file, text);
  removeDir(baseOf(root), target);
  forgetWritten(root, id);
  delete lock.packs[id];
  writeLock(root, lock);
  return { id, dir: display(target), deactivated: entries.map((e) => e.entry), removedGrants };
}

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
import { HcpxError, fail } from "../../util/errors";
import { display } from "../../util/paths";
import { loadPack, loadProject } from "../../pack/load";
import { interactive } from "../../config/common";
import { diffHashes, hashTree, lockFile, readLock, writeLock, type Lock, type LockEntry } from "../../packs/lock";
import { fetchNew, parseSource, removeDir } from "../../packs/source";
import { diffLines, diffReach, reachLines, widenedVerbs, type ReachDiff } from "../../packs/review";
import { activateDir } from "./activate";
import {
  baseOf,
  hashesOf,
  packTarget,
  projectRoot,
  reachIfLoads,
  relocate,
  sourceLabel,
  stageChecked,
  swapIn,
  vendorInstall,
  vendorRemove,
  withdrawGrants,
  type VendorOpts,
} from "../../app/vendor";

export type { VendorOpts } from "../../app/vendor";
import { vendorUpdate } from "../../app/vendor-update";
import { c, done, failure, makeOut, neutralLine as o, printWarnings, sayRaw, writeJson } from "../output";

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
  return new HcpxError([
    { code: "review_required", message: what, hint },
    ...(json ? lines.map((l) => ({ code: "review" as const, message: l.trim(), severity: "warning" as const })) : []),
  ]);
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
  const change = await reviewAndSwapIn({ opts, json: out.json, root, lock, id, target, staging, reach, fetched });
  const files = hashesOf(fetched);
  const landed = diffHashes(files, hashTree(target));
  if (landed.length)
    fail("hash_mismatch", `what landed in ${display(target)} differs from what was fetched: ${landed.join(", ")}`, {
      hint: "something changed the folder while hcpx wrote it; run `hcpx pack install`",
    });
  const pack = loadPack(target);
  const entry = { source: fetched.source, version: pack.surface.version, files };
  const act = await lockAndActivate(root, lock, id, entry, target, opts);
  // a command the forced version widened (write → read included) is not granted by this add
  const widened = change ? widenedVerbs(change) : [];
  const w = widened.length
    ? withdrawGrants(loadProject({ config: opts.config }), opts, id, widened)
    : { removed: [], denied: [] };
  if (widened.length) act.granted = act.granted.filter((g) => !w.removed.includes(g) && !w.denied.includes(g));
  printWarnings([...warnings], out);
  done(
    out,
    {
      id,
      dir: display(target),
      source: fetched.source,
      lock: display(lockFile(root)),
      files: Object.keys(files).length,
      reach,
      granted: act.granted,
      withheld: act.withheld,
      ...(change?.changed.length ? { changed: change.changed, withdrawn: w.removed, denied: w.denied } : {}),
    },
    (col) =>
      [
        `${c.green(col, "✓")} vendored '${id}' ${o(pack.surface.version)} into ${display(target)} (${Object.keys(files).length} files, hashes in ${display(lockFile(root))})`,
        ...addedLines(col, id, act, w),
      ].join("\n"),
  );
  return 0;
}

/** What `runAdd` has staged and where it goes. */
interface AddStep {
  opts: VendorOpts;
  json: boolean;
  root: string;
  lock: Lock;
  id: string;
  target: string;
  staging: string;
  reach: ReturnType<typeof relocate>;
  fetched: ReturnType<typeof fetchNew>;
}

/**
 * Refuse a pack already here (unless --force), show the review, ask, then swap
 * the staged folder in; the staging is removed on any refusal. Returns the
 * Policy change from the version vendored here (with --force), if any.
 */
async function reviewAndSwapIn(a: AddStep): Promise<ReachDiff | undefined> {
  const { opts, root, lock, id, target, staging, reach } = a;
  let change: ReachDiff | undefined;
  try {
    if (lock.packs[id] && !opts.force)
      fail("exists", `pack '${id}' is already in ${display(lockFile(root))} (${sourceLabel(lock.packs[id].source)})`, {
        hint: `run \`hcpx pack update ${id}\` to move it to a new version, or \`hcpx pack remove ${id}\` first`,
      });
    if (!lock.packs[id] && existsSync(target) && !opts.force)
      fail("exists", `${display(target)} exists but is not in hcp.lock`, {
        file: display(target),
        hint: "remove it, or pass --force to replace it",
      });
    const lines = [`pack '${id}' from ${sourceLabel(a.fetched.source)}:`, ...reachLines(reach)];
    // --force over a vendored version: its Policy change is a consent change too
    const beforeReach = existsSync(target) ? reachIfLoads(target) : undefined;
    change = beforeReach ? diffReach(beforeReach, reach) : undefined;
    if (change && change.changed.length)
      lines.push(
        `  Policy changes from the version vendored here:`,
        ...diffLines({
          ...change,
          newWrites: [],
          newConfirmless: [],
          newReads: [],
          removed: [],
          newBins: [],
          newEnv: [],
          newSetsEnv: [],
          newModules: [],
          newHttp: [],
          kindChanged: undefined,
        }),
      );
    if (!a.json) sayRaw(lines.join("\n") + "\n");
    if (!(await confirmed(opts, `vendor '${id}' into ${display(target)} and activate it (its reads granted)?`))) {
      throw reviewRequired(
        `pack '${id}' is from elsewhere and untrusted until you have seen what it runs and reads; nothing was vendored`,
        lines.slice(1),
        "read the review (what runs, from where, the env it reads, its writes), then re-run with --yes",
        a.json,
      );
    }
    swapIn(root, staging, target);
  } catch (e) {
    removeDir(baseOf(root), staging);
    throw e;
  }
  return change;
}

/** Record the pack in hcp.lock and activate it; if activation fails, take the vendoring back. */
async function lockAndActivate(
  root: string,
  lock: Lock,
  id: string,
  entry: LockEntry,
  target: string,
  opts: VendorOpts,
): Promise<Awaited<ReturnType<typeof activateDir>>> {
  const prior = lock.packs[id];
  lock.packs[id] = entry;
  writeLock(root, lock);
  try {
    return await activateDir(target, opts);
  } catch (e) {
    // not activated (e.g. another active pack has this id): take the vendoring back
    removeDir(baseOf(root), target);
    if (prior) lock.packs[id] = prior;
    else delete lock.packs[id];
    writeLock(root, lock);
    throw e;
  }
}

/** The lines after "vendored …": what was granted, withdrawn, denied and withheld. */
function addedLines(
  col: boolean,
  id: string,
  act: Awaited<ReturnType<typeof activateDir>>,
  w: { removed: string[]; denied: string[] },
): string[] {
  return [
    act.granted.length
      ? `${c.green(col, "✓")} activated; granted ${act.granted.length} read command(s): ${act.granted.join(", ")}`
      : `${c.green(col, "✓")} activated; no read grants needed`,
    ...(w.removed.length ? [`  withdrew grant(s) of command(s) whose Policy widened: ${w.removed.join(", ")}`] : []),
    ...(w.denied.length ? [`  denied by name (a wider pattern granted them): ${w.denied.join(", ")}`] : []),
    ...(act.withheld.length
      ? [
          `  not granted: ${act.withheld.map((w) => `${id}.${w.verb} (${w.operation}${w.confirm ? ", confirm" : ""})`).join(", ")}`,
          `  to grant one: hcpx grant ${id}.${act.withheld[0]!.verb}`,
        ]
      : []),
  ];
}

// ---------------------------------------------------------------- install

export async function runInstall(opts: VendorOpts): Promise<number> {
  const out = makeOut(opts);
  const { lock, packs: results } = vendorInstall(opts);
  done(out, { lock, packs: results }, (col) =>
    results.length === 0
      ? `no packs in ${lock}`
      : results
          .map((r) =>
            [
              `${c.green(col, "✓")} ${r.id}: ${r.status === "unchanged" ? "matches hcp.lock" : r.diff ? "restored from hcp.lock, which differs from the version that was vendored here:" : "restored from hcp.lock"}`,
              ...(r.diff ? diffLines(r.diff) : []),
              ...(r.withdrawn?.length
                ? [`  withdrew grant(s) of command(s) whose Policy widened: ${r.withdrawn.join(", ")}`]
                : []),
              ...(r.denied?.length ? [`  denied by name (a wider pattern granted them): ${r.denied.join(", ")}`] : []),
            ].join("\n"),
          )
          .join("\n"),
  );
  return 0;
}

// ---------------------------------------------------------------- update

export async function runUpdate(idArg: string | undefined, opts: VendorOpts): Promise<number> {
  const out = makeOut(opts);
  // the use case yields each pack's review; the person's answer goes back to it (src/app/vendor-update.ts)
  const update = vendorUpdate(idArg, opts);
  let step = update.next();
  while (!step.done) {
    const review = step.value;
    if (!out.json) sayRaw([review.head, ...review.lines].join("\n") + "\n");
    let yes: boolean;
    try {
      yes = await confirmed(opts, `update '${review.id}'?`);
    } catch (e) {
      update.throw(e); // the staged copy is removed, and the error goes on
      throw e;
    }
    step = update.next(yes);
  }
  const { packs: results, pending } = step.value;
  if (pending.length) {
    const r = reviewRequired(
      `${results.filter((x) => x.status === "review_required").length} pack(s) have updates; nothing was changed`,
      pending,
      "read the diff (new writes are never granted by an update), then re-run with --yes",
      false,
    );
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
          ...(r.withdrawn?.length
            ? [`  withdrew grant(s) of command(s) whose Policy widened: ${r.withdrawn.join(", ")}`]
            : []),
          ...(r.denied?.length ? [`  denied by name (a wider pattern granted them): ${r.denied.join(", ")}`] : []),
          ...(writes.length
            ? [
                `  not granted: ${writes.map((v) => `${r.id}.${v}`).join(", ")}; to grant one: hcpx grant ${r.id}.${writes[0]}`,
              ]
            : []),
        ].join("\n");
      })
      .join("\n"),
  );
  return 0;
}

// ---------------------------------------------------------------- remove

export async function runRemove(id: string, opts: VendorOpts): Promise<number> {
  const out = makeOut(opts);
  const r = vendorRemove(id, opts);
  const { dir: target, removedGrants } = r;
  const entries = r.deactivated;
  done(out, r, (col) =>
    [
      `${c.green(col, "✓")} removed '${id}' (${target}, its hcp.lock entry${entries.length ? ", its config entry" : ""})`,
      ...(removedGrants.length ? [`  removed grants: ${removedGrants.join(", ")}`] : []),
    ].join("\n"),
  );
  return 0;
}

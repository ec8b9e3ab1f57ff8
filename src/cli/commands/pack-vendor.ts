// hcpx pack add <source> [--yes] | pack install [--check] | pack update [id] [--yes] | pack remove <id>
// Packs from elsewhere (npm, git, a path), vendored under .hcp/packs/<id> and
// recorded in hcp.lock (src/packs/). A fetched pack is untrusted: it is
// staged, loaded and linted (errors refuse it), and the person sees what it
// runs, from where, the env it reads and its writes before it is vendored
// (`--yes` says they have). `add` then activates it and grants its reads only;
// `update` shows the Policy diff and never grants a write: a command that
// became a write, or lost its confirm, is withdrawn from the grants. The use
// cases are src/app/vendor-add.ts, vendor-update.ts and vendor.ts; this shows
// their reviews, asks the person, and renders their reports.
import { createInterface } from "node:readline/promises";
import { HcpxError } from "../../util/errors";
import { display } from "../../util/paths";
import { interactive } from "../../config/common";
import { diffLines, widenedVerbs } from "../../packs/review";
import { vendorInstall, vendorRemove, type InstallResult, type VendorOpts } from "../../app/vendor";
import { vendorAdd, type AddReport } from "../../app/vendor-add";
import { vendorUpdate } from "../../app/vendor-update";
import { grantedByLines } from "../grant-lines";
import { problemFailure } from "../../runtime/envelope";
import {
  c,
  done,
  failure,
  finish,
  makeOut,
  neutralLine as o,
  printWarnings,
  reportError,
  sayRaw,
  writeJson,
} from "../output";

export type { VendorOpts } from "../../app/vendor";

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
  // the use case yields the pack's review; the person's answer goes back to it (src/app/vendor-add.ts)
  const add = vendorAdd(source, opts);
  let step = await add.next();
  while (!step.done) {
    const review = step.value;
    if (!out.json) sayRaw(review.lines.join("\n") + "\n");
    let yes: boolean;
    try {
      yes = await confirmed(
        opts,
        `vendor '${review.id}' into ${display(review.target)} and activate it (its reads granted)?`,
      );
    } catch (e) {
      await add.throw(e); // the staged copy is removed, and the error goes on
      throw e;
    }
    step = await add.next(yes);
  }
  const r = step.value;
  if (r.status === "review_required")
    throw reviewRequired(
      `pack '${r.review.id}' is from elsewhere and untrusted until you have seen what it runs and reads; nothing was vendored`,
      r.review.lines.slice(1),
      "read the review (what runs, from where, the env it reads, its writes), then re-run with --yes",
      out.json,
    );
  printWarnings(r.warnings, out);
  const files = Object.keys(r.files).length;
  done(
    out,
    {
      id: r.id,
      dir: r.dir,
      source: r.source,
      lock: r.lock,
      files,
      reach: r.reach,
      granted: r.granted,
      withheld: r.withheld,
      grantedBy: r.grantedBy,
      ...(r.change ? r.change : {}),
    },
    (col) =>
      [
        `${c.green(col, "✓")} vendored '${r.id}' ${o(r.version)} into ${r.dir} (${files} files, hashes in ${r.lock})`,
        ...addedLines(col, r),
      ].join("\n"),
  );
  return 0;
}

/** The lines after "vendored …": what was granted, withdrawn, denied and withheld. */
function addedLines(col: boolean, r: Extract<AddReport, { status: "added" }>): string[] {
  const w = r.change ?? { withdrawn: [], denied: [] };
  return [
    r.granted.length
      ? `${c.green(col, "✓")} activated; granted ${r.granted.length} read command(s): ${r.granted.join(", ")}`
      : `${c.green(col, "✓")} activated; no read grants needed`,
    ...(w.withdrawn.length
      ? [`  withdrew grant(s) of command(s) whose Policy widened: ${w.withdrawn.join(", ")}`]
      : []),
    ...(w.denied.length ? [`  denied by name (a wider pattern granted them): ${w.denied.join(", ")}`] : []),
    ...grantedByLines(r.id, r.grantedBy),
    ...(r.withheld.length
      ? [
          `  not granted: ${r.withheld.map((h) => `${r.id}.${h.verb} (${h.operation}${h.confirm ? ", confirm" : ""})`).join(", ")}`,
          `  to grant one: hcpx grant ${r.id}.${r.withheld[0]!.verb}`,
        ]
      : []),
  ];
}

// ---------------------------------------------------------------- install

export async function runInstall(opts: VendorOpts): Promise<number> {
  const out = makeOut(opts);
  const { lock, packs: results, swept, problems } = vendorInstall(opts);
  const data = { lock, packs: results, ...(swept ? { swept } : {}) };
  const human = (col: boolean) =>
    [
      ...(swept ?? []).map((line) => `${c.green(col, "✓")} ${line}`),
      results.length === 0 ? `no packs in ${lock}` : results.map((r) => installLines(r, col).join("\n")).join("\n"),
    ].join("\n");
  // a pack it could not restore fails the command, after what it did for the others (and swept) is said:
  // --json in the failure's details, else on stdout before the problems on stderr
  const refused = problems?.length ? new HcpxError(problems) : undefined;
  const code = finish(
    out,
    refused?.exitCode ?? 0,
    data,
    refused && problemFailure(refused.problems, { list: true }).error,
    human,
  );
  if (refused && !out.json) reportError(refused, out);
  return code;
}

const NOT_RESTORED: Partial<Record<InstallResult["status"], string>> = {
  edited: "edited by hand since hcpx wrote it: not restored",
  refused: "not restored",
  differs: "differs from hcp.lock",
};

function installLines(r: InstallResult, col: boolean): string[] {
  const not = NOT_RESTORED[r.status];
  if (not) return [`${c.red(col, "✗")} ${r.id}: ${not}`];
  return [
    `${c.green(col, "✓")} ${r.id}: ${r.status === "unchanged" ? "matches hcp.lock" : r.diff ? "restored from hcp.lock, which differs from the version that was vendored here:" : "restored from hcp.lock"}`,
    ...(r.diff ? diffLines(r.diff) : []),
    ...(r.withdrawn?.length
      ? [`  withdrew grant(s) of command(s) whose Policy widened: ${r.withdrawn.join(", ")}`]
      : []),
    ...(r.denied?.length ? [`  denied by name (a wider pattern granted them): ${r.denied.join(", ")}`] : []),
  ];
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
        if (r.status === "up_to_date")
          return `${c.green(col, "✓")} ${r.id}: up to date${r.source ? `; hcp.lock now follows ${r.source}` : ""}`;
        const writes = r.diff ? widenedVerbs(r.diff) : [];
        return [
          `${c.green(col, "✓")} ${r.id}: ${o(r.from ?? "")} → ${o(r.to ?? "")}`,
          ...(r.granted?.length ? [`  granted new read(s): ${r.granted.join(", ")}`] : []),
          ...(r.withdrawn?.length
            ? [`  withdrew grant(s) of command(s) whose Policy widened: ${r.withdrawn.join(", ")}`]
            : []),
          ...(r.denied?.length ? [`  denied by name (a wider pattern granted them): ${r.denied.join(", ")}`] : []),
          ...(r.withheld?.length
            ? [
                `  not granted (pass-through: the agent's own argv, options included): ${r.withheld.join(", ")}; to grant one: hcpx grant ${r.withheld[0]}`,
              ]
            : []),
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

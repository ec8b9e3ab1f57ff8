// The checks of the rules every kind shares that read the Policy and the
// reach (entries of the table in ./lint-rules.ts).
import type { Problem } from "../util/errors";
import type { Pack } from "./model";
import { SECRET_DIRS, SECRET_FILES } from "./secret-paths";
import type { LintContext, Seg } from "./lint-context";

/** Policy rows: a reviewed policy, external writes confirmed, reads without land/confirm. */
export function policyRows(pack: Pack, { inPolicy }: LintContext): Problem[] {
  const out: Problem[] = [];
  const verbs = new Set(pack.commands.map((c) => c.verb_key));
  if (pack.policyInferred)
    out.push(
      inPolicy(
        ["inferred"],
        "policy_inferred",
        "warning",
        "this policy was inferred (inferred: true) and is not yet reviewed",
        "review each row (operation, land, confirm), then remove `inferred`",
      ),
    );
  for (const [verb, row] of Object.entries(pack.policyRows)) {
    const rp: Seg[] = ["rows", verb];
    if (!verbs.has(verb)) continue; // a load error (src/pack/load.ts): the pack did not load
    if (row.operation === "write" && row.land === "external" && row.confirm !== true)
      out.push(
        inPolicy(
          rp,
          "external_no_confirm",
          "warning",
          `'${verb}' writes where others see it (land: external) without confirm`,
          "add confirm: true so that it runs only with an explicit confirm (docs/pack-format.md#confirm)",
        ),
      );
    // (confirm: true on a read is an error of its own, policy_read_confirm: the pack does not load)
    const readGated = row.land !== undefined || (row.confirm !== undefined && row.confirm !== true);
    if (row.operation === "read" && readGated)
      out.push(
        inPolicy(
          rp,
          "policy_read_gated",
          "warning",
          `'${verb}' is a read but has ${[row.land !== undefined ? "land" : "", row.confirm === false ? "confirm" : ""].filter(Boolean).join(" and ")}`,
          "land and confirm apply to writes; drop them, or make it a write (docs/pack-format.md#land)",
        ),
      );
    if (row.inferred === true && !pack.policyInferred)
      out.push(
        inPolicy(
          [...rp, "inferred"],
          "policy_inferred",
          "warning",
          `the row for '${verb}' was inferred and is not yet reviewed`,
          "review it, then remove `inferred`",
        ),
      );
  }
  return out;
}

/** Reach: what the OS sandbox gives beyond the Policy (docs/sandbox.md). */
export function reachRules(pack: Pack, { entry, opts, at, inPolicy }: LintContext): Problem[] {
  const out: Problem[] = [];
  const reach = pack.surface.reach;
  if (!reach?.network?.length && reach?.network_for !== undefined)
    out.push(
      at(
        ["reach", "network_for"],
        "reach_network_unused",
        "error",
        "reach.network_for names calls that get the network, but reach.network declares no endpoint",
        "list the endpoints the program talks to in reach.network (host:port), or drop network_for (docs/sandbox.md)",
      ),
    );
  // only where it matters: linting in a project whose config asks for "os"
  if (opts.project?.sandbox.enforce === "os" && entry?.capabilities.binIn !== undefined) {
    for (const c of pack.commands) {
      const land = c.policy.operation === "write" ? c.policy.land : undefined;
      if ((land === "remote" || land === "external") && !reach?.network?.length)
        out.push(
          inPolicy(
            ["rows", c.verb_key],
            "reach_no_network",
            "warning",
            `'${c.verb_key}' lands ${land}, but the pack declares no network (reach.network): under sandbox.enforce "os" it runs without one`,
            'declare the endpoints its program talks to: reach: { network: ["host:port"] } in surface.json (docs/sandbox.md)',
          ),
        );
    }
  }
  (reach?.paths ?? []).forEach((p, i) => {
    const rel = p.startsWith("~/") ? p.slice(2).replace(/\/+$/, "") : undefined;
    if (rel === undefined || ![...SECRET_DIRS, ...SECRET_FILES].some((s) => rel === s || rel.startsWith(s + "/")))
      out.push(
        at(
          ["reach", "paths", i],
          "reach_path_unhidden",
          "warning",
          `reach.paths names ${p}, which hcpx does not hide: a confined call reads it without the declaration`,
          "declare only the hidden paths the program needs (~/.ssh/known_hosts, ~/.config/gh …: docs/sandbox.md lists them)",
        ),
      );
  });
  return out;
}

// What `--check` reports: the drift between a plan and the disk, as a closed
// set of kinds, read off the same plan `--write` would apply.
import { relative } from "node:path";
import { toPosix } from "../util/paths";
import type { FilePlan } from "./types";

export type DriftKind =
  /** planned, not on disk */
  | "missing"
  /** planned, on disk with other bytes */
  | "changed"
  /** written by an earlier run, no longer planned, still on disk (apply deletes it) */
  | "stale"
  /** on disk, changed by someone since hcpx wrote it: left in place */
  | "foreign"
  /** an entry of a file read back (ledger, manifest, journal) refused, or a recorded value not used */
  | "ignored"
  /** an earlier write was interrupted (its journal is there): apply finishes it */
  | "interrupted";

export const DRIFT_KINDS: readonly DriftKind[] = ["missing", "changed", "stale", "foreign", "ignored", "interrupted"];

export interface Drift {
  kind: DriftKind;
  /** the file (display path) */
  path: string;
  /** JSON path inside it, for a record entry */
  at?: string;
  message?: string;
}

export function driftOf(plan: FilePlan): Drift[] {
  const out: Drift[] = plan.changes.map((c) => ({
    kind: c.kind === "create" ? "missing" : c.kind === "update" ? "changed" : "stale",
    path: c.path,
  }));
  for (const p of plan.conflicts) out.push({ kind: "foreign", path: p.file ?? "", message: p.message });
  for (const p of plan.warnings)
    out.push({ kind: "ignored", path: p.file ?? "", ...(p.path ? { at: p.path } : {}), message: p.message });
  if (plan.record.kind === "ledger" && plan.record.journalPending)
    out.push({ kind: "interrupted", path: toPosix(relative(plan.base, plan.record.journal)) });
  return out;
}

// `hcpx log [--since <dur|iso>] [--principal P] [--pack P] [--json]`: the
// audit log (src/runtime/audit.ts), its rotated files oldest first, read through
// the bounded reader. A line another process is writing right now (a torn
// last line) or a line that is not a record (a record's fields, of a record's
// types) is skipped and counted, never fatal. Text for the terminal goes
// through the one neutraliser (output.ts); --json is one envelope.
import { display } from "../../util/paths";
import { readBytes } from "../../util/readfile";
import { HcpxError, fail } from "../../util/errors";
import { auditFiles, auditPlace, type AuditRecord } from "../../runtime/audit";
import { done, makeOut } from "../output";
import { neutralLine } from "../../util/neutral";
import type { OptionsOf } from "../spec";

/** `hcpx log`'s options, as the options schema (../spec.ts) types them. */
export type LogOptions = OptionsOf<"log">;

/** A rotated file is at most HCPX_AUDIT_MAX_BYTES (≤ 32 MiB) plus the lines appended while it was renamed. */
const READ_CAP = 64 * 1024 * 1024;

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `--since`: a duration back from now (90s, 15m, 2h, 7d, 1w) or an ISO 8601 date/time. */
export function sinceMs(v: string, now = Date.now()): number {
  const m = /^(\d+)([smhdw])$/.exec(v);
  if (m) return now - Number(m[1]) * UNITS[m[2]!]!;
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v)) {
    const t = Date.parse(v);
    if (!Number.isNaN(t)) return t;
  }
  return fail(
    "usage",
    `--since takes a duration (90s, 15m, 2h, 7d, 1w) or an ISO date/time (2026-12-01, 2026-12-01T09:00Z), not '${v}'`,
    { exit: 64 },
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const STRINGS = ["time", "principal", "via", "tool", "decision", "result"] as const;
const OPTIONAL_STRINGS = ["client", "host", "pack", "verb", "args_sha256"] as const;

/** A line is a record when its fields have a record's types (src/runtime/audit.ts AuditRecord); --json passes on only those. */
function isRecord(v: unknown): v is AuditRecord {
  if (!isObject(v)) return false;
  return (
    STRINGS.every((k) => typeof v[k] === "string") &&
    OPTIONAL_STRINGS.every((k) => v[k] === undefined || typeof v[k] === "string") &&
    typeof v.duration_ms === "number" &&
    (v.confirm === undefined || (isObject(v.confirm) && typeof v.confirm.answer === "string"))
  );
}

export async function run(opts: LogOptions): Promise<number> {
  const out = makeOut(opts);
  const since = opts.since !== undefined ? sinceMs(opts.since) : undefined;
  const place = auditPlace();
  if (!place)
    fail("usage", "the audit log is off (HCPX_AUDIT_LOG=off)", {
      hint: "unset HCPX_AUDIT_LOG to record calls again",
      exit: 64,
    });
  const records: AuditRecord[] = [];
  let skipped = 0;
  const files = auditFiles(place);
  for (const f of files) {
    let text: string;
    try {
      text = readBytes(f, display(f), READ_CAP, { ownerOnly: true, noFollow: true }).toString("utf8");
    } catch (e) {
      // rotated and pruned between the listing and the read: nothing to show from it
      if (e instanceof HcpxError && e.problems[0]?.code === "missing_file") continue;
      throw e;
    }
    const lines = text.split("\n");
    // the part after the last newline is a line still being written (or torn): not a record yet
    if (lines[lines.length - 1] !== "") skipped++;
    for (const line of lines.slice(0, -1)) {
      if (!line) continue;
      let rec: unknown;
      try {
        rec = JSON.parse(line);
      } catch {
        skipped++;
        continue;
      }
      if (!isRecord(rec)) {
        skipped++;
        continue;
      }
      if (since !== undefined && !(Date.parse(rec.time) >= since)) continue;
      if (opts.principal !== undefined && rec.principal !== opts.principal) continue;
      if (opts.pack !== undefined && rec.pack !== opts.pack) continue;
      records.push(rec);
    }
  }
  done(out, { file: place.file, records, skipped }, () => human(records, skipped, place.file, files.length));
  return 0;
}

function human(records: AuditRecord[], skipped: number, file: string, files: number): string {
  const lines = records.map((r) => {
    const what = r.pack ? `${r.pack}.${r.verb ?? r.tool}` : r.tool;
    const confirm = r.confirm ? ` (confirm: ${r.confirm.answer})` : "";
    const who = `${r.principal}${r.client ? `/${r.client}` : ""}${r.host ? `@${r.host}` : ""}`;
    const args = r.args === undefined ? "" : ` ${JSON.stringify(r.args)}`;
    // every field comes from a file: one line each, no control character reaches the terminal
    return neutralLine(
      `${r.time} ${r.via} ${who} ${what} ${r.decision}${confirm} ${r.result} ${r.duration_ms}ms${args}`,
    );
  });
  const none = files === 0 ? `no audit log yet at ${display(file)}` : `no record matches (${display(file)})`;
  const tail = skipped ? `\n${skipped} line(s) skipped (being written, or not a record)` : "";
  return (lines.length ? lines.join("\n") : none) + tail;
}

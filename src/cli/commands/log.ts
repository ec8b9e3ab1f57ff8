// `hcpx log [--since <dur|iso>] [--principal P] [--pack P] [--json]`: the
// audit log (src/runtime/audit.ts), its rotated files oldest first, each read
// line by line in bounded pieces (readLines), never whole: memory is what is
// printed, however large the files (HCPX_AUDIT_KEEP up to 1000 of 32 MiB). With
// --since, a rotated file renamed before that time is not read at all: a record's
// time is its call's start, stamped before its line is written, and its line is
// written before the rename (or by a writer that had opened the file before it),
// so every record in it is older (ROTATION_SLACK allows for a clock set back).
// A line another process is writing right now (a torn last line), one past
// LINE_MAX, or a line that is not a record (a record's fields, of a record's
// types) is skipped and counted (in the files read), never fatal. Text for the
// terminal goes through the one neutraliser (output.ts); --json is one envelope.
import { display } from "../../util/paths";
import { readLines } from "../../util/readfile";
import { HcpxError, fail } from "../../util/errors";
import { auditFiles, auditPlace, rotatedAt, type AuditRecord } from "../../runtime/audit";
import { done, makeOut } from "../output";
import { neutralLine } from "../../util/neutral";
import type { OptionsOf } from "../spec";

/** `hcpx log`'s options, as the options schema (../spec.ts) types them. */
export type LogOptions = OptionsOf<"log">;

/** A record's line is a few KiB (its args are cut at 4 KiB, its names at 256 characters): a longer one is no record. */
const LINE_MAX = 1024 * 1024;
/** --since: a rotated file renamed this long before the time is still read (a clock set back a little). */
const ROTATION_SLACK = 5 * 60_000;

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
    (v.refused === undefined || isRefused(v.refused)) &&
    (v.confirm === undefined || (isObject(v.confirm) && typeof v.confirm.answer === "string"))
  );
}

/** A refusal's or closed stream's part of its record (src/mcp/refusals.ts). */
const isRefused = (v: unknown) =>
  isObject(v) && typeof v.reason === "string" && typeof v.address === "string" && typeof v.count === "number";

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
  const keep = (rec: AuditRecord) =>
    (since === undefined || Date.parse(rec.time) >= since) &&
    (opts.principal === undefined || rec.principal === opts.principal) &&
    (opts.pack === undefined || rec.pack === opts.pack);
  const onLine = (line: string | undefined) => {
    if (line === "") return;
    const rec = line === undefined ? undefined : parsed(line);
    if (!rec) skipped++;
    else if (keep(rec)) records.push(rec);
  };
  for (const f of files) {
    const at = f === place.file ? undefined : rotatedAt(f);
    if (since !== undefined && at !== undefined && at < since - ROTATION_SLACK) continue;
    try {
      // the part after the last newline is a line still being written (or torn): not a record yet
      if (readLines(f, display(f), LINE_MAX, onLine, { ownerOnly: true, noFollow: true }).torn) skipped++;
    } catch (e) {
      // rotated and pruned between the listing and the read: nothing to show from it
      if (e instanceof HcpxError && e.problems[0]?.code === "missing_file") continue;
      throw e;
    }
  }
  done(out, { file: place.file, records, skipped }, () => human(records, skipped, place.file, files.length));
  return 0;
}

/** A line as a record, or undefined when it is not JSON or not a record's shape. */
function parsed(line: string): AuditRecord | undefined {
  try {
    const rec: unknown = JSON.parse(line);
    return isRecord(rec) ? rec : undefined;
  } catch {
    return undefined;
  }
}

function human(records: AuditRecord[], skipped: number, file: string, files: number): string {
  const lines = records.map((r) => {
    if (r.refused || NOT_CALLS.has(r.decision)) return refusalLine(r);
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

/** The decisions of `hcpx mcp --http`'s lines that are no call (src/mcp/refusals.ts). */
const NOT_CALLS = new Set(["unauthenticated", "forbidden", "stream_closed"]);

/**
 * A refusal of `hcpx mcp --http` or a stream it closed (src/mcp/refusals.ts): no tool; who (`(unknown)` for a
 * 401), why, from where, how many; a closed stream how long it was open (the longest of those folded).
 */
function refusalLine(r: AuditRecord): string {
  const who = `${r.principal}${r.client ? `/${r.client}` : ""}`;
  const f = r.refused ?? { reason: "?", address: "?", count: 1 };
  const times = f.count > 1 ? `, ${f.count} times` : "";
  const open = r.decision === "stream_closed" ? ` after ${r.duration_ms}ms` : "";
  return neutralLine(
    `${r.time} ${r.via} ${who} ${r.decision} ${r.result} (${f.reason}) from ${f.address}${open}${times}`,
  );
}

// The audit log (issue 24 §3): one JSON line per tool call, whatever the way
// in — `hcpx mcp` over stdio or HTTP (the one front, src/mcp/front.ts) and
// `hcpx exec`. Who called, from which client, which pack and verb, a hash and
// the redacted args, what was decided (not granted, a confirm asked and how it
// was answered, declined, ran), the result code and how long it took.
//
// Where: $HCPX_AUDIT_LOG (an absolute path, or "off"), else
// $XDG_STATE_HOME/hcpx/audit.jsonl, else ~/.local/state/hcpx/audit.jsonl;
// owner-only (0600 in a 0700 directory). Appending: one write() of a whole
// line with O_APPEND through the write door (appendRecord), so several
// processes (instances, exec calls) appending at once never tear or mix lines.
// A server (hcpx mcp, stdio and HTTP) keeps the file open between records
// (HeldAppend): each write first checks with one lstat that the path still
// names that file, and opens it again through the whole guard when not (a
// rotation, a removal, a link put in the way). It also writes the records of
// the calls that end in one turn of the event loop together, in one write()
// at the turn's end (AuditWriter.record), and each of those calls is answered
// only once that write is done: no client sees an answer whose record is not
// in the file, as before, and under load one lstat and one write serve
// several calls (docs/design.md).
// Rotation: when a write leaves the file past its size
// ($HCPX_AUDIT_MAX_BYTES, default 8 MiB), the writer renames it to
// audit.jsonl.<UTC time>-<pid>-<random> — a fresh name, so two writers
// rotating at once never rename onto each other's file — and removes the
// oldest rotated files past $HCPX_AUDIT_KEEP (default 5). A writer that opened
// the file before the rename appends to the renamed file: its line is kept.
// No lock, nothing to go stale.
//
// A Binding value never reaches the file: the args, and then the whole record
// (the pack, verb and tool named are the caller's too), are written through the
// one redaction (redactOut), which knows every Binding value in play.
import { lstatSync, readdirSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { appendRecord, HeldAppend, removeFile, renameAside, type Base } from "../util/door";
import { HcpxError, type ErrorCode } from "../util/errors";
import { MARKED, PRE_RUN } from "./audit-codes";
import { argsHash } from "../util/argshash";
import { home } from "../util/paths";
import { CUT, redactOut } from "../util/redact";

/** What was decided about a call. */
export type Decision =
  /** not a granted command (deny by default) */
  | "not_granted"
  /** a gated write without the confirm it needs; nothing ran */
  | "confirm_required"
  /** a person was asked (modern clients: the question went back; the answer comes in a later call) */
  | "confirm_asked"
  /** a round of the command's input questions went back (modern clients; the answers come in a later call); nothing ran */
  | "input_asked"
  /** the person said no, cancelled, or gave no answer (to the confirm or to an input); nothing ran */
  | "declined"
  /** cancelled before it started (its caller cancelled it, hcpx mcp stopped, hcpx exec got a signal); nothing ran */
  | "cancelled"
  /** refused before running for another reason (bad args, unknown pack or verb, broken pack) */
  | "refused"
  /** the command ran (its result code says how it ended) */
  | "ran"
  /** `hcpx mcp --http` refused the request's authentication (401): no principal, nothing called; its line is folded (src/mcp/refusals.ts) */
  | "unauthenticated"
  /** `hcpx mcp --http` refused a principal the server config does not name now (403); folded likewise */
  | "forbidden"
  /** `hcpx mcp --http` closed an open stream (its token no longer authenticates, its principal is gone); folded likewise */
  | "stream_closed";

export interface AuditRecord {
  /** ISO 8601 UTC, when the call came in */
  time: string;
  /** "local" on stdio and exec; the authenticated principal over HTTP */
  principal: string;
  /** how the call came in */
  via: "stdio" | "http" | "exec" | "library";
  /** the client's name (clientInfo / User-Agent) when known */
  client?: string;
  /** the host id the server was started for (`hcpx mcp --host`) */
  host?: string;
  /** the MCP tool called (exec: "exec") */
  tool: string;
  pack?: string;
  verb?: string;
  /** sha256 of the canonical JSON of the args as given (keys sorted) */
  args_sha256?: string;
  /** the args as given, Binding values redacted; a long text is cut (…) */
  args?: unknown;
  decision: Decision;
  /** a confirm: asked, and the answer ("pending" while a modern client has it; "withdrawn": the call was cancelled while asked) */
  confirm?: { answer: "accept" | "decline" | "cancel" | "timeout" | "error" | "withdrawn" | "pending" };
  /** "ok", an error code, or "input_required" */
  result: string;
  duration_ms: number;
  /** a refusal or a closed stream (src/mcp/refusals.ts): why; the client's address ("*": several); how many the line stands for */
  refused?: { reason: string; address: string; count: number };
}

/** Where the log is and how it rotates. */
export interface AuditPlace {
  file: string;
  base: Base;
  maxBytes: number;
  keep: number;
}

const DEFAULT_MAX = 8 * 1024 * 1024;
const MIN_MAX = 4096;
const MAX_MAX = 32 * 1024 * 1024;
/** args longer than this (as JSON) are cut */
const ARGS_MAX = 4096;

function intEnv(name: string, dflt: number, lo: number, hi: number): number {
  const v = process.env[name];
  if (v === undefined || v === "") return dflt;
  if (!/^\d+$/.test(v) || Number(v) < lo || Number(v) > hi)
    throw new HcpxError({
      code: "usage",
      message: `${name} must be a whole number from ${lo} to ${hi}, not '${v}'`,
      hint: `unset it for the default (${dflt})`,
    });
  return Number(v);
}

/** The log's place from the environment; undefined when HCPX_AUDIT_LOG=off. */
export function auditPlace(env: NodeJS.ProcessEnv = process.env): AuditPlace | undefined {
  const set = env.HCPX_AUDIT_LOG;
  const maxBytes = intEnv("HCPX_AUDIT_MAX_BYTES", DEFAULT_MAX, MIN_MAX, MAX_MAX);
  const keep = intEnv("HCPX_AUDIT_KEEP", 5, 1, 1000);
  if (set === "off") return undefined;
  if (set !== undefined && set !== "") {
    if (!isAbsolute(set))
      throw new HcpxError({
        code: "usage",
        message: `HCPX_AUDIT_LOG must be an absolute path or "off", not '${set}'`,
        hint: "e.g. HCPX_AUDIT_LOG=/var/log/hcpx/audit.jsonl",
      });
    return { file: set, base: { dir: dirname(set), label: "the audit log's directory" }, maxBytes, keep };
  }
  const xdg = env.XDG_STATE_HOME;
  const state = xdg && isAbsolute(xdg) ? xdg : join(home(), ".local", "state");
  return {
    file: join(state, "hcpx", "audit.jsonl"),
    base: { dir: state, label: "the state directory" },
    maxBytes,
    keep,
  };
}

const ROTATED = /^\.\d{8}T\d{9}Z-\d+-[a-z0-9]+$/;

/** The rotated files of the log, oldest first (their names sort by time), then the log itself. */
export function auditFiles(place: AuditPlace): string[] {
  const dir = dirname(place.file);
  const name = basename(place.file);
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const rotated = names.filter((n) => n.startsWith(name) && ROTATED.test(n.slice(name.length))).sort();
  return [...rotated.map((n) => join(dir, n)), ...(names.includes(name) ? [place.file] : [])];
}

function stamp(d: Date): string {
  return d.toISOString().replace(/[-:]/g, "").replace(".", "");
}

/** When a rotated file was renamed: the UTC time rotate() puts in its name (stamp: …jsonl.20261201T093000123Z-pid-rand). */
export function rotatedAt(file: string): number | undefined {
  const m = /\.(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z-\d+-[a-z0-9]+$/.exec(file);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec, ms] = m.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, sec!, ms!);
}

const LOG_MODES = { mode: 0o600, dirMode: 0o700 };

/** Append one record (one line) and rotate when the file is past its size; `held`: a long-lived writer's file kept open (AuditWriter). */
export function appendAudit(place: AuditPlace, rec: AuditRecord, held?: HeldAppend): void {
  appendLines(place, recordLine(rec), held);
}

/** A name (pack, verb, tool, client, …) longer than this is cut (…) */
const NAME_MAX = 256;
const NAMES = ["principal", "client", "host", "tool", "pack", "verb"] as const;

/**
 * A record as its line: the whole record through the one redaction, not only its args. The pack, verb and tool
 * it names are what the caller gave (an unknown one included), and a Binding value given there is hidden as it
 * is in the envelope's message; a name past NAME_MAX is cut first, as long args are.
 */
function recordLine(rec: AuditRecord): string {
  const cut: AuditRecord = { ...rec };
  for (const k of NAMES) {
    const v = cut[k];
    if (typeof v === "string" && v.length > NAME_MAX) cut[k] = v.slice(0, NAME_MAX) + CUT;
  }
  return JSON.stringify(redactOut(cut)) + "\n";
}

/** Whole lines in one write(), then the rotation when the file is past its size. */
function appendLines(place: AuditPlace, lines: string, held?: HeldAppend): void {
  const size = held ? held.append(lines) : appendRecord(place.base, place.file, lines, LOG_MODES);
  if (size > place.maxBytes) rotate(place);
}

function rotate(place: AuditPlace): void {
  // another writer may have rotated it already: look at the path, not at the file just written
  try {
    if (lstatSync(place.file).size <= place.maxBytes) return;
  } catch {
    return;
  }
  const to = `${place.file}.${stamp(new Date())}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  if (!renameAside(place.base, place.file, to)) return;
  const rotated = auditFiles(place).filter((f) => f !== place.file);
  for (const old of rotated.slice(0, Math.max(0, rotated.length - place.keep))) removeFile(place.base, old);
}

/**
 * The args as the log keeps them: hashed as given, and cut when long. `hashed`: argsHash(args), computed earlier
 * (exec hashes its operands while the bin runs). They are redacted with the whole record as it is written
 * (recordLine: the one redaction for every record), once every Binding value of the call is known.
 */
export function auditArgs(args: unknown, hashed?: string): { args_sha256: string; args: unknown } {
  const json = JSON.stringify(args ?? {}) ?? "null";
  // redacted with the whole record where it is written (recordLine), the cut mark included
  const kept = json.length > ARGS_MAX ? json.slice(0, ARGS_MAX) + CUT : (args ?? {});
  return { args_sha256: hashed ?? argsHash(args ?? {}), args: kept };
}

/**
 * The decision an answer's result code and error stand for (the confirm flow sets its own), by where the code
 * is made (./audit-codes.ts); `started: false`: a code made on both sides was made before anything started.
 */
export function decisionOf(result: string, error?: { code?: string; started?: unknown }): Decision {
  if (result === "ok") return "ran";
  if (result === "not_granted") return "not_granted";
  if (result === "confirm_required") return "confirm_required";
  if (result === "confirm_declined" || result === "input_declined") return "declined";
  if (result === "input_required") return "input_asked"; // a confirm question's is confirm_asked (src/mcp/front.ts)
  const code = result as ErrorCode;
  if (MARKED.has(code)) return error?.started !== false ? "ran" : code === "cancelled" ? "cancelled" : "refused";
  return PRE_RUN.has(code) ? "refused" : "ran";
}

/**
 * What of exec's record is known before the bin ends, computed while it runs (when exec only waits for
 * it): the operands' hash (argsHash) and the call's time stamp (auditTime of its start).
 */
export interface ExecEarly {
  hashed?: string;
  time?: string;
}

/** A record's `time`: the ISO 8601 form of `t` (ms since the epoch, UTC). */
export function auditTime(t: number): string {
  return new Date(t).toISOString();
}

/** The record of one `hcpx exec` call (principal "local"; the operands as given are its args). */
export function execRecord(
  pack: string,
  verb: string,
  operands: readonly string[],
  env: { ok: boolean; error?: { code: string; started?: unknown } },
  t0: number,
  early: ExecEarly = {},
): AuditRecord {
  const result = env.ok ? "ok" : (env.error?.code ?? "failed");
  return {
    time: early.time ?? auditTime(t0),
    principal: "local",
    via: "exec",
    tool: "exec",
    pack,
    verb,
    ...auditArgs([...operands], early.hashed),
    decision: decisionOf(result, env.error),
    result,
    duration_ms: Date.now() - t0,
  };
}

/**
 * Writers with records kept for the end of the turn, written on the process's way out if it exits
 * first: one 'exit' listener while any is kept, removed once all are written (a process that serves
 * or tests call after call gathers no listener).
 */
const pending = new Set<AuditWriter>();
const writeKept = (): void => {
  for (const w of [...pending]) w.flush();
};

/**
 * A writer that never breaks a call: a log it cannot write is said once (per
 * distinct reason) through `warn`, and the call goes on.
 */
export class AuditWriter {
  private said = new Set<string>();
  private place: AuditPlace | undefined | null = null;
  private held: HeldAppend | undefined;
  /** record()'s lines of this event-loop turn, and what their calls wait on */
  private queued: string[] = [];
  private turn: { written: Promise<void>; release: () => void } | undefined;
  /** `hold`: keep the log open between records (a server: hcpx mcp), re-checked on every write (door.ts HeldAppend) */
  constructor(
    private readonly warn: (msg: string) => void,
    private readonly hold = false,
  ) {}

  /**
   * A server's record (hcpx mcp: one per call): kept until the end of this
   * event-loop turn (setImmediate), then written with the others of the turn
   * in one write(). The promise settles once that write is done or failed
   * (and said): the call answers after it. Never rejects. A process that
   * exits before the turn ends writes what is kept on its way out (`exit`).
   */
  record(rec: AuditRecord | (() => AuditRecord)): Promise<void> {
    try {
      if (!this.placed()) return Promise.resolve();
      this.queued.push(recordLine(typeof rec === "function" ? rec() : rec));
    } catch (e) {
      this.failed(e);
      return Promise.resolve();
    }
    if (!this.turn) {
      let release!: () => void;
      const written = new Promise<void>((r) => (release = r));
      this.turn = { written, release };
      if (pending.size === 0) process.once("exit", writeKept);
      pending.add(this);
      setImmediate(() => this.flush());
    }
    return this.turn.written;
  }

  /** Write what record() kept, now, in one write() (a held log stays open). */
  flush(): void {
    const turn = this.turn;
    this.turn = undefined;
    if (pending.delete(this) && pending.size === 0) process.off("exit", writeKept);
    const lines = this.queued.join("");
    this.queued = [];
    try {
      if (lines && this.place) appendLines(this.place, lines, this.held);
    } catch (e) {
      this.failed(e);
    }
    turn?.release();
  }

  /** A record built only when it is written (`HCPX_AUDIT_LOG=off` skips building it: the args hash, the redaction). */
  write(rec: AuditRecord | (() => AuditRecord)): void {
    try {
      const place = this.placed();
      if (place) appendAudit(place, typeof rec === "function" ? rec() : rec, this.held);
    } catch (e) {
      this.failed(e);
    }
  }

  /**
   * Open the log now, ahead of the first record (a held writer: the file stays open, and each record
   * still checks the path names it); false when the log is off or cannot be opened (said once, as write
   * says it; write tries again).
   */
  open(): boolean {
    try {
      if (!this.placed()) return false;
      this.held?.open();
      return true;
    } catch (e) {
      this.failed(e);
      return false;
    }
  }

  /** Close a held log file (a writer that writes no more), after writing what record() kept. */
  close(): void {
    if (this.turn) this.flush();
    this.held?.close();
  }

  /** The log's place, worked out on first use (undefined: the log is off). */
  private placed(): AuditPlace | undefined {
    if (this.place === null) {
      this.place = auditPlace();
      if (this.place && this.hold) this.held = new HeldAppend(this.place.base, this.place.file, LOG_MODES);
    }
    return this.place;
  }

  private failed(e: unknown): void {
    const p = e instanceof HcpxError ? e.problems[0]! : undefined;
    const why = p ? `${p.file ? `${p.file}: ` : ""}${p.message}` : ((e as Error)?.message ?? String(e));
    if (!this.said.has(why)) {
      this.said.add(why);
      this.warn(`audit log not written: ${why}`);
    }
  }
}

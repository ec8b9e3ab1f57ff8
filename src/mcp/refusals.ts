// What `hcpx mcp --http` refuses outside a tool call, in the audit log
// (src/runtime/audit.ts), so an admin sees who is probing and who is still
// knocking: each refused authentication (401: no token, an unknown or expired
// token, a JWT of another issuer, audience or type…; decision
// "unauthenticated", principal "(unknown)"), each request of a principal the
// server config does not name now (403; decision "forbidden", that principal),
// and each open stream the server closes (its token no longer authenticates,
// its JWT expired, its principal taken out of the config; decision
// "stream_closed", its principal, how long it was open). `hcpx log` shows them.
//
// A flood of 401s costs the server nothing but the refusal (the body is not
// read), and a token removed may close a thousand streams at once: their lines
// must not cost more than that, so they are folded. The first of a kind —
// (decision, principal, result, reason, address) — is written at once (count
// 1); the next ones of that kind are counted, and written as one line at the
// end of the second (count n, time of the first counted, the longest a counted
// stream was open), and so on each second while they go on. A kind not seen
// for a whole second starts over. Past ADDRESSES kinds in a second, another
// address is folded with every other of its kind (address "*"); past KINDS
// kinds, every further one into one line (principal "*", decision and result
// "refused", reason "several reasons", address "*"). So a flood writes about
// one line a second per kind, and at most 2 × (KINDS + 1) lines in any second
// whatever the number of addresses — where calls write a line each. Memory: at
// most KINDS + 1 kinds at once.
//
// What is written is bounded and neutral, as every line of the log: the
// User-Agent (the client's) and the address are cut at 200 characters and
// made one line (neutralLine) before the record's own cut and redaction
// (audit.ts recordLine). The address is the connection's: behind a proxy, the
// proxy's (X-Forwarded-For is the client's to write, so it is not read).
import type { Refusal } from "./auth";
import { auditTime, AuditWriter, type AuditRecord, type Decision } from "../runtime/audit";
import { neutralLine } from "../util/neutral";

/** The principal of a refusal's record: none was authenticated. No principal id is this (team-config.ts PRINCIPAL_RE). */
const UNKNOWN_PRINCIPAL = "(unknown)";
/** The tool of a refusal's record: none was called (the body was not read). */
const NO_TOOL = "(none)";

const WINDOW_MS = 1000;
/** kinds with an address of their own in one second */
const ADDRESSES = 16;
/** kinds in one second (past ADDRESSES, one per reason, address "*"); past this, one for all */
const KINDS = 32;
const TEXT_MAX = 200;

/** outside text as one neutral line, bounded before (the work) and after (its escapes) */
const text = (v: string | null | undefined) =>
  v ? neutralLine(v.slice(0, TEXT_MAX)).slice(0, 2 * TEXT_MAX) : undefined;

interface Kind {
  decision: Decision;
  principal: string;
  result: string;
  reason: string;
  address: string;
}

interface Folded extends Kind {
  /** refusals counted since this kind's last line, and the time and client of the first of them */
  count: number;
  first: number;
  client: string | undefined;
  /** the longest a counted stream was open (0: no stream) */
  openMs: number;
}

export class RefusalLog {
  private window = new Map<string, Folded>();
  private timer: NodeJS.Timeout | undefined;
  private readonly atExit = () => this.flush();

  /** `write`: one record into the log now (AuditWriter.write: never throws) */
  constructor(
    private readonly write: (rec: AuditRecord) => void,
    private readonly now: () => number = Date.now,
  ) {}

  refused(r: Refusal): void {
    const t = this.now();
    const client = text(r.userAgent);
    const openMs = Math.max(0, Math.round(r.openMs ?? 0));
    const kind = this.kindOf({
      decision: r.openMs !== undefined ? "stream_closed" : r.principal ? "forbidden" : "unauthenticated",
      principal: text(r.principal) ?? UNKNOWN_PRINCIPAL,
      result: r.error,
      reason: text(r.description) ?? "no token",
      address: text(r.address) ?? "unknown",
    });
    const key = keyOf(kind);
    const seen = this.window.get(key);
    if (seen) {
      if (seen.count++ === 0) Object.assign(seen, { first: t, client, openMs });
      else seen.openMs = Math.max(seen.openMs, openMs);
      return;
    }
    this.window.set(key, { ...kind, count: 0, first: t, client, openMs: 0 });
    this.line({ ...kind, count: 1, first: t, client, openMs });
    if (!this.timer) {
      this.timer = setTimeout(() => this.tick(), WINDOW_MS).unref();
      process.on("exit", this.atExit);
    }
  }

  /** Write what is counted now, and forget every kind (the process is on its way out). */
  flush(): void {
    for (const f of this.window.values()) if (f.count) this.line(f);
    this.window.clear();
    clearTimeout(this.timer);
    this.timer = undefined;
    process.off("exit", this.atExit);
  }

  /** The second's end: a line per kind with refusals counted, which stays folded one more second; the others are forgotten. */
  private tick(): void {
    const next = new Map<string, Folded>();
    for (const [k, f] of this.window)
      if (f.count) {
        this.line(f);
        next.set(k, { ...f, count: 0 });
      }
    this.window = next;
    this.timer = undefined;
    if (next.size) this.timer = setTimeout(() => this.tick(), WINDOW_MS).unref();
    else process.off("exit", this.atExit);
  }

  /** The kind a refusal is counted under: its own, else its reason's from any address, else the one for all. */
  private kindOf(k: Kind): Kind {
    const full = (n: number, c: Kind) => this.window.size >= n && !this.window.has(keyOf(c));
    if (full(ADDRESSES, k)) k = { ...k, address: "*" };
    if (full(KINDS, k))
      k = { decision: "refused", principal: "*", result: "refused", reason: "several reasons", address: "*" };
    return k;
  }

  private line(f: Folded): void {
    this.write({
      time: auditTime(f.first),
      principal: f.principal,
      via: "http",
      ...(f.client ? { client: f.client } : {}),
      tool: NO_TOOL,
      decision: f.decision,
      result: f.result,
      refused: { reason: f.reason, address: f.address, count: f.count },
      duration_ms: f.openMs,
    });
  }
}

/** `hcpx mcp --http`'s refusals into the audit log: a writer of their own (held open, as the fronts'), each line written at once. */
export function auditedRefusals(warn: (msg: string) => void): (r: Refusal) => void {
  const audit = new AuditWriter(warn, true);
  const folded = new RefusalLog((rec) => audit.write(rec));
  return (r) => folded.refused(r);
}

const keyOf = (k: Kind) => `${k.decision}\n${k.principal}\n${k.result}\n${k.reason}\n${k.address}`;

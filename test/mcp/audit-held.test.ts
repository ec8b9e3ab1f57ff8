// The audit log as a server writes it (issue 24 §3, §5): `hcpx mcp` keeps the
// log open between records instead of walking the guarded path per call
// (src/util/door.ts HeldAppend). The guarantees of appendRecord hold: each
// record lands in the file the path names at that moment (a rotation by
// another instance, a removed log, a replaced one), a link put in the way is
// refused like at the first open, and several servers appending and rotating
// at once lose and tear no line. The records of the calls that end in one
// turn of the event loop go out together in one write, and no call is
// answered before its record is in the file.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AuditWriter, type AuditRecord } from "../../src/runtime/audit";
import { tmp } from "../support/hcpx";
import { McpFront } from "../../src/mcp/front";
import { modern, serve, teamProject } from "./http-support";
import { auditBundle, nodeScript } from "./support";

const rec = (i: number): AuditRecord => ({
  time: new Date().toISOString(),
  principal: "p",
  via: "http",
  tool: "hcp",
  pack: "calc",
  verb: "ping",
  args: { i },
  decision: "ran",
  result: "ok",
  duration_ms: 0,
});
const lines = (f: string) =>
  readFileSync(f, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { args: { i: number } }).args.i);

const saved = { ...process.env };
afterEach(() => {
  for (const k of ["HCPX_AUDIT_LOG", "XDG_STATE_HOME", "HCPX_AUDIT_MAX_BYTES", "HCPX_AUDIT_KEEP"]) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

describe("a server's audit log, kept open", () => {
  it("each record lands in the file the path names now: after a rotation by another writer, a removal, a replacement", () => {
    const dir = tmp("hcpx-audit-held-");
    const file = join(dir, "audit.jsonl");
    process.env.HCPX_AUDIT_LOG = file;
    const said: string[] = [];
    const w = new AuditWriter((m) => said.push(m), true);
    w.write(rec(1));
    w.write(rec(2));
    // another instance rotates it aside
    renameSync(file, `${file}.aside`);
    w.write(rec(3));
    expect(lines(`${file}.aside`)).toEqual([1, 2]);
    expect(lines(file)).toEqual([3]);
    // someone removes it
    unlinkSync(file);
    w.write(rec(4));
    expect(lines(file)).toEqual([4]);
    // replaced by another file of the same size, renamed in
    writeFileSync(`${file}.new`, readFileSync(file));
    renameSync(`${file}.new`, file);
    w.write(rec(5));
    expect(lines(file)).toEqual([4, 5]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(said).toEqual([]);
  });

  it("a link put where the log was, or on the way to it, is refused as at the first open; nothing is written through it", () => {
    const state = tmp("hcpx-audit-held-state-");
    const outside = tmp("hcpx-audit-held-outside-");
    delete process.env.HCPX_AUDIT_LOG;
    process.env.XDG_STATE_HOME = state;
    const file = join(state, "hcpx", "audit.jsonl");
    const said: string[] = [];
    const w = new AuditWriter((m) => said.push(m), true);
    w.write(rec(1));
    expect(lines(file)).toEqual([1]);
    // the log itself becomes a link to a file elsewhere
    const target = join(outside, "target.jsonl");
    writeFileSync(target, "");
    renameSync(file, `${file}.old`);
    symlinkSync(target, file);
    w.write(rec(2));
    expect(readFileSync(target, "utf8")).toBe("");
    expect(said.join("\n")).toMatch(/symbolic link/);
    // the log's directory becomes a link leading out of the state directory
    unlinkSync(file);
    renameSync(join(state, "hcpx"), join(state, "hcpx-moved"));
    mkdirSync(join(outside, "hcpx"));
    writeFileSync(join(outside, "hcpx", "audit.jsonl"), "", { mode: 0o600 });
    symlinkSync(join(outside, "hcpx"), join(state, "hcpx"));
    w.write(rec(3));
    expect(readFileSync(join(outside, "hcpx", "audit.jsonl"), "utf8")).toBe("");
    expect(said.length).toBe(2);
    expect(lines(join(state, "hcpx-moved", "audit.jsonl.old"))).toEqual([1]);
  });

  it("several servers appending and rotating every few KiB at once: no line lost, none torn or mixed", async () => {
    const dir = tmp("hcpx-audit-held-conc-");
    const bundle = auditBundle(dir);
    const file = join(dir, "log", "audit.jsonl");
    const WRITERS = 6;
    const LINES = 400;
    const script = `const a = require(${JSON.stringify(bundle)}); const w = new a.AuditWriter((m) => { throw new Error(m); }, true);
for (let i = 0; i < ${LINES}; i++) w.write({ time: new Date().toISOString(), principal: "w" + process.argv[1], via: "http", tool: "hcp", pack: "p", verb: "v", args: { i, pad: "x".repeat(i % 97) }, decision: "ran", result: "ok", duration_ms: i });`;
    const env = { ...process.env, HCPX_AUDIT_LOG: file, HCPX_AUDIT_MAX_BYTES: "8192", HCPX_AUDIT_KEEP: "1000" };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => nodeScript(script, env, [String(w)], `writer ${w}`)));
    const files = readdirSync(join(dir, "log"));
    expect(files.length).toBeGreaterThan(10);
    const seen = new Set<string>();
    for (const f of files) {
      const text = readFileSync(join(dir, "log", f), "utf8");
      expect(text.endsWith("\n")).toBe(true);
      for (const line of text.split("\n").filter(Boolean)) {
        const r = JSON.parse(line) as { principal: string; args: { i: number } };
        const key = `${r.principal}:${r.args.i}`;
        expect(seen.has(key)).toBe(false);
        seen.add(key);
      }
    }
    expect(seen.size).toBe(WRITERS * LINES);
    // the path itself may name no file now: a write past the size rotates the file aside, and the next write
    // makes it anew; when the run's last write was one that rotated it, there is no next one (seen once in CI,
    // stop 75). Every file there is the log or a rotated one, nothing else.
    for (const f of files) expect(f).toMatch(/^audit\.jsonl(\.\d{8}T\d{9}Z-\d+-[a-z0-9]+)?$/);
    // no rotated file grew far past the size: a writer holding a rotated file moved on to the new one
    for (const f of files) expect(statSync(join(dir, "log", f)).size).toBeLessThan(8192 * 3);
  }, 60_000);

  it("the records of one event-loop turn: kept until the turn ends, then all in the file, each call told so by the same promise", async () => {
    const dir = tmp("hcpx-audit-turn-");
    const file = join(dir, "audit.jsonl");
    process.env.HCPX_AUDIT_LOG = file;
    const said: string[] = [];
    const w = new AuditWriter((m) => said.push(m), true);
    const listeners = process.listenerCount("exit");
    const first = w.record(rec(1));
    const second = w.record(rec(2));
    expect(second).toBe(first);
    expect(existsSync(file) ? readFileSync(file, "utf8") : "").toBe("");
    // kept records are written on the way out if the process exits first: one listener while any are kept
    expect(process.listenerCount("exit")).toBe(listeners + 1);
    await first;
    expect(lines(file)).toEqual([1, 2]);
    expect(process.listenerCount("exit")).toBe(listeners);
    // the next turn is a write of its own
    const third = w.record(() => rec(3));
    expect(third).not.toBe(first);
    await third;
    expect(lines(file)).toEqual([1, 2, 3]);
    // close() writes what is kept
    void w.record(rec(4));
    w.close();
    expect(lines(file)).toEqual([1, 2, 3, 4]);
    expect(said).toEqual([]);
  });

  it("a server that exits before the turn ends still writes the records it kept", async () => {
    const dir = tmp("hcpx-audit-exit-");
    const bundle = auditBundle(dir);
    const file = join(dir, "audit.jsonl");
    const script = `const a = require(${JSON.stringify(bundle)}); const w = new a.AuditWriter((m) => { throw new Error(m); }, true);
for (let i = 0; i < 3; i++) void w.record({ time: new Date().toISOString(), principal: "p", via: "http", tool: "hcp", args: { i }, decision: "ran", result: "ok", duration_ms: 0 });
process.exit(0);`;
    await nodeScript(script, { ...process.env, HCPX_AUDIT_LOG: file });
    expect(lines(file)).toEqual([0, 1, 2]);
  }, 30_000);

  it("the front answers a call only once its record is written: a record still on its way holds the answer back", async () => {
    const dir = tmp("hcpx-audit-front-");
    writeFileSync(
      join(dir, "hcp.config.json5"),
      JSON.stringify({ packs: [], principal: { id: "t", kind: "agent" }, grants: { allow: [] } }),
    );
    const xdg = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = join(dir, "xdg");
    try {
      let release!: () => void;
      const written = new Promise<void>((r) => (release = r));
      const recs: AuditRecord[] = [];
      const f = new McpFront({
        shape: "single",
        cwd: dir,
        audit: (r) => {
          recs.push(r);
          return written;
        },
      });
      let answered = false;
      const call = f
        .callTool("hcp", { pack: "nope", verb: "x", args: {} }, { era: "legacy", signal: new AbortController().signal })
        .then((a) => ((answered = true), a));
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      expect(recs.map((r) => r.result)).toEqual(["unknown_pack"]);
      expect(answered).toBe(false);
      release();
      expect((await call) as { isError?: boolean }).toMatchObject({ isError: true });
    } finally {
      if (xdg === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = xdg;
    }
  });

  it("hcpx mcp --http, 16 calls at once: each answered only once its record is in the file; every record whole", async () => {
    const p = teamProject({});
    const s = await serve(p, ["--no-auth"]);
    const file = join(p.state, "hcpx", "audit.jsonl");
    const accounts = (): string[] =>
      existsSync(file)
        ? readFileSync(file, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => (JSON.parse(l) as { args: { account: string } }).args.account)
        : [];
    try {
      const seenAtAnswer: boolean[] = await Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          const r = await modern(s.url, undefined, "tools/call", {
            name: "hcp",
            arguments: { pack: "ledger", verb: "balance", args: { account: `acct-${i}` } },
          });
          expect(r.status).toBe(200);
          return accounts().includes(`acct-${i}`);
        }),
      );
      expect(seenAtAnswer).toEqual(Array.from({ length: 16 }, () => true));
      expect(accounts().sort()).toEqual(Array.from({ length: 16 }, (_, i) => `acct-${i}`).sort());
    } finally {
      await s.stop();
    }
  }, 60_000);
});

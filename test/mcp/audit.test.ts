// Issue 24 §3: the audit log. Every tool call through the one front (here:
// `hcpx mcp` over stdio with the SDK's real client) is one JSON line with who,
// what, the decision and the result; a Binding value never appears in it;
// `hcpx log` reads it back (filters, --json envelope, a torn last line, text
// neutralised). Several processes appending and rotating at once lose and tear
// no line.
// `hcpx log` runs in this process (test/support/inproc.ts), its refusals (exit 64) and its text too;
// so do the exec calls whose records are read (execInProcess), but the two that give a Binding value
// where a name goes: what a run puts in the redaction's store stays in play in this process until the
// file ends (src/util/redact.ts), so there its `***` could come from the run before; they stay processes.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HCPX, runHcpx, tmp } from "../support/hcpx";
import { execInProcess, runInProcess } from "../support/inproc";
import { addLeakyPack, auditBundle, envelope, ledgerProject, nodeScript, writeConfig } from "./support";
import { project } from "../runtime/support";
import type { AuditRecord } from "../../src/runtime/audit";

const SECRET = "s3cr3t-ΣΦΨ-binding-value";

/** A line of the audit log (src/runtime/audit.ts), as the tests read it back. */
type Rec = AuditRecord;

function records(file: string): Rec[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);
}

/** The fields every audit record has, as `hcpx log` reads them back. */
const A_RECORD = {
  time: "2026-12-01T00:00:00.000Z",
  principal: "local",
  via: "exec",
  tool: "exec",
  decision: "ran",
  result: "ok",
  duration_ms: 1,
};

describe("the audit log of hcpx mcp (stdio)", () => {
  it("records each call's principal, client, pack, verb, args hash, decision, answer, result and duration; never a Binding value", async () => {
    const p = ledgerProject({ packs: ["ledger"] });
    addLeakyPack(p.dir);
    writeConfig(p.config, {
      packs: ["./packs/ledger", "./packs/leaky"],
      principal: { id: "test", kind: "agent" },
      grants: { allow: ["ledger.*", "leaky.*"], deny: ["ledger.entry.delete"] },
      sandbox: { bins: {}, roots: ["."], cwd: "." },
    });
    const state = tmp("hcpx-audit-state-");
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOME: p.home,
      NO_COLOR: "1",
      XDG_STATE_HOME: state,
      LEDGER_FILE: p.ledger,
      LEDGER_NOW: "2026-01-01T00:00:00Z",
      LEAKY_TOKEN: SECRET,
    };
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [HCPX, "mcp"],
      cwd: p.dir,
      env,
      stderr: "pipe",
    });
    const client = new Client({ name: "audit-test-client", version: "1" }, { capabilities: { elicitation: {} } });
    const answers: ElicitResult[] = [{ action: "decline" }, { action: "accept", content: {} }];
    client.setRequestHandler(ElicitRequestSchema, async () => answers.shift()!);
    await client.connect(transport);
    const call = (pack: string, verb: string, args: Record<string, unknown>) =>
      client.callTool({ name: "hcp", arguments: { pack, verb, args } });
    try {
      expect(envelope(await call("ledger", "balance", { account: "checking" })).ok).toBe(true);
      expect(envelope(await call("ledger", "transfer", { from: "checking", to: "savings", amount: 7 })).ok).toBe(false); // declined
      expect(envelope(await call("ledger", "transfer", { from: "checking", to: "savings", amount: 7 })).ok).toBe(true); // accepted
      expect(envelope(await call("ledger", "entry.delete", { id: "x" })).ok).toBe(false); // not granted
      // the model passes the Binding value itself as an arg: the log keeps it redacted
      expect(envelope(await call("leaky", "ok", { note: SECRET })).ok).toBe(false);
    } finally {
      await client.close();
    }
    const file = join(state, "hcpx", "audit.jsonl");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(state, "hcpx")).mode & 0o777).toBe(0o700);
    const raw = readFileSync(file, "utf8");
    expect(raw).not.toContain(SECRET);
    expect(raw).not.toContain("ΣΦΨ");
    const recs = records(file);
    expect(recs.map((r) => [r.pack, r.verb, r.decision, r.confirm?.answer, r.result])).toEqual([
      ["ledger", "balance", "ran", undefined, "ok"],
      ["ledger", "transfer", "declined", "decline", "confirm_declined"],
      ["ledger", "transfer", "ran", "accept", "ok"],
      ["ledger", "entry.delete", "not_granted", undefined, "not_granted"],
      ["leaky", "ok", "refused", undefined, "bad_args"],
    ]);
    for (const r of recs) {
      expect(r.principal).toBe("local");
      expect(r.via).toBe("stdio");
      expect(r.client).toBe("audit-test-client");
      expect(r.tool).toBe("hcp");
      expect(r.args_sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(Number.isNaN(Date.parse(r.time))).toBe(false);
      expect(r.duration_ms).toBeGreaterThanOrEqual(0);
    }
    expect(recs[0]!.args).toEqual({ account: "checking" });
    expect(recs[4]!.args).toEqual({ note: "***" });
    // the same args, the same hash (canonical: key order does not matter)
    expect(recs[1]!.args_sha256).toBe(recs[2]!.args_sha256);

    // hcpx log: filters and one envelope
    const logEnv = { ...env, XDG_STATE_HOME: state };
    const all = await runInProcess(["log", "--json"], { cwd: p.dir, env: logEnv });
    expect(all.code).toBe(0);
    const data = (JSON.parse(all.stdout) as { ok: boolean; data: { records: Rec[]; skipped: number } }).data;
    expect(data.records).toHaveLength(5);
    const leaky = JSON.parse(
      (await runInProcess(["log", "--pack", "leaky", "--json"], { cwd: p.dir, env: logEnv })).stdout,
    ) as { data: { records: Rec[] } };
    expect(leaky.data.records.map((r) => r.verb)).toEqual(["ok"]);
    const nobody = JSON.parse(
      (await runInProcess(["log", "--principal", "alice", "--since", "1h", "--json"], { cwd: p.dir, env: logEnv }))
        .stdout,
    ) as { data: { records: Rec[] } };
    expect(nobody.data.records).toEqual([]);
    const future = JSON.parse(
      (await runInProcess(["log", "--since", "2999-01-01", "--json"], { cwd: p.dir, env: logEnv })).stdout,
    ) as { data: { records: Rec[] } };
    expect(future.data.records).toEqual([]);
    const bad = await runInProcess(["log", "--since", "yesterday", "--json"], { cwd: p.dir, env: logEnv });
    expect(bad.code).toBe(64);
    expect((JSON.parse(bad.stdout) as { ok: boolean }).ok).toBe(false);

    // a record with a terminal escape in it, and a torn last line (a writer mid-line)
    appendFileSync(
      file,
      JSON.stringify({ ...recs[0], pack: "evil\u001b]0;pwned\u0007\u001b[2J", time: new Date().toISOString() }) +
        "\n" +
        '{"time":"2026-',
    );
    const text = await runInProcess(["log"], { cwd: p.dir, env: logEnv });
    expect(text.code).toBe(0);
    expect(text.stdout).not.toMatch(/\u001b/);
    expect(text.stdout).toContain("ledger.transfer declined (confirm: decline) confirm_declined");
    expect(text.stdout).toMatch(/1 line\(s\) skipped/);
    const torn = JSON.parse((await runInProcess(["log", "--json"], { cwd: p.dir, env: logEnv })).stdout) as {
      ok: boolean;
      data: { records: Rec[]; skipped: number };
    };
    expect(torn.ok).toBe(true);
    expect(torn.data.records).toHaveLength(6);
    expect(torn.data.skipped).toBe(1);
  }, 90_000);

  it("hcpx log: a line whose fields are not a record's types is skipped and counted, in the text and in --json", async () => {
    const state = tmp("hcpx-audit-shape-");
    const file = join(state, "audit.jsonl");
    const good = { ...A_RECORD, pack: "p", verb: "v", args: ["a=1"], confirm: { answer: "accept" }, duration_ms: 3 };
    const odd = [
      { pack: { x: 1 } },
      { verb: 7 },
      { duration_ms: "3" },
      { duration_ms: undefined },
      { confirm: "yes" },
      { confirm: { answer: ["accept"] } },
      { via: ["exec"] },
      { client: null },
    ].map((o) => ({ ...good, ...o }));
    writeFileSync(file, [good, ...odd].map((l) => JSON.stringify(l) + "\n").join(""), { mode: 0o600 });
    const env = { PATH: process.env.PATH ?? "", HOME: state, HCPX_AUDIT_LOG: file };
    const j = JSON.parse((await runInProcess(["log", "--json"], { cwd: state, env })).stdout) as {
      data: { records: Rec[]; skipped: number };
    };
    expect(j.data.records).toEqual([good]);
    expect(j.data.skipped).toBe(odd.length);
    const text = await runInProcess(["log"], { cwd: state, env });
    expect(text.stdout).toContain("exec local p.v ran (confirm: accept) ok 3ms");
    expect(text.stdout).not.toMatch(/\[object Object\]|undefined/);
  });

  // /proc/self/io's rchar: the bytes this process's read(2) calls returned (Linux)
  const readBytesSoFar = () => Number(/^rchar: (\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"))![1]);
  const MiB = 1024 * 1024;

  it.skipIf(!existsSync("/proc/self/io"))(
    "hcpx log --since reads no rotated file rotated before the date, however large; its output is the same",
    async () => {
      const state = tmp("hcpx-audit-since-");
      const file = join(state, "audit.jsonl");
      const rec = (time: string, verb: string) =>
        JSON.stringify({
          time,
          principal: "local",
          via: "exec",
          tool: "exec",
          pack: "p",
          verb,
          decision: "ran",
          result: "ok",
          duration_ms: 1,
        }) + "\n";
      const stamp = (t: number) => new Date(t).toISOString().replace(/[-:]/g, "").replace(".", "");
      const now = Date.now();
      // 48 MiB of records from a year ago, in a file rotated then
      const old = rec(new Date(now - 365 * 86_400_000).toISOString(), "old");
      writeFileSync(
        `${file}.${stamp(now - 365 * 86_400_000)}-1-aaaaaa`,
        Buffer.alloc(old.length * Math.ceil((48 * MiB) / old.length), old),
        { mode: 0o600 },
      );
      writeFileSync(
        `${file}.${stamp(now - 10 * 60_000)}-2-bbbbbb`,
        rec(new Date(now - 2 * 3_600_000).toISOString(), "older") + rec(new Date(now - 20 * 60_000).toISOString(), "a"),
        { mode: 0o600 },
      );
      writeFileSync(file, rec(new Date(now - 5 * 60_000).toISOString(), "b"), { mode: 0o600 });
      const env = { PATH: process.env.PATH ?? "", HOME: state, HCPX_AUDIT_LOG: file, HCPX_AUDIT_KEEP: "1000" };
      const before = readBytesSoFar();
      const r = await runInProcess(["log", "--since", "1h", "--json"], { cwd: state, env });
      const read = readBytesSoFar() - before;
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const data = (JSON.parse(r.stdout) as { data: { records: Rec[]; skipped: number } }).data;
      expect(data.records.map((x) => x.verb)).toEqual(["a", "b"]);
      expect(data.skipped).toBe(0);
      expect(read).toBeLessThan(8 * MiB);
    },
    60_000,
  );

  it("hcpx log reads a file past any one buffer's size in bounded pieces: a 100 MiB line is skipped, the record after it shown", async () => {
    const state = tmp("hcpx-audit-huge-");
    const file = join(state, "audit.jsonl");
    const good = A_RECORD;
    writeFileSync(file, "", { mode: 0o600 });
    truncateSync(file, 100 * MiB); // sparse: a hole of NULs, no newline
    appendFileSync(file, "\n" + JSON.stringify(good) + "\n");
    const env = { PATH: process.env.PATH ?? "", HOME: state, HCPX_AUDIT_LOG: file };
    const r = await runInProcess(["log", "--json"], { cwd: state, env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { data: { records: Rec[]; skipped: number } }).data).toEqual({
      file,
      records: [good],
      skipped: 1,
    });
    // lines of multi-byte text across the pieces' edges come back whole
    const many = Array.from({ length: 3000 }, (_, i) => ({ ...good, verb: `ΣΦΨ-${"é".repeat(i % 50)}-${i}` }));
    writeFileSync(file, many.map((m) => JSON.stringify(m) + "\n").join(""), { mode: 0o600 });
    const all = await runInProcess(["log", "--json"], { cwd: state, env });
    expect((JSON.parse(all.stdout) as { data: { records: Rec[]; skipped: number } }).data).toEqual({
      file,
      records: many,
      skipped: 0,
    });
  }, 60_000);

  it("hcpx log: HCPX_AUDIT_LOG=off says the log is off (exit 64); a relative HCPX_AUDIT_LOG is refused", async () => {
    const state = tmp("hcpx-audit-off-");
    const r = await runInProcess(["log", "--json"], {
      cwd: state,
      env: { PATH: process.env.PATH ?? "", HOME: state, HCPX_AUDIT_LOG: "rel/audit.jsonl" },
    });
    expect(r.code).not.toBe(0);
    expect((JSON.parse(r.stdout) as { ok: boolean; error: { message: string } }).error.message).toMatch(
      /absolute path/,
    );
    const off = await runInProcess(["log", "--json"], {
      cwd: state,
      env: { PATH: process.env.PATH ?? "", HOME: state, HCPX_AUDIT_LOG: "off" },
    });
    expect(off.code).toBe(64);
  });
});

/** A project with the ledger and the leaky pack (its Binding LEAKY_TOKEN), both granted. */
function ledgerAndLeaky(): ReturnType<typeof ledgerProject> {
  const p = ledgerProject({ packs: ["ledger"] });
  addLeakyPack(p.dir);
  writeConfig(p.config, {
    packs: ["./packs/ledger", "./packs/leaky"],
    principal: { id: "test", kind: "agent" },
    grants: { allow: ["ledger.*", "leaky.*"], deny: [] },
    sandbox: { bins: {}, roots: ["."], cwd: "." },
  });
  return p;
}

describe("the audit log of hcpx exec", () => {
  it("one record per call, via exec, the operands redacted (a Binding value given as an operand is ***)", async () => {
    const p = ledgerAndLeaky();
    const state = tmp("hcpx-audit-exec-");
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: p.home,
      XDG_STATE_HOME: state,
      LEDGER_FILE: p.ledger,
      LEDGER_NOW: "2026-01-01T00:00:00Z",
      LEAKY_TOKEN: SECRET,
    };
    expect(
      (await execInProcess(["exec", "ledger", "balance", "account=checking", "--json"], { cwd: p.dir, env })).code,
    ).toBe(0);
    expect((await execInProcess(["exec", "leaky", "ok", `note=${SECRET}`, "--json"], { cwd: p.dir, env })).code).toBe(
      1,
    );
    const file = join(state, "hcpx", "audit.jsonl");
    const raw = readFileSync(file, "utf8");
    expect(raw).not.toContain(SECRET);
    const recs = records(file);
    expect(recs.map((r) => [r.via, r.principal, r.pack, r.verb, r.decision, r.result])).toEqual([
      ["exec", "local", "ledger", "balance", "ran", "ok"],
      ["exec", "local", "leaky", "ok", "refused", "bad_args"],
    ]);
    expect(recs[0]!.args).toEqual(["account=checking"]);
    expect(recs[1]!.args).toEqual(["note=***"]);
  }, 60_000);

  it("a Binding value given where a name goes (exec's verb, an MCP call's pack and tool name) is *** in the record too", async () => {
    const p = ledgerAndLeaky();
    const state = tmp("hcpx-audit-names-");
    const env = { PATH: process.env.PATH ?? "", HOME: p.home, XDG_STATE_HOME: state, LEAKY_TOKEN: SECRET };
    const ex = await runHcpx(["exec", "leaky", SECRET, "--json", "--", "note=x"], { cwd: p.dir, env });
    expect(ex.code).not.toBe(0);
    expect(ex.stdout).not.toContain(SECRET); // the envelope hid it already
    // a long name is cut, as long args are
    expect((await runHcpx(["exec", "leaky", "v".repeat(5000), "--json"], { cwd: p.dir, env })).code).not.toBe(0);
    const transport = new StdioClientTransport({ command: process.execPath, args: [HCPX, "mcp"], cwd: p.dir, env });
    const client = new Client({ name: "audit-test-client", version: "1" });
    await client.connect(transport);
    try {
      await client.callTool({ name: "hcp", arguments: { pack: SECRET, verb: "ok", args: {} } });
      await client.callTool({ name: "hcp", arguments: { pack: "leaky", verb: SECRET, args: {} } });
      await client.callTool({ name: SECRET, arguments: {} }).catch(() => undefined);
    } finally {
      await client.close();
    }
    const file = join(state, "hcpx", "audit.jsonl");
    const raw = readFileSync(file, "utf8");
    expect(raw).not.toContain(SECRET);
    expect(raw).not.toContain("ΣΦΨ");
    const recs = records(file);
    expect(recs.map((r) => [r.via, r.tool, r.pack, r.verb])).toEqual([
      ["exec", "exec", "leaky", "***"],
      ["exec", "exec", "leaky", `${"v".repeat(256)}…`],
      ["stdio", "hcp", "***", "ok"],
      ["stdio", "hcp", "leaky", "***"],
      ["stdio", "***", undefined, undefined],
    ]);
  }, 60_000);

  // issue 29: exec opens the log while the bin runs (off its wall time after the bin ends), and the
  // record still lands in the file the path names when the log was moved aside meanwhile
  it("the log is opened while the bin runs; a log rotated meanwhile gets the record at its path, not the file moved aside", async () => {
    const p = project({
      packs: [
        {
          id: "watch",
          surface: {
            kind: "wrap",
            wrap: { bin: "../../bins/watch.mjs", json_flag: null, output: "json", timeout_ms: 20000 },
            binding: { env: ["AUDIT_FILE"] },
            commands: [
              { verb_key: "seen", summary: "Say whether the log exists", cli: ["watch", "seen"], args: {} },
              { verb_key: "rotate", summary: "Move the log aside", cli: ["watch", "rotate"], args: {} },
            ],
          },
        },
      ],
    });
    writeFileSync(
      join(p.dir, "bins", "watch.mjs"),
      `import { existsSync, renameSync } from "node:fs";
const file = process.env.AUDIT_FILE;
const t0 = Date.now();
while (!existsSync(file) && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 10));
const seen = existsSync(file);
if (process.argv[2] === "rotate" && seen) renameSync(file, file + ".aside");
process.stdout.write(JSON.stringify({ seen }) + "\\n");
`,
    );
    const state = tmp("hcpx-audit-early-");
    const file = join(state, "hcpx", "audit.jsonl");
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: tmp("hcpx-audit-home-"),
      XDG_STATE_HOME: state,
      AUDIT_FILE: file,
    };
    const seen = await execInProcess(["exec", "watch", "seen", "--json"], { cwd: p.dir, env });
    expect(seen.code, seen.stderr).toBe(0);
    expect(JSON.parse(seen.stdout)).toEqual({ ok: true, data: { seen: true } });
    expect(records(file).map((r) => [r.pack, r.verb, r.result])).toEqual([["watch", "seen", "ok"]]);
    // the log moved away first: the bin waits for exec's early open to make a new one, then moves that aside
    renameSync(file, `${file}.first`);
    const rotated = await execInProcess(["exec", "watch", "rotate", "--json"], { cwd: p.dir, env });
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(JSON.parse(rotated.stdout)).toEqual({ ok: true, data: { seen: true } });
    expect(records(`${file}.first`).map((r) => r.verb)).toEqual(["seen"]);
    expect(readFileSync(`${file}.aside`, "utf8")).toBe("");
    expect(records(file).map((r) => [r.pack, r.verb, r.result])).toEqual([["watch", "rotate", "ok"]]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  }, 60_000);
});

describe("appending from several processes at once", () => {
  it("with rotation every few KiB: no line lost, none torn or mixed", async () => {
    const dir = tmp("hcpx-audit-conc-");
    const bundle = auditBundle(dir);
    const file = join(dir, "log", "audit.jsonl");
    const WRITERS = 6;
    const LINES = 400;
    const script = `const a = require(${JSON.stringify(bundle)}); const p = a.auditPlace();
for (let i = 0; i < ${LINES}; i++) a.appendAudit(p, { time: new Date().toISOString(), principal: "w" + process.argv[1], via: "exec", tool: "exec", pack: "p", verb: "v", args: { i, pad: "x".repeat(i % 97) }, decision: "ran", result: "ok", duration_ms: i });`;
    const env = { ...process.env, HCPX_AUDIT_LOG: file, HCPX_AUDIT_MAX_BYTES: "8192", HCPX_AUDIT_KEEP: "1000" };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => nodeScript(script, env, [String(w)], `writer ${w}`)));
    const files = readdirSync(join(dir, "log"));
    expect(files.length).toBeGreaterThan(10); // it rotated, many times
    const seen = new Set<string>();
    for (const f of files) {
      const text = readFileSync(join(dir, "log", f), "utf8");
      expect(text.endsWith("\n")).toBe(true);
      for (const line of text.split("\n").filter(Boolean)) {
        const r = JSON.parse(line) as Rec & { args: { i: number } };
        const key = `${r.principal}:${r.args.i}`;
        expect(seen.has(key)).toBe(false);
        seen.add(key);
      }
    }
    expect(seen.size).toBe(WRITERS * LINES);
    // one more record after all of them: it is the newest, in the current file
    // or (when it took the file past its size) in the newest rotated one. The
    // current file need not exist here: the write that rotates leaves none
    // until the next record (an earlier oracle asserted it and failed in CI).
    const last = `const a = require(${JSON.stringify(bundle)}); a.appendAudit(a.auditPlace(), { time: new Date().toISOString(), principal: "last", via: "exec", tool: "exec", pack: "p", verb: "v", args: { i: -1 }, decision: "ran", result: "ok", duration_ms: 0 });`;
    execFileSync(process.execPath, ["-e", last], { env });
    // hcpx log reads the rotated files and the current one, oldest first
    const r = await runInProcess(["log", "--json"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HOME: dir, HCPX_AUDIT_LOG: file },
    });
    const data = (JSON.parse(r.stdout) as { data: { records: Rec[]; skipped: number } }).data;
    expect(data.records).toHaveLength(WRITERS * LINES + 1);
    expect(data.skipped).toBe(0);
    expect(data.records.at(-1)!.principal).toBe("last");
  }, 60_000);

  it("keeps HCPX_AUDIT_KEEP rotated files", async () => {
    const dir = tmp("hcpx-audit-keep-");
    const bundle = auditBundle(dir);
    const file = join(dir, "audit.jsonl");
    const script = `const a = require(${JSON.stringify(bundle)}); const p = a.auditPlace();
for (let i = 0; i < 300; i++) a.appendAudit(p, { time: new Date().toISOString(), principal: "x", via: "exec", tool: "exec", args: { pad: "y".repeat(200) }, decision: "ran", result: "ok", duration_ms: 0 });`;
    await nodeScript(script, {
      ...process.env,
      HCPX_AUDIT_LOG: file,
      HCPX_AUDIT_MAX_BYTES: "4096",
      HCPX_AUDIT_KEEP: "2",
    });
    expect(readdirSync(dir).filter((f) => f.startsWith("audit.jsonl.")).length).toBe(2);
  }, 30_000);
});

// A call cancelled before it started is on record as such, not as `ran`; a
// confirm question hcpx withdrew (its call cancelled while the person had it)
// is not the person's `timeout`. Real `hcpx mcp` processes: a legacy client
// that declares elicitation and never answers hcpx's question, then stdin's
// end or a SIGTERM while the question waits; the audit log read back after the
// exit. Before the fix the record said `"decision":"ran","confirm":{"answer":"timeout"}`
// and stderr "no answer in time", while the answer said nothing was run. An mcp pack's call cancelled while
// its remote server's connection opened (a server that takes the request and never answers) called no tool
// and started no process: `cancelled`; before, `ran`, and it came after the SDK's `server/discover` probe gave up
// (PROBE_MS, 5 s): the cancel did not reach the connection being opened. A stdio server's call cancelled while
// its server was started and asked (`server/discover`, which it never answers) or while its tools were listed
// for the pin check (a server that answers `initialize` and never `tools/list`) called no tool: `cancelled`,
// `started: false`, as a server started only to connect or list is `refused`; before, `ran` and `mcp_error`
// "tools/list failed: Connection closed" (`refused`).
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HCPX, tmp } from "../support/hcpx";
import { runInProcess } from "../support/inproc";
import { ledgerProject, writeConfig } from "./support";
import { mcpLine, mcpRequest } from "../support/mcp-lines.mjs";
import type { AuditRecord } from "../../src/runtime/audit";

const OPENING =
  mcpLine({
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: { elicitation: {} },
      clientInfo: { name: "raw", version: "1" },
    },
  }) + mcpLine({ method: "notifications/initialized" });

const TRANSFER = {
  name: "hcp",
  arguments: { pack: "ledger", verb: "transfer", args: { from: "checking", to: "savings", amount: 7 } },
};
const CALLS = {
  question: TRANSFER,
  bin: { name: "hcp", arguments: { pack: "hang", verb: "wait" } },
  input: { name: "hcp", arguments: { pack: "hang", verb: "named" } },
  remote: { name: "hcp", arguments: { pack: "far", verb: "ask" } },
  listing: { name: "hcp", arguments: { pack: "near", verb: "ask" } },
  connecting: { name: "hcp", arguments: { pack: "mute", verb: "ask" } },
};

/** The pin of a tool no server lists (the pin check asks for tools/list; the servers here never answer it). */
const PIN = "sha256:" + "0".repeat(64);

/**
 * A stdio MCP server (newline-delimited JSON-RPC): `mute` (argv[2]) answers nothing; else `server/discover`
 * is not a method (a 2025 server: hcpx falls back to `initialize`), `initialize` is answered and `tools/list`
 * never is. Either writes the file argv[3] names when it gets the request it never answers.
 */
const STALL_MCP = `#!/usr/bin/env node
import { createInterface } from "node:readline";
import { writeFileSync } from "node:fs";
const [mode, started] = process.argv.slice(2);
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (mode === "mute" || m.method === "tools/list") writeFileSync(started, "");
  else if (m.method === "server/discover") send({ id: m.id, error: { code: -32601, message: "no such method" } });
  else if (m.method === "initialize")
    send({ id: m.id, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "stall", version: "1.0.0" } } });
});
`;

/**
 * A remote MCP server that takes every request and never answers: it writes the file its URL's `started`
 * names when a request comes in (the mcp pack `far`'s connection is opening).
 */
const silent = createServer((req) => {
  const file = new URL(req.url ?? "/", "http://x").searchParams.get("started");
  if (file) writeFileSync(file, "");
});
silent.unref();
const listening = new Promise<number>((r) =>
  silent.listen(0, "127.0.0.1", () => r((silent.address() as AddressInfo).port)),
);

interface Msg {
  id?: number;
  method?: string;
  result?: { structuredContent?: { ok: boolean; error?: { code: string; message: string; started?: boolean } } };
}

/** An mcp pack `id` of one read verb `ask` (the server's tool `ask`), its server as `mcp` says. */
function mcpPack(dir: string, id: string, mcp: Record<string, unknown>) {
  const pd = join(dir, "packs", id);
  mkdirSync(pd, { recursive: true });
  writeFileSync(
    join(pd, "surface.json"),
    JSON.stringify({
      hcp: "1.1",
      ...{ id, version: "0.1.0", description: "A server that never answers", kind: "mcp", mcp },
      commands: [{ verb_key: "ask", tool: "ask", summary: "Ask it", args: {} }],
    }),
  );
  writeFileSync(join(pd, "policy.json"), JSON.stringify({ rows: { ask: { operation: "read" } } }));
  writeFileSync(
    join(pd, "SKILL.md"),
    `---\nname: ${id}\ndescription: A server that never answers.\n---\n\n# ${id}\n\n| verb | what it does | read/write |\n|---|---|---|\n| \`ask\` | Ask it | read |\n`,
  );
}

/**
 * The ledger project with a pack `hang` whose bin says it started (a file), then never answers, and mcp packs
 * whose servers say (the same file) a request came in that they never answer: `far`'s remote server (`silent`,
 * on `port`), `mute`'s (STALL_MCP) its first, `near`'s its tools/list (`near` is pinned: its call lists first).
 */
function project(port: number) {
  const p = ledgerProject({ packs: ["ledger"] });
  const started = join(p.dir, "hang-started");
  const bin = join(p.dir, "bins", "stall-mcp.mjs");
  writeFileSync(bin, STALL_MCP, { mode: 0o755 });
  const pin = { title: PIN, description: PIN, input_schema: PIN, annotations: PIN };
  mcpPack(p.dir, "far", { url: `http://127.0.0.1:${port}/mcp?started=${encodeURIComponent(started)}` });
  mcpPack(p.dir, "near", { bin: "../../bins/stall-mcp.mjs", args: ["list", started], pins: { ask: pin } });
  mcpPack(p.dir, "mute", { bin: "../../bins/stall-mcp.mjs", args: ["mute", started] });
  writeFileSync(
    join(p.dir, "bins", "hang.mjs"),
    `#!/usr/bin/env node\n(await import("node:fs")).writeFileSync(${JSON.stringify(started)}, "");\nsetInterval(() => {}, 1 << 30);\n`,
    { mode: 0o755 },
  );
  const pd = join(p.dir, "packs", "hang");
  mkdirSync(pd, { recursive: true });
  writeFileSync(
    join(pd, "surface.json"),
    JSON.stringify({
      hcp: "1.1",
      ...{ id: "hang", version: "0.1.0", description: "A bin that never answers", kind: "wrap" },
      wrap: { bin: "../../bins/hang.mjs", json_flag: null, output: "json", timeout_ms: 20_000 },
      commands: [
        { verb_key: "wait", summary: "Wait forever", cli: ["hang", "wait"], args: {} },
        {
          ...{ verb_key: "named", summary: "Wait forever, named by the person", cli: ["hang", "named"] },
          args: { name: { type: "string", flag: "--name", description: "A name" } },
          inputs: { name: { ask: "form", arg: "name", message: "What is it called?" } },
        },
      ],
    }),
  );
  writeFileSync(
    join(pd, "policy.json"),
    JSON.stringify({ rows: { wait: { operation: "read" }, named: { operation: "read" } } }),
  );
  writeFileSync(
    join(pd, "SKILL.md"),
    "---\nname: hang\ndescription: A bin that never answers.\n---\n\n# hang\n\n| verb | what it does | read/write |\n|---|---|---|\n| `wait` | Wait forever | read |\n| `named` | Wait forever, named | read |\n",
  );
  writeConfig(p.config, {
    packs: ["./packs/ledger", "./packs/hang", "./packs/far", "./packs/near", "./packs/mute"],
    principal: { id: "test", kind: "agent" },
    grants: { allow: ["ledger.*", "hang.*", "far.*", "near.*", "mute.*"] },
    sandbox: { bins: {}, roots: ["."], cwd: "." },
  });
  return { ...p, started };
}

/**
 * One `hcpx mcp`: `what` called — a gated write whose question hcpx asks and is left unanswered, or a bin that
 * never answers — then `stop` once the question is asked or the bin has started; the audit log read after the exit.
 */
async function stopWhile(what: keyof typeof CALLS, stop: "stdin" | "SIGTERM" | "cancel") {
  const p = project(await listening);
  const log = join(tmp("hcpx-audit-cancelled-"), "audit.jsonl");
  const before = readFileSync(p.ledger, "utf8");
  const child = spawn(process.execPath, [HCPX, "mcp"], {
    cwd: p.dir,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: p.home,
      NO_COLOR: "1",
      HCPX_AUDIT_LOG: log,
      LEDGER_FILE: p.ledger,
      LEDGER_NOW: "2026-01-01T00:00:00Z",
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  let answered: number | undefined; // when the call's answer came
  const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const asked = new Promise<void>((r, reject) => {
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      answered ??= /"id":2\b/.test(out) ? Date.now() : undefined;
      if (out.includes('"elicitation/create"')) r();
    });
    const poll = setInterval(() => existsSync(p.started) && (clearInterval(poll), r()), 20);
    child.on("close", () => {
      clearInterval(poll);
      reject(new Error(`hcpx mcp exited before the ${what} waited: ${out}\n${err}`));
    });
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
  child.stdin.on("error", () => {});
  child.stdin.write(OPENING + mcpRequest("legacy", 2, "tools/call", CALLS[what]));
  await asked;
  const stopped = Date.now();
  let recorded: number | undefined; // "cancel": when the call's record was written (hcpx mcp goes on)
  if (stop === "cancel") {
    child.stdin.write(mcpLine({ method: "notifications/cancelled", params: { requestId: 2, reason: "test" } }));
    for (let i = 0; i < 1500 && recorded === undefined; i++) {
      await new Promise((r) => setTimeout(r, 20));
      if (existsSync(log) && readFileSync(log, "utf8").includes('"verb":')) recorded = Date.now();
    }
  }
  if (stop !== "SIGTERM") child.stdin.end();
  else child.kill("SIGTERM");
  await exited;
  clearTimeout(guard);
  const msgs = out
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Msg);
  const records = readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditRecord);
  return {
    msgs,
    records,
    err,
    log: () => runInProcess(["log"], { cwd: p.dir, env: { HOME: p.home, NO_COLOR: "1", HCPX_AUDIT_LOG: log } }),
    ledgerUnchanged: readFileSync(p.ledger, "utf8") === before,
    started: existsSync(p.started),
    /** ms from the stop to the call's answer (undefined: not answered) */
    answerMs: answered === undefined ? undefined : answered - stopped,
    /** "cancel": ms from the cancel to the call's record (undefined: none within 30 s) */
    recordMs: recorded === undefined ? undefined : recorded - stopped,
  };
}

describe("the audit record of a call cancelled before it started (hcpx mcp)", () => {
  for (const stop of ["stdin", "SIGTERM"] as const) {
    it(`a gated write whose question waits when the server stops (${stop === "stdin" ? "stdin's end" : "SIGTERM"}): cancelled, the question withdrawn, never ran`, async () => {
      const r = await stopWhile("question", stop);
      expect(r.ledgerUnchanged).toBe(true);
      const rec = r.records.find((x) => x.verb === "transfer");
      expect(
        rec && { decision: rec.decision, confirm: rec.confirm, result: rec.result },
        `${JSON.stringify(r.records)}\n${r.err}`,
      ).toEqual({ decision: "cancelled", confirm: { answer: "withdrawn" }, result: "cancelled" });
      expect(r.err).not.toContain("no answer in time");
      expect(r.err).toMatch(/confirm for ledger\.transfer: the question was withdrawn/);
      // hcpx log prints it as it is
      expect((await r.log()).stdout).toMatch(/ledger\.transfer cancelled \(confirm: withdrawn\) cancelled \d+ms/);
      // stdin's end: the call is answered too, and the answer says what the record says
      if (stop === "stdin") {
        const env = r.msgs.find((m) => m.id === 2)?.result?.structuredContent;
        expect(env?.error).toMatchObject({ code: "cancelled", started: false });
        expect(env?.error?.message).toMatch(/before it started; nothing was run/);
      }
    }, 60_000);
  }

  it("a command whose input question waits when the server stops: cancelled, never ran (not `input_declined`)", async () => {
    const r = await stopWhile("input", "stdin");
    expect(r.started).toBe(false);
    const rec = r.records.find((x) => x.verb === "named");
    expect(rec && { decision: rec.decision, confirm: rec.confirm, result: rec.result }, r.err).toEqual({
      decision: "cancelled",
      confirm: undefined,
      result: "cancelled",
    });
    const env = r.msgs.find((m) => m.id === 2)?.result?.structuredContent;
    expect(env?.error).toMatchObject({ code: "cancelled", started: false });
  }, 60_000);

  // Before, `ran`: a cancel while the connection opened was taken for one while the command ran; a remote
  // server's connection starts nothing (no process) and calls no tool, as its failure to connect (`refused`).
  // A stdio server started to connect or to list its tools, the tool not called, is `cancelled` as well (before:
  // `ran`; `mcp_error` "tools/list failed: Connection closed", `refused`, while it listed), and a cancel reaches the
  // connection being opened: answered at once, not once the `server/discover` probe gave up (PROBE_MS, 5 s)
  const opening = [
    ["remote", "its remote server's connection opens"],
    ["connecting", "its stdio server is started and asked (server/discover, never answered)"],
    ["listing", "its stdio server lists its tools for the pin check (never answered)"],
  ] as const;
  for (const [what, when] of opening)
    it(`an mcp pack's call cancelled while ${when}: cancelled, never ran, answered at once`, async () => {
      const r = await stopWhile(what, "stdin");
      expect(r.started).toBe(true); // the server got the request it never answers
      const rec = r.records.find((x) => x.verb === "ask");
      expect(rec && { decision: rec.decision, result: rec.result }, `${JSON.stringify(r.records)}\n${r.err}`).toEqual({
        decision: "cancelled",
        result: "cancelled",
      });
      const env = r.msgs.find((m) => m.id === 2)?.result?.structuredContent;
      expect(env?.error).toMatchObject({ code: "cancelled", started: false });
      expect(env?.error?.message).toMatch(/was cancelled \(.+\) before its tool was called/);
      // the stop reached the connection: not the probe's 5 s (PROBE_MS) later
      expect(r.answerMs, JSON.stringify(env)).toBeLessThan(2500);
    }, 60_000);

  // the client's cancel (hcpx mcp goes on; its shutdown, above, stops a stdio server with every process it started)
  it("an mcp pack's call its client cancels while its stdio server is started and asked: cancelled at once", async () => {
    const r = await stopWhile("connecting", "cancel");
    expect(r.started).toBe(true);
    const rec = r.records.find((x) => x.verb === "ask");
    expect(rec && { decision: rec.decision, result: rec.result }, `${JSON.stringify(r.records)}\n${r.err}`).toEqual({
      decision: "cancelled",
      result: "cancelled",
    });
    // the cancel reached the server being started: not the probe's 5 s (PROBE_MS) later
    expect(r.recordMs).toBeLessThan(2500);
  }, 60_000);

  it("a call cancelled while its bin ran is still `ran`, result `cancelled` (stdin's end)", async () => {
    const r = await stopWhile("bin", "stdin");
    const rec = r.records.find((x) => x.pack === "hang");
    expect(rec && { decision: rec.decision, confirm: rec.confirm, result: rec.result }, r.err).toEqual({
      decision: "ran",
      confirm: undefined,
      result: "cancelled",
    });
    const env = r.msgs.find((m) => m.id === 2)?.result?.structuredContent;
    expect(env?.error?.code).toBe("cancelled");
    expect(env?.error?.started).toBeUndefined();
  }, 60_000);
});

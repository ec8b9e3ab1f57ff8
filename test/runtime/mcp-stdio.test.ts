// The stdio MCP transport (src/runtime/mcp-stdio.ts) tells its client that
// the server is gone only once it has read everything the server wrote: a
// server's last stderr line (what `hcpx doctor` and the `mcp_error` envelope
// show) and its last answers are in the pipes when it exits, but the exit can
// be seen first. Node learns of child exits on SIGCHLD, which reaps every
// child that has exited by then: a second server that exits while the first
// one's exit is being handled is reported in the same turn, before its pipes
// were read (seen under load as `hcpx doctor`'s "exited before listing its
// tools" without the server's stderr line, test/cli/doctor-mcp.test.ts).
//
// The test makes that order happen every time: it holds its event loop while
// server A writes a line and exits (so that A's line, its end and its
// SIGCHLD are read in one turn), and while handling A's line it holds the
// loop again until server B has written its stderr line and exited. The
// SIGCHLD handling at the end of that turn then reports both exits.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { ProcessTransport } from "../../src/runtime/mcp-stdio";

/** A server that says "ready" (with its pid) on stdout, and on SIGUSR2 writes `last` and exits 3. */
const server = (last: string) => `
process.on("SIGUSR2", () => { ${last}; process.exit(3); });
process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "ready", params: { pid: process.pid } }) + "\\n");
setInterval(() => {}, 1 << 30);
`;

const exited = (pid: number): boolean => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z";
};

/** Whether this process has a SIGCHLD not yet taken by a thread (its handler, libuv's, not yet run). */
const sigchldPending = (): boolean => {
  const m = /^ShdPnd:\s*([0-9a-f]+)$/m.exec(readFileSync("/proc/self/status", "utf8"));
  return m !== null && (BigInt(`0x${m[1]}`) & (1n << 16n)) !== 0n; // bit 17 - 1
};

/**
 * Hold the event loop (nothing of it runs) until `pid`, a child not yet
 * reaped, has exited and its SIGCHLD was taken (libuv's handler then writes
 * to its signal pipe: the loop's next poll sees it with the child's pipes).
 */
function holdUntilExited(pid: number): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const pause = (ms: number) => Atomics.wait(cell, 0, 0, ms);
  for (const end = Date.now() + 10_000; !exited(pid) || sigchldPending();) {
    if (Date.now() > end) throw new Error(`${pid} did not exit`);
    pause(2);
  }
  pause(20);
}

/**
 * A exits, and while its last message ("bye") is handled, B writes its last line and exits: B's exit is
 * then reported with A's, before B's pipe is read. Resolves once both connections are closed.
 */
async function exitTogether(a: Started, b: Started): Promise<void> {
  a.on = (m) => {
    if ((m as { method?: string }).method !== "bye") return;
    process.kill(b.pid, "SIGUSR2");
    holdUntilExited(b.pid);
  };
  process.kill(a.pid, "SIGUSR2");
  holdUntilExited(a.pid);
  await b.closed;
  await a.closed;
}

interface Started {
  t: ProcessTransport;
  pid: number;
  closed: Promise<void>;
  on: (m: JSONRPCMessage) => void;
}

const open: ProcessTransport[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

async function start(last: string): Promise<Started> {
  const t = new ProcessTransport({
    command: process.execPath,
    argv: ["-e", server(last)],
    env: { PATH: process.env.PATH ?? "" },
    cwd: process.cwd(),
  });
  open.push(t);
  const s = { t, pid: 0, closed: new Promise<void>((r) => (t.onclose = r)), on: (_m: JSONRPCMessage) => {} };
  const ready = new Promise<number>((r) => {
    t.onmessage = (m) => {
      const msg = m as { method?: string; params?: { pid?: number } };
      if (msg.method === "ready") r(msg.params!.pid!);
      else s.on(m);
    };
  });
  await t.start();
  s.pid = await ready;
  return s;
}

describe.skipIf(process.platform !== "linux")("the stdio MCP transport: a server that exits", () => {
  it("is reported gone only with what it wrote before it exited (its stderr line), though its exit is seen first", async () => {
    const a = await start(`process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "bye" }) + "\\n")`);
    const b = await start(`process.stderr.write("boom: cannot serve\\n")`);
    let tailAtClose: string | undefined;
    void b.closed.then(() => (tailAtClose = b.t.stderrTail()));
    await exitTogether(a, b);
    expect(b.t.failure?.code).toBe("exit");
    expect(tailAtClose).toBe("boom: cannot serve\n");
  });

  it("hands its client the answer it wrote just before it exited", async () => {
    const got: JSONRPCMessage[] = [];
    const a = await start(`process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "bye" }) + "\\n")`);
    const b = await start(
      `process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: 7, result: { answered: true } }) + "\\n")`,
    );
    let gotAtClose: number | undefined;
    b.on = (m) => got.push(m);
    void b.closed.then(() => (gotAtClose = got.length));
    await exitTogether(a, b);
    expect(gotAtClose).toBe(1);
    expect(got).toEqual([{ jsonrpc: "2.0", id: 7, result: { answered: true } }]);
  });
});

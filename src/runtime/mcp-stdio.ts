// The stdio transport of an MCP client connection (mcp-client.ts): the SDK's
// StdioClientTransport always adds PATH, SHELL, TERM… to the server's env and
// cannot kill a process group. Ours spawns with exactly the env it is given,
// no shell, in its own process group; stdout (the protocol) is capped, stderr
// is kept as a short tail for error messages.
import type { ChildProcess } from "node:child_process";
import { ReadBuffer, serializeMessage, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import { killGroup, terminateTree } from "./wrap";
import { spawnChild } from "./spawn";
import type { SpawnLine } from "./sandbox/line";
import { CUT } from "./redact";

/** The most a server may write on stdout over one connection (its answers). */
export const MCP_STDOUT_CAP = 8 * 1024 * 1024;
const STDERR_TAIL = 2048;
/** After a server exited, how long a process it started may hold its pipes before the connection is closed anyway. */
const EXIT_LINGER_MS = 250;

/** A stdio server's program as the spawn site has it: command, argv, env, cwd, the fds it reads, shutInherited and report (a confined one's). */
export type ServerSpawn = SpawnLine;

export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child?: ChildProcess;
  private readonly buffer = new ReadBuffer();
  private outBytes = 0;
  private errTail = "";
  private errCut = false;
  /** whether stderr ended (stderrWhole) */
  private errEnded = false;
  private closed = false;
  private atLineStart = true;
  private strayReported = false;
  /** why the connection ended early, when it did (too much output, the process exited) */
  failure?: { code: "output_too_large" | "exit" | "spawn_failed"; message: string };
  /** the code the process exited with, once it exited of itself (not by a signal): bubblewrap's, when confined */
  exitCode?: number;

  constructor(private readonly spec: ServerSpawn) {}

  /** whether its process was created (not: never started, or its spawn failed — ENOENT, EACCES) */
  get spawned(): boolean {
    return this.child?.pid !== undefined;
  }

  start(): Promise<void> {
    // stopped (a cancel) before it was started: nothing is started
    if (this.closed) return Promise.reject(new Error("the connection was stopped before its server was started"));
    return this.launch();
  }

  private launch(): Promise<void> {
    return new Promise((resolveStart, rejectStart) => {
      let child: ChildProcess;
      try {
        // its command, argv, cwd, env, fds, shutInherited and report (spawnChild reads no other field)
        child = spawnChild({ ...this.spec, stdio: ["pipe", "pipe", "pipe"] });
      } catch (e) {
        this.failure = { code: "spawn_failed", message: (e as Error).message };
        rejectStart(e as Error);
        return;
      }
      this.child = child;
      let started = false;
      child.on("error", (e: NodeJS.ErrnoException) => {
        this.failure ??= { code: "spawn_failed", message: e.code ?? e.message };
        if (!started) rejectStart(e);
        else this.onerror?.(e);
      });
      child.on("spawn", () => {
        started = true;
        resolveStart();
      });
      // Gone once what it wrote before it exited was read: its last answers, its stderr line. The
      // exit can be seen first (one SIGCHLD reaps every child that has exited: another server's
      // reports this one's before its pipes were polled), so the end is the close of its pipes,
      // or EXIT_LINGER_MS after the exit when a process it started still holds them (wrap.ts runBin).
      let linger: NodeJS.Timeout | undefined;
      child.on("exit", (code, signal) => {
        if (code !== null) this.exitCode ??= code;
        this.failure ??= {
          code: "exit",
          message: `the server exited (${signal ?? `code ${code}`}) before it answered`,
        };
        // closed by us already (close(), terminate()): nothing to wait for
        if (this.closed) return;
        linger = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          this.finish();
        }, EXIT_LINGER_MS);
        // what keeps the process alive meanwhile is the pipes themselves, if anything
        linger.unref();
      });
      child.on("close", () => {
        clearTimeout(linger);
        this.finish();
      });
      child.stdin!.on("error", (e) => this.onerror?.(e));
      child.stdout!.on("data", (d: Buffer) => {
        this.outBytes += d.length;
        if (this.outBytes > MCP_STDOUT_CAP) {
          this.failure = { code: "output_too_large", message: `the server wrote more than ${MCP_STDOUT_CAP} bytes` };
          this.kill();
          return;
        }
        this.scanStray(d);
        this.buffer.append(d);
        for (;;) {
          let msg: JSONRPCMessage | null;
          try {
            msg = this.buffer.readMessage();
          } catch (e) {
            this.onerror?.(e as Error);
            continue;
          }
          if (msg === null) break;
          this.onmessage?.(msg);
        }
      });
      child
        .stderr!.setEncoding("utf8")
        .on("data", (d: string) => {
          const all = this.errTail + d;
          if (all.length > STDERR_TAIL) this.errCut = true;
          this.errTail = all.slice(-STDERR_TAIL);
        })
        .on("end", () => (this.errEnded = true));
    });
  }

  /**
   * The SDK's ReadBuffer skips a stdout line that is not JSON; a host's client
   * may not (the v1 SDK's closes the connection). A line that does not start
   * a JSON object is reported once to onerror, as a SyntaxError.
   */
  private scanStray(d: Buffer): void {
    let i = 0;
    while (i < d.length) {
      if (this.atLineStart && d[i] !== 0x7b && d[i] !== 0x0a && d[i] !== 0x0d && !this.strayReported) {
        this.strayReported = true;
        this.onerror?.(new SyntaxError("the server wrote a line that is not JSON-RPC on stdout"));
      }
      const nl = d.indexOf(0x0a, i);
      if (nl === -1) {
        this.atLineStart = false;
        return;
      }
      i = nl + 1;
      this.atLineStart = true;
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    // not sent: a request's sender hears it at once (the SDK's server/discover probe waits for its timeout else)
    if (this.closed) return Promise.reject(new Error("the server's connection is closed"));
    return new Promise((ok) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) return ok();
      if (stdin.write(serializeMessage(message))) ok();
      else stdin.once("drain", () => ok());
    });
  }

  /**
   * The last lines the server wrote on stderr. A cut is marked with a leading
   * "…" (redact.ts CUT), so that the redaction also hides the end of a Binding
   * value the cut split in two.
   */
  stderrTail(): string {
    return this.errCut ? CUT + this.errTail : this.errTail;
  }

  /**
   * The server's stderr to its end, within `maxMs`. After a failed call (the server is stopped next), its
   * stdin is closed — a stdio MCP server's cue to exit — and its stderr read until it ends. A server says
   * why it failed on stderr around its error reply, before it or just after, and the reply (stdout) settles
   * the call before stderr is read: a failure's envelope waits for this, so its tail holds those words.
   */
  async stderrWhole(maxMs = 200): Promise<void> {
    const err = this.child?.stderr;
    if (!err || this.errEnded || err.destroyed) return;
    try {
      this.child?.stdin?.end();
    } catch {
      // its stdin is gone already: it is exiting
    }
    await new Promise<void>((done) => {
      const timer = setTimeout(done, maxMs);
      err.once("close", () => (clearTimeout(timer), done()));
    });
  }

  private kill(): void {
    const child = this.child;
    if (!child) return;
    try {
      child.stdin?.end();
    } catch {
      /* gone */
    }
    killGroup(child.pid);
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    this.onclose?.();
  }

  /** A cancel: SIGTERM to the server's group and descendants, a grace, then SIGKILL (wrap.ts terminateTree); resolves when they are gone. */
  async terminate(): Promise<void> {
    const pid = this.child?.pid;
    if (pid) await terminateTree(pid);
    this.finish();
  }

  async close(): Promise<void> {
    this.kill();
    this.finish();
  }
}

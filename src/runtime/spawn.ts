// The one place an adapter starts a child process (the wrap adapter's bin, the
// mcp adapter's server): no shell, the exact env given, its own process group
// (so a cancel or a timeout can stop the group and every descendant, wrap.ts
// terminateTree). A sandbox around the child hooks here, once, for every kind.
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";

export interface ChildSpec {
  command: string;
  argv: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
  /** what the child reads on fds 3, 4 … (the sandbox's seccomp filter): each a pipe, fed and closed at start */
  fds?: readonly Uint8Array[];
}

/** Start `command argv…` (may throw synchronously, like spawn(); an async failure is the child's "error" event). */
export function spawnChild(spec: ChildSpec): ChildProcess {
  const fds = spec.fds ?? [];
  const base = typeof spec.stdio === "string" ? [spec.stdio, spec.stdio, spec.stdio] : spec.stdio;
  const child = spawn(spec.command, spec.argv, {
    cwd: spec.cwd,
    env: spec.env,
    shell: false,
    detached: process.platform !== "win32",
    stdio: fds.length ? [...base, ...fds.map(() => "pipe" as const)] : spec.stdio,
    windowsHide: true,
  });
  fds.forEach((data, i) => {
    const s = child.stdio[3 + i] as NodeJS.WritableStream | null | undefined;
    if (!s) return; // no process was started (its "error" says why)
    s.on("error", () => {}); // a child that exits before reading: its own failure says why
    s.end(data);
  });
  return child;
}
